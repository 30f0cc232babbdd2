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

typedef struct {
  double kernel_ms; /* GPU time of the kernels alone (CUDA events), transfers excluded */
  double total_ms;  /* the whole call, transfers included */
} gfx_cuda_enhance_timing;

/* Enhances `in` into `out` (allocated by the caller, same layout; alpha copied) and, when
 * mask is not NULL, the decision mask into mask (allocated by the caller: 1 channel u8).
 * The caller has validated the parameters and the input (gfx_enhance_check_input).
 * Device buffers are kept between calls and grown as needed.  timing may be NULL. */
gfx_status gfx_cuda_enhance (const gfx_image *in, gfx_image *out, gfx_image *mask,
                             const gfx_enhance_params *p, gfx_cuda_enhance_timing *timing,
                             gfx_error *err);

/* Frees the buffers kept between calls. */
void gfx_cuda_enhance_release (void);

/* Benchmark floor: median time (ms) of `reps` device-to-device copies of `bytes`. */
gfx_status gfx_cuda_copy_ms (size_t bytes, int reps, double *ms, gfx_error *err);

#ifdef __cplusplus
}
#endif

#endif
