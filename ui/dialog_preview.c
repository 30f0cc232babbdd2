/* The dialog's live preview: the pixels are read on the main thread, filtered by the
 * same filter->apply() on a worker thread, and drawn back on the main thread unless
 * something changed meanwhile (a newer change cancels the older render).
 *
 * It shows what OK will do, to the pixel: a run filters the selection's bounding box (the
 * region) as one image, so the preview filters the part of the region the visible pixels
 * depend on (filter->preview_source: error diffusion needs the rows above, a window its
 * neighbours, an IIR filter the whole region), and shows its visible part; what lies
 * outside the region is shown as it is. */
#include <string.h>

#include "dialog_private.h"

struct preview_render {
  gfx_dialog *dlg;
  gfx_image in, out;     /* the visible part as it is, and as it is drawn */
  gfx_image source;      /* what is filtered (no pixels: the visible part is not changed) */
  gfx_ui_rect visible, source_rect;
  void *values;
  gfx_filter_run run;
  gfx_progress progress;
  gfx_error err;
  gfx_status status;
  gint64 micros;
  GThread *thread;
};

#define PREVIEW_SIZE 300 /* pixels, at most the drawable's size */

static void render_start (gfx_dialog *dlg);
static gboolean render_done (gpointer data);

/* Test hook: GPUFX_DIALOG_PREVIEW_HOLD=1 keeps every render from starting its work until
 * it is cancelled (at most a minute), so a test can press OK or change a parameter while a
 * render is in flight, whatever the machine's speed. */
static gboolean
held_for_tests (gfx_progress *p)
{
  if (!g_getenv ("GPUFX_DIALOG_PREVIEW_HOLD"))
    return FALSE;
  for (int i = 0; i < 6000 && !gfx_progress_cancelled (p); i++)
    g_usleep (10000);
  return gfx_progress_cancelled (p);
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
  if (held_for_tests (&r->progress))
    return gfx_fail (&r->err, GFX_ERR_CANCELLED, "cancelled");
  gfx_image filtered = { 0 };
  gfx_status st = GFX_OK;
  if (r->source.pixels)
    st = r->dlg->proc->filter->apply (&r->source, &filtered, r->values, &r->run, &r->err);
  if (st == GFX_OK)
    st = gfx_image_clone (&r->out, &r->in, &r->err);
  if (st == GFX_OK && filtered.pixels)
    paste (&r->out, r->visible, &filtered, r->source_rect);
  gfx_image_free (&filtered);
  return st;
}

static gpointer
render_thread (gpointer data)
{
  preview_render *r = data;
  r->progress.owner = pthread_self ();
  r->run.progress = &r->progress;
  gint64 t0 = g_get_monotonic_time ();
  r->status = render (r);
  r->micros = g_get_monotonic_time () - t0;
  g_idle_add (render_done, r);
  return NULL;
}

static void
render_release (preview_render *r)
{
  gfx_image_free (&r->in);
  gfx_image_free (&r->out);
  gfx_image_free (&r->source);
  g_free (r->values);
  g_free (r);
}

/* Test hook: GPUFX_DIALOG_PREVIEW_DUMP=FILE writes each drawn preview as 8-bit PNM
 * (P5 gray, P6 RGB, P7 otherwise) with its position in the drawable as a "# at X Y"
 * comment, so a test can compare it with the filter's result on the whole drawable; a
 * render that failed writes the status line's message instead, as a line of text. */
static void
dump_for_tests (gfx_dialog *dlg, const guchar *buf, int width, int height, int channels)
{
  const char *path = g_getenv ("GPUFX_DIALOG_PREVIEW_DUMP");
  FILE *f = path ? fopen (path, "wb") : NULL;
  if (!f)
    return;
  gint x, y;
  gimp_preview_get_position (GIMP_PREVIEW (dlg->preview), &x, &y);
  if (channels == 1 || channels == 3)
    fprintf (f, "P%d\n# at %d %d\n%d %d\n255\n", channels == 1 ? 5 : 6, x, y, width, height);
  else
    fprintf (f, "P7\n# at %d %d\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL 255\nENDHDR\n", x, y,
             width, height, channels);
  fwrite (buf, 1, (size_t) width * height * channels, f);
  fclose (f);
}

static void
dump_failure_for_tests (const char *text)
{
  const char *path = g_getenv ("GPUFX_DIALOG_PREVIEW_DUMP");
  if (path)
    g_file_set_contents (path, text, -1, NULL);
}

/* Draws r->out, converted to the 8-bit layout GimpDrawablePreview expects. */
static void
render_draw (gfx_dialog *dlg, preview_render *r)
{
  const Babl *src = gfx_ui_drawable_format (dlg->drawable, NULL, NULL, NULL, NULL);
  const gfx_image *o = &r->out;
  const char *layout = o->channels == 1 ? "Y' u8" : o->channels == 2 ? "Y'A u8"
                       : o->channels == 3 ? "R'G'B' u8" : "R'G'B'A u8";
  const Babl *dst = babl_format_with_space (layout, src);
  guchar *buf = g_malloc ((gsize) o->width * o->height * o->channels);
  babl_process (babl_fish (src, dst), o->pixels, buf, (long) o->width * o->height);
  gimp_preview_draw_buffer (GIMP_PREVIEW (dlg->preview), buf, o->width * o->channels);
  dump_for_tests (dlg, buf, o->width, o->height, o->channels);
  g_free (buf);
}

static gboolean
render_done (gpointer data)
{
  preview_render *r = data;
  gfx_dialog *dlg = r->dlg;
  dlg->render = NULL;
  g_thread_join (r->thread);
  char backend[256];
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
    }
  else if (r->status != GFX_OK && r->status != GFX_ERR_CANCELLED)
    {
      gchar *text = g_strdup_printf (_("Preview failed: %s"), r->err.msg);
      gfx_dialog_set_message (dlg, text);
      dump_failure_for_tests (text);
      g_free (text);
    }
  render_release (r);
  if (dlg->render_again)
    render_start (dlg);
  return G_SOURCE_REMOVE;
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
      gfx_dialog_set_message (dlg, err.msg);
      return;
    }
  preview_render *r = g_new0 (preview_render, 1);
  r->dlg = dlg;
  gfx_ui_rect *v = &r->visible, region = { 0, 0, 0, 0 };
  gimp_preview_get_position (GIMP_PREVIEW (dlg->preview), &v->x, &v->y);
  gimp_preview_get_size (GIMP_PREVIEW (dlg->preview), &v->width, &v->height);
  gfx_status st = gfx_ui_drawable_read (dlg->drawable, v, &r->in, &r->err);
  if (st == GFX_OK)
    st = gfx_ui_drawable_region (dlg->drawable, &region, &r->err);
  const gfx_ui_rect part = gfx_rect_intersect (*v, region); /* what OK would change of it */
  if (st == GFX_OK && part.width > 0 && part.height > 0)
    {
      const gfx_filter *f = dlg->proc->filter;
      r->source_rect = f->preview_source ? f->preview_source (dlg->values, region, part) : region;
      st = gfx_ui_drawable_read (dlg->drawable, &r->source_rect, &r->source, &r->err);
    }
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
gfx_dialog_invalidate (gfx_dialog *dlg)
{
  gimp_preview_invalidate (GIMP_PREVIEW (dlg->preview));
}

static void
on_preview_invalidated (GimpPreview *preview, gfx_dialog *dlg)
{
  (void) preview;
  if (dlg->render)
    {
      /* Cancel the stale render; its completion starts the new one. */
      gfx_progress_cancel (&dlg->render->progress);
      dlg->render_again = TRUE;
      return;
    }
  render_start (dlg);
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
  return dlg->preview;
}
