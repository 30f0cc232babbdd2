/* The halftone's parameter rules for callers that hold the values apart, such as the GPU
 * path's C API (cuda_halftone.h): the checks and messages of gfx_halftone_param_set, so a
 * value is refused in the same words wherever it comes from. */
#ifndef GFX_HALFTONE_CHECK_H
#define GFX_HALFTONE_CHECK_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

gfx_status gfx_halftone_check_values (int kernel, int levels, int block_size, int margin,
                                      gfx_error *err);

#ifdef __cplusplus
}
#endif

#endif
