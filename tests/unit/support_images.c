/* Synthetic test images shared by the unit tests (support_images.h). */
#include "support_images.h"

#include <stdint.h>
#include <string.h>

#include "test_rng.h"

void
test_fill_patches (gfx_image *img, unsigned *state, int cw, int ch, int float_outliers)
{
  size_t n = gfx_image_samples (img);
  for (size_t s = 0; s < n; s++)
    {
      size_t i = s / img->channels;
      int x = (int) (i % img->width), y = (int) (i / img->width);
      double v = 0.7 * (x + 2 * y) / (img->width + 2 * img->height) + 0.15 * test_uniform (state);
      if (((x / cw) + (y / ch)) % 3 == 0)
        v *= 0.2;
      if (float_outliers && img->depth == GFX_F32 && test_uniform (state) < 0.01)
        v = 3.0 * test_uniform (state) - 1.0;
      if (img->depth == GFX_U8)
        ((uint8_t *) img->pixels)[s] = (uint8_t) (v > 1 ? 255 : v * 255.0);
      else if (img->depth == GFX_U16)
        ((uint16_t *) img->pixels)[s] = (uint16_t) (v > 1 ? 65535 : v * 65535.0);
      else
        ((float *) img->pixels)[s] = (float) v;
    }
}

bool
test_same_image (const gfx_image *a, const gfx_image *b)
{
  return a->pixels && b->pixels && a->width == b->width && a->height == b->height
         && a->channels == b->channels && a->depth == b->depth
         && memcmp (a->pixels, b->pixels, gfx_image_bytes (a)) == 0;
}
