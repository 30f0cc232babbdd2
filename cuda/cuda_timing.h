/* Inside cuda/ only: timing a launch sequence with CUDA events.
 *
 *   double ms;
 *   cudaError_t e = gfx_cuda_time_median ([&] {
 *       my_kernel<<<grid, block, 0, stream>>> (...);
 *       return cudaGetLastError ();
 *     }, stream, reps, &ms);
 *
 * `launch` enqueues the sequence on `stream` and returns its cudaError_t.  It is run
 * `warmup` times untimed, then `reps` samples are taken; each sample records an event,
 * runs the sequence `inner` times back to back, records a second event and waits, and
 * counts the elapsed time / inner (inner > 1 keeps the GPU fed, so the host's launch
 * latency between samples is not counted).  *ms is the median sample (the upper middle
 * one for an even count).  Events are created and destroyed here; the first error stops
 * and is returned (*ms is then 0). */
#ifndef GFX_CUDA_TIMING_H
#define GFX_CUDA_TIMING_H

#include <algorithm>
#include <vector>

#include <cuda_runtime.h>

template <class F>
cudaError_t
gfx_cuda_time_median (F &&launch, cudaStream_t stream, int reps, double *ms, int warmup = 1,
                      int inner = 1)
{
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  std::vector<double> t;
  cudaError_t e = cudaEventCreate (&e0);
  if (e == cudaSuccess)
    e = cudaEventCreate (&e1);
  for (int i = 0; e == cudaSuccess && i < warmup; i++)
    e = launch ();
  if (e == cudaSuccess)
    e = cudaStreamSynchronize (stream);
  if (inner < 1)
    inner = 1;
  for (int r = 0; e == cudaSuccess && r < reps; r++)
    {
      float v = 0.0f;
      e = cudaEventRecord (e0, stream);
      for (int i = 0; e == cudaSuccess && i < inner; i++)
        e = launch ();
      if (e == cudaSuccess)
        e = cudaEventRecord (e1, stream);
      if (e == cudaSuccess)
        e = cudaEventSynchronize (e1);
      if (e == cudaSuccess)
        e = cudaEventElapsedTime (&v, e0, e1);
      if (e == cudaSuccess)
        t.push_back ((double) v / inner);
    }
  std::sort (t.begin (), t.end ());
  *ms = e == cudaSuccess && !t.empty () ? t[t.size () / 2] : 0.0;
  if (e0)
    cudaEventDestroy (e0);
  if (e1)
    cudaEventDestroy (e1);
  return e;
}

#endif
