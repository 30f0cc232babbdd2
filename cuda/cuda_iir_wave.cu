/* The wave quadrant kernel of gfx_cuda_iir for 3x3 masks: every warp is a 32-row group of
 * the skewed wavefront (lane l owns row r0 + l and at step t computes column c = t - l),
 * and the warps of a block are consecutive groups of one strip, handing their last rows
 * to the warp below through shared memory.
 *
 * Why this shape.  The work is double-precision arithmetic: 17 products and 16 sums a
 * pixel and quadrant, about 0.53 ms of the H100's FP64 pipes at 8192^2 without FMA.  The
 * time goes where a warp waits on its own chain or where an SM runs out of FP64 issue, so
 * the chain of a step is only what must be on it: y(1,0) from the lane above (a shuffle),
 * one product and two differences.  S_a of a whole chunk of CH steps is formed at the
 * chunk's start from the input ring, and S_old of the next step while the step runs (the
 * same split as the split kernel's recursion warp, without its feeder warps and barriers).
 *
 * Per warp, in shared memory (rings indexed by frame column):
 *   xs   the input rows r0-2 .. r0+31 as doubles, loaded a chunk ahead, row by row
 *        (coalesced), so lane l reads x(r), x(r-1), x(r-2) at column c;
 *   bnd  y of rows r0-2, r0-1 for lane 0: for warp 0 copied from the previous strip's
 *        boundary buffer in global memory (64-bit words that start as a signalling-NaN
 *        sentinel: a value is its own ready flag), else written by the warp above's lanes
 *        30 and 31 as they go;
 *   os   the (float) outputs, written out row by row once every lane has passed a block.
 * Between warps of a block: progress counters in shared memory (release/acquire), so a
 * warp starts a chunk only when the warp above has written the rows it will read, and the
 * warp above never gets a whole ring ahead.  Blocks take (strip, quadrant, channel) from an
 * atomic ticket in start order, so a block only ever waits for a block already running.
 *
 * Sums: sa3 and s_old3 (cuda_iir_sums.cuh), gfx_iir_point's products and sums in its
 * order, with the coefficients in registers; test_iir_gpu checks the bits. */
#include "cuda_iir_internal.h"
#include "cuda_iir_sums.cuh"

namespace
{

using gfx_iir::M;
constexpr unsigned FULL = 0xffffffffu;
constexpr int CH = 16;                /* steps (columns) per chunk */
constexpr int XR = 64;                /* columns of the input and output rings */
constexpr int BR = 128;               /* columns of the boundary ring */
constexpr int XROWS = 32 + M - 1;     /* rows of the input ring: 2 above the group */
constexpr int RPL = 32 / CH;          /* rows a load (or store) instruction covers */
constexpr int LOADS = XROWS / RPL;    /* load instructions a chunk */
static_assert (XROWS % RPL == 0, "whole rows a load");
constexpr unsigned long long SENTINEL = GFX_IIR_SENTINEL;

__constant__ double w_a[GFX_IIR_QUADRANTS][M * M];
__constant__ double w_b[GFX_IIR_QUADRANTS][M * M];

struct WaveWarp
{
  double xs[XROWS][XR];
  double bnd[M - 1][BR]; /* [0]: row r0 - 2, [1]: row r0 - 1 */
  float os[32][XR];
};

template <gfx_depth D> struct Sample;
template <> struct Sample<GFX_U8> { using T = uint8_t; };
template <> struct Sample<GFX_U16> { using T = uint16_t; };
template <> struct Sample<GFX_F32> { using T = float; };

template <gfx_depth D>
__device__ __forceinline__ double
sample_value (typename Sample<D>::T v)
{
  if constexpr (D == GFX_U8)
    return gfx_iir_from_u8 (v);
  else if constexpr (D == GFX_U16)
    return gfx_iir_from_u16 (v);
  else
    return v;
}

__device__ __forceinline__ void
st_relaxed (unsigned long long *p, double v)
{
  asm volatile ("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(__double_as_longlong (v))
                : "memory");
}

__device__ __forceinline__ unsigned long long
ld_relaxed (const unsigned long long *p)
{
  unsigned long long v;
  asm volatile ("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void
publish (int *p, int v)
{
  asm volatile ("st.release.cta.shared.s32 [%0], %1;" ::"r"((unsigned) __cvta_generic_to_shared (p)),
                "r"(v) : "memory");
}

__device__ __forceinline__ int
progress (const int *p)
{
  int v;
  asm volatile ("ld.acquire.cta.shared.s32 %0, [%1];" : "=r"(v)
                : "r"((unsigned) __cvta_generic_to_shared (p)) : "memory");
  return v;
}

/* Lane 0 waits until *p >= need, then the whole warp goes on (ordered after its load). */
__device__ __forceinline__ void
wait_at_least (const int *p, int need, int lane)
{
  if (lane == 0)
    while (progress (p) < need)
      ;
  __syncwarp ();
}

/* What one lane knows about its warp's place, worked out once.  Loads and output stores
 * go row by row: instruction i covers rows k = lane / CH + RPL i of the warp's rings, lane
 * % CH the column.  Offsets are in samples from the image's (the plane's) start, at frame
 * column 0. */
template <gfx_depth D>
struct Group
{
  using T = typename Sample<D>::T;
  const T *in;
  int q, r0, lane, W;
  long in0;           /* load 0's row (clamped to the image) */
  long in1;           /* load 1's row; load i > 1: in1 + (i - 1) rstep */
  long rstep;         /* RPL frame rows */
  int cstep;          /* one frame column (+-channels) */
  int loads;          /* loads whose row is inside the image */
  long out0;          /* output store 0's row in the plane */
  long ostep;         /* RPL frame rows in the plane */
  int ocstep;         /* one frame column in the plane (+-1) */
  int stores;         /* output stores whose row is inside the image */
  const unsigned long long *bnd_prev; /* warp 0: the previous strip's last two rows */
};

template <gfx_depth D>
__device__ __forceinline__ void
group_setup (const IirArgs &A, int q, int ch, int r0, int lane, Group<D> &G)
{
  const int W = A.W, H = A.H, C = A.channels, k0 = lane / CH;
  const bool down = q < 2, right = q == 0 || q == 3;
  auto image_row = [&] (int fr) { return (long) (down ? fr : H - 1 - fr); };
  const long col0 = right ? 0 : W - 1;
  const int fr0 = r0 - (M - 1) + k0, fo = r0 + k0;
  G.in = (const typename Group<D>::T *) A.in;
  G.q = q, G.r0 = r0, G.lane = lane, G.W = W;
  G.in0 = (image_row (max (fr0, 0)) * W + col0) * C + ch;
  G.in1 = (image_row (fr0 + RPL) * W + col0) * C + ch;
  G.rstep = (down ? RPL : -RPL) * (long) W * C;
  G.cstep = right ? C : -C;
  G.loads = fr0 >= H ? 0 : min (LOADS, (H - 1 - fr0) / RPL + 1);
  G.out0 = image_row (fo) * W + col0;
  G.ostep = (down ? RPL : -RPL) * (long) W;
  G.ocstep = right ? 1 : -1;
  G.stores = fo >= H ? 0 : min (32 / RPL, (H - 1 - fo) / RPL + 1);
}

/* Raw samples of the rows r0-2 .. r0+31 at frame columns c0 .. c0+CH-1 (0 outside). */
template <gfx_depth D>
__device__ __forceinline__ void
load_x (const Group<D> &G, int c0, typename Sample<D>::T (&pf)[LOADS])
{
  const int col = c0 + G.lane % CH;
  const bool in_image = col < G.W;
  const long co = (long) col * G.cstep;
#pragma unroll
  for (int i = 0; i < LOADS; i++)
    {
      pf[i] = 0;
      if (in_image && i < G.loads)
        pf[i] = __ldg (G.in + (i == 0 ? G.in0 : G.in1 + (i - 1) * G.rstep) + co);
    }
}

template <gfx_depth D>
__device__ __forceinline__ void
store_x (const Group<D> &G, WaveWarp &S, int c0, const typename Sample<D>::T (&pf)[LOADS])
{
  const int slot = (c0 + G.lane % CH) & (XR - 1), k0 = G.lane / CH;
#pragma unroll
  for (int i = 0; i < LOADS; i++)
    S.xs[k0 + RPL * i][slot] = sample_value<D> (pf[i]);
}

/* The outputs of frame columns c0 .. c0+CH-1 to the quadrant's plane, row by row. */
template <gfx_depth D>
__device__ __forceinline__ void
flush_out (const Group<D> &G, float *plane, const WaveWarp &S, int c0)
{
  const int col = c0 + G.lane % CH, k0 = G.lane / CH;
  if (c0 < 0 || col >= G.W)
    return;
  float *o = plane + G.out0 + (long) G.ocstep * col;
  const int slot = col & (XR - 1);
#pragma unroll
  for (int i = 0; i < 32 / RPL; i++)
    if (i < G.stores)
      o[i * G.ostep] = S.os[k0 + RPL * i][slot];
}

/* Warp 0: the rows above the strip at columns t0 .. t0+CH-1 (lane j < CH: column t0 + j),
 * loaded a chunk before they are needed; above the image, y = x (from the input ring). */
struct Above
{
  unsigned long long y[M - 1];
};

template <gfx_depth D>
__device__ __forceinline__ void
issue_above (const Group<D> &G, int t0, Above &ab)
{
  const int col = t0 + G.lane;
  if (G.r0 > 0 && G.lane < CH && col < G.W)
#pragma unroll
    for (int k = 0; k < M - 1; k++)
      ab.y[k] = ld_relaxed (G.bnd_prev + (size_t) k * G.W + col);
}

template <gfx_depth D>
__device__ __forceinline__ void
settle_above (const Group<D> &G, int t0, const Above &ab, WaveWarp &S)
{
  const int col = t0 + G.lane, slot = col & (BR - 1);
  const bool mine = G.lane < CH && col < G.W;
#pragma unroll
  for (int k = 0; k < M - 1; k++)
    {
      unsigned long long y = ab.y[k];
      if (G.r0 > 0)
        {
          const unsigned long long *p = G.bnd_prev + (size_t) k * G.W + col;
          while (__any_sync (FULL, mine && y == SENTINEL))
            if (mine && y == SENTINEL)
              y = ld_relaxed (p); /* each poll is an L2 round trip */
          if (mine)
            S.bnd[k][slot] = __longlong_as_double (y);
        }
      else if (mine)
        S.bnd[k][slot] = S.xs[k][col & (XR - 1)]; /* x above the image, replicated */
    }
  __syncwarp ();
}

/* A lane's registers between steps: the windows of the coming step except y(1,0) (the
 * step's own shuffle), and its S_old, formed a step early off the chain. */
struct Rec
{
  double xc1[M], xc2[M];      /* x(r - k1, c - 1), x(r - k1, c - 2) */
  double yp1, yp2;            /* y(r, c - 1), y(r, c - 2) */
  double u1, u2;              /* y(r - 1, c - 1), y(r - 1, c - 2) */
  double v0, v1, v2;          /* y(r - 2, c), y(r - 2, c - 1), y(r - 2, c - 2) */
  double so;                  /* S_old of the coming step */
};

/* S_a of the chunk's CH steps, from the input ring (EDGE: columns left of the image read
 * column 0, the replicated input). */
template <bool EDGE>
__device__ __forceinline__ void
chunk_sa (const WaveWarp &S, const double (&a)[M * M], int t0, int lane, Rec &R,
          double (&sa)[CH])
{
#pragma unroll
  for (int j = 0; j < CH; j++)
    {
      int c = t0 + j - lane;
      if (EDGE)
        c = max (c, 0);
      double xw[M][M];
#pragma unroll
      for (int k1 = 0; k1 < M; k1++)
        {
          xw[k1][0] = S.xs[lane + M - 1 - k1][c & (XR - 1)];
          xw[k1][1] = R.xc1[k1];
          xw[k1][2] = R.xc2[k1];
          R.xc2[k1] = R.xc1[k1];
          R.xc1[k1] = xw[k1][0];
        }
      sa[j] = gfx_iir::sa3 (a, xw);
    }
}

/* Steps t0 .. t0+CH-1 of one lane: the chain is y(1,0) from the lane above (a shuffle),
 * one product and two differences.  Lanes 30 and 31 hand their y on: into the ring of the
 * warp below (bnd_below), or for the block's last warp (LAST) to global memory (bnd_g).
 * EDGE: some lane is left of the image (c < 0; its window is set up at c == 0) or right
 * of it (c >= W: nothing it writes is read). */
template <bool EDGE, bool LAST>
__device__ __forceinline__ void
chunk_steps (WaveWarp &S, double *bnd_below, unsigned long long *bnd_g, int W,
             const double (&b)[M * M], int t0, int lane, const double (&sa)[CH], Rec &R)
{
#pragma unroll
  for (int j = 0; j < CH; j++)
    {
      const int c = t0 + j - lane;
      double y10 = __shfl_up_sync (FULL, R.yp1, 1);
      if (lane == 0)
        y10 = S.bnd[1][c & (BR - 1)];
      if (EDGE && c == 0) /* left of the image: x replicated, y = x */
        {
          R.yp1 = R.yp2 = S.xs[lane + 2][0];
          R.u1 = R.u2 = S.xs[lane + 1][0];
          R.v1 = R.v2 = S.xs[lane][0];
          R.so = gfx_iir::s_old3 (b, R.yp2, R.u1, R.u2, R.v0, R.v1, R.v2);
        }
      const double y = ((sa[j] - R.so) - b[M] * y10) - b[1] * R.yp1;
      S.os[lane][c & (XR - 1)] = (float) y;
      if (lane >= 32 - (M - 1) && (!EDGE || (c >= 0 && c < W)))
        {
          if (LAST)
            st_relaxed (bnd_g + c, y);
          else
            bnd_below[c & (BR - 1)] = y;
        }
      double v0n = __shfl_up_sync (FULL, y10, 1); /* lane l + 1's y(2,0) of the next step */
      if (lane == 0 && j + 1 < CH)                /* (lane 0's last one: at the next chunk) */
        v0n = S.bnd[0][(c + 1) & (BR - 1)];
      R.yp2 = R.yp1, R.yp1 = y;
      R.u2 = R.u1, R.u1 = y10;
      R.v2 = R.v1, R.v1 = R.v0, R.v0 = v0n;
      if (j + 1 < CH)
        R.so = gfx_iir::s_old3 (b, R.yp2, R.u1, R.u2, R.v0, R.v1, R.v2);
    }
}

template <bool LAST, gfx_depth D>
__device__ __forceinline__ void
run_warp (const IirArgs &A, const Group<D> &G, WaveWarp &S, int *done, int w, bool below,
          double *bnd_below, unsigned long long *bnd_g, float *plane, const double (&ra)[M * M],
          const double (&rb)[M * M])
{
  const int lane = G.lane, W = A.W, steps = W + 31;
  typename Sample<D>::T pf[LOADS];
  load_x (G, 0, pf);
  store_x (G, S, 0, pf);
  __syncwarp ();
  Rec R = {};
#pragma unroll
  for (int k1 = 0; k1 < M; k1++) /* left of the image: the input of column 0 */
    R.xc1[k1] = R.xc2[k1] = S.xs[lane + M - 1 - k1][0];
  load_x (G, CH, pf);
  Above ab = {};
  if (w == 0)
    issue_above (G, 0, ab);
  int t0 = 0;
  for (; t0 < steps; t0 += CH)
    {
      if (t0 < W)
        {
          if (w == 0)
            {
              settle_above (G, t0, ab, S);
              if (t0 + CH < W)
                issue_above (G, t0 + CH, ab);
            }
          else /* the warp above has passed column min(t0 + CH, W) - 1 with lane 31 */
            wait_at_least (&done[w - 1], min (t0 + CH, W) + 31, lane);
        }
      if (below) /* never a whole boundary ring ahead of the warp below */
        wait_at_least (&done[w + 1], t0 + CH + 32 - BR, lane);
      if (lane == 0) /* y(2,0) of the chunk's first step, now that it is there */
        R.v0 = S.bnd[0][t0 & (BR - 1)];
      R.so = gfx_iir::s_old3 (rb, R.yp2, R.u1, R.u2, R.v0, R.v1, R.v2);
      double sa[CH];
      if (t0 >= 32 && t0 + CH <= W)
        {
          chunk_sa<false> (S, ra, t0, lane, R, sa);
          chunk_steps<false, LAST> (S, bnd_below, bnd_g, W, rb, t0, lane, sa, R);
        }
      else
        {
          chunk_sa<true> (S, ra, t0, lane, R, sa);
          chunk_steps<true, LAST> (S, bnd_below, bnd_g, W, rb, t0, lane, sa, R);
        }
      __syncwarp ();
      /* After step t0 + CH - 1, lane 31 has passed column t0 + CH - 32: the block of CH
         columns at t0 - 32 is complete. */
      flush_out (G, plane, S, t0 - 32);
      store_x (G, S, t0 + CH, pf);
      load_x (G, t0 + 2 * CH, pf);
      __syncwarp ();
      if (lane == 0)
        publish (&done[w], t0 + CH);
    }
  for (int c0 = t0 - 32; c0 < W; c0 += CH) /* the blocks still in the ring */
    flush_out (G, plane, S, c0);
}

template <gfx_depth D>
__global__ void
__launch_bounds__ (32 * GFX_IIR_WAVE_MAX_WARPS) iir_wave (IirArgs A)
{
  extern __shared__ __align__ (16) unsigned char smem[];
  int *done = reinterpret_cast<int *> (smem); /* per warp: steps finished */
  __shared__ int task_s;
  WaveWarp *warps = reinterpret_cast<WaveWarp *> (smem + 16 * sizeof (int));
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (threadIdx.x == 0)
    task_s = atomicAdd (A.ticket, 1);
  if (lane == 0)
    done[w] = 0;
  __syncthreads ();
  /* Strip-major order: strip s - 1 of the same (quadrant, channel) has a smaller ticket. */
  const int task = task_s, per_strip = GFX_IIR_QUADRANTS * A.colours;
  const int strip = task / per_strip, rem = task % per_strip, strips = A.groups;
  const int q = rem % GFX_IIR_QUADRANTS, ch = rem / GFX_IIR_QUADRANTS;
  const int r0 = (strip * nw + w) * 32;
  if (r0 >= A.H) /* below the image: nothing to do; never hold the warp above back */
    {
      if (lane == 0)
        publish (&done[w], 1 << 30);
      return;
    }
  Group<D> G;
  group_setup<D> (A, q, ch, r0, lane, G);
  const size_t tq = (size_t) ch * GFX_IIR_QUADRANTS + q;
  float *plane = A.planes + tq * A.H * A.W;
  G.bnd_prev = strip > 0 ? A.bnd + ((tq * strips + strip - 1) * (M - 1)) * A.W : nullptr;
  const bool last = w == nw - 1;
  const int hand = lane >= 32 - (M - 1) ? lane - (32 - (M - 1)) : 0; /* lanes 30, 31 */
  unsigned long long *bnd_g = A.bnd + ((tq * strips + strip) * (M - 1) + hand) * A.W;
  WaveWarp &S = warps[w];
  double *bnd_below = last ? nullptr : warps[w + 1].bnd[hand];
  double ra[M * M], rb[M * M];
#pragma unroll
  for (int i = 0; i < M * M; i++)
    ra[i] = w_a[q][i], rb[i] = w_b[q][i];
  if (last)
    run_warp<true, D> (A, G, S, done, w, false, bnd_below, bnd_g, plane, ra, rb);
  else
    run_warp<false, D> (A, G, S, done, w, true, bnd_below, bnd_g, plane, ra, rb);
  if (lane == 0)
    publish (&done[w], 1 << 30);
}

} // namespace

bool
gfx_iir_wave_fits (int m1, int m2)
{
  return m1 == M && m2 == M;
}

cudaError_t
gfx_iir_wave_coefs (const double (*a)[9], const double (*b)[9], cudaStream_t s)
{
  cudaError_t e = cudaMemcpyToSymbolAsync (w_a, a, sizeof w_a, 0, cudaMemcpyHostToDevice, s);
  return e != cudaSuccess ? e
                          : cudaMemcpyToSymbolAsync (w_b, b, sizeof w_b, 0,
                                                     cudaMemcpyHostToDevice, s);
}

int
gfx_iir_wave_strips (int H, int warps)
{
  return (H + 32 * warps - 1) / (32 * warps);
}

cudaError_t
gfx_iir_wave_launch (const IirArgs &A, int warps, cudaStream_t s, int *per_sm)
{
  void (*kernel) (IirArgs) = A.depth == GFX_U8    ? iir_wave<GFX_U8>
                             : A.depth == GFX_U16 ? iir_wave<GFX_U16>
                                                  : iir_wave<GFX_F32>;
  const size_t smem = 16 * sizeof (int) + warps * sizeof (WaveWarp);
  cudaError_t e;
  *per_sm = 0;
  if ((e = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int) smem)) != cudaSuccess
      || (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (per_sm, kernel, 32 * warps, smem))
           != cudaSuccess)
    return e;
  if (*per_sm < 1)
    return cudaSuccess; /* the caller reports it */
  const int blocks = A.groups * GFX_IIR_QUADRANTS * A.colours; /* A.groups: strips */
  kernel<<<blocks, 32 * warps, smem, s>>> (A);
  return cudaGetLastError ();
}
