/* Host <-> device copies of the CUDA layer (inside cuda/ only).  Upload: through two pinned
 * bands, each filled by up to four threads while the other's DMA runs (one thread's host
 * copy set the pace).  Download: straight into the caller's pageable memory (the driver
 * stages it faster than bands plus host copies; measured on the halftone, BENCHMARKS.md).
 * A GfxStaging is not thread-safe: its owner serialises the calls. */
#ifndef GFX_CUDA_STAGING_H
#define GFX_CUDA_STAGING_H

#include <cstddef>

#include <cuda_runtime.h>

struct GfxStaging
{
  void *pin[2] = { nullptr, nullptr };
  cudaEvent_t done[2] = { nullptr, nullptr }; /* band k's DMA has read it */
};

/* src -> dst (device) on stream st; the bands are made on first use.  Returns when src
 * has been read (the caller may change it); the DMA may still run. */
cudaError_t gfx_staging_upload (GfxStaging &s, void *dst, const void *src, size_t bytes,
                                cudaStream_t st);

/* src (device) -> dst (host) on stream st, queued. */
cudaError_t gfx_staging_download (void *dst, const void *src, size_t bytes, cudaStream_t st);

/* Frees the bands and events (errors ignored); s can be used again. */
void gfx_staging_release (GfxStaging &s);

/* What each filter keeps for its calls: a non-blocking stream, three events for its own
 * timings, and the upload's bands.  Not thread-safe: its owner serialises the calls. */
struct GfxQueue
{
  cudaStream_t stream = nullptr;
  cudaEvent_t ev[3] = { nullptr, nullptr, nullptr };
  GfxStaging staging;
};

/* Makes what q lacks (the stream, the events); what was made stays on failure. */
cudaError_t gfx_queue_ensure (GfxQueue &q);

/* Waits for q's stream, then frees everything (errors ignored); q can be used again. */
void gfx_queue_release (GfxQueue &q);

#endif
