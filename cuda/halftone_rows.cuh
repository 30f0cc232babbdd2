/* The GPU error-diffusion kernel, "rows" variant (SPEC section 1): every thread owns K
 * consecutive rows, every warp a strip of 32 K rows.  Inside cuda/ only; included after
 * halftone_kernel.cuh (Geo, tagged words, sample helpers, and the PTX of halftone_ptx.cuh).
 *
 * Geometry.  Inside a thread, row j + 1 runs exactly lag = reach + 1 columns behind row j:
 * the values it needs from row j were made one step earlier or before, so they are plain
 * registers and the K pixels of a step are independent (ILP).  Lane l's first row runs
 * lag + 1 columns behind lane l - 1's last row: the shuffle that brings that row's newest
 * error is issued a whole step before it is used, so it stays off the dependent chain.
 * Lane skew SL = K lag + 1, so a warp needs W + 31 SL + (K - 1) lag steps and the image
 * about W + (K lag + 1) H / K: 2.25 H + W steps for Floyd-Steinberg with K = 4.
 *
 * Each row keeps a history h[r][0..D) of its errors (h[r][0]: made at the previous step).
 * Rows -2 and -1 (the lane above's last two rows) arrive one step late through the shuffle,
 * which exactly matches their extra column of skew, so one indexing serves all rows: the
 * tap (dx, dy) of row j reads h[j + 2 - dy][dy == 0 ? dx - 1 : dy == 1 ? reach + dx
 * : 2 reach + 1 + dx].  Lane 0 gets rows -1 and -2 from the strip above through global
 * memory (below).
 *
 * Strips and synchronisation (correct for every block size and margin, no deadlock for
 * any grid): every warp takes its (channel, strip) from an atomic ticket, so it only ever
 * waits for a warp that started before it; there is no block-wide barrier after the
 * ticket.  Lane 31 of a strip's warp exports its last two rows' errors as 64-bit words
 * (launch epoch << 32 | error bits) with relaxed stores: flag and value are one word.  The
 * warp below loads the words for chunk n + 1 while it runs chunk n and spins (whole warp)
 * only where a word does not carry the epoch yet.  The margin makes a strip also wait until
 * the strip above is `margin` columns further on: a speed knob, never needed for
 * correctness.  Block size only sets warps per block (1..4, see rows_warps).
 *
 * Memory: input rows are copied to shared memory with cp.async (16-byte blocks of the
 * raw samples, all layouts alike) two chunks ahead, no registers held; the level indices
 * go to a shared tile and are written back a chunk later, a half-warp per row segment. */
#ifndef GFX_HALFTONE_ROWS_CUH
#define GFX_HALFTONE_ROWS_CUH

#ifndef GFXHT_EMULATE
#include "trace_clock.cuh"
#endif

namespace gfxht
{

constexpr int RC = 16;      /* columns per chunk (steps between hand-off checks) */
constexpr int RQW = RC;     /* level-index tile row (bytes; one 16-byte store a chunk) */
constexpr int RMAXW = 4;    /* warps per block at most */
constexpr int ROB = 48;     /* block output: staging bytes a row of a lane (two chunks + slack) */
static_assert (ROB >= 2 * RQW, "the level-index tiles share the staging area");

struct RParams
{
  const void *in;
  void *out;
  unsigned long long *bnd; /* [channel][strip][2][width] exported words */
  unsigned *ticket;
  long long in_bytes;      /* readable input bytes (a multiple of 16) */
  int width, height, stride, sb; /* sb: bytes per pixel (stride * sample bytes) */
  int nch, nst, levels, margin, pitch, warp_smem;
  unsigned epoch;
  float th;
  float w[GFX_MAX_TAPS];
  float lvl[256];
  unsigned outv[256];
  unsigned *trace;         /* bench only: per-warp chunk clocks (null: none) */
  int trace_nc;            /* chunks recorded per warp */
  long long plane;         /* paired kernel on planes: bytes from one plane to the next */
  int rowpitch;            /* ... and from one plane row to the next (width, or padded to 16) */
};

/* Bytes of one input tile row (a chunk of one row: RC samples plus the 16-byte alignment
 * slack) and of one warp's shared memory. */
__host__ __device__ constexpr int
rows_pitch (int sb)
{
  return (sb + 1) * 16;
}

__host__ __device__ constexpr int
rows_warp_smem (int K, int sb)
{
  return 3 * K * 32 * rows_pitch (sb) + K * 32 * ROB;
}

/* where the store predicates are formed (see st_export_if in halftone_ptx.cuh) */
template <int KID> constexpr bool PRED_IN_ASM = KID != GFX_KERNEL_FS;

template <int DEPTH>
__device__ __forceinline__ float
tile_sample (const unsigned char *p)
{
  if (DEPTH == 0)
    return (float) *p * (1.0f / 255.0f);
  else if (DEPTH == 1)
    return (float) *(const uint16_t *) p * (1.0f / 65535.0f);
  else
    return *(const float *) p;
}

/* Four steps' level-2 flags (1.0f or 0.0f, as set_ge makes them) as four index bytes, 255
 * or 0: byte 2 of 1.0f is 0x80, whose sign the selectors 0xA and 0xE replicate. */
__device__ __forceinline__ unsigned
pack_flags (const unsigned (&f)[4])
{
  return prmt (prmt (f[0], f[1], 0xeau), prmt (f[2], f[3], 0xeau), 0x5410u);
}

/* OB (block output; levels 2, gray 8-bit, width a multiple of 16): every lane writes each of
 * its rows as aligned 16-byte blocks, one a chunk, instead of the level-index tile written
 * back a byte a step.  TRACE: the bench's per-chunk clocks (p.trace). */
template <int KID, bool LV2, int DEPTH, int K, bool OB = false, bool TRACE = false,
          bool MARGIN = true, bool PLANAR = false>
struct RStrip
{
  static constexpr int NT = geo (KID).n;
  static constexpr int ROWS = geo (KID).rows;
  static constexpr int RE = geo (KID).reach;
  static constexpr int L = RE + 1;              /* lag between rows of a thread */
  static constexpr int SL = K * L + 1;          /* lane skew */
  static constexpr int D = ROWS == 3 ? 3 * RE + 2 : 2 * RE + 1; /* history depth */
  static constexpr int BPS = DEPTH == 0 ? 1 : DEPTH == 1 ? 2 : 4;
  static constexpr int X0 = -RC;                /* first lane-0 column (zero history) */
  static_assert (RC == 16 && K >= 2 && D >= 2, "import lanes and copies assume these");
  static_assert (!OB || (LV2 && DEPTH == 0 && ROWS == 2), "block output: FS levels 2, 8-bit");

  const RParams &p;
  unsigned char *tin;                           /* [3][K][32][pitch] input chunks */
  unsigned char *tq;                            /* [2][K][32][RQW] level indices */
                                                /* (OB: [K][32][ROB] staging) */
  int lane, row0, ch, x0_end, trace_id;
  int wd, ht;                                   /* OB: p.width, p.height in registers */
  unsigned rowin;                               /* bit j: row j of this lane is in the image */
  int cn;                                       /* copies made so far (copy_in) */
  int cfl[K], cfh[K];                           /* copies cfl..cfh of row j: all blocks inside */
  bool import_up, export_down, margin_met;
  bool exporter;                                /* lane 31 of a strip with one below */
  unsigned xmask;                               /* the same as a mask: all ones or 0 */
  long long cadv;                               /* input bytes the next copy_in moves on */
  bool use_margin;                              /* import_up and a margin (uniform) */
  int ib, qb;                                   /* input tile and level tile of this chunk */
  unsigned *tr;                                 /* bench trace of this warp (null: none) */
  long long obase[K], dstep_m;                  /* out_ptrs: byte of store k at column 0 */
  const unsigned long long *up1, *up2;          /* strip above's last, second last row */
  unsigned long long *dn1, *dn2;                /* this strip's */
  const unsigned long long *impp;               /* this lane's import word at chunk base 0 */
  unsigned long long imp, mimp;                 /* import and margin words in flight */
  float h[K + 2][D];                            /* rows -2, -1, 0 .. K-1 */
  float in[K][RC];                              /* this chunk's input samples */
  unsigned qw[K][RC / 4];                       /* this chunk's level indices, packed */
  unsigned qf[K][4];                            /* OB: the last four steps' flags (set_ge) */
  int off[K];                                   /* byte of column 0 of a chunk in its tile row */
  long long blk0[K];                            /* input byte of row j's first block at X0 */
  sptr dst0[K];                                 /* row j's tile row in input buffer 0 */
  /* OB: row j's staging (prev chunk | this chunk), where its block starts there (a word
   * and a shift), the block's column at chunk base 0, and the row's first output byte */
  unsigned char *obs[K];
  const unsigned *obr[K];
  unsigned obsh[K];
  int obc[K];
  unsigned char *obo[K];
  unsigned qp[K][RC / 4];                       /* OB: the previous chunk's qw */

  /* Width and height.  Everything added for OB (registers for these, counted chunk loops,
   * chunk ranges of the fast copies, the trace as a template flag, input loads before the
   * hand-off wait) is OB's only: in the other kernels the same changes made the compiler
   * move the input loads to their uses and slowed them (FS 8192^2 with OB off: 2.84 ->
   * 3.14-3.44 ms on the H100). */
  __device__ __forceinline__ int
  W () const
  {
    return OB ? wd : p.width;
  }

  __device__ __forceinline__ int
  H () const
  {
    return OB ? ht : p.height;
  }

  __device__ __forceinline__ bool
  interior (int b) const
  {
    return b - 31 * SL - (K - 1) * L >= 0 && b + RC <= p.width && row0 + 32 * K <= p.height;
  }

  /* The 16-byte blocks of this lane's rows for the next chunk (copies come in chunk order)
   * into tile buf.  A chunk moves a row's samples by RC sb bytes, a multiple of 16, so its
   * blocks are those of X0 moved on by cadv (blk0, dst0 set in run); bounds are tested per
   * block only where a row's blocks are not all inside the buffer. */
  __device__ void
  copy_in (int buf)
  {
    const long long adv = cadv;
    int n = 0;
    if constexpr (OB)
      n = cn++;
    cadv += RC * p.sb;
    const int nb = p.sb + 1;
#pragma unroll
    for (int j = 0; j < K; j++)
      {
        if (OB ? !((rowin >> j) & 1u) : row0 + K * lane + j >= p.height)
          continue;
        const long long a = blk0[j] + adv;
        const sptr dst = dst0[j] + buf * (K * 32 * p.pitch);
        if (OB ? n >= cfl[j] && n <= cfh[j] : a >= 0 && a + 16 * nb <= p.in_bytes)
          {
            const unsigned char *src = (const unsigned char *) p.in + a;
            if (nb == 2) /* gray 8-bit: no loop (the loop cost more than the copies) */
              {
                cp_async16 (dst, src);
                cp_async16 (dst + 16, src + 16);
              }
            else if (nb == 4)
              {
#pragma unroll
                for (int q = 0; q < 4; q++)
                  cp_async16 (dst + 16 * q, src + 16 * q);
              }
            else
              for (int q = 0; q < nb; q++)
                cp_async16 (dst + 16 * q, src + 16 * q);
          }
        else
          for (int q = 0; q < nb; q++)
            if (a + 16 * q >= 0 && a + 16 * q + 16 <= p.in_bytes)
              cp_async16 (dst + 16 * q, (const unsigned char *) p.in + a + 16 * q);
      }
    cp_async_commit ();
  }

  /* Import lanes: 0..15 the strip above's last row at lane-0 column b + lane + lag (row
   * -1 one step before), 16..31 its second last row at b + lane - 16 + 2 lag. */
  __device__ __forceinline__ int
  import_col (int b) const
  {
    return lane < 16 ? b + lane + L : b + lane - 16 + 2 * L;
  }

  __device__ __forceinline__ bool
  import_wanted (int b) const
  {
    int c = import_col (b);
    return import_up && (lane < 16 || ROWS == 3) && (unsigned) c < (unsigned) W ();
  }

  /* The margin: lane 0 also waits until the strip above's last row has reached column
   * margin_col (until that is the last column once). */
  __device__ __forceinline__ int
  margin_col (int b) const
  {
    return min (b + RC - 1 + 2 * L + p.margin, W () - 1);
  }

  __device__ __forceinline__ bool
  margin_wanted (int b) const
  {
    return lane == 0 && import_up && p.margin > 0 && !margin_met && margin_col (b) >= 0;
  }

  __device__ __forceinline__ void
  import_issue (int b)
  {
    if (import_wanted (b))
      imp = ld_import (impp + b);
    if (MARGIN && use_margin && margin_wanted (b))
      mimp = ld_relaxed_gpu (up1 + margin_col (b));
  }

  /* The first chunk's hand-off words in flight (run, and the paired kernel's chain warp) */
  __device__ __forceinline__ void
  import_start ()
  {
    imp = mimp = 0;
    impp = (lane < 16 ? up1 : up2) + (lane < 16 ? lane + L : lane - 16 + 2 * L);
    import_issue (X0);
  }

  /* Waits until this chunk's words are there; returns the lane's value (0 outside). */
  __device__ float
  import_install (int b)
  {
    const bool want = import_wanted (b), mwant = MARGIN && use_margin && margin_wanted (b);
    const unsigned epoch = p.epoch;
    while (true)
      {
        bool ok = !want || (unsigned) (imp >> 32) == epoch;
        bool mok = !mwant || (unsigned) (mimp >> 32) == epoch;
        if (__all_sync (FULL, ok && mok))
          break;
        if (!ok)
          imp = ld_import (impp + b);
        if (!mok)
          mimp = ld_relaxed_gpu (up1 + margin_col (b));
      }
    if (mwant && margin_col (b) == W () - 1)
      margin_met = true;
    return want ? __uint_as_float ((unsigned) imp) : 0.0f;
  }

  /* The bench trace (p.trace; OB: compiled in with TRACE only): this warp's record, the
   * clocks around a chunk's hand-off wait, and the strip's end. */
  __device__ __forceinline__ bool
  traced () const
  {
    return OB ? TRACE : tr != nullptr;
  }

  __device__ __forceinline__ void
  trace_start ()
  {
    tr = (OB ? TRACE : p.trace != nullptr) ? p.trace + (size_t) trace_id * (8 + 2 * p.trace_nc) + 8
                                           : nullptr;
  }

  __device__ __forceinline__ float
  import_install_traced (int b)
  {
    const int tci = (b - X0) / RC;
    if (traced () && lane == 0 && tci < p.trace_nc)
      tr[2 * tci] = trace_clock ();
    float impv = import_install (b);
    if (traced () && lane == 0 && tci < p.trace_nc)
      tr[2 * tci + 1] = trace_clock ();
    return impv;
  }

  __device__ __forceinline__ void
  trace_end ()
  {
    if (traced () && lane == 0)
      {
        unsigned long long g = trace_gtime ();
        tr[-4] = (unsigned) g;
        tr[-3] = (unsigned) (g >> 32);
        tr[-2] = trace_clock ();
      }
  }

  /* Edge chunks: bit i of vm[j] says whether row j's column at step i is inside the image
   * (outside, its error is 0 and it is not exported), bit i of wm[k] whether write-back store
   * k of step i is (column and row).  Made once a chunk, so an edge step costs about what an
   * interior one does (the per-step tests made edge chunks 2.6 times slower, and they set
   * the lag between strips). */
  __device__ __forceinline__ void
  step_masks (int b, unsigned *vm) const
  {
#pragma unroll
    for (int j = 0; j < K; j++)
      {
        const int c0 = b - lane * SL - j * L; /* column at step 0 */
        const int lo = max (0, min (RC, -c0)), hi = max (0, min (RC, W () - c0));
        vm[j] = lo < hi ? ((1u << hi) - 1u) & ~((1u << lo) - 1u) : 0u;
      }
  }

  __device__ __forceinline__ void
  write_masks (int b, unsigned *wm) const
  {
    /* the steps i with 0 <= cb - 2 SL i < width and yb + 2 K i < height form a range (a
     * loop over the steps cost 10 instructions a step) */
    const int hw = lane >> 4;
#pragma unroll
    for (int k = 0; k < K; k++)
      {
        const int cb = b - hw * SL - k * L + (lane & 15), yb = row0 + K * hw + k;
        const int hy = H () - yb - 1;
        int hi = cb < 0 || hy < 0 ? -1 : min (RC - 1, min ((int) ((unsigned) cb / (2 * SL)),
                                                             (int) ((unsigned) hy / (2 * K))));
        int lo = cb < W () ? 0 : (int) ((unsigned) (cb - W ()) / (2 * SL)) + 1;
        wm[k] = lo <= hi ? ((2u << hi) - 1u) & ~((1u << lo) - 1u) : 0u;
      }
  }

  /* One step: lane-0 row-0 column b + i of the chunk at base b (vm, ex: made for it). */
  template <bool CHECK>
  __device__ __forceinline__ void
  step (int i, float impv, const unsigned *vm, unsigned long long *ex, unsigned xm)
  {
    float r1 = __shfl_up_sync (FULL, h[K + 1][0], 1);
    float r2 = ROWS == 3 ? __shfl_up_sync (FULL, h[K][0], 1) : 0.0f;
    float i1 = __shfl_sync (FULL, impv, i);
    float i2 = ROWS == 3 ? __shfl_sync (FULL, impv, 16 + i) : 0.0f;
    if (lane == 0)
      {
        r1 = i1;
        r2 = i2;
      }
    /* Stage by stage over the K rows (tap t of every row, then the next tap, ...): the
     * rows are independent, and this order makes the compiler interleave their chains
     * (row by row it scheduled them one after the other). */
    float acc[K], e[K];
    unsigned q[K] = {};
#pragma unroll
    for (int j = 0; j < K; j++)
      acc[j] = in[j][i];
#pragma unroll
    for (int t = 0; t < NT; t++)
      {
        const int dx = geo (KID).dx[t], dy = geo (KID).dy[t];
        const int k = dy == 0 ? dx - 1 : dy == 1 ? RE + dx : 2 * RE + 1 + dx;
#pragma unroll
        for (int j = 0; j < K; j++)
          acc[j] = gfx_diffuse (acc[j], OB ? fs_tap_weight (t) : p.w[t], h[j + 2 - dy][k]);
      }
#pragma unroll
    for (int j = 0; j < K; j++)
      {
        const float v = acc[j];
        float ev;
        if (OB)
          {
            /* the test as a float: v - s has the bits of v - 1 or v, and from the sum to
             * the error is one set and one add (a predicate and a predicated add took ~6
             * cycles longer on the H100, on the dependent chain) */
            const float s = set_ge (v, p.th);
            qf[j][i & 3] = __float_as_uint (s);
            ev = v - s;
          }
        else if (LV2)
          {
            bool up = v >= p.th;
            q[j] = up ? (DEPTH == 0 ? 255u : 1u) : 0u;
            ev = up ? v - 1.0f : v;
          }
        else
          {
            int qi = gfx_quantize_index (v, p.levels);
            q[j] = (unsigned) qi;
            ev = v - p.lvl[qi];
          }
        if (CHECK && PRED_IN_ASM<KID>)
          ev = keep_bit (ev, vm[j], 1u << i);
        else if (CHECK && !((vm[j] >> i) & 1u))
          ev = 0.0f;
        e[j] = ev;
      }
#pragma unroll
    for (int j = 0; j < K; j++)
      {
        if (OB)
          {
            if ((i & 3) == 3)
              qw[j][i >> 2] = pack_flags (qf[j]);
          }
        else if ((i & 3) == 0)
          qw[j][i >> 2] = q[j];
        else
          qw[j][i >> 2] |= q[j] << (8 * (i & 3));
      }
    if constexpr (OB && CHECK) /* xm: vm[K - 1] & xmask (one instruction a step) */
      st_export_bit (ex + i, tagged ((int) p.epoch, e[K - 1]), xm, 1u << i);
    else if constexpr (PRED_IN_ASM<KID>)
      {
        st_export_bit (ex + i, tagged ((int) p.epoch, e[K - 1]),
                       (CHECK ? vm[K - 1] : ~0u) & xmask, 1u << i);
        if (ROWS == 3)
          st_export_bit (ex + (dn2 - dn1) + L + i, tagged ((int) p.epoch, e[K - 2]),
                         (CHECK ? vm[K - 2] : ~0u) & xmask, 1u << i);
      }
    else
      {
        st_export_if (ex + i, tagged ((int) p.epoch, e[K - 1]),
                      exporter && (!CHECK || ((vm[K - 1] >> i) & 1u)));
        if (ROWS == 3)
          st_export_if (ex + (dn2 - dn1) + L + i, tagged ((int) p.epoch, e[K - 2]),
                        exporter && (!CHECK || ((vm[K - 2] >> i) & 1u)));
      }
#pragma unroll
    for (int r = 0; r < K + 2; r++)
      {
#pragma unroll
        for (int d = D - 1; d > 0; d--)
          h[r][d] = h[r][d - 1];
        h[r][0] = r == 0 ? r2 : r == 1 ? r1 : e[r < 2 ? 0 : r - 2];
      }
  }

  /* Writes back level indices of the chunk at base b from tile qb: at step i, store k is
   * row k of lane 2 i + (half-warp), column (lane & 15); out[k] points at its sample at
   * step 0 and moves by dstep samples a step. */
  template <bool CHECK>
  __device__ __forceinline__ void
  write_back (int i, int qb, char *const *out, long long dstep, const unsigned *wm)
  {
    const int hw = lane >> 4, lp = 2 * i + hw;
#pragma unroll
    for (int k = 0; k < K; k++)
      {
        const bool wanted = !CHECK || ((wm[k] >> i) & 1u);
        unsigned v = tq[((qb * K + k) * 32 + lp) * RQW + (lane & 15)];
        if (!LV2)
          v = p.outv[v];
        else if (DEPTH == 1)
          v = v ? 65535u : 0u;
        else if (DEPTH == 2)
          v = v ? 0x3f800000u : 0u;
        char *q = out[k] + (long long) i * dstep * BPS;
        if (CHECK && PRED_IN_ASM<KID>) /* predicated: a branch diverged at every step */
          st_global_bit<BPS> (q, v, wm[k], 1u << i);
        else if (CHECK)
          st_global_if<BPS> (q, v, wanted);
        else if (DEPTH == 0)
          *(uint8_t *) q = (uint8_t) v;
        else if (DEPTH == 1)
          *(uint16_t *) q = (uint16_t) v;
        else
          *(unsigned *) q = v;
      }
  }

  /* out[k] and dstep for write_back of the chunk at base b */
  __device__ __forceinline__ long long
  out_ptrs (int b, char **out) const
  {
#pragma unroll
    for (int k = 0; k < K; k++)
      out[k] = (char *) p.out + obase[k] + (long long) b * (p.stride * BPS);
    return dstep_m;
  }

  /* this chunk's input samples from tile ib into registers */
  __device__ __forceinline__ void
  load_inputs (int ib)
  {
    if constexpr (!OB)
#pragma unroll
      for (int j = 0; j < K; j++)
        {
          const unsigned char *src = tin + ((ib * K + j) * 32 + lane) * p.pitch + off[j];
#pragma unroll
          for (int i = 0; i < RC; i++)
            in[j][i] = tile_sample<DEPTH> (src + i * p.sb);
        }
    else
      {
        const int pitch = rows_pitch (1), sb = 1; /* gray 8-bit */
        const sptr t0 = to_sptr (tin);
#pragma unroll
        for (int j = 0; j < K; j++)
          {
            const sptr src = t0 + ((ib * K + j) * 32 + lane) * pitch + off[j];
#pragma unroll
            for (int i = 0; i < RC; i++)
              in[j][i] = tile_sample_v<DEPTH> (src + i * sb);
          }
      }
  }

  /* OB: row j's aligned block that ends in this chunk (its first bytes from the chunk
   * before), from the staging area: both chunks stored, five words read, four funnel
   * shifts, one 16-byte store where the block is inside the image. */
  __device__ __forceinline__ void
  block_out (int b)
  {
#pragma unroll
    for (int j = 0; j < K; j++)
      {
        st_shared_v4 (obs[j], qp[j][0], qp[j][1], qp[j][2], qp[j][3]);
        st_shared_v4 (obs[j] + RQW, qw[j][0], qw[j][1], qw[j][2], qw[j][3]);
        const unsigned w0 = obr[j][0], w1 = obr[j][1], w2 = obr[j][2], w3 = obr[j][3];
        const unsigned w4 = obr[j][4], sh = obsh[j];
        const int col = b + obc[j];
        st_global_v4_if (obo[j] + col, funnel_r (w0, w1, sh), funnel_r (w1, w2, sh),
                         funnel_r (w2, w3, sh), funnel_r (w3, w4, sh),
                         ((rowin >> j) & 1u) && (unsigned) col < (unsigned) wd);
#pragma unroll
        for (int w = 0; w < RC / 4; w++)
          qp[j][w] = qw[j][w];
      }
  }

  template <bool CHECK>
  __device__ __forceinline__ void
  chunk (int b, int ib, int qb, float impv)
  {
    char *out[K];
    long long dstep = 0;
    if constexpr (!OB)
      dstep = out_ptrs (b - RC, out);
    unsigned vm[K] = {}, wm[K] = {};
    /* row K - 1's export word at step 0 (steps add i: an immediate offset of the store) */
    unsigned long long *ex = dn1 + (b - lane * SL - (K - 1) * L);
    if (CHECK)
      {
        step_masks (b, vm);
        if constexpr (!OB)
          write_masks (b - RC, wm);
      }
    if constexpr (!OB)
      load_inputs (ib);
#pragma unroll
    for (int i = 0; i < RC; i++)
      {
        if constexpr (!OB)
          write_back<CHECK> (i, qb ^ 1, out, dstep, wm);
        step<CHECK> (i, impv, vm, ex, vm[K - 1] & xmask);
        if constexpr (OB) /* the next chunk's hand-off words, later than iter would: they
                             are there more often, and a miss costs a round trip */
          if (i == RC / 2)
            import_issue (b + RC);
      }
    if constexpr (OB)
      block_out (b);
    else
#pragma unroll
      for (int j = 0; j < K; j++)
        st_shared_v4 (tq + ((qb * K + j) * 32 + lane) * RQW, qw[j][0], qw[j][1], qw[j][2],
                      qw[j][3]);
  }

  /* One chunk with everything around it: input and hand-off words in, next ones out. */
  template <bool CHECK>
  __device__ __forceinline__ void
  iter (int b)
  {
    cp_async_wait<1> (); /* this chunk's input is in (the next one may still fly) */
    if constexpr (OB) /* before the hand-off wait: their latency is off the steps */
      load_inputs (ib);
    float impv = import_install_traced (b);
    if constexpr (!OB)
      import_issue (b + RC);
    /* The level-index tile is read across lanes.  OB touches its own rows only, but without
     * these syncs its schedule was slower (H100, FS 8192^2: 2.66 against 2.61 ms). */
    __syncwarp ();
    copy_in (ib == 0 ? 2 : ib - 1); /* chunk b + 2 RC */
    chunk<CHECK> (b, ib, qb, impv);
    __syncwarp ();
    ib = ib == 2 ? 0 : ib + 1;
    qb ^= 1;
  }

  /* floor (x / d) for d > 0, clamped to int */
  static __device__ __forceinline__ int
  floor_div (long long x, long long d)
  {
    long long q = x >= 0 ? x / d : -((-x + d - 1) / d);
    return (int) max (-(1ll << 30), min (q, 1ll << 30));
  }

  /* The bench trace's header of the strip of ticket t (one lane of one warp writes it) */
  static __device__ __forceinline__ void
  trace_header (const RParams &p, unsigned t)
  {
    unsigned *h = p.trace + (size_t) t * (8 + 2 * p.trace_nc);
    unsigned long long g = trace_gtime ();
    h[0] = (unsigned) g;
    h[1] = (unsigned) (g >> 32);
    h[2] = trace_clock ();
    h[3] = trace_smid ();
    h[7] = t;
  }

  /* The strip (channel c, strip index `strip`): its rows, steps and hand-off words.  kp:
   * the kernel's parameters themselves (read through the member reference, the compiler
   * scheduled some kernels differently). */
  __device__ __forceinline__ void
  place (const RParams &kp, int c, int strip)
  {
    row0 = strip * 32 * K;
    ch = c;
    /* on planes, to the end of the padded row: the block that holds the last column ends
     * there, and a lane writes a block in the chunk where it ends */
    const int steps = (PLANAR ? kp.rowpitch : kp.width) + 31 * SL + (K - 1) * L - X0;
    x0_end = X0 + (steps + RC - 1) / RC * RC;
    import_up = strip > 0;
    export_down = strip + 1 < kp.nst;
    margin_met = false;
    const size_t plane = (size_t) kp.width * 2;
    unsigned long long *mine = kp.bnd + ((size_t) c * kp.nst + strip) * plane;
    dn1 = mine;
    dn2 = mine + kp.width;
    up1 = mine - plane;
    up2 = mine - plane + kp.width;
  }

  /* Everything about the lane's rows that stays fixed over the strip: zero histories,
   * input copy blocks, exports, block-output staging (also the paired kernel's,
   * halftone_pair.cuh, whose warps each use a part of it). */
  __device__ void
  setup ()
  {
    wd = p.width;
    ht = p.height;
#pragma unroll
    for (int r = 0; r < K + 2; r++)
#pragma unroll
      for (int d = 0; d < D; d++)
        h[r][d] = 0.0f;
    rowin = 0;
#pragma unroll
    for (int j = 0; j < K; j++)
      {
        long long s = (((long long) (row0 + K * lane + j) * (PLANAR ? p.rowpitch : p.width)
                         + (X0 - lane * SL - j * L))
                         * p.stride + (PLANAR ? 0 : ch)) * BPS + (PLANAR ? ch * p.plane : 0);
        off[j] = (int) (s & 15);
        blk0[j] = s & ~15ll;
        dst0[j] = to_sptr (tin + (j * 32 + lane) * p.pitch);
        if constexpr (OB)
          {
            rowin |= (row0 + K * lane + j < ht ? 1u : 0u) << j;
            /* copies n with blk0 + n cstep >= 0 and blk0 + n cstep + 32 <= in_bytes */
            const long long cstep = RC;
            cfl[j] = -floor_div (blk0[j], cstep);
            cfh[j] = floor_div (p.in_bytes - 32 - blk0[j], cstep);
          }
      }
    exporter = export_down && lane == 31;
    xmask = exporter ? ~0u : 0u;
    use_margin = import_up && p.margin > 0;
    if constexpr (OB)
#pragma unroll
      for (int j = 0; j < K; j++)
        {
          /* row j's chunks start at columns c0 = b - lane SL - j L with b a multiple of 16,
           * so c0 - a is aligned for a = c0 mod 16; that block's first a bytes are the
           * previous chunk's last, and it starts at byte 16 - a of (prev | this) */
          const int a = -(lane * SL + j * L) & 15, st = 16 - a;
          obs[j] = tq + (j * 32 + lane) * ROB;
          obr[j] = (const unsigned *) (obs[j] + (st & ~3));
          obsh[j] = 8u * (unsigned) (st & 3);
          obc[j] = -(lane * SL + j * L) - a;
          obo[j] = (unsigned char *) p.out + (PLANAR ? ch * p.plane : 0)
                   + (long long) (row0 + K * lane + j) * (PLANAR ? p.rowpitch : wd);
#pragma unroll
          for (int w = 0; w < RC / 4; w++)
            qp[j][w] = 0u;
        }
    else
      {
#pragma unroll
        for (int k = 0; k < K; k++)
          {
            const int hw = lane >> 4;
            long long col = -hw * SL - k * L + (lane & 15);
            long long y = row0 + K * hw + k;
            obase[k] = ((y * p.width + col) * p.stride + ch) * BPS;
          }
        dstep_m = (2ll * K * p.width - 2 * SL) * p.stride;
      }
    cadv = 0;
    cn = 0;
  }

  /* OB: the chunks of the strip (chunk c at b = X0 + c RC) are [0, n1) edge, [n1, n2)
   * interior and [n2, nall) edge.  Interior are those with interior (b) and interior
   * (b - RC), RC + 31 SL + (K - 1) L <= b <= width - RC in a strip of full height. */
  __device__ __forceinline__ void
  chunk_ranges (int &n1, int &n2, int &nall) const
  {
    nall = (x0_end - X0) / RC;
    n1 = n2 = nall;
    if (row0 + 32 * K <= ht)
      {
        const int clo = (RC + 31 * SL + (K - 1) * L - X0 + RC - 1) / RC;
        const int chi = floor_div (wd - RC - X0, RC);
        if (clo <= chi && clo < nall)
          {
            n1 = clo;
            n2 = min (chi + 1, nall);
          }
      }
  }

  __device__ void
  run ()
  {
    setup ();
    copy_in (0); /* chunks X0 and X0 + RC */
    copy_in (1);
    import_start ();
    ib = qb = 0;
    trace_start ();
    /* edge chunks, interior chunks, edge chunks: three loops (with the choice inside one
     * loop the compiler folded the two bodies together, and interior chunks got slower);
     * OB counts them once (chunk_ranges). */
    int b = X0;
    if constexpr (OB)
      {
        int n1, n2, nall;
        chunk_ranges (n1, n2, nall);
        int c = 0;
        for (; c < n1; c++, b += RC)
          iter<true> (b);
        for (; c < n2; c++, b += RC)
          iter<false> (b);
        for (; c < nall; c++, b += RC)
          iter<true> (b);
      }
    else
      {
        for (; b < x0_end && !(interior (b) && interior (b - RC)); b += RC)
          iter<true> (b);
        for (; b < x0_end && interior (b) && interior (b - RC); b += RC)
          iter<false> (b);
        for (; b < x0_end; b += RC)
          iter<true> (b);
      }
    if constexpr (!OB)
      {
        char *out[K];
        const long long dstep = out_ptrs (x0_end - RC, out);
        unsigned wm[K];
        write_masks (x0_end - RC, wm);
#pragma unroll
        for (int i = 0; i < RC; i++)
          write_back<true> (i, qb ^ 1, out, dstep, wm);
      }
    trace_end ();
  }
};

/* Warps per block for a block-size knob of bs threads (0: auto) and bytes per pixel. */
inline int
rows_warps (int bs, int K, int sb)
{
  int nw = bs ? bs / 32 : 1;
  nw = nw < 1 ? 1 : nw > RMAXW ? RMAXW : nw;
  while (nw > 1 && nw * rows_warp_smem (K, sb) > 200 * 1024)
    nw--;
  return nw;
}

template <int KID, bool LV2, int DEPTH, int K, bool OB = false, bool TRACE = false,
          bool MARGIN = true>
__global__ void __launch_bounds__ (32 * RMAXW)
halftone_rows_kernel (const __grid_constant__ RParams p)
{
  GFXHT_DYNAMIC_SMEM (smem);
  using SS = RStrip<KID, LV2, DEPTH, K, OB, TRACE, MARGIN>;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  unsigned t = 0;
  if (lane == 0)
    t = atomicAdd (p.ticket, 1u); /* start order, never blockIdx */
  t = __shfl_sync (FULL, t, 0);
  if (t >= (unsigned) (p.nch * p.nst))
    return;
  const int ch = (int) t % p.nch, strip = (int) t / p.nch;
  if ((OB ? TRACE : p.trace != nullptr) && lane == 0)
    SS::trace_header (p, t);
  SS s{ p };
  s.trace_id = (int) t;
  s.tin = smem + (size_t) warp * p.warp_smem;
  s.tq = s.tin + 3 * K * 32 * p.pitch;
  s.lane = lane;
  s.place (p, ch, strip);
  s.run ();
}

typedef void (*rows_fn) (RParams);

template <int KID, int K, bool MARGIN>
rows_fn
pick_rows_km (bool l2, int depth)
{
  if (l2)
    return depth == 0 ? halftone_rows_kernel<KID, true, 0, K, false, false, MARGIN>
         : depth == 1 ? halftone_rows_kernel<KID, true, 1, K, false, false, MARGIN>
                      : halftone_rows_kernel<KID, true, 2, K, false, false, MARGIN>;
  return depth == 0 ? halftone_rows_kernel<KID, false, 0, K, false, false, MARGIN>
       : depth == 1 ? halftone_rows_kernel<KID, false, 1, K, false, false, MARGIN>
                    : halftone_rows_kernel<KID, false, 2, K, false, false, MARGIN>;
}

/* The kernels that run without the margin's code where the margin is 0.  Without it
 * these were faster in every case measured (H200, 8192^2 gray, u8 levels 2 and 4, u16,
 * float: 4-29%, JJN u8 4.48 -> 4.03 ms); FS, Sierra Lite and Atkinson were slower in 6
 * of their 9 cases (up to 16%: ptxas's schedule), and keep it. */
template <int KID>
constexpr bool MARGIN_FREE = KID == GFX_KERNEL_JJN || KID == GFX_KERNEL_STUCKI
                             || KID == GFX_KERNEL_BURKES || KID == GFX_KERNEL_SIERRA
                             || KID == GFX_KERNEL_SIERRA2;

/* margin: whether it is above 0 */
template <int KID, int K>
rows_fn
pick_rows_k (bool l2, int depth, bool margin)
{
  if constexpr (MARGIN_FREE<KID>)
    if (!margin)
      return pick_rows_km<KID, K, false> (l2, depth);
  return pick_rows_km<KID, K, true> (l2, depth);
}

/* Rows per thread of the build: ROWS_K everywhere (2: fastest on the H100, fewer
 * instructions a step); FS levels 2 u8 also 3 and 4 for the bench (GPUFX_HALFTONE_ROWS). */
#ifndef GFXHT_ROWS_K
#define GFXHT_ROWS_K 2
#endif
constexpr int ROWS_K = GFXHT_ROWS_K;

rows_fn pick_rows_fs (bool l2, int depth, int k, bool margin);
rows_fn pick_rows_jjn (bool l2, int depth, int k, bool margin);
rows_fn pick_rows_stucki (bool l2, int depth, int k, bool margin);
rows_fn pick_rows_burkes (bool l2, int depth, int k, bool margin);
rows_fn pick_rows_sierra (bool l2, int depth, int k, bool margin);
rows_fn pick_rows_sierra2 (bool l2, int depth, int k, bool margin);
rows_fn pick_rows_sierra_lite (bool l2, int depth, int k, bool margin);
rows_fn pick_rows_atkinson (bool l2, int depth, int k, bool margin);
/* FS levels 2 gray 8-bit, K = 2, block output (rows_block_out); trace: with the bench trace */
rows_fn pick_rows_fs_ob (bool trace);

} // namespace gfxht

#endif
