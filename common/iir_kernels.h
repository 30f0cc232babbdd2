/* The per-pixel maths of the quadrant IIR filter: the reference order of operations.  The
 * CUDA kernels call gfx_iir_point; the CPU path (iir_cpu.c's span) runs the same operations
 * in the same order two lanes at a time, and tests/unit/test_iir_cpu_exact checks it equal
 * to gfx_iir_point bit for bit.
 *
 * Windows: w[k1 * GFX_IIR_W + k2] holds the value at (n1 - k1, n2 - k2) in the quadrant's
 * own frame (q1's down-right direction), as a double.  Outside the image x is the
 * edge-replicated input and y equals that x.
 *
 * Fixed summation order of one output (double, no FMA: -ffp-contract=off, -fmad=false):
 *   S_a   = rows r1 = 0..M1-1 in turn, S_a = S_a + row (S_a starts with row 0), where
 *           row = a(r1,0) x(r1,0) + a(r1,1) x(r1,1) + ... left to right;
 *   S_old = 0 + the rows k1 = 0..M1-1 in turn, row = 0 + b(k1,k2) y(k1,k2) for k2 = 0..M2-1
 *           left to right, skipping (0,0), (0,1) and (1,0);
 *   y     = ((S_a - S_old) - b(1,0) y(1,0)) - b(0,1) y(0,1)   (each term only if it exists).
 * The two newest outputs come last, which keeps the dependent chain of the GPU wavefront
 * short (everything else is known a step earlier).  The recursion runs on these double
 * outputs; each quadrant's output image is (float) y. */
#ifndef GFX_IIR_KERNELS_H
#define GFX_IIR_KERNELS_H

#include <stdint.h>

#include "hd.h"
#include "iir_filter.h"
#include "sample_convert.h" /* the samples read and stored, as the core does */

#define GFX_IIR_W GFX_IIR_MAX_MASK /* row stride of the windows */

#ifdef __CUDA_ARCH__ /* device pass only: host compilers do not know the pragma */
#define GFX_IIR_UNROLL _Pragma ("unroll")
#else
#define GFX_IIR_UNROLL
#endif

/* mr, mc: compile-time bounds (>= m1, m2) the GPU unrolls over (7: any mask). */
GFX_HD double
gfx_iir_point (const double *a, const double *b, int m1, int m2, const double *xw,
               const double *yw, int mr, int mc)
{
  double s_a = 0.0, s_old = 0.0;
  GFX_IIR_UNROLL
  for (int r1 = 0; r1 < mr; r1++)
    {
      if (r1 >= m1)
        break;
      double row = a[r1 * m2] * xw[r1 * GFX_IIR_W];
      double old = 0.0;
      GFX_IIR_UNROLL
      for (int r2 = 1; r2 < mc; r2++)
        if (r2 < m2)
          row = row + a[r1 * m2 + r2] * xw[r1 * GFX_IIR_W + r2];
      GFX_IIR_UNROLL
      for (int k2 = 0; k2 < mc; k2++)
        if (k2 < m2 && (r1 > 1 || (r1 == 1 && k2 > 0) || (r1 == 0 && k2 > 1)))
          old = old + b[r1 * m2 + k2] * yw[r1 * GFX_IIR_W + k2];
      s_a = r1 == 0 ? row : s_a + row;
      s_old = s_old + old;
    }
  double y = s_a - s_old;
  if (m1 > 1)
    y = y - b[m2] * yw[GFX_IIR_W];
  if (m2 > 1)
    y = y - b[1] * yw[1];
  return y;
}

/* The filter's output: the mean of the four quadrant outputs, in this order, in float. */
GFX_HD float
gfx_iir_mean (float q1, float q2, float q3, float q4)
{
  return ((q1 + q2) + (q3 + q4)) * 0.25f;
}

#endif
