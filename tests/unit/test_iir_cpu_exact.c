/* The fast CPU IIR (common/iir_cpu.c: quadrant pairs in vector lanes, row wavefronts,
 * sum planes) against the plain per-pixel evaluation of iir_kernels.h that the CUDA
 * kernel also runs: gfx_iir_point on windows built pixel by pixel, (float) y per quadrant,
 * gfx_iir_mean, the shared sample conversions.  Equality is bit for bit, for every mask
 * size (the square masks' unrolled paths and the general one), depth, channel layout, image shapes
 * around the progress chunk (64 columns), thread counts 1..8 (pairs split over 2 threads,
 * row wavefronts beyond) and the automatic count (one thread below 100000 pixels). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/iir.h"
#include "../../common/iir_kernels.h"
#include "check.h"
#include "support_images.h"
#include "test_iir_util.h"

static double
oracle_x (const gfx_image *in, int ch, int q, int n1, int n2)
{
  int H = in->height, W = in->width;
  n1 = n1 < 0 ? 0 : n1;
  n2 = n2 < 0 ? 0 : n2;
  int row = q >= 2 ? H - 1 - n1 : n1, col = (q == 1 || q == 2) ? W - 1 - n2 : n2;
  size_t i = ((size_t) row * W + col) * in->channels + ch;
  switch (in->depth)
    {
    case GFX_U8: return gfx_unit_from_u8 (((const uint8_t *) in->pixels)[i]);
    case GFX_U16: return gfx_unit_from_u16 (((const uint16_t *) in->pixels)[i]);
    default: return ((const float *) in->pixels)[i];
    }
}

/* The whole filter, pixel by pixel, into `out` (a clone of `in`). */
static void
oracle (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out)
{
  int H = in->height, W = in->width;
  size_t plane = (size_t) W * H;
  float *qp = malloc (sizeof *qp * plane * 4);
  double *y = malloc (sizeof *y * plane);
  gfx_image_clone (out, in, NULL);
  for (int ch = 0; ch < gfx_image_color_channels (in); ch++)
    {
      for (int q = 0; q < 4; q++)
        for (int n1 = 0; n1 < H; n1++)
          for (int n2 = 0; n2 < W; n2++)
            {
              double xw[GFX_IIR_W * GFX_IIR_W] = { 0 }, yw[GFX_IIR_W * GFX_IIR_W] = { 0 };
              for (int k1 = 0; k1 < f->m1; k1++)
                for (int k2 = 0; k2 < f->m2; k2++)
                  {
                    int i1 = n1 - k1, i2 = n2 - k2;
                    xw[k1 * GFX_IIR_W + k2] = oracle_x (in, ch, q, i1, i2);
                    yw[k1 * GFX_IIR_W + k2] = (i1 < 0 || i2 < 0) ? xw[k1 * GFX_IIR_W + k2]
                                                                 : y[(size_t) i1 * W + i2];
                  }
              double v = gfx_iir_point (f->a[q], f->b[q], f->m1, f->m2, xw, yw, 7, 7);
              y[(size_t) n1 * W + n2] = v;
              int row = q >= 2 ? H - 1 - n1 : n1, col = (q == 1 || q == 2) ? W - 1 - n2 : n2;
              qp[q * plane + (size_t) row * W + col] = (float) v;
            }
      for (size_t i = 0; i < plane; i++)
        {
          float m = gfx_iir_mean (qp[i], qp[plane + i], qp[2 * plane + i], qp[3 * plane + i]);
          size_t at = i * in->channels + ch;
          if (in->depth == GFX_U8)
            ((uint8_t *) out->pixels)[at] = gfx_unit_to_u8 (m);
          else if (in->depth == GFX_U16)
            ((uint16_t *) out->pixels)[at] = gfx_unit_to_u16 (m);
          else
            ((float *) out->pixels)[at] = m;
        }
    }
  free (qp);
  free (y);
}

static void
one_case (int w, int h, int m1, int m2, int channels, bool alpha, gfx_depth d, int threads)
{
  gfx_iir_filter f;
  iir_random_filter (&f, m1, m2, 0.8);
  gfx_image in, want, got = { 0 };
  iir_random_image (&in, w, h, channels, alpha, d);
  oracle (&f, &in, &want);
  char n[8];
  snprintf (n, sizeof n, "%d", threads);
  if (threads > 0) /* 0: the automatic choice */
    setenv ("GPUFX_THREADS", n, 1);
  gfx_error err = { 0 };
  gfx_status st = gfx_iir_filter_cpu (&f, &in, &got, NULL, &err);
  unsetenv ("GPUFX_THREADS");
  CHECK (st == GFX_OK && test_same_image (&got, &want), "cpu = per-pixel gfx_iir_point, bit for bit: "
         "%dx%d, mask %dx%d, %s, %d channels%s, %d threads (0: automatic)%s%s", w, h, m1, m2,
         gfx_depth_name (d), channels, alpha ? " (alpha)" : "", threads,
         st == GFX_OK ? "" : ": ", st == GFX_OK ? "" : err.msg);
  if (st == GFX_OK)
    gfx_image_free (&got);
  gfx_image_free (&want);
  gfx_image_free (&in);
}

int
main (void)
{
  /* Small shapes on 2 threads, all mask sizes' corners. */
  static const int shapes[][2] = { { 1, 1 }, { 1, 9 }, { 13, 1 }, { 2, 2 }, { 63, 5 },
                                   { 64, 3 }, { 65, 7 }, { 129, 2 } };
  static const int masks[][2] = { { 1, 1 }, { 3, 3 }, { 1, 7 }, { 7, 1 }, { 2, 2 }, { 7, 7 },
                                  { 3, 5 }, { 4, 3 }, { 4, 4 }, { 5, 5 }, { 6, 6 } };
  for (int s = 0; s < 8; s++)
    for (int m = 0; m < (int) (sizeof masks / sizeof masks[0]); m++)
      one_case (shapes[s][0], shapes[s][1], masks[m][0], masks[m][1], 1 + (s + m) % 4,
                (s + m) % 3 == 0 && (s + m) % 4 > 0, (gfx_depth) ((s * 8 + m) % 3), 2);
  /* 2 pairs on 1 or 2 threads, wavefronts from 4 on; then the automatic count. */
  for (int t = 1; t <= 8; t++)
    {
      one_case (197, 131, 3, 3, 1, false, GFX_F32, t);
      one_case (131, 197, 5, 4, 2, true, GFX_U16, t);
    }
  one_case (300, 70, 7, 7, 3, false, GFX_U8, 2);
  one_case (300, 70, 2, 6, 4, true, GFX_F32, 5);
  one_case (200, 200, 3, 3, 1, false, GFX_F32, 0);
  one_case (330, 310, 3, 3, 2, true, GFX_U8, 0);
  return check_exit_status ();
}
