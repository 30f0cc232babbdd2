/* The band statistics kernel's device code (8-bit keys, any window), in a header of its
 * own so that tests/emu/enhance_emu.cpp can run it on the CPU.  The includer provides
 * __ldg, __shfl_up_sync, __shfl_sync, __syncthreads and cudaGridDependencySynchronize.
 *
 * Cost per pixel independent of n.  A block owns `ow` output columns of a strip of rows
 * and walks down the strip.  Each thread owns C = 8 consecutive columns of the block's
 * span (the output columns and r more on each side) and keeps their vertical window sums
 * of k and k^2 in registers: the first row sums 2r + 1 rows, every further row adds the
 * row entering the window and takes away the one leaving it.  The horizontal window sum
 * of a row is a difference of two prefix sums of the vertical sums along the span: each
 * thread's own prefix, a warp scan of the threads' totals, a scan of the warps' totals,
 * the prefixes left in shared memory (double buffered: two barriers a row), and each
 * output is E(u + 2r + 1) - E(u).  The next row's loads are issued a row ahead.
 *
 * Exact: vertical sums of k fit 16 bits, of k^2 24 bits; the prefixes of k stay below
 * 2^32 over a span of at most 8192 columns, the prefixes of k^2 wrap modulo 2^32 but their
 * differences, the true window sums (S2 < 255^4 < 2^32), come out exact. */
#ifndef GFX_ENHANCE_BAND_CUH
#define GFX_ENHANCE_BAND_CUH

#include "enhance_cuda_internal.h"

namespace enh_band
{

constexpr int C = 8;                /* columns a thread */
constexpr int MAX_THREADS = 1024;   /* span of a block: at most 8192 columns */
constexpr unsigned FULL = 0xffffffffu;

struct Args
{
  const uint8_t *key; /* with 16 bytes of slack after the last row (whole-word loads) */
  int w, h, r;
  int ow;    /* output columns a block (a multiple of C) */
  int strip; /* output rows a block */
  const EnhState *st;
  EnhSink<uint8_t> sink;
};

/* The shared block: E1, E2 for 2 rows (8 T + 1 prefixes each, padded), the warps' totals
 * for 2 rows, the gain table. */
struct Smem
{
  uint32_t *e1[2], *e2[2];
  uint32_t (*wsum)[2][32]; /* [row parity][k, k^2][warp] */
  uint8_t *lut;
};

__host__ __device__ inline int
e_words (int threads)
{
  return C * threads + 4; /* 8 T + 1, rounded to 16 bytes */
}

__host__ __device__ inline size_t
smem_bytes (int threads)
{
  return (size_t) 4 * e_words (threads) * 4 + 2 * 2 * 32 * 4 + 256;
}

/* Launch geometry: blocks of about 32 tune.cols threads (automatic 256) over as few column
 * bands as a span of C columns a thread allows (ow output columns a band, `threads` a
 * block), strips of tune.strip rows (automatic: max (32, 2r + 1), so that the 2r + 1 rows
 * summed first stay a fraction of a strip's work). */
inline void
geometry (int w, int r, EnhStripTuning tune, int *ow, int *threads, int *strip)
{
  const int want = tune.cols ? 32 * tune.cols : 256;
  const int span = C * want - 2 * r > C ? C * want - 2 * r : C; /* output columns at most */
  const int nbx = (w + span - 1) / span;
  *ow = ((w + nbx - 1) / nbx + C - 1) / C * C;
  *threads = ((*ow + 2 * r + C - 1) / C + 31) / 32 * 32;
  *strip = tune.strip ? tune.strip : 2 * r + 1 > 32 ? 2 * r + 1 : 32;
}

__device__ __forceinline__ Smem
smem_layout (unsigned char *base, int threads)
{
  Smem s;
  uint32_t *p = (uint32_t *) base;
  const int n = e_words (threads);
  s.e1[0] = p, s.e1[1] = p + n, s.e2[0] = p + 2 * n, s.e2[1] = p + 3 * n;
  s.wsum = (uint32_t (*)[2][32]) (p + 4 * n);
  s.lut = (uint8_t *) (p + 4 * n + 2 * 2 * 32);
  return s;
}

__device__ __forceinline__ int
refl (int i, int len)
{
  return i >= 0 && i < len ? i : gfx_enh_reflect (i, len);
}

__device__ __forceinline__ uint32_t
funnel (uint32_t lo, uint32_t hi, uint32_t sh) /* (hi:lo) >> sh, sh < 32 */
{
  return sh == 0 ? lo : (lo >> sh) | (hi << (32 - sh));
}

/* Keys of columns g .. g + 7 of a row (reflected outside [0, w)), as two words. */
__device__ __forceinline__ void
load8 (const uint8_t *row, int g, int w, uint32_t (&k)[2])
{
  if (g >= 0 && g + C <= w)
    {
      const uint8_t *p = row + g;
      const uint32_t *a = (const uint32_t *) ((uintptr_t) p & ~(uintptr_t) 3);
      const uint32_t sh = ((uint32_t) (uintptr_t) p & 3u) * 8u;
      const uint32_t u0 = __ldg (a), u1 = __ldg (a + 1), u2 = __ldg (a + 2);
      k[0] = funnel (u0, u1, sh);
      k[1] = funnel (u1, u2, sh);
      return;
    }
  k[0] = k[1] = 0;
#pragma unroll
  for (int c = 0; c < C; c++)
    k[c >> 2] |= (uint32_t) __ldg (row + refl (g + c, w)) << (8 * (c & 3));
}

__device__ __forceinline__ uint32_t
key_of (const uint32_t (&k)[2], int c)
{
  return (k[c >> 2] >> (8 * (c & 3))) & 0xffu;
}

/* The rule as unsigned range tests, (x - lo) <= span: an empty range becomes lo = max,
 * span = 0, which no sum reaches (S1 < 2^17, D < 2^64 - 1).  d32: the bounds saturated to
 * 32 bits, exact for D < 2^32 - 1 (n <= 21). */
struct Rule
{
  uint32_t s1lo, s1span, dlo32, dspan32;
  uint64_t dlo, dspan;
};

__device__ __forceinline__ Rule
rule_of (const gfx_enh_thresholds &th)
{
  Rule q;
  const int64_t s1lo = th.s1_lo < 0 ? 0 : th.s1_lo, s1hi = th.s1_hi;
  const bool s1_empty = s1hi < s1lo || s1lo > (int64_t) UINT32_MAX;
  q.s1lo = s1_empty ? UINT32_MAX : (uint32_t) s1lo;
  q.s1span = s1_empty ? 0u
                      : (uint32_t) ((s1hi > (int64_t) UINT32_MAX ? (int64_t) UINT32_MAX : s1hi)
                                    - s1lo);
  const bool d_empty = th.d_hi64 < th.d_lo64;
  q.dlo = d_empty ? UINT64_MAX : th.d_lo64;
  q.dspan = d_empty ? 0 : th.d_hi64 - th.d_lo64;
  q.dlo32 = q.dlo > UINT32_MAX ? UINT32_MAX : (uint32_t) q.dlo;
  const uint32_t dhi32 = th.d_hi64 > UINT32_MAX ? UINT32_MAX : (uint32_t) th.d_hi64;
  q.dspan32 = d_empty || q.dlo > UINT32_MAX ? 0u : dhi32 - q.dlo32;
  return q;
}

template <bool WIDE>
__device__ __forceinline__ bool
decide (uint32_t n_win, uint32_t s1, uint32_t s2, const Rule &q)
{
  if (WIDE)
    return (s1 - q.s1lo <= q.s1span)
           & ((uint64_t) n_win * s2 - (uint64_t) s1 * s1 - q.dlo <= q.dspan);
  return (s1 - q.s1lo <= q.s1span) & (n_win * s2 - s1 * s1 - q.dlo32 <= q.dspan32);
}

/* Inclusive scan of v over the warp's lanes. */
__device__ __forceinline__ uint32_t
warp_scan (uint32_t v, int lane)
{
#pragma unroll
  for (int o = 1; o < 32; o <<= 1)
    {
      const uint32_t n = __shfl_up_sync (FULL, v, o);
      if (lane >= o)
        v += n;
    }
  return v;
}

/* Block (bx, by) of the grid: thread t of `threads`.  WIDE: n > 21 (64-bit D). */
template <bool WIDE>
__device__ void
band_block (const Args &A, const Smem &S, int bx, int by, int t, int threads)
{
  const int lane = t & 31, warp = t >> 5, nwarps = threads >> 5;
  const int w = A.w, h = A.h, r = A.r;
  const int x0 = bx * A.ow, ox = A.ow < w - x0 ? A.ow : w - x0; /* output columns x0 .. x0 + ox - 1 */
  const int y0 = by * A.strip, y1 = h < y0 + A.strip ? h : y0 + A.strip;
  const int gs = x0 - r + C * t;                     /* the thread's first span column */
  const bool outputs = C * t < ox;                   /* the thread has output columns */
  const uint8_t *key = A.key;
  uint32_t v1[C], v2[C];
#pragma unroll
  for (int c = 0; c < C; c++)
    v1[c] = v2[c] = 0;
  for (int dy = -r; dy <= r; dy++)
    {
      uint32_t k[2];
      load8 (key + (size_t) refl (y0 + dy, h) * w, gs, w, k);
#pragma unroll
      for (int c = 0; c < C; c++)
        {
          const uint32_t a = key_of (k, c);
          v1[c] += a;
          v2[c] += a * a;
        }
    }
  uint32_t kin[2] = { 0, 0 }, kout[2] = { 0, 0 }, kc[2] = { 0, 0 }; /* next row's, in flight */
  if (outputs)
    load8 (key + (size_t) y0 * w, x0 + C * t, w, kc);
  /* Launched with programmatic stream serialization, the block may start while the totals
   * kernel is still running: the sums above need only the keys.  A no-op otherwise. */
  cudaGridDependencySynchronize ();
  const Rule q = rule_of (A.st->th);
  const uint32_t n_win = (uint32_t) ((2 * r + 1) * (2 * r + 1));
  const bool direct = A.sink.dec == nullptr;
  uint8_t *const dst = direct ? A.sink.out : A.sink.dec;
  uint8_t *const mask = direct ? A.sink.mask : nullptr;
  if (direct)
    for (int i = t; i < 256; i += threads)
      S.lut[i] = (uint8_t) A.sink.lut[i];
  for (int y = y0; y < y1; y++)
    {
      const int b = (y - y0) & 1;
      if (y > y0)
#pragma unroll
        for (int c = 0; c < C; c++)
          {
            const uint32_t a = key_of (kin, c), o = key_of (kout, c);
            v1[c] += a - o;
            v2[c] += a * a - o * o;
          }
      uint32_t kcur[2] = { kc[0], kc[1] };
      if (y + 1 < y1)
        {
          load8 (key + (size_t) refl (y + 1 + r, h) * w, gs, w, kin);
          load8 (key + (size_t) refl (y - r, h) * w, gs, w, kout);
          if (outputs)
            load8 (key + (size_t) (y + 1) * w, x0 + C * t, w, kc);
        }
      /* the thread's exclusive prefixes, then the warp's and the block's */
      uint32_t p1[C], p2[C];
      p1[0] = p2[0] = 0;
#pragma unroll
      for (int c = 1; c < C; c++)
        p1[c] = p1[c - 1] + v1[c - 1], p2[c] = p2[c - 1] + v2[c - 1];
      const uint32_t t1 = p1[C - 1] + v1[C - 1], t2 = p2[C - 1] + v2[C - 1];
      const uint32_t i1 = warp_scan (t1, lane), i2 = warp_scan (t2, lane);
      if (lane == 31)
        S.wsum[b][0][warp] = i1, S.wsum[b][1][warp] = i2;
      __syncthreads ();
      const uint32_t a1 = warp_scan (lane < nwarps ? S.wsum[b][0][lane] : 0u, lane);
      const uint32_t a2 = warp_scan (lane < nwarps ? S.wsum[b][1][lane] : 0u, lane);
      const uint32_t o1 = __shfl_sync (FULL, a1, (warp + 31) & 31),
                     o2 = __shfl_sync (FULL, a2, (warp + 31) & 31);
      const uint32_t b1 = (warp > 0 ? o1 : 0u) + i1 - t1, b2 = (warp > 0 ? o2 : 0u) + i2 - t2;
      uint32_t *e1 = S.e1[b] + C * t, *e2 = S.e2[b] + C * t;
#pragma unroll
      for (int c = 0; c < C; c++)
        e1[c] = b1 + p1[c], e2[c] = b2 + p2[c];
      if (t == threads - 1) /* E(8 T): the span's total */
        e1[C] = b1 + t1, e2[C] = b2 + t2;
      __syncthreads ();
      if (!outputs)
        continue;
      const uint32_t *l1 = S.e1[b] + C * t, *l2 = S.e2[b] + C * t;
      const int m = 2 * r + 1;
      const size_t at = (size_t) y * w + x0 + C * t;
#pragma unroll
      for (int c = 0; c < C; c++)
        {
          if (C * t + c >= ox)
            break;
          const uint32_t s1 = l1[c + m] - l1[c], s2 = l2[c + m] - l2[c];
          const bool d = decide<WIDE> (n_win, s1, s2, q);
          const uint32_t k = key_of (kcur, c);
          if (direct)
            {
              dst[at + c] = (uint8_t) (d ? S.lut[k] : k);
              if (mask)
                mask[at + c] = d ? 255 : 0;
            }
          else
            dst[at + c] = (uint8_t) d;
        }
    }
}

} // namespace enh_band

#endif
