/* GPU local enhance (SPEC section 2): exact integer window sums (shared-memory tiles for
 * small windows, row prefix sums and column walkers for large ones), image totals by a
 * one-pass reduction, output bit-identical to the CPU path. */
#ifndef GFX_ENHANCE_CUDA_H
#define GFX_ENHANCE_CUDA_H

#include "../common/enhance_types.h"
#include "../common/image.h"
#include "cuda_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enhances `in` into `out` (allocated by the caller, same layout; alpha copied) and, when
 * mask is not NULL, the decision mask into mask (allocated by the caller: 1 channel u8).
 * The caller has validated the parameters and the input (gfx_enhance_check_input).
 * Device buffers are kept between calls and grown as needed.  timing may be NULL. */
gfx_status gfx_cuda_enhance (const gfx_image *in, gfx_image *out, gfx_image *mask,
                             const gfx_enhance_params *p, gfx_cuda_timing *timing,
                             gfx_error *err);

/* Speed knobs (0 = automatic; they never change results), for tests and benches:
 * kernel = 1 the shared-memory tile kernel (the automatic choice but for n = 3), 2 the
 * strip kernel for 8-bit data and n <= 33 (slower on an H100, kept for study), 3 the n = 3
 * kernel for 8-bit data after a separate totals kernel, 4 the fused n = 3 kernel (the
 * automatic choice there: totals and statistics in one kernel with a grid barrier, where the
 * image fits the GPU's shared memory; else as 3); cols = 4, 8 or 16 columns per
 * strip-kernel thread; strip = rows per strip-kernel block (1..4096), for the n = 3
 * kernel rows per warp (2, 4, 8 or 16: the largest not above strip, at least 2; 0 = 4),
 * for the fused kernel (kernel = 4) the rows of a band's last row group (0 = a third);
 * overlap = 1 lets the strip, n = 3 or tile kernel start while the totals kernel ends
 * (programmatic dependent launch; automatic: on for the n = 3 and tile kernels), and for the
 * fused kernel (kernel = 4) it tests the barrier's helpers: odd blocks leave their band's
 * totals to the others, which help at once; store = 1
 * makes the strip kernel store bytes directly (no staging).
 * Out-of-range values are refused. */
gfx_status gfx_cuda_enhance_set_tuning (int kernel, int cols, int strip, int overlap,
                                        int store, gfx_error *err);

/* What gfx_cuda_enhance_time measures. */
typedef enum {
  GFX_ENH_TIME_ALL = 0, /* the whole launch sequence (keys, totals, statistics, apply) */
  GFX_ENH_TIME_TOTALS,  /* the totals/threshold reduction only */
  GFX_ENH_TIME_STATS    /* the statistics kernel(s) only */
} gfx_enh_time_what;

/* Benchmark: uploads `in` once, then times `what` on the device-resident image with CUDA
 * events; median over `reps` samples of `inner` back-to-back sequences each (ms per
 * sequence).  The image must be one that gfx_cuda_enhance accepts. */
gfx_status gfx_cuda_enhance_time (const gfx_image *in, const gfx_enhance_params *p,
                                  gfx_enh_time_what what, int reps, int inner, double *ms,
                                  gfx_error *err);

/* Benchmark: the phase times of the fused n = 3 kernel (8-bit gray, n = 3, where it
 * fits) in the last of `inner` back-to-back launch sequences on the device-resident
 * image: t[b * GFX_ENH_TRACE_POINTS + k] in ns from the earliest start, for the *blocks
 * (<= max_blocks) blocks; points: start, warp 0's rows landed, the block's totals added,
 * grid totals known (the barrier passed), thresholds computed, and known to all threads,
 * first and second row group decided, end.  *blocks = 0 when the fused kernel did not
 * run. */
#define GFX_ENH_TRACE_POINTS 9
gfx_status gfx_cuda_enhance_trace (const gfx_image *in, const gfx_enhance_params *p, int inner,
                                   long long *t, int max_blocks, int *blocks, gfx_error *err);

/* Benchmark floor: median time (ms) of a device-to-device copy of `bytes` (`reps`
 * samples of `inner` copies back to back): cudaMemcpyAsync, or with by_kernel a copy
 * kernel of 16-byte words over the whole GPU. */
gfx_status gfx_cuda_copy_ms (size_t bytes, int by_kernel, int reps, int inner, double *ms,
                             gfx_error *err);

/* Benchmark floor: median time (ms) of an empty kernel of `blocks` (0: one an SM) x
 * `threads` with `smem` bytes of dynamic shared memory, launched as the fused kernel is
 * (programmatic dependent launch), `inner` back to back: what launching a grid of that
 * shape costs. */
gfx_status gfx_cuda_launch_floor_ms (int blocks, int threads, size_t smem, int reps, int inner,
                                     double *ms, gfx_error *err);

#ifdef __cplusplus
}
#endif

#endif
