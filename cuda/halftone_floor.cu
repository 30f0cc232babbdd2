/* The measured chain floor of SPEC section 1: the Floyd-Steinberg critical path is about
 * 2 H + W dependent pixel steps; this kernel runs that many steps of the same per-pixel
 * work as the halftone kernel (input from a shared tile, the four taps in table order,
 * the levels-2 threshold, the error, the level index to a shared tile) in one warp, with
 * nothing else: no hand-off between rows, no global traffic.  No real wavefront can beat
 * it, so the halftone kernel's time over this one is its overhead. */
#include <algorithm>
#include <vector>

#include "../common/halftone_kernels.h"
#include "cuda_check.h"
#include "halftone_bench.h"

namespace
{

constexpr int C = 16;

__global__ void
floor_kernel (int steps, float w0, float w1, float w2, float w3, float th, unsigned *sink)
{
  __shared__ float tile[32][C + 1];
  __shared__ unsigned char q[32][C + 4];
  const int lane = threadIdx.x;
  for (int i = 0; i < C; i++)
    tile[lane][i] = (float) ((lane * 7 + i * 13) % 255) * (1.0f / 255.0f);
  __syncwarp ();
  /* eL is the dependent chain; a, b, c stand for the row above's errors, which in the
   * halftone kernel arrive off the chain (shuffles a step ahead). */
  float eL = 0.0f, a = 0.0f, b = 0.0f, c = 0.0f;
  unsigned acc_q = 0;
  for (int s = 0; s < steps; s += C)
    {
#pragma unroll
      for (int i = 0; i < C; i++)
        {
          float in = tile[lane][i];
          float acc = w0 * eL;
          acc = acc + w1 * a;
          acc = acc + w2 * b;
          acc = acc + w3 * c;
          float v = in + acc;
          bool up = v >= th;
          float e = up ? v - 1.0f : v;
          q[lane][i] = up ? 255 : 0;
          c = b;
          b = a;
          a = __shfl_xor_sync (0xffffffffu, eL, 1); /* a value from another lane, off the chain */
          eL = e;
        }
      __syncwarp ();
      acc_q += q[lane][lane & 15];
    }
  sink[lane] = acc_q + __float_as_uint (eL);
}

} // namespace

extern "C" gfx_status
gfx_cuda_halftone_floor (int steps, int reps, double *ms, gfx_error *err)
{
  gfx_status status = GFX_OK;
  unsigned *sink = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  std::vector<float> times;
  const gfx_kernel *g = &gfx_kernels[GFX_KERNEL_FS];
  float w[4];
  for (int t = 0; t < 4; t++)
    w[t] = gfx_tap_weight (g->taps[t].weight, g->divisor);
  CUDA_TRY (cudaMalloc (&sink, 32 * sizeof (unsigned)));
  CUDA_TRY (cudaEventCreate (&e0));
  CUDA_TRY (cudaEventCreate (&e1));
  for (int r = 0; r <= reps; r++) /* the first launch warms up */
    {
      float t = 0.0f;
      CUDA_TRY (cudaEventRecord (e0));
      floor_kernel<<<1, 32>>> (steps, w[0], w[1], w[2], w[3], 0.49999997f, sink);
      CUDA_TRY_LAUNCH ();
      CUDA_TRY (cudaEventRecord (e1));
      CUDA_TRY (cudaEventSynchronize (e1));
      CUDA_TRY (cudaEventElapsedTime (&t, e0, e1));
      if (r)
        times.push_back (t);
    }
  std::sort (times.begin (), times.end ());
  *ms = times.empty () ? 0.0 : times[times.size () / 2];
fail:
  if (e0)
    cudaEventDestroy (e0);
  if (e1)
    cudaEventDestroy (e1);
  if (sink)
    cudaFree (sink);
  return status;
}
