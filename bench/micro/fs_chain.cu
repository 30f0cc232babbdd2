/* Microbenchmark (bench only): cycles a step of the paired kernel's FS row chain, two rows a
 * lane, a shuffle from the lane above a step, for several quantiser formulations.  One warp
 * alone (grid 1) and one warp on each of many SMs.
 * Build: nvcc -O3 -std=c++17 -arch=sm_90 -fmad=false bench/micro/fs_chain.cu */
#include <cstdio>
#include <cuda_runtime.h>

#include "../../cuda/halftone_kernel.cuh"
#include "../../cuda/halftone_rows.cuh" /* RC; set_ge and keep_bit come from halftone_ptx.cuh */

using gfxht::FULL;
using gfxht::keep_bit;
using gfxht::set_ge;
constexpr int RC = gfxht::RC;

/* V: 0 the kernel's (set, sub), 2 the same with the edge chunks' select, 3 the fused
 * multiply-adds only (no quantiser), 4 a predicate and a predicated sub, 5 one row a lane,
 * 6 as 0 without the shuffle (the lane's own row 1 instead: is the shuffle on the path?),
 * 7 as 0 with the shuffled value used a step later (a lane skew of 6 instead of 5),
 * 8 as 3 without the shuffle, 9 as 8 with one row a lane */
template <int V>
__global__ void
chain (int chunks, float th, unsigned vmask, unsigned *sink, long long *cyc)
{
  __shared__ float tile[2][32][RC + 4];
  __shared__ unsigned outq[2][32][4];
  const int lane = threadIdx.x & 31;
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < RC; i++)
      tile[j][lane][i] = (float) ((lane * 7 + i * 13 + j * 5) % 255) * (1.0f / 255.0f);
  __syncwarp ();
  const float w0 = 1.0f / 16, w1 = 5.0f / 16, w2 = 3.0f / 16, w3 = 7.0f / 16;
  /* h[r][k]: row -1 (lane above's row 1), row 0, row 1; k = 0 newest */
  float h[3][3] = {}, r1d = 0.0f;
  unsigned qf[2][4] = {}, acc = 0;
  long long t0 = clock64 ();
  for (int c = 0; c < chunks; c++)
    {
      float in[2][RC];
#pragma unroll
      for (int j = 0; j < 2; j++)
#pragma unroll
        for (int i = 0; i < RC; i++)
          in[j][i] = ((volatile float *) tile[j][lane])[i];
      unsigned qw[2][4];
#pragma unroll
      for (int i = 0; i < RC; i++)
        {
          float r1 = V == 6 || V >= 8 ? h[2][0] * 0.5f : __shfl_up_sync (FULL, h[2][0], 1);
          if (lane == 0)
            r1 = in[0][i] * 0.25f;
          float e[2];
#pragma unroll
          for (int j = 0; j < (V == 5 || V == 9 ? 1 : 2); j++)
            {
              float a = in[j][i];
              a = fmaf (w0, h[j][2], a);
              a = fmaf (w1, h[j][1], a);
              a = fmaf (w2, h[j][0], a);
              const float v = fmaf (w3, h[j + 1][0] /* own row's last error */, a);
              if (V == 3 || V >= 8)
                {
                  e[j] = v;
                  qf[j][i & 3] = __float_as_uint (v);
                }
              else if (V == 4)
                {
                  const bool up = v >= th;
                  e[j] = up ? v - 1.0f : v;
                  qf[j][i & 3] = up ? 0x3f800000u : 0u;
                }
              else
                {
                  const float s = set_ge (v, th);
                  qf[j][i & 3] = __float_as_uint (s);
                  e[j] = v - s;
                  if (V == 2)
                    e[j] = keep_bit (e[j], vmask, 1u << i);
                }
            }
          if ((i & 3) == 3)
            for (int j = 0; j < 2; j++)
              qw[j][i >> 2] = __byte_perm (__byte_perm (qf[j][0], qf[j][1], 0xea),
                                           __byte_perm (qf[j][2], qf[j][3], 0xea), 0x5410);
          /* histories: row -1 from the shuffle, rows 0 and 1 their errors */
          for (int r = 0; r < 3; r++)
            {
              h[r][2] = h[r][1];
              h[r][1] = h[r][0];
            }
          h[0][0] = V == 7 ? r1d : r1;
          r1d = r1;
          h[1][0] = e[0];
          h[2][0] = V == 5 || V == 9 ? e[0] * 0.5f : e[1];
        }
      for (int j = 0; j < 2; j++)
        *(uint4 *) outq[j][lane] = make_uint4 (qw[j][0], qw[j][1], qw[j][2], qw[j][3]);
      __syncwarp ();
      acc += outq[lane & 1][lane][c & 3];
    }
  long long t1 = clock64 ();
  sink[blockIdx.x * 32 + lane] = acc + __float_as_uint (h[2][0]);
  if (lane == 0)
    cyc[blockIdx.x] = t1 - t0;
}

template <int V>
void
run (const char *name, int grid, unsigned vmask)
{
  unsigned *sink;
  long long *cyc;
  cudaMalloc (&sink, 4096 * 32 * 4);
  cudaMalloc (&cyc, 4096 * 8);
  const int chunks = 2048;
  chain<V><<<grid, 32>>> (chunks, 0.49999997f, vmask, sink, cyc); /* warm-up */
  cudaEvent_t a, b;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  cudaEventRecord (a);
  chain<V><<<grid, 32>>> (chunks, 0.49999997f, vmask, sink, cyc);
  cudaEventRecord (b);
  cudaEventSynchronize (b);
  float ms;
  cudaEventElapsedTime (&ms, a, b);
  long long c0;
  cudaMemcpy (&c0, cyc, 8, cudaMemcpyDeviceToHost);
  printf ("%-34s grid %4d: %6.2f cycles/step  %6.2f ns/step\n", name, grid,
          (double) c0 / (chunks * RC), ms * 1e6 / (chunks * RC));
  cudaFree (sink);
  cudaFree (cyc);
}

int
main ()
{
  for (int grid : { 1, 132 })
    {
      run<0> ("current: set.ge, sub", grid, ~0u);
      run<2> ("current + edge keep_bit", grid, 0xfff7u);
      run<3> ("fma chain only", grid, ~0u);
      run<4> ("predicate, predicated sub", grid, ~0u);
      run<5> ("current, one row a lane", grid, ~0u);
      run<6> ("current, no shuffle", grid, ~0u);
      run<7> ("current, shuffle a step earlier", grid, ~0u);
      run<8> ("fma chain only, no shuffle", grid, ~0u);
      run<9> ("fma chain only, no shuffle, one row", grid, ~0u);
    }
  return 0;
}
