/* Pixels between GIMP drawables and the core's private gfx_image copies.  The core sees
 * the drawable's own precision (u8, u16 or float) in perceptual Y'/R'G'B' encoding; the
 * result goes through the shadow buffer so GIMP applies the selection mask and records
 * one undo step. */
#include "plugin.h"

#include "../common/pool.h"

/* A drawable the core can read: one that still exists (a dialog stays open while its
 * image may be closed or the layer deleted, and every GIMP call on a gone drawable shows
 * the user an error), and not indexed (the core works on gray and RGB samples; a palette
 * has no precision to keep). */
static gboolean
refuse_unusable (gint32 drawable, gfx_error *err)
{
  if (drawable < 1) /* a script's -1 or 0 never named one */
    {
      gfx_fail (err, GFX_ERR_PARAM, "drawable %d: no layer, layer mask or channel has "
                                    "this number", (int) drawable);
      return TRUE;
    }
  if (!gimp_item_is_valid (drawable))
    {
      gfx_fail (err, GFX_ERR_INPUT, "The layer is gone (its image was closed, or the "
                                    "layer deleted): nothing was changed.");
      return TRUE;
    }
  if (!gimp_drawable_is_indexed (drawable))
    return FALSE;
  gfx_fail (err, GFX_ERR_INPUT, "Indexed images are not supported: convert the image "
                                "to RGB or Grayscale first (Image > Mode).");
  return TRUE;
}

gfx_status
gfx_ui_drawable_region (gint32 drawable, gfx_ui_rect *rect, gfx_error *err)
{
  if (refuse_unusable (drawable, err))
    return GFX_ERR_INPUT;
  gint x, y, w, h;
  const gboolean meets = gimp_drawable_mask_intersect (drawable, &x, &y, &w, &h);
  if (!meets && gimp_get_pdb_status () != GIMP_PDB_SUCCESS) /* GIMP refused the drawable */
    return gfx_fail (err, GFX_ERR_INPUT, "GIMP cannot use this drawable (%s): a layer made by "
                                         "a script must be added to its image first "
                                         "(gimp-image-insert-layer).",
                                         gimp_get_pdb_error ());
  if (!meets || w <= 0 || h <= 0)
    return gfx_fail (err, GFX_ERR_INPUT, "The selection does not intersect the layer: select "
                                         "part of the layer (or nothing) and try again.");
  *rect = (gfx_ui_rect) { x, y, w, h };
  return GFX_OK;
}

/* GIMP refuses to change the pixels of a layer group (they are its layers' composite) and
 * pixels locked on the drawable or on what holds it: a layer mask's layer, a layer's
 * groups. */
static gboolean
refuse_unchangeable (gint32 drawable, gfx_error *err)
{
  if (gimp_item_is_group (drawable))
    {
      gfx_fail (err, GFX_ERR_INPUT, "A layer group cannot be filtered: choose one of "
                                    "the layers inside it.");
      return TRUE;
    }
  for (gint32 item = drawable; item > 0;
       item = gimp_item_is_layer_mask (item) ? gimp_layer_from_mask (item)
                                             : gimp_item_get_parent (item))
    if (gimp_item_get_lock_content (item))
      {
        gfx_fail (err, GFX_ERR_INPUT, "The pixels are locked (Lock pixels in the Layers "
                                      "dialog, on this item or on a layer or group that holds "
                                      "it): unlock them and try again.");
        return TRUE;
      }
  return FALSE;
}

gfx_status
gfx_ui_drawable_target (gint32 drawable, gfx_ui_rect *rect, gfx_error *err)
{
  gfx_status st = gfx_ui_drawable_region (drawable, rect, err);
  if (st == GFX_OK && refuse_unchangeable (drawable, err))
    return GFX_ERR_INPUT;
  return st;
}

const Babl *
gfx_ui_drawable_format (gint32 drawable, gfx_depth *depth, int *channels, gboolean *has_alpha,
                        gfx_error *err)
{
  if (refuse_unusable (drawable, err)) /* a sharp reference has not been through _region */
    return NULL;
  gfx_depth d;
  GimpPrecision precision = gimp_image_get_precision (gimp_item_get_image (drawable));
  switch (precision)
    {
    case GIMP_PRECISION_U8_LINEAR:
    case GIMP_PRECISION_U8_GAMMA: d = GFX_U8; break;
    case GIMP_PRECISION_U16_LINEAR:
    case GIMP_PRECISION_U16_GAMMA: d = GFX_U16; break;
    default: d = GFX_F32; break; /* 32-bit integer, half, float, double */
    }
  gboolean gray = gimp_drawable_is_gray (drawable);
  gboolean alpha = gimp_drawable_has_alpha (drawable);
  const Babl *own = gimp_drawable_get_format (drawable);
  /* A layer mask or channel holds coverage, not colour: its stored values are filtered as
   * they are, read in the encoding GIMP stores them in, so that a 50% mask dithers to half
   * white in every precision.  That encoding is the drawable's own, not the image's: in an
   * 8-bit perceptual image a layer mask is "Y u8" (linear) but a channel "Y' u8". */
  gboolean linear_coverage
    = gimp_item_is_channel (drawable) && !babl_model_is (babl_format_get_model (own), "Y'");
  const char *layout = gray ? (alpha ? "Y'A" : linear_coverage ? "Y" : "Y'")
                            : (alpha ? "R'G'B'A" : "R'G'B'");
  const char *type = d == GFX_U8 ? "u8" : d == GFX_U16 ? "u16" : "float";
  gchar *name = g_strdup_printf ("%s %s", layout, type);
  /* Stay in the drawable's colour space: only the encoding changes, never the primaries. */
  const Babl *format = babl_format_with_space (name, own);
  g_free (name);
  if (depth)
    *depth = d;
  if (channels)
    *channels = (gray ? 1 : 3) + (alpha ? 1 : 0);
  if (has_alpha)
    *has_alpha = alpha;
  return format;
}

gfx_status
gfx_ui_drawable_read (gint32 drawable, const gfx_ui_rect *rect, gfx_image *img, gfx_error *err)
{
  gfx_depth depth;
  int channels;
  gboolean alpha;
  const Babl *format = gfx_ui_drawable_format (drawable, &depth, &channels, &alpha, err);
  if (!format)
    return err ? err->status : GFX_ERR_INPUT;
  gfx_status st = gfx_image_alloc (img, rect->width, rect->height, channels, alpha, depth, err);
  if (st != GFX_OK)
    return st;
  gint off_x, off_y; /* messages name a pixel where the pointer shows it: on the canvas */
  gimp_drawable_offsets (drawable, &off_x, &off_y);
  img->origin_x = off_x + rect->x, img->origin_y = off_y + rect->y;
  GeglBuffer *buffer = gimp_drawable_get_buffer (drawable);
  gegl_buffer_get (buffer, GEGL_RECTANGLE (rect->x, rect->y, rect->width, rect->height), 1.0,
                   format, img->pixels, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  g_object_unref (buffer);
  return GFX_OK;
}

/* out in the drawable's own format, every sample that out has as in (the filter left it)
 * holding its exact stored value.  Needed where the drawable's format is not the one the
 * core works in (linear light; half, double or 32-bit integer precision): the round trip
 * through the core's format could move such a sample by a unit in the last place.  NULL
 * and err when there is no memory for it (a large double image needs twice the core's). */
static guchar *
in_own_format_unchanged_kept (gint32 drawable, const gfx_ui_rect *rect, const Babl *work,
                              const Babl *own, const gfx_image *in, const gfx_image *out,
                              gfx_error *err)
{
  const size_t pixels = (size_t) rect->width * rect->height;
  const int comps = babl_format_get_n_components (own);
  const size_t sample_bytes = (size_t) babl_format_get_bytes_per_pixel (own) / comps;
  const size_t bytes = pixels * comps * sample_bytes;
  guchar *result = g_try_malloc (bytes);
  guchar *stored = result ? g_try_malloc (bytes) : NULL;
  if (!stored)
    {
      g_free (result);
      gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the result in the drawable's "
                                    "precision (2 x %zu MiB)", bytes >> 20);
      return NULL;
    }
  babl_process (babl_fish (work, own), out->pixels, result, (long) pixels);
  GeglBuffer *buffer = gimp_drawable_get_buffer (drawable);
  gegl_buffer_get (buffer, GEGL_RECTANGLE (rect->x, rect->y, rect->width, rect->height), 1.0,
                   own, stored, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  g_object_unref (buffer);
  gfx_image_keep_unchanged (in, out, stored, result, sample_bytes);
  g_free (stored);
  return result;
}

gfx_status
gfx_ui_drawable_write (gint32 drawable, const gfx_ui_rect *rect, const gfx_image *in,
                       const gfx_image *out, gfx_error *err)
{
  const Babl *work = gfx_ui_drawable_format (drawable, NULL, NULL, NULL, err);
  if (!work)
    return err ? err->status : GFX_ERR_INPUT;
  const Babl *own = gimp_drawable_get_format (drawable);
  guchar *kept = NULL;
  if (own != work && !(kept = in_own_format_unchanged_kept (drawable, rect, work, own, in,
                                                            out, err)))
    return GFX_ERR_NOMEM;
  GeglBuffer *shadow = gimp_drawable_get_shadow_buffer (drawable);
  gegl_buffer_set (shadow, GEGL_RECTANGLE (rect->x, rect->y, rect->width, rect->height), 0,
                   kept ? own : work, kept ? (const void *) kept : out->pixels,
                   GEGL_AUTO_ROWSTRIDE);
  gegl_buffer_flush (shadow);
  g_object_unref (shadow);
  g_free (kept);
  /* GIMP's own word, for any refusal that gfx_ui_drawable_target did not foresee. */
  if (!gimp_drawable_merge_shadow (drawable, TRUE))
    {
      gfx_fail (err, GFX_ERR_INPUT, "GIMP did not accept the result: %s",
                gimp_get_pdb_error ());
      gimp_drawable_free_shadow (drawable);
      return GFX_ERR_INPUT;
    }
  gimp_drawable_update (drawable, rect->x, rect->y, rect->width, rect->height);
  return GFX_OK;
}

gfx_status
gfx_ui_mask_times_selection (gint32 drawable, const gfx_ui_rect *rect, gfx_image *mask,
                             gfx_error *err)
{
  gint32 image = gimp_item_get_image (drawable);
  if (gimp_selection_is_empty (image))
    return GFX_OK; /* no selection: every pixel of rect was merged fully */
  const size_t pixels = (size_t) rect->width * rect->height;
  guchar *coverage = g_try_malloc (pixels);
  if (!coverage)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the selection (%zu MiB)",
                     pixels >> 20);
  gint off_x = 0, off_y = 0;
  gimp_drawable_offsets (drawable, &off_x, &off_y); /* the selection is in image coordinates */
  GeglBuffer *selection = gimp_drawable_get_buffer (gimp_image_get_selection (image));
  /* Coverage is linear, as GIMP's merge uses it (and as the mask layer is written). */
  gegl_buffer_get (selection, GEGL_RECTANGLE (off_x + rect->x, off_y + rect->y, rect->width,
                                              rect->height),
                   1.0, babl_format ("Y u8"), coverage, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  g_object_unref (selection);
  guint8 *m = mask->pixels;
  for (size_t i = 0; i < pixels; i++)
    m[i] = (guint8) ((m[i] * coverage[i] + 127) / 255);
  g_free (coverage);
  return GFX_OK;
}

gint32
gfx_ui_mask_layer_new (gint32 drawable, const gfx_ui_rect *rect, const gfx_image *mask,
                       const char *name, gfx_error *err)
{
  if (mask->channels != 1 || mask->depth != GFX_U8 || mask->width != rect->width
      || mask->height != rect->height)
    {
      gfx_fail (err, GFX_ERR_INTERNAL, "mask image does not match the processed area");
      return -1;
    }
  gint32 image = gimp_item_get_image (drawable);
  GimpImageType type = gimp_image_base_type (image) == GIMP_GRAY ? GIMP_GRAY_IMAGE
                                                                 : GIMP_RGB_IMAGE;
  gint32 layer = gimp_layer_new (image, name, rect->width, rect->height, type, 100.0,
                                 GIMP_LAYER_MODE_NORMAL);
  if (layer < 0)
    gfx_fail (err, GFX_ERR_INTERNAL, "could not create the mask layer: %s",
              gimp_get_pdb_error ());
  return layer;
}

/* Directly above the drawable in its group (a layer mask: above its layer); a channel is
 * in no layer stack, so the top of the image's.  Not GIMP's -1 ("above the active layer"):
 * the active layer may be another one, in another group. */
static void
mask_layer_place (gint32 drawable, gint32 *parent, gint *position)
{
  gint32 layer = gimp_item_is_layer_mask (drawable) ? gimp_layer_from_mask (drawable)
                                                    : drawable;
  *parent = -1;
  *position = 0;
  if (!gimp_item_is_layer (layer))
    return;
  *parent = gimp_item_get_parent (layer);
  *position = gimp_image_get_item_position (gimp_item_get_image (layer), layer);
}

/* Makes drawable (the one active before the mask layer came) the active one again:
 * inserting a layer activates it, and Filters > Repeat (Ctrl+F) or the next filter would
 * then work on the mask layer. */
static void
keep_active (gint32 drawable)
{
  gint32 image = gimp_item_get_image (drawable);
  if (gimp_item_is_layer_mask (drawable))
    {
      gint32 owner = gimp_layer_from_mask (drawable);
      gimp_image_set_active_layer (image, owner);
      gimp_layer_set_edit_mask (owner, TRUE);
    }
  else if (gimp_item_is_layer (drawable))
    gimp_image_set_active_layer (image, drawable);
  else if (gimp_item_is_channel (drawable))
    gimp_image_set_active_channel (image, drawable);
}

gfx_status
gfx_ui_mask_layer_insert (gint32 drawable, gint32 layer, const gfx_ui_rect *rect,
                          const gfx_image *mask, gfx_error *err)
{
  gint off_x = 0, off_y = 0;
  gimp_drawable_offsets (drawable, &off_x, &off_y);
  gint32 parent, active = gimp_image_get_active_drawable (gimp_item_get_image (drawable));
  gint position;
  mask_layer_place (drawable, &parent, &position);
  if (!gimp_image_insert_layer (gimp_item_get_image (drawable), layer, parent, position))
    {
      gfx_fail (err, GFX_ERR_INTERNAL, "could not add the mask layer: %s",
                gimp_get_pdb_error ());
      gimp_item_delete (layer);
      return GFX_ERR_INTERNAL;
    }
  gimp_layer_set_offsets (layer, off_x + rect->x, off_y + rect->y);
  GeglBuffer *buffer = gimp_drawable_get_buffer (layer);
  /* Linear: a partly selected pixel's value is its coverage, as Select > Save to Channel
   * would show it (0 and 255 are the same in every encoding). */
  gegl_buffer_set (buffer, GEGL_RECTANGLE (0, 0, rect->width, rect->height), 0,
                   babl_format ("Y u8"), mask->pixels, GEGL_AUTO_ROWSTRIDE);
  gegl_buffer_flush (buffer);
  g_object_unref (buffer);
  gimp_drawable_update (layer, 0, 0, rect->width, rect->height);
  keep_active (active != -1 ? active : drawable); /* a script may filter another layer */
  return GFX_OK;
}

/* Probed once: the dialog asks on every change and a CUDA probe is not free. */
gboolean
gfx_ui_gpu_usable (const char **what)
{
  static char gpu[256];
  static int probed = -1;
  if (probed < 0)
    probed = gfx_backend_gpu_usable (gpu, sizeof gpu);
  if (what)
    *what = gpu;
  return probed;
}

void
gfx_ui_backend_describe (int requested, char *buf, size_t len)
{
  const char *gpu;
  gboolean probed = gfx_ui_gpu_usable (&gpu);
  gfx_backend b = gfx_backend_effective (requested);
  gboolean usable = b != GFX_BACKEND_CPU && probed;
  if (usable)
    g_snprintf (buf, len, _("GPU: %s"), gpu);
  else if (b == GFX_BACKEND_GPU)
    g_snprintf (buf, len, _("GPU not usable: %s"), gpu);
  else
    g_snprintf (buf, len, g_dngettext (GETTEXT_PACKAGE, "CPU, %d thread", "CPU, %d threads",
                                       gfx_threads ()), gfx_threads ());
}
