/* The CUDA layer's plain C API: device discovery and shared state.  No CUDA types leak
 * out of cuda/; every function returns a gfx_status and fills the message with the CUDA
 * error text. */
#ifndef GFX_CUDA_DEVICE_H
#define GFX_CUDA_DEVICE_H

#include <stddef.h>

#include "../common/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a filter's GPU call spent its time (each filter's call fills one if asked). */
typedef struct {
  double kernel_ms; /* GPU time of the filter's kernels alone (CUDA events), transfers excluded */
  double total_ms;  /* the whole call: transfers, conversions, kernels */
} gfx_cuda_timing;

/* GFX_OK and the device's name ("NVIDIA H100 80GB HBM3, sm_90") when a usable GPU is
 * present; GFX_ERR_GPU and the reason otherwise.  The answer is cached. */
gfx_status gfx_cuda_device_name (char *name, size_t len, gfx_error *err);

/* Probes the device and creates the CUDA context (with a driver and a GPU, ~0.1-0.3 s a
 * process), so that a later call finds them ready; common/backend.c runs it on a thread of
 * its own while the caller loads its image. */
void gfx_cuda_warm_up (void);

/* Test hook: GPUFX_CUDA_FAIL=<function name> makes that GPU entry point fail as if the
 * device ran out of memory (after a real failed cudaMalloc of 2^62 bytes), so fallbacks,
 * and calls after a failed one, can be tested on any machine with a GPU. */
int gfx_cuda_fault_injected (const char *function);

/* Test hook (hold_sms.cu): gfx_cuda_hold_sms occupies all SMs but keep_free with a kernel
 * on a stream of its own until gfx_cuda_release_sms, so a filter run meanwhile cannot have
 * all its blocks resident.  Run the filter once before, so that it allocates nothing (a
 * cudaFree would wait for the held SMs). */
gfx_status gfx_cuda_hold_sms (int keep_free, gfx_error *err);
gfx_status gfx_cuda_release_sms (gfx_error *err);

#ifdef __cplusplus
}
#endif

#endif
