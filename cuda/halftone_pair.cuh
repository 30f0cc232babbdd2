/* The paired GPU error-diffusion kernel: Floyd-Steinberg, levels 2, gray 8-bit, rows a
 * multiple of 16 bytes (pair_fits; colour channels, and gray rows of other widths, as planes
 * whose rows are padded to 16 bytes: pair_path, planar_params and halftone_planes.cu), as
 * the rows kernel's block-output path (same strips,
 * geometry, hand-off words and sums: RStrip in halftone_rows.cuh, K rows a lane, 2 by
 * default) but with the work that is not on the dependent chain moved off the strip's
 * warp.
 *
 * Why.  A strip's warp is alone on its SM scheduler (a 8192-wide image keeps ~50 strips in
 * flight on 528 schedulers), so everything it issues lengthens its steps: of the 827
 * instructions of an interior chunk of the rows kernel (16 steps, 2 rows a lane) only ~336
 * are the steps; the rest moved the input in (cp.async, 32 byte loads, conversions to
 * float) and the output out (staging, funnel shifts, 16-byte stores).
 *
 * How.  Each block is two warps on two schedulers, working on one strip:
 * - the chain warp (warp 0) runs the steps: per chunk it waits for its inputs (a named
 *   barrier), loads them as floats (8 shared 16-byte loads), waits for the strip above's
 *   words, runs 16 steps exporting its last row, and leaves the level indices (2 shared
 *   16-byte stores);
 * - the helper warp (warp 1) copies each chunk's input bytes in (cp.async, NBYTE - 1
 *   chunks ahead), converts them to the chain warp's floats (tile_sample_v, as the rows
 *   kernel does), and writes the finished chunks' level indices out as aligned 16-byte
 *   blocks (RStrip::block_out).
 * Chunk c uses slot c % NB of the float ring and of the index ring.  Named barriers per
 * slot: FULL (both warps sync: the floats of chunk c are in, and the helper's reads of the
 * slot's old indices are done) and DONE (chain arrives, helper syncs: chunk c's floats are
 * read and its indices written).  The helper fills slot s again only after DONE of the
 * chunk that used it, and the chain writes its indices into slot s only after FULL of the
 * chunk after that, so no barrier phase ever gets two arrivals from one side.  Blocks take
 * strips from the ticket in start order as the rows kernel's warps do, so a block only
 * waits for blocks that started before it. */
#ifndef GFX_HALFTONE_PAIR_CUH
#define GFX_HALFTONE_PAIR_CUH

namespace gfxht
{

namespace pair
{
constexpr int NB = 4;     /* chunks in flight between the two warps (float and index rings) */
constexpr int NBYTE = 4;  /* input byte ring (copies NBYTE - 1 chunks ahead of conversion) */
/* The step after which the chain warp loads the next chunk's hand-off words, K rows a lane.
 * The loads' latency was showing at the chunk's end, and ptxas's schedule of the chunk
 * moves with this step: FS 8192^2 gray, K = 2, on the H100, one device call, margin 0, ms
 * by step: 0: 1.11, 1: 1.00, 2: 1.02, 3: 1.00, 5: 1.18, 6: 1.08, 7: 1.06, 8 (the rows
 * kernel's): 1.06, 10: 1.10.  K = 3 (not the default): step 3 1.54, step 8 1.24 ms; K = 4:
 * 1.52 and 1.60 ms. */
__host__ __device__ constexpr int
import_step (int K)
{
  return K == 3 ? RC / 2 : 3;
}
constexpr int FSTRIDE = 20; /* floats per lane row of the float ring (16 + 4: no bank
                               conflicts for the chain warp's 16-byte loads) */
constexpr int PITCH = rows_pitch (1);

/* shared bytes of the parts of one block, K rows a lane: input bytes, output staging,
 * input floats, level indices */
__host__ __device__ constexpr int tin_bytes (int K) { return NBYTE * K * 32 * PITCH; }
__host__ __device__ constexpr int tq_bytes (int K) { return K * 32 * ROB; }
__host__ __device__ constexpr int fin_bytes (int K) { return NB * K * 32 * FSTRIDE * 4; }
__host__ __device__ constexpr int qr_bytes (int K) { return NB * K * 32 * RQW; }
__host__ __device__ constexpr int
smem_bytes (int K) /* + the strip's ticket */
{
  return tin_bytes (K) + tq_bytes (K) + fin_bytes (K) + qr_bytes (K) + 16;
}

constexpr int FULL_ID = 1, DONE_ID = 1 + NB; /* named barrier ids (0: __syncthreads) */


template <int K, bool TRACE, bool MARGIN, bool PLANAR>
struct Pair
{
  using S = RStrip<GFX_KERNEL_FS, true, 0, K, true, TRACE, MARGIN, PLANAR>;
  S &s;
  sptr fin, qr; /* the float ring and the index ring (shared addresses) */

  /* the lane's row j in slot `slot` of the float ring, of the index ring */
  __device__ __forceinline__ sptr
  fslot (int slot, int j) const
  {
    return fin + ((slot * K + j) * 32 + s.lane) * FSTRIDE * 4;
  }

  __device__ __forceinline__ sptr
  qslot (int slot, int j) const
  {
    return qr + ((slot * K + j) * 32 + s.lane) * RQW;
  }

  /* ---- the chain warp ---- */

  template <bool CHECK>
  __device__ __forceinline__ void
  chain_chunk (int b, int c)
  {
    const int slot = c % NB;
    bar_sync (FULL_ID + slot);
#pragma unroll
    for (int j = 0; j < K; j++)
#pragma unroll
      for (int q = 0; q < RC / 4; q++)
        ld_shared_f4 (fslot (slot, j) + 16 * q, s.in[j][4 * q], s.in[j][4 * q + 1],
                      s.in[j][4 * q + 2], s.in[j][4 * q + 3]);
    const float impv = s.import_install_traced (b);
    unsigned vm[K] = {};
    unsigned long long *ex = s.dn1 + (b - s.lane * S::SL - (K - 1) * S::L);
    if (CHECK)
      s.step_masks (b, vm);
#pragma unroll
    for (int i = 0; i < RC; i++)
      {
        s.template step<CHECK> (i, impv, vm, ex, vm[K - 1] & s.xmask);
        if (i == import_step (K)) /* the next chunk's hand-off words */
          s.import_issue (b + RC);
      }
#pragma unroll
    for (int j = 0; j < K; j++)
      st_shared_u4 (qslot (slot, j), s.qw[j][0], s.qw[j][1], s.qw[j][2], s.qw[j][3]);
    bar_arrive (DONE_ID + slot);
  }

  __device__ void
  chain ()
  {
    s.import_start ();
    int n1, n2, nall;
    s.chunk_ranges (n1, n2, nall);
    int c = 0, b = S::X0;
    for (; c < n1; c++, b += RC)
      chain_chunk<true> (b, c);
    for (; c < n2; c++, b += RC)
      chain_chunk<false> (b, c);
    for (; c < nall; c++, b += RC)
      chain_chunk<true> (b, c);
    s.trace_end ();
  }

  /* ---- the helper warp ---- */

  /* chunk c's input bytes (byte slot c % NBYTE, copied by copy_in) to floats in its slot */
  __device__ __forceinline__ void
  convert (int c)
  {
    const sptr t0 = to_sptr (s.tin);
#pragma unroll
    for (int j = 0; j < K; j++)
      {
        const sptr src = t0 + (((c % NBYTE) * K + j) * 32 + s.lane) * PITCH + s.off[j];
        float v[RC];
#pragma unroll
        for (int i = 0; i < RC; i++)
          v[i] = tile_sample_v<0> (src + i);
#pragma unroll
        for (int q = 0; q < RC / 4; q++)
          st_shared_f4 (fslot (c % NB, j) + 16 * q, v[4 * q], v[4 * q + 1], v[4 * q + 2],
                        v[4 * q + 3]);
      }
  }

  /* chunk c's level indices (DONE waited for) out as 16-byte blocks */
  __device__ __forceinline__ void
  write_out (int c)
  {
#pragma unroll
    for (int j = 0; j < K; j++)
      ld_shared_u4 (qslot (c % NB, j), s.qw[j][0], s.qw[j][1], s.qw[j][2], s.qw[j][3]);
    s.block_out (S::X0 + c * RC);
  }

  __device__ void
  helper ()
  {
    int n1, n2, nall;
    s.chunk_ranges (n1, n2, nall);
    /* copy_in moves on a chunk a call: chunks 0 .. NBYTE - 2 first */
    for (int c = 0; c < NBYTE - 1; c++)
      s.copy_in (c % NBYTE);
    for (int c = 0; c < nall; c++)
      {
        s.copy_in ((c + NBYTE - 1) % NBYTE); /* chunk c + NBYTE - 1 (past the end: harmless) */
        cp_async_wait<NBYTE - 1> ();         /* chunk c's bytes are in */
        __syncwarp ();
        if (c >= NB)
          {
            bar_sync (DONE_ID + c % NB); /* chunk c - NB is done: its slots are free */
            write_out (c - NB);
          }
        convert (c);
        /* A sync, not an arrive: it also orders this warp's reads of the index slot
         * (write_out above) before the chain warp writes it again.  An arrive would do
         * by the PTX memory model, but compute-sanitizer racecheck orders only the
         * writes made before an arrive, and reported those reads.  The helper now waits
         * until the chain starts chunk c, which leaves it a chunk's time for the next
         * one (it needs about a third). */
        bar_sync (FULL_ID + c % NB);
      }
    for (int c = max (0, nall - NB); c < nall; c++)
      {
        bar_sync (DONE_ID + c % NB);
        write_out (c);
      }
  }
};
} // namespace pair

/* One block, two warps, one strip of 32 K rows (RParams as the rows kernel's, FS levels 2
 * gray 8-bit; PLANAR: the colour planes of planar_params, a separate instantiation so that
 * gray's machine code stays as it was: the plane offsets alone moved its schedule, 0.996 ->
 * 1.087 ms at 8192^2). */
template <int K, bool TRACE, bool MARGIN = true, bool PLANAR = false>
__global__ void __launch_bounds__ (64)
halftone_pair_kernel (const __grid_constant__ RParams p)
{
  GFXHT_DYNAMIC_SMEM (smem);
  using P = pair::Pair<K, TRACE, MARGIN, PLANAR>;
  using SS = typename P::S;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  unsigned *ticket = (unsigned *) (smem + pair::smem_bytes (K) - 16);
  if (threadIdx.x == 0)
    *ticket = atomicAdd (p.ticket, 1u); /* start order, never blockIdx */
  __syncthreads ();
  const unsigned t = *ticket;
  if (t >= (unsigned) (p.nch * p.nst))
    return;
  if (TRACE && warp == 0 && lane == 0)
    SS::trace_header (p, t);
  SS s{ p };
  s.trace_id = (int) t;
  s.tin = smem;
  s.tq = smem + pair::tin_bytes (K);
  s.lane = lane;
  if (PLANAR) /* the channels' strips interleaved */
    s.place (p, (int) t % p.nch, (int) t / p.nch);
  else
    s.place (p, 0, (int) t);
  s.trace_start ();
  s.setup ();
  const int fin = pair::tin_bytes (K) + pair::tq_bytes (K);
  P pr{ s, to_sptr (smem + fin), to_sptr (smem + fin + pair::fin_bytes (K)) };
  if (warp == 0)
    pr.chain ();
  else
    pr.helper ();
}

/* FS levels 2 gray 8-bit with pair_fits, k rows a lane (2..4; trace: with the bench trace;
 * margin: whether it is above 0), or (planar) on planes with K = 2 */
rows_fn pick_pair_fs (int k, bool trace, bool margin, bool planar = false);

#ifndef GFXHT_EMULATE
/* The colour samples of a w x h 8-bit image (channels a pixel, the first ncolor of them
 * colour) to planes of pitch x h bytes (pitch: w padded to a multiple of 16), and back with
 * the alpha samples of in (halftone_planes.cu). */
cudaError_t split_planes (const void *in, void *planes, int w, int h, int pitch, int channels,
                          int ncolor, cudaStream_t s);
cudaError_t merge_planes (const void *planes, const void *in, void *out, int w, int h,
                          int pitch, int channels, int ncolor, cudaStream_t s);
#endif

} // namespace gfxht

#endif
