/* The measured chain floor of SPEC section 1: the Floyd-Steinberg critical path is about
 * 2 H + W dependent pixel steps; this kernel runs that many steps of the same per-pixel
 * work as the halftone kernel (input from a shared tile plus the four taps in table order,
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
  /* eL is the dependent chain; a, b, c stand for the row above's errors, kept off it here.
   * (The critical path also takes (-1,1) taps, a made one step before, one fused
   * multiply-add further from the quantiser than eL: the floor takes the shorter edge, a
   * lower bound.) */
  float eL = 0.0f, a = 0.0f, b = 0.0f, c = 0.0f;
  unsigned acc_q = 0;
  for (int s = 0; s < steps; s += C)
    {
      /* the chunk's inputs in registers first, as the halftone kernel has them: volatile,
       * so the compiler does not move a load next to its use, onto the chain */
      float in[C];
#pragma unroll
      for (int i = 0; i < C; i++)
        in[i] = ((volatile float *) tile[lane])[i];
#pragma unroll
      for (int i = 0; i < C; i++)
        {
          /* the input, then the taps in table order: (1,1) c, (0,1) b, (-1,1) a, (1,0) eL */
          float v = in[i];
          v = gfx_diffuse (v, w0, c);
          v = gfx_diffuse (v, w1, b);
          v = gfx_diffuse (v, w2, a);
          v = gfx_diffuse (v, w3, eL);
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
    return cudaGetLastError ();
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
