/* The measured chain floor of SPEC section 1: the Floyd-Steinberg critical path is about
 * 2 H + W dependent pixel steps; this kernel runs that many steps of the same per-pixel
 * work as the halftone kernel (input from a shared tile, the four taps in table order,
 * the levels-2 threshold, the error, the level index to a shared tile) in one warp, with
 * nothing else: no hand-off between rows, no global traffic.  No real wavefront can beat
 * it, so the halftone kernel's time over this one is its overhead. */
#include "../common/halftone_kernels.h"
#include "cuda_check.h"
#include "cuda_timing.h"
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
  const gfx_kernel *g = &gfx_kernels[GFX_KERNEL_FS];
  float w[4];
  for (int t = 0; t < 4; t++)
    w[t] = gfx_tap_weight (g->taps[t].weight, g->divisor);
  auto launch = [&] {
    floor_kernel<<<1, 32>>> (steps, w[0], w[1], w[2], w[3], 0.49999997f, sink);
    return cudaPeekAtLastError ();
  };
  *ms = 0.0;
  CUDA_TRY (cudaMalloc (&sink, 32 * sizeof (unsigned)));
  /* median of reps single launches after one warm-up */
  CUDA_TRY (gfx_cuda_time_median (launch, 0, reps, ms));
fail:
  if (sink)
    cudaFree (sink);
  return status;
}
