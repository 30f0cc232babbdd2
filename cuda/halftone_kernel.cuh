/* The GPU error-diffusion kernel (SPEC section 1): skewed scan lines, one thread per row,
 * a strip of blockDim.x rows per block.  Inside cuda/ only.
 *
 * Geometry.  Lane l of a warp owns one row; at a step where lane 0 processes column x0,
 * lane l processes x0 - S*l with S = lag + 1 = reach + 2: one column more than the kernel's
 * dependency needs, so the warp shuffle that brings the row above's newest error has a
 * whole step to arrive and stays off the dependent chain.  Each lane keeps the row above
 * (and for 3-row kernels the row two above) as a sliding window of registers; lane l gets
 * each new value from lane l-1 with __shfl_up_sync.  Lane 0 gets it from a ring of
 * tagged slots in shared memory that the warp above writes (its lane 31: own error and the
 * value lane 31 just received from lane 30).  Warp 0 of a strip fills its ring from the
 * strip above, which the last warp of that strip exports to global memory as tagged
 * 64-bit words.
 *
 * Synchronisation (correct for every block size and margin, no deadlock whatever the
 * grid):
 * - a block takes its (channel, strip) from an atomic ticket in start order, so it only
 *   ever waits for blocks that started before it;
 * - global hand-off: each exported word carries the launch's epoch next to the value in
 *   one 64-bit relaxed store, so a reader that sees the epoch sees the value (single-copy
 *   atomicity: the flag and the data are the same word, no separate fence needed);
 * - shared ring: slots carry their column as tag in the same 64-bit word as the value,
 *   written with an atomic exchange and read with a volatile shared load (single-copy
 *   atomic, shared-space instructions; see ld_slot); the producer may overwrite a slot only
 *   after the consumer has published (fence, then exchange) that it passed it, which it
 *   checks (volatile load, then fence) once per chunk of C columns;
 * - the margin makes a strip additionally wait until the strip above is `margin` columns
 *   further on: a speed knob, never needed for correctness.
 * Input and output go through shared tiles so global accesses are row-wise coalesced. */
#ifndef GFX_HALFTONE_KERNEL_CUH
#define GFX_HALFTONE_KERNEL_CUH

#include <stdint.h>

#include "../common/halftone_kernels.h"
#ifndef GFXHT_EMULATE /* tests/emu/halftone_emu.cpp runs this file on the CPU, with its own */
#define GFXHT_DYNAMIC_SMEM(name) extern __shared__ __align__ (16) unsigned char name[]
#include "halftone_ptx.cuh"
#endif

namespace gfxht
{

constexpr int C = 16;       /* columns per chunk (steps between hand-off checks) */
constexpr int R = 64;       /* ring slots per warp, a multiple of C, at least 2 C */
constexpr int TW = C + 1;   /* input tile row (floats), padded against bank conflicts */
constexpr int OW = C + 4;   /* output tile row (level indices, bytes) */
constexpr int MAXW = 32;    /* warps per block */
constexpr unsigned FULL = 0xffffffffu;

/* Compile-time geometry of the kernels; the host checks it against gfx_kernels. */
struct Geo
{
  int n, rows, reach;
  signed char dx[GFX_MAX_TAPS], dy[GFX_MAX_TAPS];
};

__host__ __device__ constexpr Geo
geo (int k)
{
  return k == GFX_KERNEL_FS ? Geo{ 4, 2, 1, { 1, 0, -1, 1 }, { 1, 1, 1, 0 } }
       : k == GFX_KERNEL_JJN || k == GFX_KERNEL_STUCKI
         ? Geo{ 12, 3, 2, { 2, 1, 0, -1, -2, 2, 1, 0, -1, -2, 2, 1 },
                { 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 0, 0 } }
       : k == GFX_KERNEL_BURKES || k == GFX_KERNEL_SIERRA2
         ? Geo{ 7, 2, 2, { 2, 1, 0, -1, -2, 2, 1 }, { 1, 1, 1, 1, 1, 0, 0 } }
       : k == GFX_KERNEL_SIERRA
         ? Geo{ 10, 3, 2, { 1, 0, -1, 2, 1, 0, -1, -2, 2, 1 }, { 2, 2, 2, 1, 1, 1, 1, 1, 0, 0 } }
       : k == GFX_KERNEL_SIERRA_LITE ? Geo{ 3, 2, 1, { 0, -1, 1 }, { 1, 1, 0 } }
       : Geo{ 6, 3, 1, { 0, 1, 0, -1, 2, 1 }, { 2, 1, 1, 1, 0, 0 } }; /* Atkinson */
}

/* Floyd-Steinberg's tap weights in table order, as gfx_tap_weight makes them (exact in
 * float): the FS-only block-output paths take them as immediates, which keeps them out of
 * registers (the paired kernel reloaded them from constant memory at every chunk).
 * fs_weights_match checks them against the table. */
__host__ __device__ constexpr float
fs_tap_weight (int t)
{
  return t == 0 ? 1.0f / 16 : t == 1 ? 5.0f / 16 : t == 2 ? 3.0f / 16 : 7.0f / 16;
}

struct Params
{
  const void *in;
  void *out;
  unsigned long long *bnd; /* [channel][strip][2][width] exported words (epoch << 32 | bits) */
  unsigned *ticket;
  int width, height, stride; /* stride: samples per pixel */
  int nch, nstrips, levels, margin;
  unsigned epoch;
  float th;                  /* levels == 2: v >= th exactly when gfx_quantize_index gives 1 */
  float w[GFX_MAX_TAPS];     /* gfx_tap_weight of each tap, in table order */
  float lvl[256];            /* gfx_level_value (q, levels) */
  unsigned outv[256];        /* the stored sample of level q (u8/u16 value, f32 bits) */
};

/* Dynamic shared memory of a block of nw warps. */
struct WarpSmem
{
  unsigned long long ring[R][2]; /* tagged slots: (column << 32 | e bits) for 2 rows */
  float in[2][32][TW];
  unsigned char q[2][32][OW];
};

__host__ __device__ constexpr size_t
smem_bytes (int nw)
{
  return sizeof (WarpSmem) * nw + 256 * sizeof (float) + 256 * sizeof (unsigned)
         + MAXW * sizeof (int) + 16;
}

__device__ __forceinline__ unsigned long long
tagged (int tag, float e)
{
  return ((unsigned long long) (unsigned) tag << 32) | __float_as_uint (e);
}

template <int DEPTH>
__device__ __forceinline__ float
load_sample (const void *base, size_t index)
{
  if (DEPTH == 0)
    return (float) __ldg ((const uint8_t *) base + index) * (1.0f / 255.0f);
  else if (DEPTH == 1)
    return (float) __ldg ((const uint16_t *) base + index) * (1.0f / 65535.0f);
  else
    return __ldg ((const float *) base + index);
}

template <int DEPTH>
__device__ __forceinline__ void
store_sample (void *base, size_t index, unsigned v)
{
  if (DEPTH == 0)
    ((uint8_t *) base)[index] = (uint8_t) v;
  else if (DEPTH == 1)
    ((uint16_t *) base)[index] = (uint16_t) v;
  else
    ((unsigned *) base)[index] = v;
}

/* Per-warp state and the chunk loop. */
template <int KID, bool LV2, int DEPTH> struct Strip
{
  static constexpr int NT = geo (KID).n;
  static constexpr int ROWS = geo (KID).rows;
  static constexpr int RE = geo (KID).reach;
  static constexpr int S = RE + 2;          /* lane skew */
  static constexpr int U1 = 2 * RE + 1;     /* row above: columns x-RE .. x+RE */
  static constexpr int U2 = 3 * RE + 2;     /* two rows above: columns x-RE .. x+2RE+1 */
  static constexpr int X0 = -C;             /* first lane-0 column (warms the windows) */
  static_assert (32 * S % C == 0 && R % C == 0 && R >= 2 * C,
                 "a chunk's ring slots must never wrap (see chunk)");

  const Params &p;
  WarpSmem *ws, *below;                     /* own smem; the next warp's (its ring) */
  const float *lvl;
  const unsigned *outv;
  int *done;                                /* done[w]: lane-0 column this warp passed */
  int lane, warp, nwa, row0, row, strip, ch;
  int x0_end;                               /* exclusive, a multiple of C from X0 */
  bool last, export_down, import_up;
  const unsigned long long *up1, *up2;      /* strip above's exported rows */
  unsigned long long *dn1, *dn2;            /* this strip's exported rows */

  /* registers of the dependent chain */
  float eL1, eL2;                           /* own errors at x-1, x-2 */
  float u1[U1];                             /* row above (last: received last step) */
  float u2[U2];                             /* two rows above (last: received last step) */
  float pend[C];                            /* input loads in flight (chunk + 2) */
  unsigned long long imp;                   /* import word in flight (warp 0) */
  bool margin_met;                          /* the strip above has finished its row */

  __device__ __forceinline__ bool
  interior (int b) const
  {
    return b - 31 * S >= 1 && b + C + RE + 1 <= p.width && row0 + 32 * warp + 32 <= p.height;
  }

  /* Global positions of a lane's samples in the input/output pipelines: half-warp h
   * handles tile rows i and i + 16 at step i, lane j & 15 the column.  Index and column
   * at step 0 of the chunk at base cb; each step adds (width - S) * stride and -S. */
  struct Pos
  {
    long long index;
    int col, y;
  };

  __device__ __forceinline__ Pos
  pos (int cb) const
  {
    int h = lane >> 4, y = row0 + 32 * warp + 16 * h;
    int col = cb - S * 16 * h + (lane & 15);
    return Pos{ ((long long) y * p.width + col) * p.stride + ch, col, y };
  }

  template <bool CHECK>
  __device__ __forceinline__ bool
  valid (const Pos &q, int i) const
  {
    return !CHECK || ((unsigned) (q.col - S * i) < (unsigned) p.width && q.y + i < p.height);
  }

  template <bool CHECK>
  __device__ __forceinline__ void
  issue_load (int i, const Pos &q, long long dstep)
  {
    if (valid<CHECK> (q, i))
      pend[i] = load_sample<DEPTH> (p.in, (size_t) (q.index + i * dstep));
  }

  __device__ __forceinline__ void
  stage_load (int i, int buf)
  {
    int r = i + ((lane >> 4) << 4);
    ws->in[buf][r][lane & 15] = pend[i];
  }

  template <bool CHECK>
  __device__ __forceinline__ void
  write_back (int i, const Pos &q, long long dstep, int buf)
  {
    int r = i + ((lane >> 4) << 4);
    unsigned v = ws->q[buf][r][lane & 15];
    if (!LV2)
      v = outv[v];
    else if (DEPTH == 1) /* levels 2: the u8 tile holds the sample itself */
      v = v ? 65535u : 0u;
    else if (DEPTH == 2)
      v = v ? 0x3f800000u : 0u;
    if (valid<CHECK> (q, i))
      store_sample<DEPTH> (p.out, (size_t) (q.index + i * dstep), v);
  }

  /* Warp 0: the strip above's words for the ring slots of lane-0 columns [b, b + C).
   * Slot of column c holds e(c, row above) and e(c + RE + 1, two rows above). */
  __device__ __forceinline__ int
  import_col (int b) const
  {
    return b + (lane & 15) + RE + 1 + ((lane >> 4) ? RE + 1 : 0);
  }

  __device__ __forceinline__ bool
  import_wanted (int b) const
  {
    int c = import_col (b);
    return import_up && (lane < 16 || ROWS == 3) && c >= 0 && c < p.width;
  }

  __device__ __forceinline__ void
  import_issue (int b)
  {
    if (import_wanted (b))
      imp = ld_relaxed_gpu ((lane < 16 ? up1 : up2) + import_col (b));
  }

  __device__ void
  import_install (int b)
  {
    bool want = import_wanted (b);
    unsigned epoch = p.epoch;
    /* The margin: also wait until the strip above has gone `margin` columns further. */
    int mcol = p.margin > 0 ? min (b + C + RE + p.margin, p.width - 1) : -1;
    bool mwant = import_up && mcol >= 0 && !margin_met;
    while (true)
      {
        bool ok = !want || (unsigned) (imp >> 32) == epoch;
        if (mwant && ok)
          ok = (unsigned) (ld_relaxed_gpu (up1 + mcol) >> 32) == epoch;
        if (__all_sync (FULL, ok))
          {
            margin_met = margin_met || (mwant && mcol == p.width - 1);
            break;
          }
        if (want)
          imp = ld_relaxed_gpu ((lane < 16 ? up1 : up2) + import_col (b));
      }
    float e = want ? __uint_as_float ((unsigned) imp) : 0.0f;
    int c1 = b + (lane & 15) + RE + 1;
    int slot = (b + (lane & 15)) & (R - 1);
    if (lane < 16 || ROWS == 3)
      st_slot (&ws->ring[slot][lane >> 4], tagged (c1, e));
    __syncwarp ();
  }

  __device__ __forceinline__ void
  wait_consumer (int b)
  {
    int need = min (b + C - 32 * S - R, x0_end);
    if (need <= X0)
      return;
    if (ld_flag (&done[warp + 1]) < need)
      {
        while (ld_flag (&done[warp + 1]) < need)
          ;
      }
    /* acquire: the consumer's reads of the slots about to be overwritten came first */
    __threadfence_block ();
  }

  /* One pixel step of lane-0 column x0 (a compile-time offset i in the chunk). */
  template <bool CHECK>
  __device__ __forceinline__ void
  step (int i, int b, int cur, unsigned long long *slots, unsigned long long *out_slots)
  {
    const int x0 = b + i;
    const int x = x0 - S * lane;
    /* lane 0's new values come from the ring; the others' from lane - 1 */
    unsigned long long *slot = slots + 2 * i;
    const int c_in = x0 + RE + 1;
    /* from column -(RE + 1) on, the second word (column c + RE + 1) is inside the image */
    bool ring_ok = !CHECK || (c_in >= -(RE + 1) && c_in < p.width);
    unsigned long long s1 = ring_ok ? ld_slot (slot) : 0ull;
    unsigned long long s2 = (ROWS == 3 && ring_ok) ? ld_slot (slot + 1) : 0ull;
    float r1 = __shfl_up_sync (FULL, eL1, 1);
    float r2 = ROWS == 3 ? __shfl_up_sync (FULL, u1[U1 - 1], 1) : 0.0f;

    /* the producer's ring write, one step late: lane 31's e and received value */
    if (!last && lane == 31)
      {
        int c = x0 - 1 - 31 * S;
        if (!CHECK || (c >= -(RE + 1) && c < p.width))
          {
            unsigned long long *o = out_slots + 2 * i;
            st_slot (o, tagged (c, eL1));
            if (ROWS == 3)
              st_slot (o + 1, tagged (c, u1[U1 - 1]));
          }
      }

    /* the pixel: its input plus the taps in table order, out-of-image sources hold 0 */
    float v = ws->in[cur][lane][i];
#pragma unroll
    for (int t = 0; t < NT; t++)
      {
        const int dx = geo (KID).dx[t], dy = geo (KID).dy[t];
        float src = dy == 0 ? (dx == 1 ? eL1 : eL2) : dy == 1 ? u1[RE - dx] : u2[RE - dx];
        v = gfx_diffuse (v, p.w[t], src);
      }
    unsigned q;
    float e;
    if (LV2)
      {
        bool up = v >= p.th;
        q = up ? (DEPTH == 0 ? 255u : 1u) : 0u;
        e = up ? v - 1.0f : v;
      }
    else
      {
        int qi = gfx_quantize_index (v, p.levels);
        q = (unsigned) qi;
        e = v - lvl[qi];
      }
    if (CHECK && (unsigned) x >= (unsigned) p.width)
      e = 0.0f;
    ws->q[cur][lane][i] = (unsigned char) q;

    /* export to the strip below: lanes 30 and 31 of the last warp */
    if (export_down && lane >= 32 - (ROWS - 1))
      {
        if (!CHECK || (unsigned) x < (unsigned) p.width)
          st_relaxed_gpu ((lane == 31 ? dn1 : dn2) + x, tagged ((int) p.epoch, e));
      }

    /* the slot must carry its column (the warp above has written it); every lane read
     * the same word, so the whole warp waits together */
    if (ring_ok)
      {
        while ((int) (s1 >> 32) != c_in || (ROWS == 3 && (int) (s2 >> 32) != c_in))
          {
            s1 = ld_slot (slot);
            if (ROWS == 3)
              s2 = ld_slot (slot + 1);
          }
      }
    if (lane == 0)
      {
        r1 = ring_ok ? __uint_as_float ((unsigned) s1) : 0.0f;
        r2 = ring_ok ? __uint_as_float ((unsigned) s2) : 0.0f;
      }

    /* shift the windows */
    eL2 = eL1;
    eL1 = e;
#pragma unroll
    for (int j = 0; j < U1 - 1; j++)
      u1[j] = u1[j + 1];
    u1[U1 - 1] = r1;
    if (ROWS == 3)
      {
#pragma unroll
        for (int j = 0; j < U2 - 1; j++)
          u2[j] = u2[j + 1];
        u2[U2 - 1] = r2;
      }
  }

  template <bool CHECK>
  __device__ __forceinline__ void
  chunk (int b, int cur)
  {
    const int prev = cur ^ 1;
    const long long dstep = (long long) (p.width - S) * p.stride;
    const Pos ld = pos (b + 2 * C), wb = pos (b - C);
    /* b and 32 S are multiples of C and R of C: a chunk's slots never wrap */
    unsigned long long *slots = &ws->ring[b & (R - 1)][0];
    unsigned long long *out_slots = &below->ring[(b - 32 * S) & (R - 1)][0];
#pragma unroll
    for (int i = 0; i < C; i++)
      {
        stage_load (i, prev);                 /* chunk + 1 into the other tile */
        issue_load<CHECK> (i, ld, dstep);     /* chunk + 2 into registers */
        write_back<CHECK> (i, wb, dstep, prev);
        step<CHECK> (i, b, cur, slots, out_slots);
      }
  }

  __device__ void
  run ()
  {
    eL1 = eL2 = 0.0f;
#pragma unroll
    for (int j = 0; j < U1; j++)
      u1[j] = 0.0f;
#pragma unroll
    for (int j = 0; j < U2; j++)
      u2[j] = 0.0f;
#pragma unroll
    for (int i = 0; i < C; i++)
      pend[i] = 0.0f;
    /* prologue: tile of chunk 0, loads of chunk 1 in flight */
    const long long dstep = (long long) (p.width - S) * p.stride;
    const Pos c0 = pos (X0), c1 = pos (X0 + C);
#pragma unroll
    for (int i = 0; i < C; i++)
      issue_load<true> (i, c0, dstep);
#pragma unroll
    for (int i = 0; i < C; i++)
      stage_load (i, 0);
#pragma unroll
    for (int i = 0; i < C; i++)
      issue_load<true> (i, c1, dstep);
    if (warp == 0)
      import_issue (X0);
    __syncwarp ();

    int cur = 0;
    for (int b = X0; b < x0_end; b += C)
      {
        if (warp == 0)
          {
            import_install (b);
            import_issue (b + C);
          }
        if (!last)
          wait_consumer (b);
        /* no checks at all: this chunk's pixels, loads and stores are inside */
        if (interior (b - C) && interior (b) && interior (b + 2 * C))
          chunk<false> (b, cur);
        else
          chunk<true> (b, cur);
        __syncwarp ();
        if (lane == 0)
          {
            __threadfence_block (); /* release: this chunk's slot reads come first */
            st_flag (&done[warp], b + C);
          }
        cur ^= 1;
      }
    /* drain: the last chunk's output */
    const Pos last_wb = pos (x0_end - C);
#pragma unroll
    for (int i = 0; i < C; i++)
      write_back<true> (i, last_wb, dstep, cur ^ 1);
  }
};

/* MAXT: the largest block the build allows; 256 leaves the compiler registers for the
 * dependent chain, 1024 (64 registers a thread) makes the big blocks possible. */
template <int KID, bool LV2, int DEPTH, int MAXT>
__global__ void __launch_bounds__ (MAXT)
halftone_kernel (const __grid_constant__ Params p)
{
  GFXHT_DYNAMIC_SMEM (smem);
  const int nw = blockDim.x >> 5;
  WarpSmem *wsm = (WarpSmem *) smem;
  float *lvl = (float *) (wsm + nw);
  unsigned *outv = (unsigned *) (lvl + 256);
  int *done = (int *) (outv + 256);
  int *ticket = done + MAXW;

  using SS = Strip<KID, LV2, DEPTH>;
  /* the strip this block takes: tickets follow block start order, never blockIdx */
  if (threadIdx.x == 0)
    *ticket = (int) atomicAdd (p.ticket, 1u);
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    {
      lvl[i] = p.lvl[i];
      outv[i] = p.outv[i];
    }
  for (int i = threadIdx.x; i < nw * R * 2; i += blockDim.x)
    (&wsm[0].ring[0][0])[(i / (R * 2)) * (sizeof (WarpSmem) / 8) + i % (R * 2)]
      = 0x8000000000000000ull; /* tag INT_MIN: no column */
  if (threadIdx.x < MAXW)
    done[threadIdx.x] = SS::X0;
  __syncthreads ();

  const int t = *ticket;
  const int ch = t % p.nch, strip = t / p.nch;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row0 = strip * blockDim.x;
  const int nwa = min (nw, (p.height - row0 + 31) >> 5);
  if (warp >= nwa)
    return;

  SS s{ p };
  s.ws = wsm + warp;
  s.below = wsm + warp + 1;
  s.lvl = lvl;
  s.outv = outv;
  s.done = done;
  s.lane = lane;
  s.warp = warp;
  s.nwa = nwa;
  s.row0 = row0;
  s.row = row0 + 32 * warp + lane;
  s.strip = strip;
  s.ch = ch;
  {
    int steps = p.width + 31 * SS::S + 1 - SS::X0;
    s.x0_end = SS::X0 + (steps + C - 1) / C * C;
  }
  s.last = warp == nwa - 1;
  s.import_up = warp == 0 && strip > 0;
  s.export_down = s.last && strip + 1 < p.nstrips;
  size_t plane = (size_t) p.width * 2;
  unsigned long long *mine = p.bnd + ((size_t) ch * p.nstrips + strip) * plane;
  s.dn1 = mine;
  s.dn2 = mine + p.width;
  s.up1 = mine - plane;
  s.up2 = mine - plane + p.width;
  s.imp = 0;
  s.margin_met = false;
  s.run ();
}

typedef void (*kernel_fn) (Params);

/* One function per error-diffusion kernel (one .cu file each, so they build in parallel). */
template <int K, bool L2, int MAXT>
kernel_fn
pick_depth (int depth)
{
  return depth == 0 ? halftone_kernel<K, L2, 0, MAXT>
       : depth == 1 ? halftone_kernel<K, L2, 1, MAXT>
                    : halftone_kernel<K, L2, 2, MAXT>;
}

template <int K>
kernel_fn
pick_kernel (bool l2, int depth, bool big)
{
  if (big)
    return l2 ? pick_depth<K, true, 1024> (depth) : pick_depth<K, false, 1024> (depth);
  return l2 ? pick_depth<K, true, 256> (depth) : pick_depth<K, false, 256> (depth);
}

kernel_fn pick_fs (bool l2, int depth, bool big);
kernel_fn pick_jjn (bool l2, int depth, bool big);
kernel_fn pick_stucki (bool l2, int depth, bool big);
kernel_fn pick_burkes (bool l2, int depth, bool big);
kernel_fn pick_sierra (bool l2, int depth, bool big);
kernel_fn pick_sierra2 (bool l2, int depth, bool big);
kernel_fn pick_sierra_lite (bool l2, int depth, bool big);
kernel_fn pick_atkinson (bool l2, int depth, bool big);

} // namespace gfxht

#endif
