/* GPU error diffusion (SPEC section 1): the skewed scan-line method with progress flags
 * and atomic strip tickets; output bit-identical to the CPU path. */
#ifndef GFX_CUDA_HALFTONE_H
#define GFX_CUDA_HALFTONE_H

#include "../common/image.h"
#include "cuda_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Halftones every colour channel of `in` into `out` (allocated by the caller with the same
 * layout; alpha is copied), kernel = gfx_kernel_id, levels 2..256, block_size 0 (auto) or a
 * multiple of 32 up to 1024, margin -1 (auto) or 0 up to 2^20: checked, and refused in the
 * same words, as the halftone's parameter set does (halftone_check.h).  timing may be NULL.
 * Default GPU kernel: the rows kernel (cuda/halftone_rows.cuh), where block_size / 32 is
 * the number of warps per block (capped at 4; auto 1) and every warp is its own strip;
 * GPUFX_HALFTONE_GPU=strip selects the strip kernel (block_size = rows per strip). */
gfx_status gfx_cuda_halftone (const gfx_image *in, gfx_image *out, int kernel, int levels,
                              int block_size, int margin, gfx_cuda_timing *timing,
                              gfx_error *err);

#ifdef __cplusplus
}
#endif

#endif
