/* The dialog's live preview: the pixels are read on the main thread, filtered by the
 * same filter->apply() on a worker thread, and drawn back on the main thread unless
 * something changed meanwhile (a newer change cancels the older render).
 *
 * It shows what OK will do, to the pixel: a run filters the selection's bounding box (the
 * region) as one image, so the preview filters the part of the region the visible pixels
 * depend on (filter->preview_source: error diffusion needs the rows above, a window its
 * neighbours, an IIR filter the whole region), and shows its visible part; what lies
 * outside the region is shown as it is.
 *
 * The last filtered source is kept (kept_source): when the preview is moved and needs
 * the same source (source_serves: for error diffusion, also one with fewer rows), its new
 * visible part is cut from it instead of being filtered again, which for the IIR filters
 * means the whole region.  Any change made in the dialog (a parameter, even set to the
 * value it had, or a job such as stabilising a filter file) drops it, and so does turning
 * Preview off, which is how a user shows edits made in the image meanwhile.  A source
 * larger than an eighth of the memory is not kept. */
#include <string.h>
#include <unistd.h>

#include "dialog_private.h"

/* A filtered source and where it lies, shared by the dialog and the renders that reuse
 * it; its count is only changed on the main thread.  The dialog keeps one only as long as
 * nothing changed in it (forget_sources). */
struct kept_source {
  int refs;
  gfx_image filtered;
  gfx_ui_rect rect;
  gfx_backend used;
};

struct preview_render {
  gfx_dialog *dlg;
  gfx_image in, out;     /* the visible part as it is, and as it is drawn */
  gfx_image source;      /* what is filtered (no pixels: the visible part is not changed) */
  gfx_image filtered;    /* what apply() made of it */
  kept_source *reused;   /* or a kept source that serves instead */
  gfx_ui_rect visible, source_rect;
  void *values;
  guint generation;      /* dlg->generation when it started */
  gfx_filter_run run;
  gfx_progress progress;
  gfx_error err;
  gfx_status status;
  gint64 started, micros; /* from the first pixel read to the render's end */
  GThread *thread;
  guint slow_note;        /* timer that says a long render is under way */
};

#define SLOW_RENDER_MS 250 /* a render still going after this says so in the status line */

#define PREVIEW_SIZE 300 /* pixels, at most the drawable's size */
/* The largest filtered source kept: the dialog holds it as long as it is open, so an
 * eighth of the memory (512 MiB where that is unknown). */
static size_t
keep_at_most (void)
{
  const long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (size_t) pages * (size_t) page / 8 : (size_t) 512 << 20;
}

static void render_start (gfx_dialog *dlg);
static gboolean note_slow_render (gpointer data);
static gboolean render_done (gpointer data);

static void
kept_source_unref (kept_source *k)
{
  if (k && --k->refs == 0)
    {
      gfx_image_free (&k->filtered);
      g_free (k);
    }
}

/* Keeps r's filtered source for later renders, unless something changed in the dialog
 * since r started (its pixels move into the dialog's keeping). */
static void
keep_source (gfx_dialog *dlg, preview_render *r)
{
  const gfx_image *f = &r->filtered;
  if (!f->pixels || r->generation != dlg->generation
      || gfx_image_bytes (f) > keep_at_most ())
    return;
  kept_source *k = g_new0 (kept_source, 1);
  *k = (kept_source) { .refs = 1, .filtered = *f, .rect = r->source_rect,
                       .used = r->run.info.used };
  r->filtered = (gfx_image) { 0 };
  kept_source_unref (dlg->kept);
  dlg->kept = k;
}

/* Whether the result of filtering the source at have holds that of the one at want: the
 * same source, or for a filter whose rows depend only on those above, a taller one. */
static gboolean
source_serves (const gfx_filter *f, gfx_ui_rect have, gfx_ui_rect want)
{
  return have.x == want.x && have.y == want.y && have.width == want.width
         && (have.height == want.height || (f->rows_causal && have.height > want.height));
}

/* Drops the kept source and makes in-flight renders' results unfit to keep. */
static void
forget_sources (gfx_dialog *dlg)
{
  dlg->generation++;
  kept_source_unref (dlg->kept);
  dlg->kept = NULL;
}

/* Copies the pixels of src (at src_at in the drawable) that fall in dst (at dst_at). */
static void
paste (gfx_image *dst, gfx_ui_rect dst_at, const gfx_image *src, gfx_ui_rect src_at)
{
  const size_t px = gfx_depth_bytes (src->depth) * (size_t) src->channels;
  const gfx_ui_rect both = gfx_rect_intersect (dst_at, src_at);
  for (int y = both.y; y < both.y + both.height; y++)
    memcpy ((char *) dst->pixels
              + ((size_t) (y - dst_at.y) * dst->width + (both.x - dst_at.x)) * px,
            (const char *) src->pixels
              + ((size_t) (y - src_at.y) * src->width + (both.x - src_at.x)) * px,
            (size_t) both.width * px);
}

/* The visible part as OK would leave it: the filtered source pasted over it. */
static gfx_status
render (preview_render *r)
{
  if (gfx_preview_held_for_tests (&r->progress))
    return gfx_fail (&r->err, GFX_ERR_CANCELLED, "cancelled");
  gfx_status st = GFX_OK;
  if (r->source.pixels)
    st = r->dlg->proc->filter->apply (&r->source, &r->filtered, r->values, &r->run, &r->err);
  if (st == GFX_OK)
    st = gfx_image_clone (&r->out, &r->in, &r->err);
  if (st == GFX_OK && r->reused)
    paste (&r->out, r->visible, &r->reused->filtered, r->reused->rect);
  else if (st == GFX_OK && r->filtered.pixels)
    paste (&r->out, r->visible, &r->filtered, r->source_rect);
  return st;
}

static gpointer
render_thread (gpointer data)
{
  preview_render *r = data;
  r->progress.owner = pthread_self ();
  r->run.progress = &r->progress;
  r->status = render (r);
  r->micros = g_get_monotonic_time () - r->started;
  g_idle_add (render_done, r);
  return NULL;
}

static void
render_release (preview_render *r)
{
  if (r->slow_note)
    g_source_remove (r->slow_note);
  gfx_image_free (&r->in);
  gfx_image_free (&r->out);
  gfx_image_free (&r->source);
  gfx_image_free (&r->filtered);
  kept_source_unref (r->reused);
  g_free (r->values);
  g_free (r);
}

/* The selection's coverage (0..1) of the visible part, NULL when nothing is selected
 * (a run then changes the whole drawable). */
static gfloat *
selection_coverage (gint32 drawable, gfx_ui_rect visible)
{
  const gint32 image = gimp_item_get_image (drawable);
  if (gimp_selection_is_empty (image))
    return NULL;
  gint ox, oy;
  gimp_drawable_offsets (drawable, &ox, &oy);
  GeglBuffer *sel = gimp_drawable_get_buffer (gimp_image_get_selection (image));
  gfloat *cover = g_malloc ((gsize) visible.width * visible.height * sizeof (gfloat));
  gegl_buffer_get (sel, GEGL_RECTANGLE (visible.x + ox, visible.y + oy, visible.width,
                                        visible.height),
                   1.0, babl_format ("Y float"), cover, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  g_object_unref (sel);
  return cover;
}

/* What OK leaves where the selection covers a pixel by `cover` (0..1): GIMP merges the
 * filtered pixels in with its Replace layer mode, in linear RGBA float, and stores the
 * result in the drawable's format.  The same expressions here, in the same order (a blend
 * of the 8-bit perceptual samples was up to 36 levels off in a feathered edge); the result
 * goes to `display` (8 bits) into buf. */
static void
blend_as_gimp (const Babl *src, const gfx_image *in, const gfx_image *out, const gfloat *cover,
               const Babl *display, guchar *buf)
{
  const Babl *rgba = babl_format_with_space ("RGBA float", src);
  const gsize n = (gsize) out->width * out->height;
  gfloat *a = g_malloc (n * 4 * sizeof (gfloat)), *b = g_malloc (n * 4 * sizeof (gfloat));
  babl_process (babl_fish (src, rgba), in->pixels, a, (long) n);
  babl_process (babl_fish (src, rgba), out->pixels, b, (long) n);
  for (gsize i = 0; i < n; i++)
    {
      gfloat *before = a + 4 * i, *after = b + 4 * i, m = cover[i];
      gfloat alpha = (after[3] - before[3]) * m + before[3], ratio = m; /* gimp:replace */
      if (alpha)
        ratio *= after[3] / alpha;
      for (int c = 0; c < 3; c++)
        before[c] = (after[c] - before[c]) * ratio + before[c];
      before[3] = alpha;
    }
  babl_process (babl_fish (rgba, display), a, buf, (long) n);
  g_free (a);
  g_free (b);
}

/* Draws r->out, converted to 8 bits, where the selection covers it and r->in elsewhere,
 * as OK will leave the pixels.  The blend is ours: GimpDrawablePreview's own, when there
 * is a selection, reads the buffer's rows at the selection's width instead of their
 * stride (GIMP 2.10), which sheared the preview. */
static void
render_draw (gfx_dialog *dlg, preview_render *r)
{
  const Babl *src = gfx_ui_drawable_format (dlg->drawable, NULL, NULL, NULL, NULL);
  const gfx_image *o = &r->out;
  const int ch = o->channels;
  const char *layout = ch == 1 ? "Y' u8" : ch == 2 ? "Y'A u8" : ch == 3 ? "R'G'B' u8"
                                                                 : "R'G'B'A u8";
  const Babl *display = babl_format_with_space (layout, src);
  const gsize n = (gsize) o->width * o->height;
  guchar *buf = g_malloc (n * ch);
  gfloat *cover = selection_coverage (dlg->drawable, r->visible);
  if (cover)
    {
      blend_as_gimp (src, &r->in, o, cover, display, buf);
      g_free (cover);
    }
  else
    babl_process (babl_fish (src, display), o->pixels, buf, (long) n);
  static const GimpImageType types[] = { GIMP_GRAY_IMAGE, GIMP_GRAYA_IMAGE, GIMP_RGB_IMAGE,
                                         GIMP_RGBA_IMAGE };
  GimpPreviewArea *area = GIMP_PREVIEW_AREA (gimp_preview_get_area (GIMP_PREVIEW (dlg->preview)));
  gimp_preview_area_draw (area, 0, 0, o->width, o->height, types[ch - 1], buf, o->width * ch);
  gfx_preview_dump_for_tests (dlg, buf, o->width, o->height, ch, r->reused != NULL);
  g_free (buf);
}

/* Values OK would refuse, or a render that failed: the preview shows the drawable as it
 * is, not the last result, which OK would no longer give. */
static void
show_unfiltered (gfx_dialog *dlg)
{
  gimp_preview_draw (GIMP_PREVIEW (dlg->preview));
  gfx_preview_dump_original_for_tests (dlg);
}

static gboolean
render_done (gpointer data)
{
  preview_render *r = data;
  gfx_dialog *dlg = r->dlg;
  dlg->render = NULL;
  g_thread_join (r->thread);
  if (r->status == GFX_OK)
    keep_source (dlg, r);
  char backend[256];
  /* No longer "computing the preview" (a drawn preview adds its time below). */
  gfx_dialog_describe_backend (dlg, dlg->last_render, sizeof dlg->last_render);
  if (r->status == GFX_OK && !dlg->render_again
      && gimp_preview_get_update (GIMP_PREVIEW (dlg->preview)))
    {
      render_draw (dlg, r);
      if (r->run.info.used == GFX_BACKEND_GPU)
        gfx_ui_backend_describe (GFX_BACKEND_GPU, backend, sizeof backend);
      else
        gfx_ui_backend_describe (GFX_BACKEND_CPU, backend, sizeof backend);
      g_snprintf (dlg->last_render, sizeof dlg->last_render, _("%s · preview %.0f ms"),
                  backend, r->micros / 1000.0);
      gfx_dialog_set_message (dlg, NULL);
      gfx_preview_then_for_tests (dlg);
    }
  else if (r->status != GFX_OK && r->status != GFX_ERR_CANCELLED)
    {
      gchar *text = g_strdup_printf (_("Preview failed: %s"), r->err.msg);
      show_unfiltered (dlg);
      gfx_dialog_set_message (dlg, text);
      gfx_preview_dump_failure_for_tests (text);
      g_free (text);
    }
  render_release (r);
  if (dlg->render_again)
    render_start (dlg);
  return G_SOURCE_REMOVE;
}

/* What a render now would show (visible) and filter (*source, empty when no visible pixel
 * lies in the region). */
static gfx_status
render_plan (gfx_dialog *dlg, gfx_ui_rect *visible, gfx_ui_rect *source, gfx_error *err)
{
  gfx_ui_rect region = { 0, 0, 0, 0 };
  gimp_preview_get_position (GIMP_PREVIEW (dlg->preview), &visible->x, &visible->y);
  gimp_preview_get_size (GIMP_PREVIEW (dlg->preview), &visible->width, &visible->height);
  *source = (gfx_ui_rect) { 0, 0, 0, 0 };
  gfx_status st = gfx_ui_drawable_region (dlg->drawable, &region, err);
  const gfx_ui_rect part = gfx_rect_intersect (*visible, region); /* what OK would change */
  if (st == GFX_OK && part.width > 0 && part.height > 0)
    {
      const gfx_filter *f = dlg->proc->filter;
      *source = f->preview_source ? f->preview_source (dlg->values, region, part) : region;
    }
  return st;
}

static void
render_start (gfx_dialog *dlg)
{
  dlg->render_again = FALSE;
  if (dlg->busy || !gimp_preview_get_update (GIMP_PREVIEW (dlg->preview)))
    return;
  gfx_error err;
  if (gfx_params_validate (dlg->set, dlg->values, &err) != GFX_OK)
    {
      show_unfiltered (dlg);
      gfx_dialog_set_message (dlg, err.msg);
      return;
    }
  preview_render *r = g_new0 (preview_render, 1);
  r->dlg = dlg;
  r->started = g_get_monotonic_time ();
  r->generation = dlg->generation;
  gfx_status st = render_plan (dlg, &r->visible, &r->source_rect, &r->err);
  if (st == GFX_OK)
    st = gfx_ui_drawable_read (dlg->drawable, &r->visible, &r->in, &r->err);
  const kept_source *k = dlg->kept;
  if (k && source_serves (dlg->proc->filter, k->rect, r->source_rect))
    {
      r->reused = dlg->kept;
      r->reused->refs++;
      r->run.info.used = k->used;
    }
  else if (st == GFX_OK && r->source_rect.width > 0)
    st = gfx_ui_drawable_read (dlg->drawable, &r->source_rect, &r->source, &r->err);
  if (st != GFX_OK)
    {
      gfx_dialog_set_message (dlg, r->err.msg);
      render_release (r);
      return;
    }
  r->values = g_memdup2 (dlg->values, dlg->set->size);
  gfx_progress_init (&r->progress, NULL, NULL);
  dlg->render = r;
  r->thread = g_thread_new ("gpufx-preview", render_thread, r);
  r->slow_note = g_timeout_add (SLOW_RENDER_MS, note_slow_render, r);
}

/* The status line of a render that takes a while (the deblur filters a whole 24-megapixel
 * selection for several seconds): the preview shown is the last one until it ends. */
static gboolean
note_slow_render (gpointer data)
{
  preview_render *r = data;
  r->slow_note = 0;
  char backend[256];
  gfx_dialog_describe_backend (r->dlg, backend, sizeof backend);
  g_snprintf (r->dlg->last_render, sizeof r->dlg->last_render, _("%s · computing the preview…"),
              backend);
  gfx_dialog_set_message (r->dlg, NULL); /* an earlier value's refusal no longer applies */
  return G_SOURCE_REMOVE;
}

/* Stops an in-flight render and waits for it (before OK, or when the dialog closes). */
void
gfx_dialog_render_stop (gfx_dialog *dlg)
{
  preview_render *r = dlg->render;
  if (!r)
    return;
  gfx_progress_cancel (&r->progress);
  dlg->render = NULL;
  g_thread_join (r->thread);
  g_idle_remove_by_data (r);
  render_release (r);
}

void
gfx_dialog_preview_forget (gfx_dialog *dlg)
{
  gfx_dialog_render_stop (dlg);
  forget_sources (dlg);
}

void
gfx_dialog_invalidate (gfx_dialog *dlg)
{
  forget_sources (dlg);
  gimp_preview_invalidate (GIMP_PREVIEW (dlg->preview));
}

/* The in-flight render filters what a render now would: let it finish, so that the next
 * one reuses its source (cancelling it would start that work again). */
static gboolean
render_still_serves (gfx_dialog *dlg, const preview_render *r)
{
  gfx_ui_rect visible, source;
  gfx_error err;
  return !r->reused && r->source.pixels && r->generation == dlg->generation
         && render_plan (dlg, &visible, &source, &err) == GFX_OK
         && source_serves (dlg->proc->filter, r->source_rect, source);
}

static void
on_preview_invalidated (GimpPreview *preview, gfx_dialog *dlg)
{
  (void) preview;
  if (dlg->render)
    {
      /* Cancel a stale render; its completion starts the new one. */
      if (!render_still_serves (dlg, dlg->render))
        gfx_progress_cancel (&dlg->render->progress);
      dlg->render_again = TRUE;
      return;
    }
  render_start (dlg);
}

/* Preview turned off: what was filtered is forgotten, so that turning it on again shows
 * the image as it is now. */
static void
on_preview_update (GObject *preview, GParamSpec *pspec, gfx_dialog *dlg)
{
  (void) pspec;
  if (!gimp_preview_get_update (GIMP_PREVIEW (preview)))
    forget_sources (dlg);
}

/* GIMP's preview (200 px, re-applied on every style change) is small for judging a dither
 * pattern at 1:1: enlarge it up to the drawable's size, after GIMP's own handler. */
static void
on_preview_style (GtkWidget *preview, GtkStyle *previous, gfx_dialog *dlg)
{
  (void) previous;
  gint w = MIN (gimp_drawable_width (dlg->drawable), PREVIEW_SIZE);
  gint h = MIN (gimp_drawable_height (dlg->drawable), PREVIEW_SIZE);
  gtk_widget_set_size_request (gimp_preview_get_area (GIMP_PREVIEW (preview)), w, h);
}

GtkWidget *
gfx_dialog_preview_new (gfx_dialog *dlg)
{
  dlg->preview = gimp_drawable_preview_new_from_drawable_id (dlg->drawable);
  g_signal_connect_after (dlg->preview, "style-set", G_CALLBACK (on_preview_style), dlg);
  g_signal_connect (dlg->preview, "invalidated", G_CALLBACK (on_preview_invalidated), dlg);
  g_signal_connect (dlg->preview, "notify::update", G_CALLBACK (on_preview_update), dlg);
  return dlg->preview;
}
