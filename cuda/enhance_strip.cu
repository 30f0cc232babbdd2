/* The statistics kernel for 8-bit keys and small windows (r <= ENH_STRIP_MAX_R): each
 * block walks down a strip of rows over a band of 1024 columns; each thread owns C
 * consecutive columns and keeps their vertical window sums (k and k^2 over 2r + 1 rows)
 * in registers, updated by one entering and one leaving row per output row.  The
 * horizontal sums come from the neighbours' vertical sums through shared memory (double
 * buffered: one barrier per row).  Outputs are staged in shared memory and written as
 * aligned 32-bit words by the whole block one row later.  Exact: the sums wrap in 32 bits
 * and the true values fit (k^2 window sums of 8-bit keys stay below 2^32 for n <= 255);
 * D = N S2 - S1^2 is computed modulo 2^32 for n <= 21 (where the true D < 2^32 - 1) and
 * in 64 bits above.  The next rows' loads are issued one row ahead.  Optionally (knob
 * `overlap`) the kernel is launched so that it may start while the totals kernel before it
 * finishes (programmatic dependent launch): it loads its first rows, then waits for the
 * thresholds. */
#include "enhance_cuda_internal.h"

namespace {

constexpr int BAND = 1024; /* columns per block, halo included */

/* C bytes of row `row` from column gx0 on (reflected outside [0, w)), as C / 4 words.
 * The fast path reads whole aligned words: the buffer has 16 bytes of slack at its end. */
template <int C>
__device__ __forceinline__ void
load_row (const uint8_t *__restrict__ row, int gx0, int w, uint32_t (&v)[C / 4])
{
  if (gx0 >= 0 && gx0 + C <= w)
    {
      const uint8_t *p = row + gx0;
      const uint32_t *a = (const uint32_t *) ((uintptr_t) p & ~(uintptr_t) 3);
      const uint32_t sh = ((uint32_t) (uintptr_t) p & 3u) * 8u;
      uint32_t u[C / 4 + 1];
#pragma unroll
      for (int i = 0; i <= C / 4; i++)
        u[i] = __ldg (a + i);
#pragma unroll
      for (int i = 0; i < C / 4; i++)
        v[i] = __funnelshift_r (u[i], u[i + 1], sh);
    }
  else
    {
#pragma unroll
      for (int i = 0; i < C / 4; i++)
        {
          uint32_t x = 0;
#pragma unroll
          for (int b = 0; b < 4; b++)
            x |= (uint32_t) __ldg (row + gfx_enh_reflect (gx0 + 4 * i + b, w)) << (8 * b);
          v[i] = x;
        }
    }
}

__device__ __forceinline__ uint32_t
byte_of (const uint32_t *v, int c)
{
  return (v[c >> 2] >> (8 * (c & 3))) & 0xffu;
}

/* Copies the staged bytes st[R .. R + (x1 - x0)) to dst[y w + x0 .. y w + x1): aligned
 * words for the body, single bytes for the ends.  All threads of the block take part. */
__device__ __forceinline__ void
flush_row (uint8_t *dst, const uint8_t *st, size_t a0, int len, int r)
{
  if (len <= 0)
    return;
  uint8_t *p0 = dst + a0, *p1 = p0 + len;
  uint8_t *b0 = (uint8_t *) (((uintptr_t) p0 + 3) & ~(uintptr_t) 3);
  uint8_t *b1 = (uint8_t *) ((uintptr_t) p1 & ~(uintptr_t) 3);
  if (b0 >= b1) /* no whole word: bytes only */
    {
      for (int i = threadIdx.x; i < len; i += blockDim.x)
        p0[i] = st[r + i];
      return;
    }
  const int head = (int) (b0 - p0), words = (int) ((b1 - b0) >> 2), tail = (int) (p1 - b1);
  if ((int) threadIdx.x < head)
    p0[threadIdx.x] = st[r + threadIdx.x];
  if ((int) threadIdx.x < tail)
    b1[threadIdx.x] = st[r + head + 4 * words + threadIdx.x];
  /* body word i: staged bytes off + 4i .. off + 4i + 3, from two aligned staged words
   * (st is 4-aligned and has slack after the last staged byte) */
  uint32_t *wd = (uint32_t *) b0;
  const int off = r + head;
  const uint32_t *sw = (const uint32_t *) st + (off >> 2);
  const uint32_t sh = (uint32_t) (off & 3) * 8u;
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    wd[i] = __funnelshift_r (sw[i], sw[i + 1], sh);
}

template <int R, int C>
struct StripGeom
{
  static constexpr int T = BAND / C;                   /* threads */
  static constexpr int S = C % 8 == 0 ? C + 4 : C;     /* words per thread segment: */
  static constexpr int R4 = (R + 3) & ~3;              /* conflict-free 16-byte loads */
  static constexpr int PADSEG = (R4 + C - 1) / C;      /* segments of padding each side */
  static constexpr int WORDS = (T + 2 * PADSEG) * S;   /* one buffer of one sum */
  static constexpr int STAGE = BAND + 16;              /* bytes of one staging row */
};

/* Word index in a sums buffer of the column `off` columns from thread t's first one
 * (off known at compile time, may be negative). */
template <int R, int C>
__device__ __forceinline__ int
sidx (int t, int off)
{
  typedef StripGeom<R, C> G;
  const int seg = off >= 0 ? off / C : -((-off + C - 1) / C);
  return (t + G::PADSEG + seg) * G::S + (off - seg * C);
}

template <int R, int C>
__global__ void __launch_bounds__ (BAND / C)
strip_kernel (const uint8_t *__restrict__ key, int w, int h, int ow, int sh, int dstore,
              const EnhState *st, EnhSink<uint8_t> sink)
{
  typedef StripGeom<R, C> G;
  __shared__ __align__ (16) uint32_t sv1[2][G::WORDS];
  __shared__ __align__ (16) uint32_t sv2[2][G::WORDS];
  __shared__ __align__ (16) uint8_t stv[2][G::STAGE]; /* staged output (or decision) */
  __shared__ __align__ (16) uint8_t stm[2][G::STAGE]; /* staged mask */
  __shared__ uint8_t slut[256];                       /* gained value of each key */
  const int t = threadIdx.x;
  const int x0 = blockIdx.x * ow, x1 = min (w, x0 + ow);
  const int gx0 = x0 - R + t * C;
  const bool active = t * C < ow + 2 * R;
  const int y0 = blockIdx.y * sh, y1 = min (h, y0 + sh);
  for (int i = t; i < 2 * G::WORDS; i += G::T)
    {
      (&sv1[0][0])[i] = 0;
      (&sv2[0][0])[i] = 0;
    }
  uint32_t v1[C], v2[C];
#pragma unroll
  for (int c = 0; c < C; c++)
    v1[c] = v2[c] = 0;
  if (active)
    for (int dy = -R; dy <= R; dy++)
      {
        uint32_t k[C / 4];
        load_row<C> (key + (size_t) gfx_enh_reflect (y0 + dy, h) * w, gx0, w, k);
#pragma unroll
        for (int c = 0; c < C; c++)
          {
            uint32_t a = byte_of (k, c);
            v1[c] += a;
            v2[c] += a * a;
          }
      }
  /* Launched with programmatic stream serialization, the block may start while the totals
   * kernel is still running: everything above needs only the keys; wait here for it to
   * complete (and its thresholds to be visible).  A no-op for a plain launch. */
  cudaGridDependencySynchronize ();
  const gfx_enh_thresholds th = st->th;
  constexpr uint32_t n_win = (uint32_t) ((2 * R + 1) * (2 * R + 1));
  /* The rule as unsigned range tests (enh_range): n <= 21: D < 2^32 - 1 is exact modulo
   * 2^32 and the bounds saturate to 32 bits without changing any comparison; above, D and
   * its bounds are 64-bit. */
  const EnhRange rule = enh_range (th);
  const bool direct = sink.dec == nullptr;
  const bool want_mask = direct && sink.mask != nullptr;
  uint8_t *const dst = direct ? sink.out : sink.dec;
  if (direct)
    for (int i = t; i < 256; i += G::T)
      slut[i] = (uint8_t) sink.lut[i];
  uint32_t kin[C / 4], kout[C / 4], kc[C / 4]; /* the next row's loads, in flight */
  if (active)
    load_row<C> (key + (size_t) y0 * w, gx0, w, kc);
  __syncthreads (); /* buffers zeroed, gain table loaded */
  for (int y = y0; y < y1; y++)
    {
      const int b = (y - y0) & 1;
      uint32_t kcur[C / 4];
      if (active)
        {
          if (y > y0)
#pragma unroll
            for (int c = 0; c < C; c++)
              {
                uint32_t a = byte_of (kin, c), o = byte_of (kout, c);
                v1[c] += a - o;
                v2[c] += a * a - o * o;
              }
#pragma unroll
          for (int q = 0; q < C / 4; q++)
            kcur[q] = kc[q];
          if (y + 1 < y1)
            {
              load_row<C> (key + (size_t) gfx_enh_reflect (y + 1 + R, h) * w, gx0, w, kin);
              load_row<C> (key + (size_t) gfx_enh_reflect (y - R, h) * w, gx0, w, kout);
              load_row<C> (key + (size_t) (y + 1) * w, gx0, w, kc);
            }
          uint4 *d1 = (uint4 *) &sv1[b][sidx<R, C> (t, 0)];
          uint4 *d2 = (uint4 *) &sv2[b][sidx<R, C> (t, 0)];
#pragma unroll
          for (int q = 0; q < C / 4; q++)
            {
              d1[q] = make_uint4 (v1[4 * q], v1[4 * q + 1], v1[4 * q + 2], v1[4 * q + 3]);
              d2[q] = make_uint4 (v2[4 * q], v2[4 * q + 1], v2[4 * q + 2], v2[4 * q + 3]);
            }
        }
      __syncthreads ();
      if (y > y0 && !dstore) /* the previous row, staged before this barrier */
        {
          size_t a0 = (size_t) (y - 1) * w + x0;
          flush_row (dst, stv[b ^ 1], a0, x1 - x0, R);
          if (want_mask)
            flush_row (sink.mask, stm[b ^ 1], a0, x1 - x0, R);
        }
      if (!active)
        continue;
      /* Window of vertical sums: R4 columns each side of the thread's own C. */
      uint32_t w1[C + 2 * G::R4], w2[C + 2 * G::R4];
#pragma unroll
      for (int q = 0; q < G::R4 / 4; q++)
        {
          uint4 l1 = *(const uint4 *) &sv1[b][sidx<R, C> (t, -G::R4 + 4 * q)];
          uint4 l2 = *(const uint4 *) &sv2[b][sidx<R, C> (t, -G::R4 + 4 * q)];
          uint4 r1 = *(const uint4 *) &sv1[b][sidx<R, C> (t, C + 4 * q)];
          uint4 r2 = *(const uint4 *) &sv2[b][sidx<R, C> (t, C + 4 * q)];
          w1[4 * q] = l1.x, w1[4 * q + 1] = l1.y, w1[4 * q + 2] = l1.z, w1[4 * q + 3] = l1.w;
          w2[4 * q] = l2.x, w2[4 * q + 1] = l2.y, w2[4 * q + 2] = l2.z, w2[4 * q + 3] = l2.w;
          const int o = G::R4 + C + 4 * q;
          w1[o] = r1.x, w1[o + 1] = r1.y, w1[o + 2] = r1.z, w1[o + 3] = r1.w;
          w2[o] = r2.x, w2[o + 1] = r2.y, w2[o + 2] = r2.z, w2[o + 3] = r2.w;
        }
#pragma unroll
      for (int c = 0; c < C; c++)
        w1[G::R4 + c] = v1[c], w2[G::R4 + c] = v2[c];
      uint32_t s1 = 0, s2 = 0;
#pragma unroll
      for (int e = -R; e <= R; e++)
        s1 += w1[G::R4 + e], s2 += w2[G::R4 + e];
      uint32_t ov[C / 4], dm[C / 4];
#pragma unroll
      for (int q = 0; q < C / 4; q++)
        ov[q] = dm[q] = 0;
#pragma unroll
      for (int c = 0; c < C; c++)
        {
          if (c > 0)
            {
              s1 += w1[G::R4 + c + R] - w1[G::R4 + c - 1 - R];
              s2 += w2[G::R4 + c + R] - w2[G::R4 + c - 1 - R];
            }
          bool d;
          if constexpr (R <= 10)
            d = (s1 - rule.s1lo <= rule.s1span)
                & (n_win * s2 - s1 * s1 - rule.dlo32 <= rule.dspan32);
          else
            d = enh_range_decide (s1, gfx_enh_d_u32 (n_win, s1, s2), rule);
          const uint32_t k = byte_of (kcur, c);
          const uint32_t o = direct ? (d ? (uint32_t) slut[k] : k) : (uint32_t) d;
          ov[c >> 2] |= o << (8 * (c & 3));
          if (d)
            dm[c >> 2] |= 255u << (8 * (c & 3));
        }
      if (dstore) /* each byte straight to global memory, interior columns only */
        {
          uint8_t *drow = dst + (size_t) y * w + gx0;
          uint8_t *mrow = want_mask ? sink.mask + (size_t) y * w + gx0 : nullptr;
#pragma unroll
          for (int c = 0; c < C; c++)
            {
              const int j = t * C + c;
              if (j >= R && j < R + (x1 - x0))
                {
                  drow[c] = (uint8_t) byte_of (ov, c);
                  if (want_mask)
                    mrow[c] = (uint8_t) byte_of (dm, c);
                }
            }
          continue;
        }
      uint32_t *sv = (uint32_t *) &stv[b][t * C];
      uint32_t *sm = (uint32_t *) &stm[b][t * C];
#pragma unroll
      for (int q = 0; q < C / 4; q++)
        {
          sv[q] = ov[q];
          if (want_mask)
            sm[q] = dm[q];
        }
    }
  __syncthreads ();
  if (y1 > y0 && !dstore)
    {
      const int b = (y1 - 1 - y0) & 1;
      size_t a0 = (size_t) (y1 - 1) * w + x0;
      flush_row (dst, stv[b], a0, x1 - x0, R);
      if (want_mask)
        flush_row (sink.mask, stm[b], a0, x1 - x0, R);
    }
}

template <int R, int C>
cudaError_t
launch_rc (const uint8_t *key, int w, int h, int sh, int overlap, int dstore,
           const EnhState *st, EnhSink<uint8_t> sink, cudaStream_t s)
{
  const int span = BAND - 2 * R;
  const int nbx = (w + span - 1) / span;
  const int ow = (w + nbx - 1) / nbx;
  cudaLaunchAttribute at;
  cudaLaunchConfig_t cfg = enh_launch_config (
      dim3 ((unsigned) nbx, (unsigned) ((h + sh - 1) / sh)), dim3 (BAND / C), 0, s, overlap, &at);
  return cudaLaunchKernelEx (&cfg, strip_kernel<R, C>, key, w, h, ow, sh, dstore, st, sink);
}

template <int C>
cudaError_t
launch_c (const uint8_t *key, int w, int h, int r, int sh, int overlap, int dstore,
          const EnhState *st, EnhSink<uint8_t> sink, cudaStream_t s)
{
  switch (r)
    {
#define ENH_R(R)                                                                           \
  case R:                                                                                  \
    return launch_rc<R, C> (key, w, h, sh, overlap, dstore, st, sink, s);
      ENH_R (1) ENH_R (2) ENH_R (3) ENH_R (4) ENH_R (5) ENH_R (6) ENH_R (7) ENH_R (8)
      ENH_R (9) ENH_R (10) ENH_R (11) ENH_R (12) ENH_R (13) ENH_R (14) ENH_R (15) ENH_R (16)
#undef ENH_R
    default:
      return cudaErrorInvalidValue;
    }
}

} // namespace

int
enh_strip_rows (EnhStripTuning tune, int r)
{
  /* longer strips for larger windows: each strip first sums 2r + 1 rows */
  return tune.strip ? tune.strip : r <= 4 ? 16 : 32;
}

cudaError_t
enh_launch_strip (const uint8_t *key, int w, int h, int r, EnhStripTuning tune,
                  const EnhState *st, EnhSink<uint8_t> sink, cudaStream_t s)
{
  const int sh = enh_strip_rows (tune, r);
  if (tune.cols == 8)
    return launch_c<8> (key, w, h, r, sh, tune.overlap, tune.store, st, sink, s);
  if (tune.cols == 16)
    return launch_c<16> (key, w, h, r, sh, tune.overlap, tune.store, st, sink, s);
  return launch_c<4> (key, w, h, r, sh, tune.overlap, tune.store, st, sink, s);
}
