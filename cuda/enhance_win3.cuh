/* Inside cuda/ only: the device code of the n = 3 (r = 1) statistics for 8-bit keys,
 * shared by the stand-alone kernel (enhance_win3.cu) and the fused one (enhance_fused3.cu).
 *
 * A tile is 128 columns x some rows in shared memory, 34 words a row: byte j of a row is
 * column x0 - 4 + j (one word of halo on each side; only columns x0 - 1 .. x0 + 128 are
 * used).  Interior tiles (x0 >= 4, x0 + 132 <= w) are loaded as aligned 32-bit words,
 * funnel-shifted into place (the key buffer has slack after its end for the last word);
 * tiles touching the left or right border load bytes with reflection.
 *
 * A warp walks rows of a tile, each lane owning 4 consecutive columns (one word): per row,
 * the 3-wide horizontal sums of k and k^2 of its 4 columns are 8 dp4a on masked byte
 * windows, and the 3 x 3 sums are the last three rows' horizontal sums (in registers).
 * Exact: S1 <= 2295, S2 <= 585225, D < 2^23.  The decision is two unsigned range tests,
 * the gained value a byte table in shared memory (w3::slut, which the kernel fills), the
 * output word one byte permutation, and each output row is written as
 * aligned 32-bit words (the next lane's word through a shuffle, partial words at both
 * ends as bytes). */
#ifndef GFX_ENHANCE_WIN3_CUH
#define GFX_ENHANCE_WIN3_CUH

#include "enhance_cuda_internal.h"

namespace w3 {

namespace {
__shared__ uint8_t slut[256]; /* gained value of each key (ENH_SINK_OUT*), loaded by the kernel */
}

constexpr int COLS = 128; /* tile width: one warp, 4 columns per lane */
constexpr int WORDS = 34; /* shared words per tile row */
constexpr int BATCH = 6;  /* rows a lane loads before it stores them */

__device__ __forceinline__ bool
inner_tile (int x0, int w)
{
  return x0 >= 4 && x0 + COLS + 4 <= w;
}

/* Loads tile rows: job j in [j0, nj) step js is shared row dst(j) and global row gy(j)
 * (already reflected) of the tile at column x0(j).  All lanes of the warp call this with
 * the same jobs. */
template <class Job>
__device__ __forceinline__ void
load_rows (uint32_t *smem, const uint8_t *__restrict__ key, int w, int j0, int nj, int js,
           int lane, Job job)
{
  for (int jb = j0; jb < nj; jb += BATCH * js)
    {
      uint32_t lo[BATCH], hi[BATCH], elo[BATCH], ehi[BATCH], sh[BATCH];
#pragma unroll
      for (int k = 0; k < BATCH; k++)
        {
          const int j = jb + k * js;
          lo[k] = hi[k] = elo[k] = ehi[k] = sh[k] = 0;
          if (j >= nj)
            continue;
          int srow, gy, x0;
          job (j, srow, gy, x0);
          if (inner_tile (x0, w))
            {
              const uint8_t *g = key + (size_t) gy * w + x0 - 4;
              const uint32_t *a = (const uint32_t *) ((uintptr_t) g & ~(uintptr_t) 3) + lane;
              sh[k] = (uint32_t) ((uintptr_t) g & 3u) * 8u;
              lo[k] = __ldg (a);
              hi[k] = __ldg (a + 1);
              if (lane < 2)
                {
                  elo[k] = __ldg (a + 32);
                  ehi[k] = __ldg (a + 33);
                }
            }
          else
            {
              uint8_t *tb = (uint8_t *) (smem + srow * WORDS);
              const uint8_t *row = key + (size_t) gy * w;
              for (int b = lane; b < 4 * WORDS; b += 32)
                tb[b] = __ldg (row + gfx_enh_reflect (x0 - 4 + b, w));
            }
        }
#pragma unroll
      for (int k = 0; k < BATCH; k++)
        {
          const int j = jb + k * js;
          if (j >= nj)
            continue;
          int srow, gy, x0;
          job (j, srow, gy, x0);
          if (inner_tile (x0, w))
            {
              uint32_t *d = smem + srow * WORDS;
              d[lane] = __funnelshift_r (lo[k], hi[k], sh[k]);
              if (lane < 2)
                d[32 + lane] = __funnelshift_r (elo[k], ehi[k], sh[k]);
            }
        }
    }
}

/* The rule as two unsigned range tests, (x - lo) <= span: an empty range becomes lo = max,
 * span = 0, which no sum reaches (S1 < 2^12, D < 2^23: D is exact in 32 bits and the
 * bounds saturate to 32 bits without changing any comparison). */
struct Rule32 {
  uint32_t s1lo, s1span, dlo, dspan;
};

__device__ __forceinline__ Rule32
rule32 (const gfx_enh_thresholds &th)
{
  const EnhRange e = enh_range (th); /* its 32-bit bounds */
  return { e.s1lo, e.s1span, e.dlo32, e.dspan32 };
}

/* 3-wide horizontal sums of k (h1) and k^2 (h2) of the lane's 4 columns, from the words
 * before, of and after them; the windows are byte permutations with a zero top byte. */
__device__ __forceinline__ void
hsums (const uint32_t *r, uint32_t (&h1)[4], uint32_t (&h2)[4])
{
  const uint32_t p = r[0], c = r[1], q = r[2];
  const uint32_t m1 = c & 0xffffffu, m2 = c >> 8;
  const uint32_t m[4] = { __byte_perm (p, m1, 0x7543), m1, m2, __byte_perm (m2, q, 0x3421) };
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      h1[k] = __dp4a (m[k], 0x01010101u, 0u);
      h2[k] = __dp4a (m[k], m[k], 0u);
    }
}

/* Writes the warp's 128 bytes (lane word v = bytes 4 lane .. 4 lane + 3) at p, all inside
 * the image: aligned words, the partial words at both ends as bytes. */
__device__ __forceinline__ void
store_row (uint8_t *p, uint32_t v, int lane)
{
  const uint32_t s = (uint32_t) ((uintptr_t) p & 3u);
  const uint32_t nxt = __shfl_down_sync (0xffffffffu, v, 1);
  if (s == 0)
    {
      ((uint32_t *) p)[lane] = v;
      return;
    }
  /* aligned word lane + 1 starts 4 - s bytes into this lane's word */
  if (lane < 31)
    ((uint32_t *) (p - s))[lane + 1] = __funnelshift_r (v, nxt, 8u * (4u - s));
  if (lane == 0 || lane == 31) /* head: bytes 0 .. 3 - s; tail: bytes 128 - s .. 127 */
    {
      uint8_t *q = p + (lane == 0 ? 0 : 124);
#pragma unroll
      for (uint32_t b = 0; b < 4u; b++)
        if ((lane == 0) == (b < 4u - s))
          q[b] = (uint8_t) (v >> (8u * b));
    }
}

/* Border tiles: the bytes inside the image only. */
__device__ __forceinline__ void
store_edge (uint8_t *p, uint32_t v, int x, int w)
{
#pragma unroll
  for (int b = 0; b < 4; b++)
    if (x + b < w)
      p[b] = (uint8_t) (v >> (8 * b));
}

struct Out {
  uint8_t *dst;  /* output, or decision plane */
  uint8_t *mask; /* ENH_SINK_OUT_MASK */
};

/* One output row: the window rows' horizontal sums a (above), b (centre), c (below), the
 * centre keys cw; writes row at dst offset `at` (the tile's first column).  Each output
 * word is one byte permutation: byte k from cw (kept) or from the gained word (or 1, or
 * 255 for the mask) as decided. */
template <int MODE>
__device__ __forceinline__ void
emit_row (const uint32_t (&a1)[4], const uint32_t (&a2)[4], const uint32_t (&b1)[4],
          const uint32_t (&b2)[4], const uint32_t (&c1)[4], const uint32_t (&c2)[4],
          uint32_t cw, const Rule32 &q, const Out &o, size_t at, bool inner, int lane, int xl,
          int w)
{
  uint32_t sel = 0x3210u;
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      const uint32_t s1 = a1[k] + b1[k] + c1[k], s2 = a2[k] + b2[k] + c2[k];
      const bool d = (s1 - q.s1lo <= q.s1span) & (9u * s2 - s1 * s1 - q.dlo <= q.dspan);
      sel += d ? 4u << (4 * k) : 0u;
    }
  uint32_t ov;
  if constexpr (MODE == ENH_SINK_DEC)
    ov = __byte_perm (0u, 0x01010101u, sel);
  else
    {
      const uint32_t g0 = slut[cw & 0xffu], g1 = slut[(cw >> 8) & 0xffu];
      const uint32_t g2 = slut[(cw >> 16) & 0xffu], g3 = slut[cw >> 24];
      const uint32_t gw = __byte_perm (__byte_perm (g0, g1, 0x0040u),
                                       __byte_perm (g2, g3, 0x0040u), 0x5410u);
      ov = __byte_perm (cw, gw, sel);
    }
  if (inner)
    {
      store_row (o.dst + at, ov, lane);
      if constexpr (MODE == ENH_SINK_OUT_MASK)
        store_row (o.mask + at, __byte_perm (0u, 0xffffffffu, sel), lane);
    }
  else
    {
      store_edge (o.dst + at + 4 * lane, ov, xl, w);
      if constexpr (MODE == ENH_SINK_OUT_MASK)
        store_edge (o.mask + at + 4 * lane, __byte_perm (0u, 0xffffffffu, sel), xl, w);
    }
}

/* A warp's walk down nrows (<= SEG) output rows of a tile: tr points at the lane's word
 * before its own in the tile row above the first output row; `at` is the first output
 * row's offset of column x0 in the image. */
template <int MODE, int SEG>
__device__ __forceinline__ void
walk (const uint32_t *tr, int nrows, const Rule32 &q, const Out &o, size_t at, int w,
      int x0, int lane)
{
  const bool inner = inner_tile (x0, w);
  const int xl = x0 + 4 * lane;
  uint32_t a1[4], a2[4], b1[4], b2[4];
  hsums (tr, a1, a2);
  hsums (tr + WORDS, b1, b2);
  auto row = [&] (int i) { /* output row i from the three rows of sums around it */
    uint32_t c1[4], c2[4];
    hsums (tr + (i + 2) * WORDS, c1, c2);
    emit_row<MODE> (a1, a2, b1, b2, c1, c2, tr[(i + 1) * WORDS + 1], q, o, at + (size_t) i * w,
                    inner, lane, xl, w);
#pragma unroll
    for (int k = 0; k < 4; k++)
      a1[k] = b1[k], a2[k] = b2[k], b1[k] = c1[k], b2[k] = c2[k];
  };
  if (nrows == SEG) /* a whole segment: unrolled */
    {
#pragma unroll
      for (int i = 0; i < SEG; i++)
        row (i);
      return;
    }
  for (int i = 0; i < nrows; i++)
    row (i);
}

} // namespace w3

#endif
