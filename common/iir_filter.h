/* The four-quadrant IIR filter of SPEC section 3: each quadrant q (0..3 for q1..q4) has
 * an M1 x M2 numerator a and denominator b (row-major, b[0] = b(0,0) = 1), in the
 * quadrant's own frame (as if its image were flipped into q1's down-right direction). */
#ifndef GFX_IIR_FILTER_H
#define GFX_IIR_FILTER_H

#define GFX_IIR_MAX_MASK 7
#define GFX_IIR_QUADRANTS 4

typedef struct {
  int m1, m2; /* mask rows and columns, 1..GFX_IIR_MAX_MASK */
  double a[GFX_IIR_QUADRANTS][GFX_IIR_MAX_MASK * GFX_IIR_MAX_MASK];
  double b[GFX_IIR_QUADRANTS][GFX_IIR_MAX_MASK * GFX_IIR_MAX_MASK];
} gfx_iir_filter;

#endif
