#include "image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t
gfx_depth_bytes (gfx_depth depth)
{
  return depth == GFX_U8 ? 1 : depth == GFX_U16 ? 2 : 4;
}

const char *
gfx_depth_name (gfx_depth depth)
{
  return depth == GFX_U8 ? "8-bit" : depth == GFX_U16 ? "16-bit" : "32-bit float";
}

gfx_status
gfx_image_alloc (gfx_image *img, int width, int height, int channels, bool has_alpha,
                 gfx_depth depth, gfx_error *err)
{
  memset (img, 0, sizeof *img);
  if (width < 1 || height < 1)
    return gfx_fail (err, GFX_ERR_INPUT, "image size %d x %d: width and height must be at least 1",
                     width, height);
  if (width > GFX_MAX_SIDE || height > GFX_MAX_SIDE)
    return gfx_fail (err, GFX_ERR_INPUT, "image size %d x %d: a side may be at most %d pixels",
                     width, height, GFX_MAX_SIDE);
  if (channels < 1 || channels > 4)
    return gfx_fail (err, GFX_ERR_INPUT, "image has %d channels: 1 to 4 are supported", channels);
  size_t samples = (size_t) width * (size_t) height * (size_t) channels;
  if ((size_t) width > GFX_MAX_SAMPLES / (size_t) height || samples > GFX_MAX_SAMPLES)
    return gfx_fail (err, GFX_ERR_NOMEM, "image %d x %d x %d is larger than the %zu samples the "
                     "core accepts", width, height, channels, (size_t) GFX_MAX_SAMPLES);
  img->pixels = calloc (samples, gfx_depth_bytes (depth));
  if (!img->pixels)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for a %d x %d image (%zu MiB)", width,
                     height, samples * gfx_depth_bytes (depth) >> 20);
  img->width = width;
  img->height = height;
  img->channels = channels;
  img->has_alpha = has_alpha;
  img->depth = depth;
  return GFX_OK;
}

gfx_status
gfx_image_clone (gfx_image *dst, const gfx_image *src, gfx_error *err)
{
  gfx_status st = gfx_image_alloc (dst, src->width, src->height, src->channels, src->has_alpha,
                                   src->depth, err);
  if (st == GFX_OK)
    memcpy (dst->pixels, src->pixels, gfx_image_bytes (src));
  return st;
}

void
gfx_image_free (gfx_image *img)
{
  free (img->pixels);
  img->pixels = NULL;
}

void
gfx_sample_set (gfx_image *img, size_t index, float v)
{
  switch (img->depth)
    {
    case GFX_U8: ((uint8_t *) img->pixels)[index] = gfx_unit_to_u8 (v); break;
    case GFX_U16: ((uint16_t *) img->pixels)[index] = gfx_unit_to_u16 (v); break;
    default:
      ((float *) img->pixels)[index] = v;
      break;
    }
}

void
gfx_image_get_plane (const gfx_image *img, int channel, float *plane)
{
  size_t n = (size_t) img->width * img->height;
  for (size_t i = 0; i < n; i++)
    plane[i] = gfx_sample_get (img, i * img->channels + channel);
}

/* Sample s of a and b (same depth), compared as stored: floats as bits, so a sample left
 * alone is recognised whatever it holds. */
static bool
same_sample (const gfx_image *a, const gfx_image *b, size_t s)
{
  switch (a->depth)
    {
    case GFX_U8: return ((const uint8_t *) a->pixels)[s] == ((const uint8_t *) b->pixels)[s];
    case GFX_U16: return ((const uint16_t *) a->pixels)[s] == ((const uint16_t *) b->pixels)[s];
    default: return ((const uint32_t *) a->pixels)[s] == ((const uint32_t *) b->pixels)[s];
    }
}

void
gfx_image_keep_unchanged (const gfx_image *in, const gfx_image *out, const void *stored,
                          void *result, size_t sample_bytes)
{
  const size_t n = gfx_image_samples (out);
  const unsigned char *from = stored;
  unsigned char *to = result;
  for (size_t s = 0; s < n; s++)
    if (same_sample (in, out, s))
      memcpy (to + s * sample_bytes, from + s * sample_bytes, sample_bytes);
}
