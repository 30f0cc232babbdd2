/* The 4-quadrant 3x3 IIR filter on the GPU at 8192 x 8192 gray (SPEC section 5): kernel
 * time (CUDA events, transfers excluded) for 8-bit and float images and every tuning
 * value, next to the two floors measured in the same run: the chain floor (H + W
 * dependent wavefront steps) and the memory floor (reading the input and writing the
 * output once), plus the structural floor (the bytes this method must move through the
 * quadrant planes, at the copy's bandwidth), and a bit-exact check against the CPU at
 * 1024 x 1024.
 * Methods: 1 one warp per 32-row group, 2 split (a recursion warp and a feeder warp per
 * group; the default for 3x3).  End to end: the whole gfx_cuda_iir call (device buffers,
 * both transfers, kernels), host clock.
 * Usage: build/bench/iir_gpu [WIDTH HEIGHT [REPEATS]]
 *        build/bench/iir_gpu --ncu [WIDTH HEIGHT [CHUNK [FEEDERS [PER_SM]]]]: one u8 and one
 *        float run at auto tuning or the given chunk, feeders and blocks per SM (for a
 *        profiler);
 *        build/bench/iir_gpu --quick [REPEATS]: the floors, the 8192 x 8192 u8 and float
 *        kernels (and their end to end times) and the one- and eight-group u8 runs at auto
 *        tuning (for A/B runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/backend.h"
#include "../common/iir.h"
#include "../common/pool.h"
#include "bench_util.h"

#ifdef GFX_HAVE_CUDA
#include "../cuda/cuda_iir.h"
#include "../cuda/cuda_iir_bench.h"

static void
fill (gfx_image *img)
{
  uint32_t s = 12345;
  size_t n = gfx_image_samples (img);
  for (size_t i = 0; i < n; i++)
    {
      s = s * 1664525u + 1013904223u;
      double v = 0.5 * (double) (i % img->width) / img->width + 0.5 * (s >> 8) / 16777216.0;
      if (img->depth == GFX_U8)
        ((uint8_t *) img->pixels)[i] = (uint8_t) (v * 255);
      else
        ((float *) img->pixels)[i] = (float) v;
    }
}

/* A stable 3x3 sharpening-like filter with unit DC gain, mirrored in the four quadrants. */
static void
filter_3x3 (gfx_iir_filter *f)
{
  static const double b[9] = { 1, -0.45, 0.05, -0.45, 0.2, -0.02, 0.05, -0.02, 0.01 };
  static const double a[9] = { 1.9, -0.8, 0.05, -0.8, 0.35, -0.02, 0.05, -0.02, 0.01 };
  memset (f, 0, sizeof *f);
  f->m1 = f->m2 = 3;
  double sa = 0, sb = 0;
  for (int i = 0; i < 9; i++)
    sa += a[i], sb += b[i];
  for (int q = 0; q < 4; q++)
    for (int i = 0; i < 9; i++)
      f->a[q][i] = a[i] * sb / sa, f->b[q][i] = b[i];
}

/* Median kernel time in ms; *e2e (may be NULL): median wall time of the whole call. */
static double
median_kernel_ms (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out,
                  gfx_cuda_iir_tuning t, int reps, double *e2e)
{
  double ms[64], wall[64];
  gfx_error err;
  gfx_cuda_timing tm;
  if (gfx_cuda_iir (f, in, out, &t, &tm, &err) != GFX_OK) /* warm-up */
    {
      fprintf (stderr, "gfx_cuda_iir: %s\n", err.msg);
      return -1;
    }
  for (int r = 0; r < reps; r++)
    {
      double t0 = gfx_seconds ();
      gfx_cuda_iir (f, in, out, &t, &tm, &err);
      wall[r] = (gfx_seconds () - t0) * 1e3;
      ms[r] = tm.kernel_ms;
    }
  if (e2e)
    *e2e = gfx_bench_median (wall, reps);
  return gfx_bench_median (ms, reps);
}

static void
check_bits (const gfx_iir_filter *f)
{
  gfx_image in, cpu, gpu;
  gfx_error err;
  gfx_image_alloc (&in, 1024, 1024, 1, false, GFX_U8, NULL);
  fill (&in);
  gfx_iir_filter_cpu (f, &in, &cpu, NULL, &err);
  gfx_image_clone (&gpu, &in, NULL);
  gfx_cuda_iir (f, &in, &gpu, NULL, NULL, &err);
  printf ("bit-exact GPU vs CPU at 1024x1024 u8: %s\n",
          memcmp (cpu.pixels, gpu.pixels, gfx_image_bytes (&in)) ? "NO" : "yes");
  gfx_image_free (&in);
  gfx_image_free (&cpu);
  gfx_image_free (&gpu);
}

/* One u8 and one float run at auto tuning or the given one, nothing else: for ncu. */
static int
profile_runs (int W, int H, int chunk, int feeders, int per_sm)
{
  gfx_iir_filter f;
  filter_3x3 (&f);
  for (int d = 0; d < 2; d++)
    {
      gfx_image in, out;
      gfx_error err;
      gfx_cuda_timing tm;
      if (gfx_image_alloc (&in, W, H, 1, false, d ? GFX_F32 : GFX_U8, &err) != GFX_OK)
        return 1;
      fill (&in);
      gfx_image_clone (&out, &in, NULL);
      gfx_cuda_iir_tuning t = { 0, chunk, 0, per_sm, feeders };
      if (gfx_cuda_iir (&f, &in, &out, &t, &tm, &err) != GFX_OK)
        fprintf (stderr, "gfx_cuda_iir: %s\n", err.msg);
      printf ("%s: kernel %.4f ms\n", d ? "float" : "u8", tm.kernel_ms);
      gfx_image_free (&in);
      gfx_image_free (&out);
    }
  return 0;
}

/* --quick: floors and auto-tuned kernel times only. */
/* The floors of a W x H run, measured now: the dependent chain of W + H steps, and one
 * read and write of the u8 and f32 planes. */
static void
floors (int W, int H, int reps, double *chain, double *mem_u8, double *mem_f32)
{
  gfx_error err;
  *chain = *mem_u8 = *mem_f32 = 0;
  gfx_cuda_iir_chain_floor (W + H, reps, chain, &err);
  gfx_cuda_iir_memory_floor ((size_t) W * H, reps, mem_u8, &err);
  gfx_cuda_iir_memory_floor ((size_t) W * H * 4, reps, mem_f32, &err);
}

static int
quick (int reps)
{
  const int W = 8192, H = 8192;
  gfx_iir_filter f;
  filter_3x3 (&f);
  gfx_error err;
  double chain, mem_u8, mem_f32;
  floors (W, H, reps, &chain, &mem_u8, &mem_f32);
  printf ("quick: chain floor %.4f ms, memory floor u8 %.4f f32 %.4f ms\n", chain, mem_u8,
          mem_f32);
  static const int rows[] = { 32, 256, H };
  for (int r = 0; r < 3; r++)
    for (int d = 0; d < (rows[r] == H ? 2 : 1); d++)
      {
        gfx_image in, out;
        if (gfx_image_alloc (&in, W, rows[r], 1, false, d ? GFX_F32 : GFX_U8, &err) != GFX_OK)
          return 1;
        fill (&in);
        gfx_image_clone (&out, &in, NULL);
        double e2e = 0;
        double ms = median_kernel_ms (&f, &in, &out, (gfx_cuda_iir_tuning) { 0, 0, 0, 0, 0 },
                                      reps, &e2e);
        printf ("quick: %s %d x %d kernel %.4f ms", d ? "float" : "u8", W, rows[r], ms);
        if (rows[r] == H)
          printf (" = %.2f x max(chain, memory); end to end %.1f ms", ms /
                  (chain > mem_u8 ? chain : mem_u8), e2e);
        printf ("\n");
        gfx_image_free (&in);
        gfx_image_free (&out);
      }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && !strcmp (argv[1], "--quick"))
    return quick (argc > 2 ? atoi (argv[2]) : 7);
  if (argc > 1 && !strcmp (argv[1], "--ncu"))
    return profile_runs (argc > 3 ? atoi (argv[2]) : 8192, argc > 3 ? atoi (argv[3]) : 8192,
                         argc > 4 ? atoi (argv[4]) : 0, argc > 5 ? atoi (argv[5]) : 0,
                         argc > 6 ? atoi (argv[6]) : 0);
  int W = argc > 2 ? atoi (argv[1]) : 8192, H = argc > 2 ? atoi (argv[2]) : 8192;
  int reps = argc > 3 ? atoi (argv[3]) : 7;
  reps = reps < 1 ? 1 : reps > 64 ? 64 : reps;
  char name[GFX_MSG_LEN];
  if (!gfx_backend_gpu_usable (name, sizeof name))
    {
      printf ("no GPU: %s\n", name);
      return 0;
    }
  printf ("device: %s\nimage %d x %d gray, 4 quadrants, mask 3x3, median of %d\n", name, W, H,
          reps);
  gfx_iir_filter f;
  filter_3x3 (&f);
  check_bits (&f);
  gfx_error err;
  double chain, mem_u8, mem_f32;
  floors (W, H, reps, &chain, &mem_u8, &mem_f32);
  printf ("chain floor (%d dependent steps): %.4f ms\n", W + H, chain);
  printf ("memory floor (read + write once): u8 %.4f ms, f32 %.4f ms\n", mem_u8, mem_f32);
  /* One 32-row group per quadrant (no hand-off: the time of W + 31 steps of one warp),
   * then 8 groups (7 hand-offs on the chain), for each method. */
  for (int m = 1; m <= 4; m++) /* split: 2 auto feeders, 3 one, 4 four */
    for (int rows = 32; rows <= 256; rows *= 8)
      {
        gfx_image in, out;
        if (gfx_image_alloc (&in, W, rows, 1, false, GFX_U8, &err) != GFX_OK)
          return 1;
        fill (&in);
        gfx_image_clone (&out, &in, NULL);
        for (int c = 8; c <= 16; c += 8)
          {
            gfx_cuda_iir_tuning t = { 0, c, m < 3 ? m : 2, 0, m == 3 ? 1 : m == 4 ? 4 : 0 };
            double ms = median_kernel_ms (&f, &in, &out, t, reps, NULL);
            const char *note = m == 3 ? " (1 feeder)" : m == 4 ? " (4 feeders)" : "";
            printf ("method %d%s u8 %d x %d, chunk %d: %.4f ms, %.1f ns per step of %d\n",
                    t.method, note, W, rows, c, ms, ms * 1e6 / (W + 31), W + 31);
          }
        gfx_image_free (&in);
        gfx_image_free (&out);
      }
  for (int d = 0; d < 2; d++)
    {
      gfx_depth depth = d ? GFX_F32 : GFX_U8;
      gfx_image in, out;
      if (gfx_image_alloc (&in, W, H, 1, false, depth, &err) != GFX_OK)
        return 1;
      fill (&in);
      gfx_image_clone (&out, &in, NULL);
      double best = 1e30, e2e = 0;
      double def = median_kernel_ms (&f, &in, &out, (gfx_cuda_iir_tuning) { 0, 0, 0, 0, 0 }, reps,
                                     &e2e);
      static const int warps[] = { 1, 2, 4 }, chunks[] = { 8, 16 };
      for (int w = 1; w < 3; w++) /* one warp per group: its best chunk */
        {
          gfx_cuda_iir_tuning t = { warps[w], 16, 1, 0, 0 };
          double ms = median_kernel_ms (&f, &in, &out, t, 3, NULL);
          printf ("  %s method 1 chunk 16 warps/block %d: %.4f ms\n", gfx_depth_name (depth),
                  warps[w], ms);
          best = ms < best && ms > 0 ? ms : best;
        }
      for (int c = 0; c < 2; c++)
        for (int nf = 1; nf <= 4; nf *= 2)
          for (int w = 0; w < (nf == 4 ? 1 : nf == 2 ? 2 : 3); w++) /* 256 threads a block */
            {
              gfx_cuda_iir_tuning t = { warps[w], chunks[c], 2, 0, nf };
              double ms = median_kernel_ms (&f, &in, &out, t, 3, NULL);
              printf ("  %s method 2 chunk %d feeders %d groups/block %d: %.4f ms\n",
                      gfx_depth_name (depth), chunks[c], nf, warps[w], ms);
              best = ms < best && ms > 0 ? ms : best;
            }
      double bpp = d ? 4 : 1, mem = d ? mem_f32 : mem_u8;
      /* x read by 4 quadrants, 4 float planes written and read back, output written. */
      double structural = mem * (4 * bpp + 32 + bpp) / (2 * bpp);
      double floor = chain > mem ? chain : mem;
      printf ("%s: kernel %.4f ms (auto tuning), best %.4f ms; max(chain, memory) floor "
              "%.4f ms -> ratio %.2f; structural floor %.4f ms -> ratio %.2f; end to end "
              "%.2f ms\n", gfx_depth_name (depth), def, best, floor, def / floor, structural,
              def / structural, e2e);
      gfx_image_free (&in);
      gfx_image_free (&out);
    }
  return 0;
}
#else
int
main (void)
{
  printf ("this build has no CUDA\n");
  return 0;
}
#endif
