/* Helpers shared by the IIR unit tests: random stable filters and test images. */
#ifndef GFX_TEST_IIR_UTIL_H
#define GFX_TEST_IIR_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/iir_filter.h"
#include "../../common/image.h"

static uint64_t iir_rng_state = 0x9e3779b97f4a7c15ull;

static inline double
iir_rand01 (void)
{
  iir_rng_state ^= iir_rng_state << 13;
  iir_rng_state ^= iir_rng_state >> 7;
  iir_rng_state ^= iir_rng_state << 17;
  return (double) (iir_rng_state >> 11) / 9007199254740992.0;
}

/* A filter whose b has sum |b(k) | over k != 0 equal to `strength` < 1 (so B has no zero
 * for |z1|, |z2| >= 1: stable), and a with sum(a) = sum(b) (unit DC gain). */
static inline void
iir_random_filter (gfx_iir_filter *f, int m1, int m2, double strength)
{
  memset (f, 0, sizeof *f);
  f->m1 = m1;
  f->m2 = m2;
  int n = m1 * m2;
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    {
      double l1 = 0, sb = 1, sa = 0;
      f->b[q][0] = 1;
      for (int i = 1; i < n; i++)
        l1 += fabs (f->b[q][i] = iir_rand01 () - 0.5);
      for (int i = 1; i < n; i++)
        sb += f->b[q][i] *= (l1 > 0 ? strength / l1 : 0);
      for (int i = 0; i < n; i++)
        sa += f->a[q][i] = iir_rand01 () * 2 - 0.5;
      for (int i = 0; i < n; i++)
        f->a[q][i] *= sb / sa;
    }
}

/* A random image with some structure (a gradient plus noise), every depth and layout. */
static inline void
iir_random_image (gfx_image *img, int w, int h, int channels, bool alpha, gfx_depth depth)
{
  gfx_image_alloc (img, w, h, channels, alpha, depth, NULL);
  size_t n = gfx_image_samples (img);
  for (size_t i = 0; i < n; i++)
    {
      size_t px = i / channels;
      double v = 0.6 * ((double) (px % w) / (w + 1)) + 0.4 * iir_rand01 ();
      if (depth == GFX_U8)
        ((uint8_t *) img->pixels)[i] = (uint8_t) (v * 255.0);
      else if (depth == GFX_U16)
        ((uint16_t *) img->pixels)[i] = (uint16_t) (v * 65535.0);
      else
        ((float *) img->pixels)[i] = (float) (v * 1.2 - 0.1);
    }
}

#endif
