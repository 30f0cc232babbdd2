/* Benchmark hooks of the GPU IIR filter (bench/iir_gpu.c only): the two floors the
 * kernel time is compared with, measured in the same process. */
#ifndef GFX_CUDA_IIR_BENCH_H
#define GFX_CUDA_IIR_BENCH_H

#include <stddef.h>

#include "../common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chain floor: one warp runs `steps` dependent steps of the wavefront's critical path (a
 * shuffle from the lane above, then y = (s - b10 * y_above) - b01 * y_left in double), with
 * none of the other work.  Median kernel time of `reps` launches, in ms. */
gfx_status gfx_cuda_iir_chain_floor (int steps, int reps, double *ms, gfx_error *err);

/* Memory floor: a device-to-device copy kernel that reads `bytes` and writes `bytes` once
 * (16-byte vectors, all SMs).  Median kernel time of `reps` launches, in ms. */
gfx_status gfx_cuda_iir_memory_floor (size_t bytes, int reps, double *ms, gfx_error *err);

#ifdef __cplusplus
}
#endif

#endif
