/* The reference halftone: one channel at a time, raster order, written for clarity.
 *
 * Per pixel (x, y) of a channel, with qerr the error left at already processed pixels:
 *   v    = input (x, y)                       (as gfx_sample_get gives it), then for each
 *          of the kernel's taps t in table order, in float:
 *   v    = gfx_diffuse (v, gfx_tap_weight (w_t, divisor), qerr (x - dx_t, y - dy_t))
 *          (v + w e rounded once; a source outside the image adds nothing)
 *   q    = gfx_quantize_index (v, levels)
 *   qerr = v - gfx_level_value (q, levels)    (kept in float, not clipped)
 *   out  = gfx_level_value (q, levels)        (stored with gfx_sample_set)
 * The fast CPU path and the CUDA path must reproduce this bit for bit. */
#include <stdlib.h>

#include "halftone_internal.h"
#include "halftone_kernels.h"

static float
with_error (float v, const gfx_kernel *k, const float *qerr, int width, int x, int y)
{
  for (int t = 0; t < k->n_taps; t++)
    {
      int sx = x - k->taps[t].dx, sy = y - k->taps[t].dy;
      if (sx >= 0 && sx < width && sy >= 0)
        v = gfx_diffuse (v, gfx_tap_weight (k->taps[t].weight, k->divisor),
                         qerr[(size_t) sy * width + sx]);
    }
  return v;
}

static void
halftone_channel (const gfx_image *in, gfx_image *out, int channel, const gfx_kernel *k,
                  int levels, float *qerr)
{
  for (int y = 0; y < in->height; y++)
    for (int x = 0; x < in->width; x++)
      {
        size_t pixel = (size_t) y * in->width + x;
        size_t index = pixel * in->channels + channel;
        float v = with_error (gfx_sample_get (in, index), k, qerr, in->width, x, y);
        int q = gfx_quantize_index (v, levels);
        qerr[pixel] = v - gfx_level_value (q, levels);
        gfx_sample_set (out, index, gfx_level_value (q, levels));
      }
}

gfx_status
gfx_halftone_ref (const gfx_image *in, gfx_image *out, int kernel, int levels, gfx_error *err)
{
  float *qerr = malloc (sizeof *qerr * (size_t) in->width * (size_t) in->height);
  if (!qerr)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the error plane of a %d x %d image",
                     in->width, in->height);
  for (int c = 0; c < gfx_image_color_channels (in); c++)
    halftone_channel (in, out, c, &gfx_kernels[kernel], levels, qerr);
  free (qerr);
  return GFX_OK;
}
