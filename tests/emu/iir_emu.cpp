/* Runs the split GPU IIR kernel (cuda/cuda_iir_split.cuh) on the CPU through cuda_emu.h (a
 * named barrier is a barrier over its group's warps), with the mean in the kernel's tail or
 * the quadrant planes' mean formed after it as iir_mean forms it, and compares the result bit for bit with gfx_iir_filter_cpu: the
 * kernel's index arithmetic, ring slots, phase protocol, hand-off and deadlock freedom (with
 * fewer blocks than groups, so groups loop over tickets) on machines without a GPU.  Small
 * images only.  Built and run by `make check` (build/tests/test_iir_emu). */
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "../../common/iir_filter.h"
#include "../../common/image.h"
#include "../unit/test_iir_util.h"

/* common/iir.h pulls in C11 atomics (progress.h); the one function needed: */
struct gfx_progress;
extern "C" gfx_status gfx_iir_filter_cpu (const gfx_iir_filter *f, const gfx_image *in,
                                          gfx_image *out, gfx_progress *progress,
                                          gfx_error *err);

#include "cuda_emu.h"

/* ---- what the IIR kernel uses beyond cuda_emu.h ---- */
static inline long long
__double_as_longlong (double d)
{
  long long v;
  memcpy (&v, &d, 8);
  return v;
}
static inline double
__longlong_as_double (long long v)
{
  double d;
  memcpy (&d, &v, 8);
  return d;
}

namespace gfx_iir
{
static inline void
pair_sync (int id, int threads)
{
  (void) threads; /* the barrier was made with this count */
  emu_block->named[id]->arrive_and_wait ();
}
static inline unsigned long long
ld_relaxed (const unsigned long long *p)
{
  return emu_ld_relaxed (p);
}
static inline void
st_relaxed (unsigned long long *p, double v)
{
  unsigned long long b;
  memcpy (&b, &v, 8);
  std::atomic_ref<unsigned long long> (*p).store (b, std::memory_order_relaxed);
}
static inline unsigned
ld_acquire (const unsigned *p)
{
  std::this_thread::yield (); /* the writers are host threads too */
  return std::atomic_ref<unsigned> (*const_cast<unsigned *> (p)).load (std::memory_order_acquire);
}
static inline void
gfx_iir_fence ()
{
  std::atomic_thread_fence (std::memory_order_seq_cst);
}
static inline float
ld_plane (const float *p)
{
  return *p;
}
static inline void
spin_pause ()
{
}
static inline unsigned
trace_clock ()
{
  return 0;
}
static inline unsigned long long
trace_gtime ()
{
  return 0;
}
static inline unsigned
trace_smid ()
{
  return 0;
}
#define GFX_IIR_SMEM(name) unsigned char *name = emu_block->smem.data ()
} // namespace gfx_iir

#include "../../cuda/cuda_iir_split.cuh"

using namespace gfx_iir;
typedef void (*kernel_fn) (IirArgs);

/* The split kernel with `pairs` groups a block, `nblocks` blocks, then iir_mean's sums. */
static void
run (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out, int chunk, int nf,
     int pairs, int nblocks, bool tail)
{
  IirArgs A = {};
  A.in = in->pixels;
  A.depth = in->depth;
  A.W = in->width, A.H = in->height, A.channels = in->channels;
  A.colours = gfx_image_color_channels (in);
  A.m1 = A.m2 = 3;
  A.groups = (A.H + 31) / 32;
  A.tasks = A.groups * GFX_IIR_QUADRANTS * A.colours;
  size_t n = (size_t) A.W * A.H, tasks = (size_t) GFX_IIR_QUADRANTS * A.colours;
  std::vector<float> planes (n * tasks, -12345.0f);
  std::vector<unsigned long long> bnd (tasks * A.groups * 2 * A.W, GFX_IIR_SENTINEL);
  int ticket[2] = { 0, 0 };
  std::vector<unsigned> done (GFX_IIR_QUADRANTS * A.groups, 0);
  A.planes = planes.data ();
  A.bnd = bnd.data ();
  A.ticket = ticket;
  if (tail) /* the kernel's warps form the mean once out of quadrant tasks */
    {
      A.done = done.data ();
      A.out = out->pixels;
      A.mean_tasks = A.groups * mean_segments (A.W);
    }
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    for (int i = 0; i < 9; i++)
      c_a[q][i] = f->a[q][i], c_b[q][i] = f->b[q][i];
  const gfx_depth d = in->depth;
  kernel_fn fn = chunk == 16 ? (nf == 4 ? pick<16, 4> (d) : nf == 2 ? pick<16, 2> (d) : pick<16, 1> (d))
                  : nf == 4  ? pick<8, 4> (d)
                  : nf == 2  ? pick<8, 2> (d)
                             : pick<8, 1> (d);
  const int bs = 32 * (1 + nf) * pairs;
  emu_launch (
    nblocks, bs,
    [&] (EmuBlock &blk) {
      blk.named.push_back (nullptr);
      for (int p = 0; p < pairs; p++)
        blk.named.push_back (std::make_unique<std::barrier<>> (32 * (1 + nf)));
      blk.smem.assign (pairs * sizeof (PairSmem), 0x5a);
    },
    [&] { fn (A); });
  for (size_t i = 0; i < n && !tail; i++) /* iir_mean */
    for (int ch = 0; ch < A.channels; ch++)
      {
        size_t o = i * A.channels + ch;
        if (ch >= A.colours)
          {
            memcpy ((char *) out->pixels + o * gfx_depth_bytes (A.depth),
                    (const char *) in->pixels + o * gfx_depth_bytes (A.depth),
                    gfx_depth_bytes (A.depth));
            continue;
          }
        const float *p = A.planes + (size_t) ch * GFX_IIR_QUADRANTS * n + i;
        float v = gfx_iir_mean (p[0], p[n], p[2 * n], p[3 * n]);
        if (A.depth == GFX_U8)
          ((uint8_t *) out->pixels)[o] = gfx_unit_to_u8 (v);
        else if (A.depth == GFX_U16)
          ((uint16_t *) out->pixels)[o] = gfx_unit_to_u16 (v);
        else
          ((float *) out->pixels)[o] = v;
      }
}

int
main (void)
{
  static const int sizes[][2] = { { 1, 1 }, { 5, 3 }, { 40, 70 }, { 33, 65 }, { 97, 31 },
                                  { 64, 64 }, { 17, 100 }, { 130, 40 }, { 300, 70 }, { 45, 200 } };
  int fails = 0, cases = 0;
  for (int s = 0; s < 10; s++)
    for (int k = 0; k < 6; k++)
      {
        const int chunk = k & 1 ? 16 : 8, nf = 1 << k / 2;
        const int depth = (s + k) % 3, channels = 1 + (s + k) % 3;
        const int pairs = nf == 4 ? 1 : 1 + (s + k) % 2; /* 256 threads a block at most */
        const int nblocks = 1 + (s + k) % 3;
        if (emu_case_too_large ((long) sizes[s][0] * sizes[s][1] * channels))
          continue;
        gfx_iir_filter f;
        iir_random_filter (&f, 3, 3, 0.85);
        gfx_image in, cpu, emu;
        gfx_error err;
        iir_random_image (&in, sizes[s][0], sizes[s][1], channels, channels == 2,
                          (gfx_depth) depth);
        gfx_iir_filter_cpu (&f, &in, &cpu, NULL, &err);
        gfx_image_clone (&emu, &in, NULL);
        for (int tail = 0; tail < 2; tail++) /* the mean after the kernel, or in it */
          {
            memset (emu.pixels, 0x77, gfx_image_bytes (&emu));
            run (&f, &in, &emu, chunk, nf, pairs, nblocks, tail);
            bool same = !memcmp (cpu.pixels, emu.pixels, gfx_image_bytes (&in));
            printf ("%s emulated split kernel == cpu: %dx%d, %s, %d channels, chunk %d, "
                    "feeders %d, groups/block %d, blocks %d, %s\n", same ? "PASS" : "FAIL",
                    sizes[s][0], sizes[s][1], gfx_depth_name ((gfx_depth) depth), channels,
                    chunk, nf, pairs, nblocks,
                    tail ? "mean in the kernel's tail" : "mean after");
            fflush (stdout);
            fails += !same;
            cases++;
          }
        gfx_image_free (&in);
        gfx_image_free (&cpu);
        gfx_image_free (&emu);
      }
  emu_report_skipped ();
  printf ("# %d of %d cases failed\n", fails, cases);
  return fails != 0;
}
