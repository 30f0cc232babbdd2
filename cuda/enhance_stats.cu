/* The local-enhance statistics kernels: exact n x n window sums of k and k^2, then the
 * integer decision of enhance_math.h.  Small windows (r <= TILE_MAX_R): one kernel per
 * 64 x 64 tile, the tile and its halo loaded once into shared memory, horizontal then
 * vertical sliding sums there.  Large windows: per-row prefix sums (extended
 * periodically for the reflected border), then one thread per column walking a strip of
 * rows with a running vertical sum.  Both cost O(1) per pixel in n. */
#include "enhance_cuda_internal.h"

namespace {

constexpr int TILE_W = 64, TILE_H = 64, TILE_THREADS = 256, TILE_MAX_R = 16;

constexpr int VSEG = TILE_H / (TILE_THREADS / TILE_W);    /* rows per vertical slide */
constexpr int WALK_THREADS = 128, WALK_STRIP = 128; /* rows per walker: parallelism */
constexpr int LOAD_BATCH = 4, LOAD_COLS = (TILE_W + 2 * TILE_MAX_R + 31) / 32;

template <class S2, class KT>
__device__ __forceinline__ S2
sq (KT k)
{
  return (S2) k * (S2) k; /* negative fixed-point keys: (2^64 - a)^2 = a^2 mod 2^64 */
}

/* The same decisions from the thresholds as they are (gfx_enh_decide64/128): the walk
 * kernel's choice, measured 7% faster there than the range tests (n = 255, H100), while
 * the tile kernel is 2.5% faster with the range tests. */
__device__ __forceinline__ int
decide_th (uint32_t n, uint32_t s1, uint32_t s2, const gfx_enh_thresholds &th)
{
  return gfx_enh_decide64 (s1, gfx_enh_d_u32 (n, s1, s2), &th);
}

__device__ __forceinline__ int
decide_th (uint32_t n, uint32_t s1, uint64_t s2, const gfx_enh_thresholds &th)
{
  return gfx_enh_decide64 (s1, gfx_enh_d_u64 (n, s1, s2), &th);
}

__device__ __forceinline__ int
decide_th (uint32_t n, int64_t s1, uint64_t s2, const gfx_enh_thresholds &th)
{
  return gfx_enh_decide128 (s1, gfx_enh_d_i64 (n, s1, s2), &th);
}

/* The decision from the window sums: 8/16-bit keys by range tests (enh_range, prepared once
 * a thread), fixed-point float keys by gfx_enh_decide128. */
__device__ __forceinline__ int
decide (uint32_t n, uint32_t s1, uint32_t s2, const EnhRange &q, const gfx_enh_thresholds &)
{
  return enh_range_decide (s1, gfx_enh_d_u32 (n, s1, s2), q);
}

__device__ __forceinline__ int
decide (uint32_t n, uint32_t s1, uint64_t s2, const EnhRange &q, const gfx_enh_thresholds &)
{
  return enh_range_decide (s1, gfx_enh_d_u64 (n, s1, s2), q);
}

__device__ __forceinline__ int
decide (uint32_t n, int64_t s1, uint64_t s2, const EnhRange &, const gfx_enh_thresholds &th)
{
  return decide_th (n, s1, s2, th);
}

/* Writes pixel i's decision d (key v): the decision, or the gained or kept value (the gain
 * table: with LUT8, lut8 in shared memory for 8-bit keys, else sink.lut) and the mask. */
template <int MODE, bool LUT8 = true, class KT>
__device__ __forceinline__ void
emit (const EnhSink<KT> &sink, const uint8_t *lut8, size_t i, KT v, int d)
{
  if constexpr (MODE == ENH_SINK_DEC)
    sink.dec[i] = (uint8_t) d;
  else
    {
      if constexpr (LUT8 && sizeof (KT) == 1)
        sink.out[i] = d ? (KT) lut8[v] : v;
      else
        sink.out[i] = d ? (KT) __ldg (&sink.lut[v]) : v;
      if constexpr (MODE == ENH_SINK_OUT_MASK)
        sink.mask[i] = d ? 255 : 0;
    }
}

/* 8-bit keys' gain table into shared memory (the block's threads; a barrier follows). */
template <int MODE, class KT>
__device__ __forceinline__ void
load_lut8 (const EnhSink<KT> &sink, uint8_t *lut8)
{
  if constexpr (MODE != ENH_SINK_DEC && sizeof (KT) == 1)
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
      lut8[i] = (uint8_t) sink.lut[i];
}

/* Columns per horizontal slide (8, 16 or 32): each slide first sums 2r + 1 keys, so the
 * length that makes the busiest thread's work, rounds x (2r + length), least. */
__host__ __device__ inline int
tile_hseg (int r)
{
  int best = 8, cost = 1 << 30;
  for (int seg = 8; seg <= TILE_W / 2; seg *= 2)
    {
      int jobs = (TILE_H + 2 * r) * (TILE_W / seg);
      int c = (jobs + TILE_THREADS - 1) / TILE_THREADS * (2 * r + seg);
      if (c < cost)
        best = seg, cost = c;
    }
  return best;
}

/* Shared-memory row pitch of the input tile, in elements: an odd number of 32-bit words,
 * so lanes reading the same column of consecutive rows hit different banks. */
__host__ __device__ inline int
tile_in_pitch (int tw2, int key_bytes)
{
  int words = ((tw2 * key_bytes + 3) / 4) | 1;
  return words * 4 / key_bytes;
}

template <class KT>
__host__ __device__ inline size_t
tile_smem_bytes (int r)
{
  typedef typename EnhSums<KT>::S1 S1;
  typedef typename EnhSums<KT>::S2 S2;
  int th2 = TILE_H + 2 * r, ph = TILE_W + 1;
  return (size_t) th2 * ph * (sizeof (S1) + sizeof (S2))
         + (size_t) th2 * tile_in_pitch (TILE_W + 2 * r, sizeof (KT)) * sizeof (KT);
}

template <class KT, int MODE>
__global__ void __launch_bounds__ (TILE_THREADS)
tile_kernel (const KT *__restrict__ key, int w, int h, int r, const EnhState *st,
             EnhSink<KT> sink)
{
  __shared__ uint8_t lut8[256];
  typedef typename EnhSums<KT>::S1 S1;
  typedef typename EnhSums<KT>::S2 S2;
  extern __shared__ __align__ (16) unsigned char smem[];
  load_lut8<MODE> (sink, lut8); /* visible after the first barrier below */
  const int tw2 = TILE_W + 2 * r, th2 = TILE_H + 2 * r, ph = TILE_W + 1;
  const int pin = tile_in_pitch (tw2, sizeof (KT));
  S2 *h2 = (S2 *) smem; /* horizontal sums, th2 rows x TILE_W (pitch ph) */
  S1 *h1 = (S1 *) (h2 + th2 * ph);
  KT *tin = (KT *) (h1 + th2 * ph); /* the tile and its halo, th2 x tw2 (pitch pin) */
  /* One grid dimension for all tiles, row by row (the order a 2D grid has): gridDim.y
   * would stop at 65535 tile rows, 4.2 million image rows. */
  const unsigned tiles_x = (unsigned) (w + TILE_W - 1) / TILE_W;
  const int x0 = (int) (blockIdx.x % tiles_x) * TILE_W, y0 = (int) (blockIdx.x / tiles_x) * TILE_H;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  /* 8-bit keys, tiles whose rows (pitch included) lie inside the image: aligned 32-bit
   * loads, funnel-shifted into place (the key buffer has slack after its end for the last
   * word), no per-element reflection.  The row pitch is at most 25 words: one per lane. */
  bool loaded = false;
  if constexpr (sizeof (KT) == 1)
    if (x0 - r >= 0 && x0 - r + pin <= w)
      {
        const int words = pin / 4;
        uint32_t *tw = (uint32_t *) tin;
        for (int k0 = 0; warp + 8 * k0 < th2; k0 += LOAD_BATCH)
          {
            uint32_t lo[LOAD_BATCH], hi[LOAD_BATCH], sh[LOAD_BATCH];
#pragma unroll
            for (int k = 0; k < LOAD_BATCH; k++)
              {
                const int ty = min (warp + 8 * (k0 + k), th2 - 1);
                const uint8_t *g
                  = (const uint8_t *) key + (size_t) gfx_enh_reflect (y0 - r + ty, h) * w + x0 - r;
                const uint32_t *a = (const uint32_t *) ((uintptr_t) g & ~(uintptr_t) 3) + lane;
                sh[k] = (uint32_t) ((uintptr_t) g & 3u) * 8u;
                lo[k] = lane < words ? __ldg (a) : 0u;
                hi[k] = lane < words ? __ldg (a + 1) : 0u;
              }
#pragma unroll
            for (int k = 0; k < LOAD_BATCH; k++)
              {
                const int ty = warp + 8 * (k0 + k);
                if (ty < th2 && lane < words)
                  tw[ty * words + lane] = __funnelshift_r (lo[k], hi[k], sh[k]);
              }
          }
        loaded = true;
      }
  /* Loads in batches held in registers, so many are in flight per thread (a load-store
   * loop would wait for each load in turn). */
  for (int k0 = 0; !loaded && warp + 8 * k0 < th2; k0 += LOAD_BATCH)
    {
      KT v[LOAD_BATCH][LOAD_COLS];
#pragma unroll
      for (int k = 0; k < LOAD_BATCH; k++)
        {
          int ty = min (warp + 8 * (k0 + k), th2 - 1);
          const KT *row = key + (size_t) gfx_enh_reflect (y0 - r + ty, h) * w;
#pragma unroll
          for (int j = 0; j < LOAD_COLS; j++)
            {
              int tx = min (lane + 32 * j, tw2 - 1);
              v[k][j] = row[gfx_enh_reflect (x0 - r + tx, w)];
            }
        }
#pragma unroll
      for (int k = 0; k < LOAD_BATCH; k++)
#pragma unroll
        for (int j = 0; j < LOAD_COLS; j++)
          {
            int ty = warp + 8 * (k0 + k), tx = lane + 32 * j;
            if (ty < th2 && tx < tw2)
              tin[ty * pin + tx] = v[k][j];
          }
    }
  __syncthreads ();
  /* Horizontal: each job slides along hseg outputs of one row; lanes take rows. */
  const int hseg = tile_hseg (r);
  for (int job = tid; job < th2 * (TILE_W / hseg); job += TILE_THREADS)
    {
      int row = job % th2, c0 = job / th2 * hseg;
      const KT *src = tin + row * pin + c0;
      S1 a1 = 0;
      S2 a2 = 0;
#pragma unroll 4
      for (int e = 0; e <= 2 * r; e++)
        {
          a1 += (S1) src[e];
          a2 += sq<S2> (src[e]);
        }
      S1 *d1 = h1 + row * ph + c0;
      S2 *d2 = h2 + row * ph + c0;
      d1[0] = a1;
      d2[0] = a2;
      for (int i = 1; i < hseg; i++)
        {
          KT kin = src[i + 2 * r], kout = src[i - 1];
          a1 += (S1) kin - (S1) kout;
          a2 += sq<S2> (kin) - sq<S2> (kout);
          d1[i] = a1;
          d2[i] = a2;
        }
    }
  __syncthreads ();
  /* Vertical: each thread slides down VSEG rows of one column; lanes take columns.
   * Launched with programmatic stream serialization, the block may have started while
   * the totals kernel was still running (the loads and horizontal sums above need only
   * the keys): wait for it here, before the thresholds.  A no-op for a plain launch. */
  cudaGridDependencySynchronize ();
  const gfx_enh_thresholds th = st->th;
  const EnhRange q = enh_range (th);
  const uint32_t n_win = (uint32_t) ((2 * r + 1) * (2 * r + 1));
  const int c = tid % TILE_W, oy0 = tid / TILE_W * VSEG, gx = x0 + c;
  S1 s1 = 0;
  S2 s2 = 0;
#pragma unroll 4
  for (int e = 0; e <= 2 * r; e++)
    {
      s1 += h1[(oy0 + e) * ph + c];
      s2 += h2[(oy0 + e) * ph + c];
    }
  if (gx >= w)
    return; /* no barrier below */
  const int rows = min (VSEG, h - (y0 + oy0)); /* inside the image */
  size_t at = (size_t) (y0 + oy0) * w + gx;
  for (int i = 0; i < rows; i++, at += w)
    {
      const int oy = oy0 + i;
      if (i > 0)
        {
          s1 += h1[(oy + 2 * r) * ph + c] - h1[(oy - 1) * ph + c];
          s2 += h2[(oy + 2 * r) * ph + c] - h2[(oy - 1) * ph + c];
        }
      emit<MODE> (sink, lut8, at, tin[(oy + r) * pin + c + r], decide (n_win, s1, s2, q, th));
    }
}

/* rp1/rp2[y * (w + 1) + c] = sum of the first c keys of row y (k and k^2, wrapping). */
template <class KT>
__global__ void
rowprefix_kernel (const KT *__restrict__ key, int w, int h, typename EnhSums<KT>::S1 *rp1,
                  typename EnhSums<KT>::S2 *rp2)
{
  typedef typename EnhSums<KT>::S1 S1;
  typedef typename EnhSums<KT>::S2 S2;
  const int lane = threadIdx.x & 31;
  const int y = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
  if (y >= h)
    return; /* whole warps leave together */
  const KT *src = key + (size_t) y * w;
  S1 *d1 = rp1 + (size_t) y * (w + 1);
  S2 *d2 = rp2 + (size_t) y * (w + 1);
  if (lane == 0)
    {
      d1[0] = 0;
      d2[0] = 0;
    }
  S1 c1 = 0;
  S2 c2 = 0;
  for (int base = 0; base < w; base += 32)
    {
      int x = base + lane;
      KT k = x < w ? src[x] : (KT) 0;
      S1 v1 = (S1) k;
      S2 v2 = sq<S2> (k);
      for (int o = 1; o < 32; o <<= 1)
        {
          S1 t1 = __shfl_up_sync (0xffffffffu, v1, o);
          S2 t2 = __shfl_up_sync (0xffffffffu, v2, o);
          if (lane >= o)
            {
              v1 += t1;
              v2 += t2;
            }
        }
      if (x < w)
        {
          d1[x + 1] = c1 + v1;
          d2[x + 1] = c2 + v2;
        }
      c1 += __shfl_sync (0xffffffffu, v1, 31);
      c2 += __shfl_sync (0xffffffffu, v2, 31);
    }
}

/* The prefix F(t) = sum_{i < t} k[reflect(i)] for any t (negative t: minus the sum over
 * [t, 0)), as a * rowtotal + sign * rp[j]: the reflected row repeats with period 2w and
 * its first period's prefix is rp[u] (u <= w) or 2 rowtotal - rp[2w - u]. */
struct Prefix {
  long long a;
  int sign, j;
};

__device__ inline Prefix
prefix_at (int t, int w)
{
  int period = 2 * w;
  int q = t >= 0 ? t / period : -((-t + period - 1) / period);
  int u = t - q * period;
  Prefix f;
  if (u <= w)
    f = { 2LL * q, 1, u };
  else
    f = { 2LL * q + 2, -1, period - u };
  return f;
}

template <class S>
__device__ __forceinline__ S
prefix_value (const Prefix &f, const S *rp, int w)
{
  typedef unsigned long long U; /* wrap-around arithmetic; the final sums fit */
  U v = (U) f.a * (U) rp[w];
  return (S) (f.sign > 0 ? v + (U) rp[f.j] : v - (U) rp[f.j]);
}

template <class KT, int MODE>
__global__ void __launch_bounds__ (WALK_THREADS)
walk_kernel (const typename EnhSums<KT>::S1 *__restrict__ rp1,
             const typename EnhSums<KT>::S2 *__restrict__ rp2, const KT *__restrict__ key,
             int w, int h, int r, int strip, const EnhState *st, EnhSink<KT> sink)
{
  typedef typename EnhSums<KT>::S1 S1;
  typedef typename EnhSums<KT>::S2 S2;
  /* One grid dimension, as the tile kernel's: blocks_x blocks a strip of rows. */
  const unsigned blocks_x = (unsigned) (w + WALK_THREADS - 1) / WALK_THREADS;
  const int x = (int) (blockIdx.x % blocks_x) * WALK_THREADS + threadIdx.x;
  if (x >= w)
    return; /* no block-wide synchronisation below */
  const int y0 = (int) (blockIdx.x / blocks_x) * strip, y1 = min (h, y0 + strip);
  const Prefix fa = prefix_at (x + r + 1, w), fb = prefix_at (x - r, w);
  const size_t pitch = (size_t) w + 1;
  S1 s1 = 0;
  S2 s2 = 0;
#pragma unroll 4
  for (int dy = -r; dy <= r; dy++)
    {
      size_t o = (size_t) gfx_enh_reflect (y0 + dy, h) * pitch;
      s1 += prefix_value (fa, rp1 + o, w) - prefix_value (fb, rp1 + o, w);
      s2 += prefix_value (fa, rp2 + o, w) - prefix_value (fb, rp2 + o, w);
    }
  const gfx_enh_thresholds th = st->th;
  const uint32_t n_win = (uint32_t) ((2 * r + 1) * (2 * r + 1));
  for (int y = y0; y < y1; y++)
    {
      if (y > y0)
        {
          const size_t a = (size_t) gfx_enh_reflect (y + r, h) * pitch;
          const size_t b = (size_t) gfx_enh_reflect (y - r - 1, h) * pitch;
          s1 += prefix_value (fa, rp1 + a, w) - prefix_value (fb, rp1 + a, w)
                - prefix_value (fa, rp1 + b, w) + prefix_value (fb, rp1 + b, w);
          s2 += prefix_value (fa, rp2 + a, w) - prefix_value (fb, rp2 + a, w)
                - prefix_value (fa, rp2 + b, w) + prefix_value (fb, rp2 + b, w);
        }
      size_t i = (size_t) y * w + x;
      /* the gain table from global memory (no barrier: threads past the image leave) */
      emit<MODE, false> (sink, nullptr, i, key[i], decide_th (n_win, s1, s2, th));
    }
}

} // namespace

size_t
enh_rowprefix_bytes (int w, int h, int key_bytes, int r)
{
  if (r <= TILE_MAX_R)
    return 0;
  size_t s = key_bytes == 1 ? 8 : key_bytes == 2 ? 12 : 16;
  return ((size_t) w + 1) * h * s + 16;
}

namespace
{

/* The tile kernel (r <= TILE_MAX_R) or the row prefixes and the walk, writing as MODE. */
template <class KT, int MODE>
cudaError_t
launch_tile_walk (const KT *key, int w, int h, int r, const EnhState *st, EnhSink<KT> sink,
                  void *rp, EnhStripTuning tune, cudaStream_t stream)
{
  typedef typename EnhSums<KT>::S1 S1;
  typedef typename EnhSums<KT>::S2 S2;
  if (r <= TILE_MAX_R)
    {
      /* The shared-memory limit for the largest tile, set once (callers hold a lock). */
      static bool smem_set = false;
      size_t smem = tile_smem_bytes<KT> (r);
      if (!smem_set)
        {
          cudaError_t e = cudaFuncSetAttribute (tile_kernel<KT, MODE>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                (int) tile_smem_bytes<KT> (TILE_MAX_R));
          if (e != cudaSuccess)
            return e;
          smem_set = true;
        }
      dim3 grid ((unsigned) (((size_t) w + TILE_W - 1) / TILE_W * (((size_t) h + TILE_H - 1) / TILE_H)));
      /* automatic or overlap = 1: programmatic dependent launch (the tile kernel waits for
       * the totals kernel before it reads the thresholds) */
      cudaLaunchAttribute at;
      cudaLaunchConfig_t cfg = enh_launch_config (grid, dim3 (TILE_THREADS), smem, stream,
                                                  tune.kernel == 0 || tune.overlap, &at);
      return cudaLaunchKernelEx (&cfg, tile_kernel<KT, MODE>, key, w, h, r, st, sink);
    }
  S2 *rp2 = (S2 *) rp; /* 8-byte sums first: alignment */
  S1 *rp1 = (S1 *) (rp2 + ((size_t) w + 1) * h);
  const int rows_per_block = 8;
  rowprefix_kernel<KT><<<(h + rows_per_block - 1) / rows_per_block, 32 * rows_per_block, 0,
                         stream>>> (key, w, h, rp1, rp2);
  cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess)
    return e;
  /* Short strips: enough walkers to hide the memory latency, at the price of a start-up of
   * 2r + 1 rows per strip. */
  dim3 grid ((unsigned) (((size_t) w + WALK_THREADS - 1) / WALK_THREADS
                         * (((size_t) h + WALK_STRIP - 1) / WALK_STRIP)));
  walk_kernel<KT, MODE><<<grid, WALK_THREADS, 0, stream>>> (rp1, rp2, key, w, h, r,
                                                             WALK_STRIP, st, sink);
  return cudaGetLastError ();
}

} // namespace

template <class KT>
cudaError_t
enh_launch_stats (const KT *key, int w, int h, int r, const EnhState *st, EnhSink<KT> sink,
                  void *rp, EnhStripTuning tune, cudaStream_t stream)
{
  if constexpr (sizeof (KT) == 1)
    if ((tune.kernel == 0 || tune.kernel >= 3) && r == 1 && enh_win3_fits (h, tune))
      {
        EnhStripTuning t = tune;
        t.overlap |= tune.kernel == 0; /* automatic: overlapped start (measured faster) */
        return enh_launch_win3 (key, w, h, t, st, sink, stream);
      }
  if constexpr (sizeof (KT) == 1)
    if (tune.kernel == 2 && r >= 1 && r <= ENH_STRIP_MAX_R
        && (h + enh_strip_rows (tune, r) - 1) / enh_strip_rows (tune, r) <= 65535)
      return enh_launch_strip (key, w, h, r, tune, st, sink, stream);
  if constexpr (sizeof (KT) == 4) /* float keys: always decision planes */
    return launch_tile_walk<KT, ENH_SINK_DEC> (key, w, h, r, st, sink, rp, tune, stream);
  else
    return enh_launch_for_sink (sink, [&] (auto mode) {
      return launch_tile_walk<KT, decltype (mode)::value> (key, w, h, r, st, sink, rp, tune,
                                                          stream);
    });
}

template cudaError_t enh_launch_stats<uint8_t> (const uint8_t *, int, int, int, const EnhState *,
                                                EnhSink<uint8_t>, void *, EnhStripTuning,
                                                cudaStream_t);
template cudaError_t enh_launch_stats<uint16_t> (const uint16_t *, int, int, int,
                                                 const EnhState *, EnhSink<uint16_t>, void *,
                                                 EnhStripTuning, cudaStream_t);
template cudaError_t enh_launch_stats<int32_t> (const int32_t *, int, int, int, const EnhState *,
                                                EnhSink<int32_t>, void *, EnhStripTuning,
                                                cudaStream_t);
