/* GPU quadrant IIR filter (SPEC section 3): a skewed row wavefront, one thread per row of
 * a quadrant, 32-row groups taken from an atomic ticket in start order, hand-off between
 * groups through the boundary rows themselves (64-bit words that start as a sentinel); the
 * four quadrants and all colour channels run concurrently.  3x3 masks run on a split
 * kernel (a recursion warp and 1, 2 or 4 feeder warps per group: 4 where the image has few
 * groups, else 2), other masks on one warp per group.
 * Output bit-identical to gfx_iir_filter_cpu. */
#ifndef GFX_CUDA_IIR_H
#define GFX_CUDA_IIR_H

#include "../common/iir_filter.h"
#include "../common/image.h"
#include "cuda_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Speed knobs; they never change the result.  0 = automatic. */
typedef struct {
  int warps_per_block; /* groups per block, 1..8 (auto: 4, split kernel 1) */
  int chunk;           /* columns per chunk (staging, output and hand-off unit): 8 or 16
                          (auto: 16; split kernel 16 up to 64 groups of 32 rows, else 8) */
  int method;          /* 0 auto, 1 one warp per group, 2 split (3x3 masks only; other
                          masks take 1) */
  int per_sm;          /* split: blocks resident per SM at most, 0..32 (0: all that fit) */
  int feeders;         /* split: feeder warps per group, 1, 2 or 4 (auto: 4 up to 64 groups,
                          else 2); blocks hold at most 256 threads, so at most 4 (1 feeder),
                          2 (2) or 1 (4) groups */
} gfx_cuda_iir_tuning;

/* Filters every colour channel of `in` into `out` (allocated by the caller with the same
 * layout; its alpha is left as it is).  tuning and timing may be NULL.  GFX_ERR_GPU with
 * the CUDA message on any device error; GFX_ERR_PARAM for a tuning value out of range.
 * GPUFX_CUDA_FAIL=gfx_cuda_iir makes it fail as if out of device memory. */
gfx_status gfx_cuda_iir (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out,
                         const gfx_cuda_iir_tuning *tuning, gfx_cuda_timing *timing,
                         gfx_error *err);

#ifdef __cplusplus
}
#endif

#endif
