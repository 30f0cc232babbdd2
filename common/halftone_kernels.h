/* Error-diffusion kernels and the per-pixel maths of halftoning, shared by the CPU
 * reference, the fast CPU path and the CUDA kernels (SPEC section 1).
 *
 * Diffusion is written in "pull" form: a pixel (x, y) starts from its input value and adds,
 * tap by tap in table order, weight(tap) * qerr(x - dx, y - dy) (gfx_diffuse), where qerr
 * is the quantisation error left at an already processed pixel.  This equals the classic
 * "push" form (a processed pixel spreads its error to (x + dx, y + dy), into the image in
 * place); error that would leave the image is dropped because a source outside the image
 * simply does not exist.  A fixed summation order makes every path bit-identical. */
#ifndef GFX_HALFTONE_KERNELS_H
#define GFX_HALFTONE_KERNELS_H

#include <math.h>

#include "hd.h"

typedef enum {
  GFX_KERNEL_FS = 0,
  GFX_KERNEL_JJN,
  GFX_KERNEL_STUCKI,
  GFX_KERNEL_BURKES,
  GFX_KERNEL_SIERRA,
  GFX_KERNEL_SIERRA2,
  GFX_KERNEL_SIERRA_LITE,
  GFX_KERNEL_ATKINSON,
  GFX_KERNEL_COUNT
} gfx_kernel_id;

#define GFX_MAX_TAPS 12

/* One tap: error moves from a pixel to the pixel dx columns right, dy rows down. */
typedef struct {
  signed char dx, dy;
  unsigned char weight;
} gfx_tap;

typedef struct {
  int n_taps;
  gfx_tap taps[GFX_MAX_TAPS]; /* in summation order (halftone_kernels.c) */
  int divisor;                /* weights sum to divisor (Atkinson: 6 of 8) */
  int rows;                   /* 1 + largest dy */
  int reach;                  /* largest -dx over taps with dy > 0: columns ahead needed */
} gfx_kernel;

/* The kernel table, indexed by gfx_kernel_id (defined in halftone_kernels.c). */
extern const gfx_kernel gfx_kernels[GFX_KERNEL_COUNT];

/* Columns by which row y must be ahead of row y + 1 before row y + 1 may process a pixel:
 * pixel (x, y + 1) needs (x + reach, y) done, so the wavefront lag is reach + 1
 * (2 for Floyd-Steinberg). */
static inline int
gfx_kernel_lag (const gfx_kernel *k)
{
  return k->reach + 1;
}

/* Quantises v to one of `levels` evenly spaced levels in [0, 1]: index of the level
 * nearest to v in exact arithmetic, a value exactly at the midpoint going up, clipped to
 * [0, levels - 1].  The rounded product only picks the candidate q; the test "v * top >=
 * q + 1/2" is a single fmaf, whose sign is the exact product's (an added 0.5f would round
 * values half an ulp below a midpoint up to it). */
GFX_HD int
gfx_quantize_index (float v, int levels)
{
  float top = (float) (levels - 1);
  float s = v * top;
  if (!(s >= 0.0f)) /* also catches NaN */
    return 0;
  if (s >= top)
    return levels - 1;
  float q = floorf (s);
  return (int) q + (fmaf (v, top, -(q + 0.5f)) >= 0.0f);
}

/* For two levels gfx_quantize_index (v, 2) is exactly "v >= GFX_LEVEL2_THRESHOLD". */
#define GFX_LEVEL2_THRESHOLD 0.5f

/* Value in [0, 1] of level index q. */
GFX_HD float
gfx_level_value (int q, int levels)
{
  return (float) q / (float) (levels - 1);
}

/* One tap's share added to the pixel value: v + w * e with a single rounding (fmaf, explicit
 * in every path as SPEC section 0 allows): half the operations of a multiply and an add,
 * and one fewer step on the GPU's dependent chain. */
GFX_HD float
gfx_diffuse (float v, float w, float e)
{
  return fmaf (w, e, v);
}

/* The weight of a tap as the float that every path multiplies by. */
GFX_HD float
gfx_tap_weight (int weight, int divisor)
{
  return (float) weight / (float) divisor;
}

#endif
