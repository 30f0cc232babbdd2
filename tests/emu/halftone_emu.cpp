/* Runs the GPU halftone kernels (cuda/halftone_kernel.cuh, the strip kernel, and
 * cuda/halftone_rows.cuh, the rows kernel) on the CPU through cuda_emu.h and compares them
 * byte for byte with the serial reference: index arithmetic, ring tags, hand-off protocol
 * and deadlock freedom on machines without a GPU.  Small images only.  Built and run by
 * `make check` (build/tests/test_halftone_emu); see main for the options. */
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "../../common/image.h"

/* common/halftone_internal.h pulls in C11 atomics; the one function needed: */
extern "C" gfx_status gfx_halftone_ref (const gfx_image *in, gfx_image *out, int kernel,
                                        int levels, gfx_error *err);

#include "../unit/test_rng.h"
#include "cuda_emu.h"

/* ---- what the halftone kernels use beyond cuda_emu.h: cuda/halftone_ptx.cuh on the CPU ---- */
#define GFXHT_DYNAMIC_SMEM(name) unsigned char *name = emu_block->smem.data ()
using std::min;
using std::max;

namespace gfxht
{
static inline unsigned long long
ld_relaxed_gpu (const unsigned long long *p)
{
  return emu_ld_relaxed (p);
}
static inline void
st_relaxed_gpu (unsigned long long *p, unsigned long long v)
{
  std::atomic_ref<unsigned long long> (*p).store (v, std::memory_order_relaxed);
}
/* the shared-memory hand-off words: relaxed loads (where kernels spin) and exchanges */
static inline unsigned long long
ld_slot (const unsigned long long *p)
{
  return ld_relaxed_gpu (p); /* on the CPU both are a relaxed load */
}
static inline void
st_slot (unsigned long long *p, unsigned long long v)
{
  std::atomic_ref<unsigned long long> (*p).exchange (v, std::memory_order_relaxed);
}
static inline int
ld_flag (const int *p)
{
  return emu_ld_relaxed (p);
}
static inline void
st_flag (int *p, int v)
{
  std::atomic_ref<int> (*p).exchange (v, std::memory_order_relaxed);
}
/* cp.async: the copy happens at once (the kernel waits before it reads anyway); shared
 * addresses are plain pointers here */
typedef unsigned char *sptr;
static inline sptr
to_sptr (void *p)
{
  return (sptr) p;
}
static inline void
cp_async16 (sptr dst, const void *src)
{
  memcpy (dst, src, 16);
}
static inline void cp_async_commit () {}
static inline void
st_export_if (unsigned long long *p, unsigned long long v, bool pred)
{
  if (pred)
    std::atomic_ref<unsigned long long> (*p).store (v, std::memory_order_relaxed);
}
template <int BYTES>
static inline void
st_global_if (void *p, unsigned v, bool pred)
{
  if (!pred)
    return;
  if (BYTES == 1)
    *(uint8_t *) p = (uint8_t) v;
  else if (BYTES == 2)
    *(uint16_t *) p = (uint16_t) v;
  else
    *(unsigned *) p = v;
}
static inline void
st_export_bit (unsigned long long *p, unsigned long long v, unsigned mask, unsigned bit)
{
  st_export_if (p, v, (mask & bit) != 0);
}
static inline float
keep_bit (float v, unsigned mask, unsigned bit)
{
  return (mask & bit) ? v : 0.0f;
}
template <int BYTES>
static inline void
st_global_bit (void *p, unsigned v, unsigned mask, unsigned bit)
{
  st_global_if<BYTES> (p, v, (mask & bit) != 0);
}
static inline void
st_shared_v4 (void *p, unsigned a, unsigned b, unsigned c, unsigned d)
{
  unsigned w[4] = { a, b, c, d };
  memcpy (p, w, 16);
}
static inline void
st_global_v4_if (void *p, unsigned a, unsigned b, unsigned c, unsigned d, bool pred)
{
  unsigned w[4] = { a, b, c, d };
  if (pred)
    memcpy (p, w, 16);
}
static inline unsigned
funnel_r (unsigned lo, unsigned hi, unsigned sh)
{
  return (unsigned) ((((unsigned long long) hi << 32) | lo) >> sh);
}
static inline float
set_ge (float v, float th)
{
  return v >= th ? 1.0f : 0.0f;
}
static inline unsigned
prmt (unsigned a, unsigned b, unsigned sel) /* default mode: bit 3 of a nibble sign-replicates */
{
  const unsigned long long x = ((unsigned long long) b << 32) | a;
  unsigned r = 0;
  for (int n = 0; n < 4; n++)
    {
      const unsigned s = (sel >> (4 * n)) & 15u, byte = (unsigned) (x >> (8 * (s & 7u))) & 255u;
      r |= ((s & 8u) ? (byte & 128u ? 255u : 0u) : byte) << (8 * n);
    }
  return r;
}
template <int DEPTH>
static inline float
tile_sample_v (sptr a) /* as tile_sample in halftone_rows.cuh */
{
  if (DEPTH == 0)
    return (float) *a * (1.0f / 255.0f);
  uint16_t u;
  float f;
  if (DEPTH == 1)
    return (float) (memcpy (&u, a, 2), u) * (1.0f / 65535.0f);
  return memcpy (&f, a, 4), f;
}
template <int N> static inline void cp_async_wait () {}
static inline unsigned long long
ld_import (const unsigned long long *p)
{
  return ld_relaxed_gpu (p);
}
/* the bench's trace is off here (p.trace is null) */
static inline unsigned trace_clock () { return 0; }
static inline unsigned long long trace_gtime () { return 0; }
static inline unsigned trace_smid () { return 0; }
/* the paired kernel's: named barriers over the block (ids 1 ..), the rest plain copies */
static inline void
bar_sync (int id)
{
  emu_block->named[id]->arrive_and_wait ();
}
static inline void
bar_arrive (int id)
{
  (void) emu_block->named[id]->arrive ();
}
template <class T> /* four 4-byte words at a */
static inline void
ld4 (sptr a, T &x, T &y, T &z, T &w)
{
  T v[4];
  memcpy (v, a, 16);
  x = v[0], y = v[1], z = v[2], w = v[3];
}
template <class T>
static inline void
st4 (sptr a, T x, T y, T z, T w)
{
  T v[4] = { x, y, z, w };
  memcpy (a, v, 16);
}
constexpr auto ld_shared_f4 = ld4<float>;
constexpr auto ld_shared_u4 = ld4<unsigned>;
constexpr auto st_shared_f4 = st4<float>;
constexpr auto st_shared_u4 = st4<unsigned>;
} // namespace gfxht

#include "../../cuda/halftone_kernel.cuh"
#include "../../cuda/halftone_rows.cuh"
#include "../../cuda/halftone_pair.cuh"
#include "../../cuda/halftone_setup.cuh"
#include "../../cuda/halftone_planes.cuh"

/* ---- launching ---- */
using namespace gfxht;

template <int K, bool L2>
static kernel_fn
pick2 (int depth)
{
  return depth == 0 ? halftone_kernel<K, L2, 0, 1024>
       : depth == 1 ? halftone_kernel<K, L2, 1, 1024>
                    : halftone_kernel<K, L2, 2, 1024>;
}

template <int K>
static kernel_fn
pick1 (bool l2, int depth)
{
  return l2 ? pick2<K, true> (depth) : pick2<K, false> (depth);
}

static kernel_fn
pick (int k, bool l2, int depth)
{
  switch (k)
    {
    case 0: return pick1<0> (l2, depth);
    case 1: return pick1<1> (l2, depth);
    case 2: return pick1<2> (l2, depth);
    case 3: return pick1<3> (l2, depth);
    case 4: return pick1<4> (l2, depth);
    case 5: return pick1<5> (l2, depth);
    case 6: return pick1<6> (l2, depth);
    default: return pick1<7> (l2, depth);
    }
}

static unsigned epoch_counter;

/* The emulated gfx_cuda_halftone: out must be a copy of in (alpha passes through). */
static void
emu_halftone (const gfx_image *in, gfx_image *out, int kernel, int levels, int bs, int margin,
              std::vector<unsigned long long> &bnd)
{
  Params p;
  fill_params (p, in, kernel, levels, bs, margin);
  size_t words = (size_t) p.nch * p.nstrips * 2 * p.width;
  if (bnd.size () < words)
    bnd.assign (words, 0);
  unsigned ticket = 0;
  p.in = in->pixels;
  p.out = out->pixels;
  p.bnd = bnd.data ();
  p.ticket = &ticket;
  p.epoch = ++epoch_counter;
  kernel_fn fn = pick (kernel, levels == 2, in->depth);
  int nblocks = p.nch * p.nstrips;
  emu_launch (
    nblocks, bs, [&] (EmuBlock &blk) { blk.smem.assign (smem_bytes (bs / 32), 0x5a); },
    [&] { fn (p); });
}

/* ---- the rows kernel (halftone_rows.cuh) ---- */
template <int KID, int K>
static rows_fn
rpick2 (bool l2, int depth, bool margin)
{
  return pick_rows_k<KID, K> (l2, depth, margin);
}

template <int K>
static rows_fn
rpick1 (int k, bool l2, int depth, bool margin)
{
  switch (k)
    {
    case 0: return rpick2<0, K> (l2, depth, margin);
    case 1: return rpick2<1, K> (l2, depth, margin);
    case 2: return rpick2<2, K> (l2, depth, margin);
    case 3: return rpick2<3, K> (l2, depth, margin);
    case 4: return rpick2<4, K> (l2, depth, margin);
    case 5: return rpick2<5, K> (l2, depth, margin);
    case 6: return rpick2<6, K> (l2, depth, margin);
    default: return rpick2<7, K> (l2, depth, margin);
    }
}

static bool rows_unpaired; /* --unpaired: the rows kernel's block output, not the paired kernel */

/* rows per thread K (2..4), block size bs as the knob (warps per block, rows_warps) */
static void
emu_rows (const gfx_image *in, gfx_image *out, int kernel, int levels, int K, int bs, int margin,
          std::vector<unsigned long long> &bnd)
{
  size_t bytes = gfx_image_bytes (in);
  std::vector<unsigned char> padded ((size_t) rows_in_bytes (bytes), 0x77);
  memcpy (padded.data (), in->pixels, bytes);
  RParams p;
  fill_rparams (p, in, kernel, levels, K, margin, rows_in_bytes (bytes));
  size_t words = (size_t) p.nch * p.nst * 2 * p.width;
  if (bnd.size () < words)
    bnd.assign (words, 0);
  unsigned ticket = 0;
  p.in = padded.data ();
  p.out = out->pixels;
  p.bnd = bnd.data ();
  p.ticket = &ticket;
  p.epoch = ++epoch_counter;
  const bool ob = rows_block_out (in, kernel, levels, K);
  /* on planes: split and merged by the GPU's own kernels (halftone_planes.cuh) */
  const PairPath pp = pair_path (in, kernel, levels, K, !rows_unpaired);
  const bool planar = pp == PairPath::planes;
  std::vector<unsigned char> pin, pout;
  const planes::Planar pg{ in->width, in->height, plane_pitch (in), in->channels,
                           gfx_image_color_channels (in) };
  const auto *src = (const unsigned char *) in->pixels;
  if (planar)
    {
      planar_params (p, in);
      pin.assign ((size_t) p.in_bytes, 0x77);
      pout.assign (planes_bytes (in, p.nch), 0x5a);
      const auto l = planes::split_launch (pg);
      emu_grid (l.gx, l.gy, planes::THREADS, [&] { l.kernel (src, pin.data (), pg); });
      p.in = pin.data ();
      p.out = pout.data ();
    }
  if (pp != PairPath::none) /* two warps a strip */
    {
      emu_launch (
        p.nch * p.nst, 64,
        [&] (EmuBlock &blk) {
          blk.smem.assign ((size_t) pair::smem_bytes (K), 0x5a);
          for (int id = 0; id < 1 + 2 * pair::NB; id++)
            blk.named.push_back (std::make_unique<std::barrier<>> (64));
        },
        [&] {
          K == 2 && planar ? (margin > 0 ? halftone_pair_kernel<2, false, true, true> (p)
                                         : halftone_pair_kernel<2, false, false, true> (p))
          : K == 2 && margin > 0 ? halftone_pair_kernel<2, false> (p)
          : K == 2             ? halftone_pair_kernel<2, false, false> (p)
          : K == 3 ? halftone_pair_kernel<3, false> (p)
                   : halftone_pair_kernel<4, false> (p);
        });
      if (planar)
        {
          const auto l = planes::merge_launch (pg);
          emu_grid (l.gx, l.gy, planes::THREADS,
                    [&] { l.kernel (pout.data (), src, (unsigned char *) out->pixels, pg); });
        }
      return;
    }
  rows_fn fn = ob       ? halftone_rows_kernel<GFX_KERNEL_FS, true, 0, 2, true, false>
             : K == 2 ? rpick1<2> (kernel, levels == 2, in->depth, p.margin > 0)
             : K == 3 ? rpick1<3> (kernel, levels == 2, in->depth, p.margin > 0)
                      : rpick1<4> (kernel, levels == 2, in->depth, p.margin > 0);
  int nw = rows_warps (bs, K, p.sb);
  int nblocks = (p.nch * p.nst + nw - 1) / nw;
  emu_launch (
    nblocks, nw * 32,
    [&] (EmuBlock &blk) { blk.smem.assign ((size_t) nw * p.warp_smem, 0x5a); },
    [&] { fn (p); });
}

/* ---- the checks ---- */
static int failures;
static uint32_t rng_state = 2463534242u;
static uint32_t
rng ()
{
  return test_xorshift32 (&rng_state);
}

static int rows_k; /* 0: the strip kernel; 2..4: the rows kernel with K rows a thread */

static void
check (int w, int h, int ch, gfx_depth depth, int kernel, int levels, int bs, int margin)
{
  if (emu_case_too_large ((long) w * h * ch))
    return;
  gfx_image in, ref, out;
  gfx_error err;
  gfx_image_alloc (&in, w, h, ch, ch == 2 || ch == 4, depth, &err);
  for (size_t i = 0; i < gfx_image_samples (&in); i++)
    {
      float v = (float) (rng () % 1000) / 999.0f;
      if (depth == GFX_F32 && rng () % 10 == 0)
        v = (rng () & 1) ? ((rng () & 1) ? 0.5f : nextafterf (0.5f, 0.0f)) : v * 1.4f - 0.2f;
      gfx_sample_set (&in, i, v);
    }
  gfx_image_clone (&ref, &in, &err);
  gfx_image_clone (&out, &in, &err);
  gfx_halftone_ref (&in, &ref, kernel, levels, &err);
  /* colour samples poisoned: an unwritten one cannot pass */
  for (size_t i = 0; i < gfx_image_samples (&out); i++)
    if (!in.has_alpha || (int) (i % ch) != ch - 1)
      gfx_sample_set (&out, i, 0.37f);
  std::vector<unsigned long long> bnd;
  if (rows_k)
    emu_rows (&in, &out, kernel, levels, rows_k, bs, margin, bnd);
  else
    emu_halftone (&in, &out, kernel, levels, bs, margin, bnd);
  bool same = memcmp (out.pixels, ref.pixels, gfx_image_bytes (&in)) == 0;
  printf ("%s emulated gpu%s%.0d == ref %dx%d ch%d depth%d kernel %d levels %d block %d "
          "margin %d\n", same ? "PASS" : "FAIL", rows_k ? " rows K=" : "", rows_k, w, h, ch,
          (int) depth, kernel, levels, bs, margin);
  if (!same)
    {
      failures++;
      size_t n = 0;
      for (size_t i = 0; i < gfx_image_bytes (&in) && n < 5; i++)
        if (((unsigned char *) out.pixels)[i] != ((unsigned char *) ref.pixels)[i])
          {
            size_t s = i / gfx_depth_bytes (depth), px = s / ch;
            printf ("  byte %zu (x %zu y %zu c %zu): %u vs ref %u\n", i, px % w, px / w, s % ch,
                    ((unsigned char *) out.pixels)[i], ((unsigned char *) ref.pixels)[i]);
            n++;
          }
    }
  fflush (stdout);
  gfx_image_free (&in);
  gfx_image_free (&ref);
  gfx_image_free (&out);
}

static void
suite (int full)
{
  check (1, 1, 1, GFX_U8, 0, 2, 32, 0);
  check (37, 70, 1, GFX_U8, 0, 2, 32, 0);
  check (150, 65, 1, GFX_U8, 0, 2, 64, 1);
  check (1, 40, 1, GFX_U8, 0, 2, 32, 0);
  check (200, 1, 1, GFX_U8, 0, 2, 32, 40);
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    check (90, 100, 1, (gfx_depth) (k % 3), k, k % 2 ? 3 : 2, 64, 0);
  /* wide enough for chunks with no checks (the fast path) in every kernel */
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    check (rows_k ? 420 : 260, rows_k ? 70 : 40, 1, (gfx_depth) ((k + 1) % 3), k,
           k % 3 == 0 ? 2 : k % 3 == 1 ? 3 : 256, 32, k % 2);
  check (60, 80, 4, GFX_U8, 0, 2, 32, 0);
  check (60, 80, 3, GFX_F32, 1, 256, 32, 5);
  check (50, 100, 1, GFX_U16, 4, 2, 96, 100000);
  check (120, 300, 1, GFX_U8, 1, 2, 128, 0); /* several warps and strips */
  if (rows_k)
    {
      /* FS gray 8-bit with widths a multiple of 16, K = 2: the paired kernel, then the
       * rows kernel writing aligned 16-byte blocks */
      for (bool unpaired : { false, true })
        {
          rows_unpaired = unpaired;
          check (16, 1, 1, GFX_U8, 0, 2, 32, 0);
          check (16, 130, 1, GFX_U8, 0, 2, 32, 3);
          check (48, 70, 1, GFX_U8, 0, 2, 64, 0);
          check (208, 65, 1, GFX_U8, 0, 2, 32, 0);
          check (416, 200, 1, GFX_U8, 0, 2, 96, 0); /* interior chunks, several strips */
          check (432, 129, 1, GFX_U8, 0, 2, 32, 40);
        }
      rows_unpaired = false;
      /* colour channels: the paired kernel on planes */
      for (int c = 2; c <= 4; c++)
        {
          check (16, 3, c, GFX_U8, 0, 2, 32, 0);
          check (208, 65, c, GFX_U8, 0, 2, 32, c == 3 ? 40 : 0);
          check (416, 140, c, GFX_U8, 0, 2, 64, 0);
          check (333, 70, c, GFX_U8, 0, 2, 32, 0); /* rows padded to 16 bytes */
        }
      check (333, 401, 1, GFX_U8, 0, 2, 64, 0);  /* fast path and several strips */
      /* gray rows that are not whole blocks: the paired kernel on a padded plane, whose
       * last block a strip's last lanes write only when the chunks run to the padded end */
      check (1, 700, 1, GFX_U8, 0, 2, 32, 0);
      check (257, 1023, 1, GFX_U8, 0, 2, 32, 40);
      check (300, 290, 3, GFX_U8, 0, 2, 1024, 3);
      check (97, 200, 4, GFX_F32, 2, 3, 0, 0);
    }
  if (full)
    for (int k = 0; k < GFX_KERNEL_COUNT; k++)
      for (int l : { 2, 3, 256 })
        check (131, 97, 2, (gfx_depth) ((k + l) % 3), k, l, 32, 1);
}

/* halftone_emu [--full] [--rows K | --all]: both kernels (the strip kernel and the rows
 * kernel with 2 rows a thread), the rows kernel with K rows a thread only, or both with
 * K = 2, 3, 4.  halftone_emu [--rows K] W H CH DEPTH KERNEL LEVELS
 * BLOCK MARGIN: one case. */
int
main (int argc, char **argv)
{
  int full = 0, all = 0;
  while (argc > 1 && argv[1][0] == '-')
    {
      if (!strcmp (argv[1], "--full"))
        full = 1;
      else if (!strcmp (argv[1], "--all"))
        all = 1;
      else if (!strcmp (argv[1], "--rows") && argc > 2)
        rows_k = atoi (argv[2]), argc--, argv++;
      argc--, argv++;
    }
  if (rows_k && (rows_k < 2 || rows_k > 4))
    return 2;
  if (argc == 9) /* one case: w h channels depth kernel levels block margin */
    {
      int a[8];
      for (int i = 0; i < 8; i++)
        a[i] = atoi (argv[i + 1]);
      check (a[0], a[1], a[2], (gfx_depth) a[3], a[4], a[5], a[6], a[7]);
      return failures ? 1 : 0;
    }
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    if (!geometry_matches (k))
      {
        printf ("FAIL kernel %d: compile-time taps differ from gfx_kernels\n", k);
        failures++;
      }
  if (rows_k) /* --rows K: that one */
    suite (full);
  else /* both kernels: the strip kernel and the rows kernel (K = 2, the default; --all: 2..4) */
    for (int k : { 0, 2, 3, 4 })
      if (k <= 2 || all)
        {
          rows_k = k;
          suite (full);
        }
  emu_report_skipped ();
  printf ("%s\n", failures ? "emulation: FAILURES" : "emulation: all equal");
  return failures ? 1 : 0;
}
