/* n = 3 for 8-bit keys in one kernel with a grid barrier, when a band of rows and its
 * output fit each SM's shared memory (the seed's 3241 x 3685 image: 28 rows, 191 KB of
 * 227 KB).
 *
 * Each block (one per SM) owns a band of full rows.  The band and a one-row halo land in
 * shared memory by bulk copies (bulk_copy.cuh: one instruction a row, all in flight at
 * once); the warps move each row into place (byte j = column j - 4, the reflected columns
 * -1 and w stored, so the walk has no border cases) and add up the exact totals of the
 * block's own rows on the way (dp4a).  The block adds its totals to the grid's (integers:
 * the order does not matter) and waits until every band's are in; then it computes the
 * very same thresholds as the totals kernel (gfx_enh_thresholds_make) and decides its band
 * from shared memory.  Outputs are staged in shared memory and leave by bulk stores, the
 * band's first half while the second is worked out.  The key plane is read once and the
 * output written once: the memory traffic of a copy.
 *
 * The barrier needs no cooperative launch: a block claims its band's totals (claim_band)
 * as it starts, and a block that has waited HELP_AFTER_NS claims the bands nobody has
 * claimed and sums them from global memory itself, so blocks that are not resident (a
 * GPU shared with other work) cannot hold the others up for ever.  Without the
 * cooperative attribute the launch can be a programmatic dependent one: the next kernel's
 * blocks are placed while this one ends (H100, back to back: 19.3-19.5 -> 18.9-19.1 us).
 *
 * The walk: a warp takes a contiguous run of output rows of one 128-column tile (the runs
 * of all warps cover tiles x rows evenly), each lane 4 columns.  It keeps the 3-wide
 * horizontal sums of k and k^2 of the last three rows in registers (row_sums); per pixel
 * the decision is two unsigned range tests (w3::Rule32), the gained value a predicated
 * byte load from the gain table, and the output one byte store into the staging rows. */
#include "bulk_copy.cuh"
#include "enhance_win3.cuh"
#include "trace_clock.cuh"

namespace {

constexpr int THREADS = 1024, WARPS = THREADS / 32;

/* Bench only (enh_fused3_trace): when set, thread 0 of each block writes its phase times
 * (%globaltimer, ns) to trace_buf[block * ENH_TRACE_POINTS + point]. */
__device__ unsigned long long *trace_buf;

__device__ __forceinline__ void
trace_point (unsigned long long *tb, int point)
{
  if (tb != nullptr && threadIdx.x == 0)
    tb[blockIdx.x * ENH_TRACE_POINTS + point] = trace_gtime ();
}

constexpr int RAW_AT = 16; /* a row's bulk copy lands this many bytes into its shared row */

/* The dynamic shared block: the gain table, the band rows, the staged output.  The table
 * sits in the first LUT_WORDS at a 256-byte aligned shared address, so the address of a
 * key's entry is one byte permutation (the key as its low byte). */
extern __shared__ __align__ (128) uint32_t dyn_smem[];
constexpr int LUT_WORDS = 128;

/* The table's shared address, in a per-thread register (plus lane / 32, which is 0: a
 * value the compiler keeps in a uniform register costs a move at each use). */
__device__ __forceinline__ uint32_t
lut_address ()
{
  const uint32_t a = ((uint32_t) __cvta_generic_to_shared (dyn_smem) + 255u) & ~255u;
  uint32_t r;
  asm ("{ .reg .u32 t; mov.u32 t, %%laneid; shr.u32 t, t, 5; add.u32 %0, %1, t; }"
       : "=r"(r)
       : "r"(a));
  return r;
}

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

/* Moves a landed row into place, in place and in ascending order (word q comes from
 * words q + from and q + from + 1, from >= 3: a step's reads all lie past its writes, and
 * all lanes read before any lane writes): byte j becomes column j - 4, columns -1 and w
 * their reflections.  Whole steps of PLACE words a lane, then the rest a word a lane. */
constexpr int PLACE = 8;

__device__ __forceinline__ void
place_row (uint32_t *d, uint32_t skew, int w, int lane)
{
  const int from = (RAW_AT - 4 + (int) skew) / 4;
  const uint32_t sh = 8u * (skew & 3u);
  const int last = (w + 3) / 4; /* words 1 .. last hold columns 0 .. w - 1 */
  int b = 1;
  for (; b + 32 * PLACE <= last + 1; b += 32 * PLACE) /* every word of the step <= last */
    {
      uint32_t v[PLACE];
#pragma unroll
      for (int k = 0; k < PLACE; k++)
        {
          const int q = b + lane + 32 * k;
          v[k] = __funnelshift_r (d[q + from], d[q + from + 1], sh);
        }
      __syncwarp ();
#pragma unroll
      for (int k = 0; k < PLACE; k++)
        d[b + lane + 32 * k] = v[k];
      __syncwarp ();
    }
  for (; b <= last; b += 32) /* the same trips for every lane */
    {
      const int q = b + lane;
      const uint32_t v = __funnelshift_r (d[min (q, last) + from], d[min (q, last) + from + 1], sh);
      __syncwarp ();
      if (q <= last)
        d[q] = v;
      __syncwarp ();
    }
  if (lane == 0)
    {
      uint8_t *c = (uint8_t *) d;
      c[3] = c[4];
      c[4 + w] = c[3 + w];
    }
}

/* Adds the 16 keys of a chunk to p1 and their squares to p2. */
__device__ __forceinline__ void
chunk_sums (const uint4 &c, uint32_t &p1, uint32_t &p2)
{
  p1 = __dp4a (c.x, 0x01010101u, p1);
  p2 = __dp4a (c.x, c.x, p2);
  p1 = __dp4a (c.y, 0x01010101u, p1);
  p2 = __dp4a (c.y, c.y, p2);
  p1 = __dp4a (c.z, 0x01010101u, p1);
  p2 = __dp4a (c.z, c.z, p2);
  p1 = __dp4a (c.w, 0x01010101u, p1);
  p2 = __dp4a (c.w, c.w, p2);
}

/* Adds the keys of an own row as landed (`chunks` 16-byte chunks, 16-byte aligned in
 * shared memory, column 0 at byte skew) to p1 and their squares to p2: all chunks whole,
 * and the bytes of the copy outside the row (fewer than 16 at each end) to o1, o2 to be
 * taken back. */
__device__ __forceinline__ void
row_totals (const uint32_t *raw, int chunks, int skew, int w, int lane, uint32_t &p1,
            uint32_t &p2, uint32_t &o1, uint32_t &o2)
{
  for (int i = lane; i < chunks; i += 32)
    {
      chunk_sums (((const uint4 *) raw)[i], p1, p2);
    }
  const uint8_t *b = (const uint8_t *) raw;
  const int tail = 16 * chunks - skew - w;
  const uint32_t head_key = lane < skew ? b[lane] : 0u;
  const uint32_t tail_key = lane < tail ? b[skew + w + lane] : 0u;
  o1 += head_key + tail_key;
  o2 += head_key * head_key + tail_key * tail_key;
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

/* Outputs are staged in shared memory and leave by bulk stores, except with a mask, whose
 * two outputs go straight to global memory (w3::store_row). */
template <int MODE> constexpr bool STAGED = MODE != ENH_SINK_OUT_MASK;

/* Decides the lane's 4 pixels of the centre row b (a above, c below) and writes them at
 * dst + 4 lane (staged: one byte store each, as the staging rows have any alignment and
 * a word store would need a case per alignment; edge tiles store only the first `inside`
 * of the 4 bytes) or, with a mask, straight to global memory. */
template <int MODE, bool INNER>
__device__ __forceinline__ void
emit (const RowSums &a, const RowSums &b, const RowSums &c, const w3::Rule32 &q, uint32_t lut,
      uint8_t *dst, uint8_t *mask, int inside, int x, int w, int lane)
{
  uint32_t v[4], d[4];
#pragma unroll
  for (int k = 0; k < 4; k++)
    {
      const uint32_t s1 = a.s1[k] + b.s1[k] + c.s1[k], s2 = a.s2[k] + b.s2[k] + c.s2[k];
      d[k] = (s1 - q.s1lo <= q.s1span) & (9u * s2 - s1 * s1 - q.dlo <= q.dspan);
      if constexpr (MODE == ENH_SINK_DEC)
        v[k] = d[k];
      else
        {
          /* the key's table entry, whose low byte is the key itself */
          v[k] = __byte_perm (lut, b.c, 0x3214u + k);
          if (d[k])
            asm ("ld.shared.u8 %0, [%0];" : "+r"(v[k]));
        }
    }
  if constexpr (STAGED<MODE>)
    {
#pragma unroll
      for (int k = 0; k < 4; k++)
        if (INNER || k < inside)
          dst[4 * lane + k] = (uint8_t) v[k];
    }
  else
    {
      const uint32_t ov = pack_bytes (v), mv = pack_bytes (d) * 255u;
      if (INNER)
        {
          w3::store_row (dst, ov, lane);
          w3::store_row (mask, mv, lane);
        }
      else
        {
          w3::store_edge (dst + 4 * lane, ov, x, w);
          w3::store_edge (mask + 4 * lane, mv, x, w);
        }
    }
}

/* Output rows i0 .. i1 - 1 of the band in a tile (INNER: all 128 columns inside the
 * image): col points at the lane's word before its own in band row 0; out (and mask) at
 * the tile's column of output row 0, x is the lane's first column.  The three row sums
 * rotate through fixed registers (three rows a step). */
template <int MODE, bool INNER>
__device__ __forceinline__ void
walk (const uint32_t *col, int pitch, int i0, int i1, const w3::Rule32 &q, uint32_t lut,
      uint8_t *out, uint8_t *mask, int w, int x, int lane)
{
  const int inside = w - x;
  const uint32_t *r = col + i0 * pitch;
  uint8_t *o = out + (size_t) i0 * w, *m = mask ? mask + (size_t) i0 * w : nullptr;
  RowSums r0, r1, r2;
  row_sums (r, r0);
  row_sums (r + pitch, r1);
  r += 2 * pitch;
  auto step = [&] (const RowSums &a, const RowSums &b, RowSums &c) {
    row_sums (r, c);
    emit<MODE, INNER> (a, b, c, q, lut, o, m, inside, x, w, lane);
    r += pitch;
    o += w;
    if constexpr (MODE == ENH_SINK_OUT_MASK)
      m += w;
  };
  int n = i1 - i0;
  for (; n >= 3; n -= 3)
    {
      step (r0, r1, r2);
      step (r1, r2, r0);
      step (r2, r0, r1);
    }
  if (n > 0)
    step (r0, r1, r2);
  if (n > 1)
    step (r1, r2, r0);
}

/* A whole tile a warp (ntiles <= WARPS): fewer runs to start than an even split of the
 * tile-rows, with three quarters of the warps or more busy.  Warp w runs on scheduler
 * w % 4, so with ntiles % 4 = r != 0 schedulers 0 .. r - 1 hold one tile more than the
 * others: the last tile of scheduler i < min (r, 4 - r) is cut in two, its bottom half
 * taken by idle warp ntiles + i (on scheduler r + i). */
__device__ __forceinline__ void
tile_jobs (int warp, int ntiles, int grows, int &j, int &j1)
{
  const int r = ntiles % 4, pairs = min (r, 4 - r), last_row = (ntiles - 1) / 4 * 4;
  const int half = grows / 2;
  j = j1 = 0;
  if (warp < ntiles)
    {
      const int i = warp - last_row; /* the scheduler's last tile: i >= 0 */
      const bool cut = i >= 0 && i < pairs && ntiles + i < WARPS;
      j = warp * grows;
      j1 = j + (cut ? half : grows);
    }
  else if (warp - ntiles < pairs)
    {
      const int t = last_row + (warp - ntiles);
      j = t * grows + half;
      j1 = (t + 1) * grows;
    }
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

/* The image totals (8-bit keys: below 2^56 each).  arrive: after a block-wide reduction,
 * thread 0 adds the block's own to the grid's sums in st if it won its band's claim, each
 * sum word counting the bands in its top 8 bits (so a word that counts all bands holds the
 * whole sum: no fence, no separate flag); wait (thread 0): until both words count every
 * band, helping with unclaimed bands after HELP_AFTER_NS.  leave_totals zeroes the sums for
 * the next launch.
 *
 * Claims need no reset: each launch has its own epoch (from 1 up, 64 bits), and a claim is
 * an atomicMax of 4 epoch + who; the first of a launch's claims of a band sees a value
 * below 4 epoch (the last launch's, or 0) and wins. */
constexpr int ARRIVAL_SHIFT = 56, MAX_GRID = ENH_FUSED_MAX_GRID;
constexpr unsigned long long CLAIM_OWN = 1, CLAIM_HELPER = 2;
constexpr unsigned long long HELP_AFTER_NS = 20000; /* all resident blocks are in by then */

/* A claim of band b, in two halves: the atomic (its answer not waited for here: volatile
 * asm keeps the first use of the register where claim_won is called), then whether it was
 * the launch's first. */
__device__ __forceinline__ unsigned long long
claim_start (EnhState *st, int b, unsigned long long epoch, unsigned long long who)
{
  unsigned long long was;
  asm volatile ("atom.global.max.u64 %0, [%1], %2;"
                : "=l"(was)
                : "l"(&st->claim[b]), "l"(4 * epoch + who)
                : "memory");
  return was;
}

__device__ __forceinline__ bool
claim_won (unsigned long long was, unsigned long long epoch)
{
  asm volatile ("mov.b64 %0, %0;" : "+l"(was));
  return was < 4 * epoch;
}

__device__ __forceinline__ bool
claim_band (EnhState *st, int b, unsigned long long epoch, unsigned long long who)
{
  return claim_won (claim_start (st, b, epoch, who), epoch);
}

__device__ __forceinline__ void
add_band (EnhState *st, unsigned long long q1, unsigned long long q2)
{
  atomicAdd (&st->sum1, q1 + (1ull << ARRIVAL_SHIFT));
  atomicAdd (&st->sum2, q2 + (1ull << ARRIVAL_SHIFT));
}

/* claimed: a shared flag, by reference: it is read after the barrier below, which the
 * warp that writes it reaches only after writing it. */
__device__ __forceinline__ void
arrive_totals (unsigned long long q1, unsigned long long q2, const bool &claimed,
               EnhState *st, unsigned long long (&red)[2][WARPS])
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  q1 = warp_sum64 (q1);
  q2 = warp_sum64 (q2);
  if (lane == 0)
    red[0][warp] = q1, red[1][warp] = q2;
  __syncthreads ();
  if (threadIdx.x != 0 || !claimed)
    return;
  unsigned long long b1 = 0, b2 = 0;
  for (int i = 0; i < WARPS; i++)
    b1 += red[0][i], b2 += red[1][i];
  add_band (st, b1, b2);
}

/* Band b's own rows' sums, from global memory by one thread: the slow path, only for bands
 * whose blocks have not started.  The band is one run of bytes: 16-byte chunks (dp4a) and
 * the bytes before and after them. */
__device__ __noinline__ void
help_band (const uint8_t *key, int w, int h, int band, int b, EnhState *st)
{
  const uint8_t *p = key + (size_t) b * band * w, *end = key + (size_t) min ((b + 1) * band, h) * w;
  unsigned long long q1 = 0, q2 = 0;
  for (; p < end && ((uintptr_t) p & 15u) != 0; p++)
    q1 += *p, q2 += (uint32_t) *p * *p;
  for (; p + 64 <= end; p += 64) /* four chunks in flight; below 2^32 a pass */
    {
      uint4 c[4];
#pragma unroll
      for (int i = 0; i < 4; i++)
        c[i] = __ldg ((const uint4 *) p + i);
      uint32_t s1 = 0, s2 = 0;
#pragma unroll
      for (int i = 0; i < 4; i++)
        chunk_sums (c[i], s1, s2);
      q1 += s1, q2 += s2;
    }
  for (; p < end; p++)
    q1 += *p, q2 += (uint32_t) *p * *p;
  add_band (st, q1, q2);
}

/* Thread 0: the grid's totals once every band is in.  From HELP_AFTER_NS on (at once with
 * help_now) it claims each band in turn and adds the sums of those it wins itself. */
__device__ __forceinline__ void
wait_totals (EnhState *st, const uint8_t *key, int w, int h, int band,
             unsigned long long epoch, bool help_now, unsigned long long &t1,
             unsigned long long &t2)
{
  const int grid = (int) gridDim.x;
  const unsigned long long all = (unsigned long long) grid << ARRIVAL_SHIFT;
  const unsigned long long t0 = trace_gtime ();
  for (int next = 0;;) /* next: the band to claim when it is time to help */
    {
#pragma unroll 1
      for (int p = 0; p < 16; p++)
        {
          t1 = *(volatile unsigned long long *) &st->sum1;
          t2 = *(volatile unsigned long long *) &st->sum2;
          if (t1 >= all && t2 >= all)
            {
              t1 -= all;
              t2 -= all;
              return;
            }
        }
      if (next < grid && (help_now || trace_gtime () - t0 > HELP_AFTER_NS))
        {
          if (claim_band (st, next, epoch, CLAIM_HELPER))
            help_band (key, w, h, band, next, st);
          next++;
        }
    }
}

/* Thread 0, at the end of its block: the last block to leave zeroes the sums and the
 * count.  No fence is needed: every block's loads of the sums returned (the thresholds
 * were computed from them) before it counts itself out here. */
__device__ __forceinline__ void
leave_totals (EnhState *st)
{
  if (atomicAdd (&st->left, 1u) == gridDim.x - 1)
    {
      st->sum1 = st->sum2 = 0;
      st->left = 0;
    }
}

/* Thread 0: the thresholds from the image totals, as the totals kernel computes them. */
__device__ __forceinline__ void
thresholds (unsigned long long t1, unsigned long long t2, EnhState *st, int w, int h,
            const RuleArgs &ra, w3::Rule32 &rule)
{
  const gfx_enh_thresholds th = gfx_enh_thresholds_make (
    (gfx_i128) t1, (gfx_u128) t2, (uint64_t) w * (uint64_t) h, ra.n_win, ra.k, ra.rule);
  rule = w3::rule32 (th);
  if (blockIdx.x == 0)
    st->th = th; /* as the totals kernel leaves it (the bench's partial timings) */
}

template <int MODE>
__global__ void __launch_bounds__ (THREADS, 1)
fused3_kernel (const uint8_t *__restrict__ key, int w, int h, int band, int tail,
               unsigned long long epoch, bool help_test, RuleArgs ra, EnhState *st,
               EnhSink<uint8_t> sink)
{
  /* A programmatic dependent launch: the kernel before has finished and its memory is
   * visible after this (a no-op otherwise); the next one may be placed from now on. */
  cudaGridDependencySynchronize ();
  cudaTriggerProgrammaticLaunchCompletion ();
  uint32_t *rows_smem = dyn_smem + LUT_WORDS; /* (rows + 2) x pitch, staging */
  const uint32_t lut = lut_address ();
  unsigned long long *const tb = trace_buf;
  trace_point (tb, 0);
  __shared__ uint64_t landed[WARPS]; /* landed[k]: band rows k, k + 32, ... have landed */
  __shared__ unsigned long long red[2][WARPS];
  __shared__ w3::Rule32 rule;
  __shared__ bool own; /* this block sums its band */
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int pitch = pitch_words (w);
  const int y0 = blockIdx.x * band, rows = min (band, h - y0), nr = rows + 2;
  /* 16-byte aligned; the band's output bytes from stage + lead */
  uint8_t *stage = (uint8_t *) (rows_smem + nr * pitch);
  /* The band's claim goes out first (behind the row copies it would come back only when
   * they have landed) and is read after they have, by the last warp, which has no rows to
   * issue (help_test: odd blocks leave theirs). */
  const bool claims = threadIdx.x == THREADS - 32 && !(help_test && (blockIdx.x & 1u));
  unsigned long long claim_was = 0;
  if (claims)
    claim_was = claim_start (st, blockIdx.x, epoch, CLAIM_OWN);
  /* Band rows y0 - 1 .. y0 + rows (reflected) in flight at once; lane k of warp 0 issues
   * rows k, k + 32, ... on landed[k], and warp k adds up their totals as soon as they are
   * in, so the totals are ready just after the last row lands. */
  if (warp == 0)
    bulk_init (&landed[lane], 1);
  __syncthreads ();
  if (warp == 0)
    {
      uint32_t bytes = 0;
      for (int r = lane; r < nr; r += 32)
        bytes += row_copy (key, w, gfx_enh_reflect (y0 - 1 + r, h)).bytes;
      bulk_expect (&landed[lane], bytes); /* no rows: the phase completes at once */
      for (int r = lane; r < nr; r += 32)
        {
          const RowCopy rc = row_copy (key, w, gfx_enh_reflect (y0 - 1 + r, h));
          bulk_copy (rows_smem + r * pitch + RAW_AT / 4, rc.src, rc.bytes, &landed[lane]);
        }
    }
  if constexpr (MODE != ENH_SINK_DEC)
    if (threadIdx.x < 256)
      asm volatile ("st.shared.u8 [%0], %1;" ::"r"(lut + threadIdx.x),
                    "r"((uint32_t) sink.lut[threadIdx.x])
                    : "memory");
  bulk_wait (&landed[warp], 0);
  trace_point (tb, 1);
  if (threadIdx.x == THREADS - 32)
    own = claims && claim_won (claim_was, epoch);
  /* The own rows' totals straight from the landed copies, so the grid barrier runs while
   * the rows are moved into place: thread 0 waits for the other blocks and works out the
   * thresholds, warps 1.. place the rows.  (A lane's sums wrap modulo 2^64 when its
   * outside bytes are taken back; the block's and the grid's sums are exact.) */
  {
    uint32_t p1 = 0, p2 = 0, o1 = 0, o2 = 0; /* at most 2^32 / 2^16 keys a lane */
    for (int r = warp; r < nr; r += WARPS)
      if (r >= 1 && r <= rows)
        {
          const RowCopy rc = row_copy (key, w, y0 - 1 + r);
          row_totals (rows_smem + r * pitch + RAW_AT / 4, (int) rc.bytes / 16, (int) rc.skew,
                      w, lane, p1, p2, o1, o2);
        }
    arrive_totals ((unsigned long long) p1 - o1, (unsigned long long) p2 - o2, own, st, red);
  }
  trace_point (tb, 2);
  if (threadIdx.x == 0)
    {
      unsigned long long t1, t2;
      wait_totals (st, key, w, h, band, epoch, help_test, t1, t2);
      trace_point (tb, 3);
      thresholds (t1, t2, st, w, h, ra, rule);
      trace_point (tb, 4);
    }
  for (int r = warp - 1; warp > 0 && r < nr; r += WARPS - 1)
    {
      bulk_wait (&landed[r % WARPS], 0); /* in (its warp saw it): makes the bytes visible here */
      place_row (rows_smem + r * pitch, row_copy (key, w, gfx_enh_reflect (y0 - 1 + r, h)).skew, w,
                 lane);
    }
  __syncthreads ();
  trace_point (tb, 5);
  const w3::Rule32 q = rule;
  uint8_t *out = (MODE == ENH_SINK_DEC ? sink.dec : sink.out) + (size_t) y0 * w;
  const uint32_t lead = (uint32_t) ((uintptr_t) out & 15u);
  uint8_t *to = STAGED<MODE> ? stage + lead : out;
  uint8_t *mask = MODE == ENH_SINK_OUT_MASK ? sink.mask + (size_t) y0 * w : nullptr;
  /* Row groups, one after the other: a group's staged rows leave by a bulk store while the
   * next group is worked out; the last group is the smaller (its store is not hidden):
   * tail rows, or a third of the band (the seed image: 10 of 28 rows, measured best).  In
   * a group, each warp takes a run of its output tile-rows, tile by tile. */
  const int ntiles = (w + w3::COLS - 1) / w3::COLS;
  constexpr int GROUPS = STAGED<MODE> ? 2 : 1;
  const int split = GROUPS == 1 ? rows : rows - min (rows, tail > 0 ? tail : (rows + 2) / 3);
  for (int g = 0; g < GROUPS; g++)
    {
      const int r0 = g == 0 ? 0 : split, grows = g == 0 && GROUPS > 1 ? split : rows - r0;
      if (grows == 0)
        continue;
      /* The warp's tile-rows j .. j1 - 1 (tile j / grows, row r0 + j % grows): with 24 to
       * 32 tiles a whole tile a warp (tile_jobs), else tile-rows split evenly. */
      const bool by_tile = ntiles * 4 >= WARPS * 3 && ntiles <= WARPS;
      int j = 0, j1 = 0;
      if (by_tile)
        tile_jobs (warp, ntiles, grows, j, j1);
      else
        j = warp * ntiles * grows / WARPS, j1 = (warp + 1) * ntiles * grows / WARPS; /* < 2^31 */
      int t = j / grows, i0 = r0 + j - t * grows;
      for (; j < j1; t++, i0 = r0) /* a run from row i0 of tile t, then from the top of t + 1 */
        {
          const int i1 = min (r0 + grows, i0 + (j1 - j)), x0 = t * w3::COLS;
          const uint32_t *col = rows_smem + x0 / 4 + lane;
          uint8_t *o = to + x0, *m = mask ? mask + x0 : nullptr;
          if (x0 + w3::COLS <= w)
            walk<MODE, true> (col, pitch, i0, i1, q, lut, o, m, w, x0 + 4 * lane, lane);
          else
            walk<MODE, false> (col, pitch, i0, i1, q, lut, o, m, w, x0 + 4 * lane, lane);
          j += i1 - i0;
        }
      if constexpr (STAGED<MODE>)
        {
          bulk_store_fence ();
          __syncthreads ();
          trace_point (tb, 6 + g);
          write_rows (out + (size_t) r0 * w, to + (size_t) r0 * w, (uint32_t) grows * (uint32_t) w);
        }
    }
  if (threadIdx.x == 0)
    {
      leave_totals (st); /* while the last store is in flight */
      if (STAGED<MODE>)
        bulk_store_wait_read (); /* the shared memory stays until the stores have read it */
    }
  trace_point (tb, 8);
}

/* Launches so far, every mode alike (they share st's claims; the caller holds the cache
 * lock): each launch's epoch. */
unsigned long long launches = 0;

template <int MODE>
cudaError_t
launch_mode (const uint8_t *key, int w, int h, int tail, bool help_test, RuleArgs ra,
             EnhState *st, EnhSink<uint8_t> sink, cudaStream_t s, bool *done)
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
  /* gain table, rows, staged output */
  const size_t smem = 4 * LUT_WORDS + (size_t) (band + 2) * pitch_words (w) * 4
                      + (STAGED<MODE> ? ((size_t) band * w + 15 + 15) & ~(size_t) 15 : 0);
  /* landed, red, rule, own and slack */
  const size_t static_smem = WARPS * 8 + 2 * WARPS * 8 + sizeof (w3::Rule32) + 8 + 64;
  if (grid > MAX_GRID || smem + static_smem > (size_t) max_smem)
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
    return cudaSuccess; /* not all resident at once: the separate kernels are faster */
  cudaLaunchAttribute at;
  const cudaLaunchConfig_t cfg = enh_launch_config (dim3 ((unsigned) grid), dim3 (THREADS),
                                                    smem, s, true, &at);
  e = cudaLaunchKernelEx (&cfg, fused3_kernel<MODE>, key, w, h, band, tail, ++launches, help_test,
                          ra, st, sink);
  *done = e == cudaSuccess;
  return e;
}

} // namespace

cudaError_t
enh_launch_fused3 (const uint8_t *key, int w, int h, int tail, bool help_test, RuleArgs ra,
                   EnhState *st, EnhSink<uint8_t> sink, cudaStream_t s, bool *done)
{
  *done = false;
  return enh_launch_for_sink (sink, [&] (auto mode) {
    return launch_mode<decltype (mode)::value> (key, w, h, tail, help_test, ra, st, sink, s,
                                                done);
  });
}

cudaError_t
enh_fused3_trace (unsigned long long *buf)
{
  return cudaMemcpyToSymbol (trace_buf, &buf, sizeof buf);
}
