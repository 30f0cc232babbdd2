/* The floors of the IIR benchmark (cuda_iir_bench.h). */
#include <algorithm>
#include <vector>

#include "copy_floor.cuh"
#include "cuda_check.h"
#include "cuda_iir_bench.h"

namespace
{

__global__ void
chain_kernel (int steps, double s, double b10, double b01, double *out)
{
  double y = threadIdx.x * 1e-3;
  for (int t = 0; t < steps; t++)
    {
      double above = __shfl_up_sync (0xffffffffu, y, 1);
      y = (s - b10 * above) - b01 * y;
    }
  out[threadIdx.x] = y;
}

/* Times `launch` reps times with events; median in ms. */
template <typename F>
gfx_status
median_ms (F launch, int reps, double *ms, gfx_error *err)
{
  gfx_status status = GFX_OK;
  cudaEvent_t e0 = NULL, e1 = NULL;
  std::vector<double> t;
  CUDA_TRY (cudaEventCreate (&e0));
  CUDA_TRY (cudaEventCreate (&e1));
  launch (); /* warm-up */
  CUDA_TRY_LAUNCH ();
  for (int r = 0; r < reps; r++)
    {
      float v = 0;
      CUDA_TRY (cudaEventRecord (e0));
      launch ();
      CUDA_TRY_LAUNCH ();
      CUDA_TRY (cudaEventRecord (e1));
      CUDA_TRY (cudaEventSynchronize (e1));
      CUDA_TRY (cudaEventElapsedTime (&v, e0, e1));
      t.push_back (v);
    }
  std::sort (t.begin (), t.end ());
  *ms = t.empty () ? 0 : t[t.size () / 2];
fail:
  if (e0)
    cudaEventDestroy (e0);
  if (e1)
    cudaEventDestroy (e1);
  return status;
}

} // namespace

extern "C" gfx_status
gfx_cuda_iir_chain_floor (int steps, int reps, double *ms, gfx_error *err)
{
  gfx_status status = GFX_OK;
  double *d = NULL;
  CUDA_TRY (cudaMalloc (&d, 32 * sizeof (double)));
  status = median_ms ([&] { chain_kernel<<<1, 32>>> (steps, 0.5, 0.25, 0.25, d); }, reps, ms,
                      err);
fail:
  cudaFree (d);
  return status;
}

extern "C" gfx_status
gfx_cuda_iir_memory_floor (size_t bytes, int reps, double *ms, gfx_error *err)
{
  gfx_status status = GFX_OK;
  int4 *a = NULL, *b = NULL;
  size_t n = (bytes + 15) / 16;
  int device = 0, sms = 0;
  CUDA_TRY (cudaGetDevice (&device));
  CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_TRY (cudaMalloc (&a, n * 16));
  CUDA_TRY (cudaMalloc (&b, n * 16));
  CUDA_TRY (cudaMemset (a, 1, n * 16));
  status = median_ms ([&] { floor_copy (a, b, n, sms, 0); }, reps, ms, err);
fail:
  cudaFree (a);
  cudaFree (b);
  return status;
}
