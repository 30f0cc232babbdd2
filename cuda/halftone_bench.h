/* Benchmark hooks of the GPU halftone (bench/halftone_gpu.c only). */
#ifndef GFX_HALFTONE_BENCH_H
#define GFX_HALFTONE_BENCH_H

#include "../common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The chain floor: one warp runs `steps` dependent pixel steps of Floyd-Steinberg with the
 * same per-step work as the halftone kernel (taps, threshold, error), with no hand-off
 * between rows.  Fills the median kernel time of `reps` launches in milliseconds. */
gfx_status gfx_cuda_halftone_floor (int steps, int reps, double *ms, gfx_error *err);

#ifdef __cplusplus
}
#endif

#endif
