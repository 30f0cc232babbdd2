/* n = 3 for 8-bit keys in one cooperative kernel, when a band of rows and its output fit
 * each SM's shared memory (the seed's 3241 x 3685 image: 28 rows, 191 KB of 227 KB).
 *
 * Each block (one per SM, all resident) owns a band of full rows.  The band and a one-row
 * halo land in shared memory by bulk copies (bulk_copy.cuh: one instruction a row, all in
 * flight at once); the warps move each row into place (byte j = column j - 4, the
 * reflected columns -1 and w stored, so the walk has no border cases) and add up the
 * exact totals of the block's own rows on the way (dp4a).  The block publishes its totals
 * and waits at a grid barrier; then every block adds up all the partial totals (integers:
 * the order does not matter), computes the very same thresholds as the totals kernel
 * (gfx_enh_thresholds_make), and decides its band from shared memory.  Outputs are staged
 * in shared memory and leave by bulk stores, the band's first half while the second is
 * worked out.  The key plane is read once and the output written once: the memory traffic
 * of a copy.
 *
 * The walk: a warp takes a contiguous run of output rows of one 128-column tile (the runs
 * of all warps cover tiles x rows evenly), each lane 4 columns.  It keeps the 3-wide
 * horizontal sums of k and k^2 of the last three rows in registers (row_sums); per pixel
 * the decision is two unsigned range tests (w3::Rule32) and the gained value one
 * predicated byte load from the gain table. */
#include <cooperative_groups.h>

#include "bulk_copy.cuh"
#include "enhance_win3.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int THREADS = 1024, WARPS = THREADS / 32;
constexpr int RAW_AT = 16; /* a row's bulk copy lands this many bytes into its shared row */

/* Shared words per band row, a multiple of 4 (rows start 16-byte aligned): the walk reads
 * up to word 32 x tiles + 1; a row's bulk copy lands at byte RAW_AT and spans up to w + 30
 * bytes (its ends rounded out to 16 bytes). */
__host__ __device__ inline int
pitch_words (int w)
{
  const int walk = 32 * ((w + w3::COLS - 1) / w3::COLS) + 2, copy = (RAW_AT + w + 30 + 3) / 4;
  return ((walk > copy ? walk : copy) + 3) & ~3;
}

/* The bulk copy of image row gy: the 16-byte aligned bytes around it. */
struct RowCopy {
  const uint8_t *src;
  uint32_t bytes, skew; /* skew: where column 0 lies in the copy */
};

__device__ __forceinline__ RowCopy
row_copy (const uint8_t *key, int w, int gy)
{
  const uintptr_t g = (uintptr_t) (key + (size_t) gy * w), a = g & ~(uintptr_t) 15;
  /* the key buffer has slack after its end for the last row's rounding */
  return { (const uint8_t *) a, (uint32_t) (((g + w + 15) & ~(uintptr_t) 15) - a),
           (uint32_t) (g - a) };
}

/* Moves a landed row into place, in place and in ascending order, PLACE words a lane at
 * a time (all lanes read them before any lane writes): byte j becomes column j - 4,
 * columns -1 and w their reflections.  Adds the row's keys to p1, their squares to p2
 * when `own`. */
constexpr int PLACE = 8;

__device__ __forceinline__ void
place_row (uint32_t *d, uint32_t skew, int w, bool own, int lane, uint32_t &p1, uint32_t &p2)
{
  const int from = (RAW_AT - 4 + (int) skew) / 4; /* word q comes from words q + from, + 1 */
  const uint32_t sh = 8u * (skew & 3u);
  /* words 1 .. last hold columns 0 .. w - 1 (word 0 only column -1, set below); the last
   * one's bytes past column w - 1 do not count */
  const int last = (w + 3) / 4;
  const uint32_t last_mask = 0xffffffffu >> (8 * (4 * last - w));
  for (int b = 1; b <= last; b += 32 * PLACE) /* the same trips for every lane */
    {
      const int q0 = b + lane;
      uint32_t v[PLACE];
#pragma unroll
      for (int k = 0; k < PLACE; k++)
        {
          const int q = min (q0 + 32 * k, last); /* past the end: a repeat of the last word */
          v[k] = __funnelshift_r (d[q + from], d[q + from + 1], sh);
        }
      __syncwarp ();
#pragma unroll
      for (int k = 0; k < PLACE; k++)
        {
          const int q = q0 + 32 * k;
          if (q <= last)
            {
              d[q] = v[k];
              const uint32_t m = own ? v[k] & (q < last ? 0xffffffffu : last_mask) : 0u;
              p1 = __dp4a (m, 0x01010101u, p1);
              p2 = __dp4a (m, m, p2);
            }
        }
      __syncwarp ();
    }
  if (lane == 0)
    {
      uint8_t *b = (uint8_t *) d;
      b[3] = b[4];
      b[4 + w] = b[3 + w];
    }
}

/* The 3-wide horizontal sums of k (s1) and k^2 (s2) of a lane's 4 columns in one row,
 * and the row's word of those columns (c). */
struct RowSums {
  uint32_t s1[4], s2[4], c;
};

/* r points at the word before the lane's own. */
__device__ __forceinline__ void
row_sums (const uint32_t *r, RowSums &o)
{
  w3::hsums (r, o.s1, o.s2);
  o.c = r[1];
}

__device__ __forceinline__ uint32_t
pack_bytes (const uint32_t (&v)[4])
{
  return __byte_perm (__byte_perm (v[0], v[1], 0x0040u), __byte_perm (v[2], v[3], 0x0040u),
                      0x5410u);
}

/* Outputs are staged in shared memory and leave by one bulk store per block (the band's
 * rows are contiguous in the image), except with a mask, whose two outputs go straight
 * to global memory (w3::store_row). */
template <int MODE> constexpr bool STAGED = MODE != w3::MODE_OUT_MASK;

/* The lane's 4 bytes of a tile row at p (a staging row, any byte alignment, the same for
 * the whole warp): one word, two halves, or byte, half, byte. */
__device__ __forceinline__ void
stage_word (uint8_t *p, uint32_t v)
{
  const uint32_t s = (uint32_t) (uintptr_t) p & 3u;
  if (s == 0)
    *(uint32_t *) p = v;
  else if (s == 2)
    {
      ((uint16_t *) p)[0] = (uint16_t) v;
      ((uint16_t *) p)[1] = (uint16_t) (v >> 16);
    }
  else
    {
      p[0] = (uint8_t) v;
      *(uint16_t *) (p + 1) = (uint16_t) (v >> 8);
      p[3] = (uint8_t) (v >> 24);
    }
}

/* Where one tile row goes: its first column in the staging buffer (or in the output), and
 * in the mask; inner: all 128 columns inside the image. */
struct RowOut {
  uint8_t *dst, *mask;
  bool inner;
};

/* Decides the lane's 4 pixels of the centre row b (a above, c below) and writes them. */
template <int MODE>
__device__ __forceinline__ void
emit (const RowSums &a, const RowSums &b, const RowSums &c, const w3::Rule32 &q,
      const uint8_t *lut, const RowOut &o, int x, int w, int lane)
{
  uint32_t v[4], d[4];
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      const uint32_t s1 = a.s1[k] + b.s1[k] + c.s1[k], s2 = a.s2[k] + b.s2[k] + c.s2[k];
      d[k] = (s1 - q.s1lo <= q.s1span) & (9u * s2 - s1 * s1 - q.dlo <= q.dspan);
      const uint32_t key = (b.c >> (8 * k)) & 0xffu;
      if constexpr (MODE == w3::MODE_DEC)
        v[k] = d[k];
      else
        v[k] = d[k] ? (uint32_t) lut[key] : key;
    }
  const uint32_t ov = pack_bytes (v);
  if (!o.inner)
    w3::store_edge (o.dst + 4 * lane, ov, x, w);
  else if constexpr (STAGED<MODE>)
    stage_word (o.dst + 4 * lane, ov);
  else
    w3::store_row (o.dst, ov, lane);
  if constexpr (MODE == w3::MODE_OUT_MASK)
    {
      const uint32_t mv = pack_bytes (d) * 255u;
      if (o.inner)
        w3::store_row (o.mask, mv, lane);
      else
        w3::store_edge (o.mask + 4 * lane, mv, x, w);
    }
}

/* Output rows i0 .. i1 - 1 of the band in the tile at x0: col points at the lane's word
 * before its own in band row 0; out (and mask) at the tile's column of output row 0.
 * The three row sums rotate through fixed registers (three rows a step). */
template <int MODE>
__device__ __forceinline__ void
walk (const uint32_t *col, int pitch, int i0, int i1, const w3::Rule32 &q, const uint8_t *lut,
      uint8_t *out, uint8_t *mask, int w, int x0, int lane)
{
  const bool inner = x0 + w3::COLS <= w;
  const int x = x0 + 4 * lane;
  RowSums r0, r1, r2;
  row_sums (col + i0 * pitch, r0);
  row_sums (col + (i0 + 1) * pitch, r1);
  auto step = [&] (const RowSums &a, const RowSums &b, RowSums &c, int i) {
    row_sums (col + (i + 2) * pitch, c);
    const size_t ra = (size_t) i * w;
    const RowOut o = { out + ra, MODE == w3::MODE_OUT_MASK ? mask + ra : nullptr, inner };
    emit<MODE> (a, b, c, q, lut, o, x, w, lane);
  };
  int i = i0;
  for (; i + 3 <= i1; i += 3)
    {
      step (r0, r1, r2, i);
      step (r1, r2, r0, i + 1);
      step (r2, r0, r1, i + 2);
    }
  if (i < i1)
    step (r0, r1, r2, i);
  if (i + 1 < i1)
    step (r1, r2, r0, i + 1);
}

/* n staged bytes at s (in shared memory, at the same offset from a 16-byte boundary as g)
 * to g: the aligned middle by one bulk store (left in flight), the ends byte by byte. */
__device__ __forceinline__ void
write_rows (uint8_t *g, const uint8_t *s, uint32_t n)
{
  const uint32_t head = (16u - (uint32_t) ((uintptr_t) g & 15u)) & 15u;
  const uint32_t mid = n > head ? (n - head) & ~15u : 0u;
  if (mid > 0 && threadIdx.x == 0)
    bulk_store (g + head, s + head, mid);
  for (uint32_t i = threadIdx.x; i < n - mid; i += THREADS)
    {
      const uint32_t k = i < head ? i : i + mid;
      g[k] = s[k];
    }
}

/* Totals of the block into st->part[blockIdx.x]. */
__device__ __forceinline__ void
publish_totals (uint32_t p1, uint32_t p2, EnhState *st, unsigned long long (&red)[2][WARPS])
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned long long q1 = p1, q2 = p2;
  for (int o = 16; o > 0; o >>= 1)
    {
      q1 += __shfl_down_sync (0xffffffffu, q1, o);
      q2 += __shfl_down_sync (0xffffffffu, q2, o);
    }
  if (lane == 0)
    red[0][warp] = q1, red[1][warp] = q2;
  __syncthreads ();
  if (threadIdx.x == 0)
    {
      unsigned long long b1 = 0, b2 = 0;
      for (int i = 0; i < WARPS; i++)
        b1 += red[0][i], b2 += red[1][i];
      st->part[blockIdx.x] = { b1, 0ull, b2, 0ull };
    }
}

/* Warp 0: the thresholds from all blocks' totals (8-bit keys, fewer than 2^34 of them:
 * both totals fit 64 bits). */
__device__ __forceinline__ void
thresholds (EnhState *st, int w, int h, const RuleArgs &ra, w3::Rule32 &rule)
{
  const int lane = threadIdx.x & 31;
  unsigned long long t1 = 0, t2 = 0;
  for (unsigned b = lane; b < gridDim.x; b += 32)
    {
      const volatile EnhPartial *pp = &st->part[b];
      t1 += pp->t1lo;
      t2 += pp->t2lo;
    }
  for (int o = 16; o > 0; o >>= 1)
    {
      t1 += __shfl_down_sync (0xffffffffu, t1, o);
      t2 += __shfl_down_sync (0xffffffffu, t2, o);
    }
  if (lane == 0)
    {
      const gfx_enh_thresholds th = gfx_enh_thresholds_make (
        (gfx_i128) t1, (gfx_u128) t2, (uint64_t) w * (uint64_t) h, ra.n_win, ra.k, ra.rule);
      rule = w3::rule32 (th);
      if (blockIdx.x == 0)
        st->th = th; /* as the totals kernel leaves it (the bench's partial timings) */
    }
}

template <int MODE>
__global__ void __launch_bounds__ (THREADS, 1)
fused3_kernel (const uint8_t *__restrict__ key, int w, int h, int band, RuleArgs ra,
               EnhState *st, EnhSink<uint8_t> sink)
{
  extern __shared__ __align__ (128) uint32_t rows_smem[]; /* (rows + 2) x pitch, gain table */
  __shared__ uint64_t landed;                              /* the bulk copies' barrier */
  __shared__ unsigned long long red[2][WARPS];
  __shared__ w3::Rule32 rule;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int pitch = pitch_words (w);
  const int y0 = blockIdx.x * band, rows = min (band, h - y0), nr = rows + 2;
  uint8_t *lut = (uint8_t *) (rows_smem + nr * pitch);
  uint8_t *stage = lut + 256; /* 16-byte aligned; the band's output bytes from stage + lead */
  /* Band rows y0 - 1 .. y0 + rows (reflected) in flight at once, then moved into place. */
  if (threadIdx.x == 0)
    bulk_init (&landed, 1);
  __syncthreads ();
  if (warp == 0)
    {
      uint32_t bytes = 0;
      for (int r = lane; r < nr; r += 32)
        bytes += row_copy (key, w, w3::refl (y0 - 1 + r, h)).bytes;
      for (int o = 16; o > 0; o >>= 1)
        bytes += __shfl_xor_sync (0xffffffffu, bytes, o);
      if (lane == 0)
        bulk_expect (&landed, bytes);
      __syncwarp ();
      for (int r = lane; r < nr; r += 32)
        {
          const RowCopy rc = row_copy (key, w, w3::refl (y0 - 1 + r, h));
          bulk_copy (rows_smem + r * pitch + RAW_AT / 4, rc.src, rc.bytes, &landed);
        }
    }
  if constexpr (MODE != w3::MODE_DEC)
    if (threadIdx.x < 256)
      lut[threadIdx.x] = (uint8_t) sink.lut[threadIdx.x];
  bulk_wait (&landed, 0);
  uint32_t p1 = 0, p2 = 0; /* at most 2^32 / 2^16 keys a lane */
  for (int r = warp; r < nr; r += WARPS)
    place_row (rows_smem + r * pitch, row_copy (key, w, w3::refl (y0 - 1 + r, h)).skew, w,
               r >= 1 && r <= rows, lane, p1, p2);
  publish_totals (p1, p2, st, red);
  cg::this_grid ().sync ();
  if (warp == 0)
    thresholds (st, w, h, ra, rule);
  __syncthreads ();
  const w3::Rule32 q = rule;
  uint8_t *out = (MODE == w3::MODE_DEC ? sink.dec : sink.out) + (size_t) y0 * w;
  const uint32_t lead = (uint32_t) ((uintptr_t) out & 15u);
  uint8_t *to = STAGED<MODE> ? stage + lead : out;
  uint8_t *mask = MODE == w3::MODE_OUT_MASK ? sink.mask + (size_t) y0 * w : nullptr;
  /* Row groups, one after the other: a group's staged rows leave by a bulk store while the
   * next group is worked out.  In a group, each warp takes a run of its output tile-rows,
   * tile by tile. */
  const int ntiles = (w + w3::COLS - 1) / w3::COLS;
  constexpr int GROUPS = STAGED<MODE> ? 2 : 1;
  for (int g = 0; g < GROUPS; g++)
    {
      const int r0 = rows * g / GROUPS, grows = rows * (g + 1) / GROUPS - r0;
      if (grows == 0)
        continue;
      const int jobs = ntiles * grows, j1 = (int) ((long long) (warp + 1) * jobs / WARPS);
      for (int j = (int) ((long long) warp * jobs / WARPS); j < j1;)
        {
          const int t = j / grows, i0 = r0 + j - t * grows;
          const int i1 = min (r0 + grows, i0 + (j1 - j)), x0 = t * w3::COLS;
          walk<MODE> (rows_smem + x0 / 4 + lane, pitch, i0, i1, q, lut, to + x0,
                      mask ? mask + x0 : nullptr, w, x0, lane);
          j += i1 - i0;
        }
      if constexpr (STAGED<MODE>)
        {
          bulk_store_fence ();
          __syncthreads ();
          write_rows (out + (size_t) r0 * w, to + (size_t) r0 * w, (uint32_t) grows * (uint32_t) w);
        }
    }
  if (STAGED<MODE> && threadIdx.x == 0)
    bulk_store_wait (); /* the shared memory stays until the stores have read it */
}

template <int MODE>
cudaError_t
launch_mode (const uint8_t *key, int w, int h, RuleArgs ra, EnhState *st,
             EnhSink<uint8_t> sink, cudaStream_t s, bool *done)
{
  /* The device's limits, read once (the caller holds the cache lock): band rows per block
   * so that one block per SM covers the image. */
  static int max_smem = -1, sms = 0;
  if (max_smem < 0)
    {
      int dev = 0;
      cudaError_t e = cudaGetDevice (&dev);
      if (e == cudaSuccess)
        e = cudaDeviceGetAttribute (&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
      if (e == cudaSuccess)
        e = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev);
      if (e != cudaSuccess)
        {
          max_smem = -1;
          return e;
        }
    }
  const int band = (h + sms - 1) / sms, grid = (h + band - 1) / band;
  /* rows, gain table, staged output */
  const size_t smem = (size_t) (band + 2) * pitch_words (w) * 4 + 256
                      + (STAGED<MODE> ? ((size_t) band * w + 15 + 15) & ~(size_t) 15 : 0);
  const size_t static_smem = 8 + 2 * WARPS * 8 + sizeof (w3::Rule32) + 64;
  if (grid > ENH_MAX_BLOCKS || smem + static_smem > (size_t) max_smem)
    return cudaSuccess; /* does not fit: *done stays false */
  static size_t smem_set[3] = { 0, 0, 0 };
  if (smem_set[MODE] < smem)
    {
      cudaError_t e = cudaFuncSetAttribute (fused3_kernel<MODE>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int) smem);
      if (e != cudaSuccess)
        return e;
      smem_set[MODE] = smem;
    }
  int per_sm = 0;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, fused3_kernel<MODE>,
                                                                 THREADS, smem);
  if (e != cudaSuccess)
    return e;
  if (per_sm < 1 || grid > per_sm * sms)
    return cudaSuccess; /* not all resident: not for a grid barrier */
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3 ((unsigned) grid);
  cfg.blockDim = dim3 (THREADS);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeCooperative;
  at[0].val.cooperative = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  e = cudaLaunchKernelEx (&cfg, fused3_kernel<MODE>, key, w, h, band, ra, st, sink);
  if (e == cudaErrorCooperativeLaunchTooLarge)
    {
      (void) cudaGetLastError (); /* not sticky: the separate kernels take over */
      return cudaSuccess;
    }
  *done = e == cudaSuccess;
  return e;
}

} // namespace

cudaError_t
enh_launch_fused3 (const uint8_t *key, int w, int h, RuleArgs ra, EnhState *st,
                   EnhSink<uint8_t> sink, cudaStream_t s, bool *done)
{
  *done = false;
  if (sink.dec)
    return launch_mode<w3::MODE_DEC> (key, w, h, ra, st, sink, s, done);
  if (sink.mask)
    return launch_mode<w3::MODE_OUT_MASK> (key, w, h, ra, st, sink, s, done);
  return launch_mode<w3::MODE_OUT> (key, w, h, ra, st, sink, s, done);
}
