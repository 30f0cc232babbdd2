/* Local enhance on the GPU at the seed's size (3241 x 3685 gray 8-bit, photo-like
 * synthetic content): kernel time at n = 3, 31, 33 and 255 (the launch sequence on the
 * device-resident image, CUDA events, median of back-to-back runs), split into the
 * totals reduction and the statistics kernel; the device-to-device copy of the same bytes
 * measured in the same run; the time of a whole call (transfers included); the CPU path
 * for reference; a bit-exact check of GPU against CPU.  `--sweep` also times the
 * statistics kernel's speed knobs (tile kernel, columns per thread, strip rows, the n = 3
 * kernel's rows per warp).
 * `--profile`: only one call per window (n = 3, 31) on the automatic kernels, then on the
 * tile kernel, for a profiler (ncu).
 * Usage: build/bench/enhance_gpu [--sweep | --profile] [WIDTH HEIGHT [REPEATS]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/enhance.h"
#include "../common/pool.h"
#include "bench_util.h"

#ifdef GFX_HAVE_CUDA
#include "../cuda/enhance_cuda.h"

enum { INNER = 20 }; /* sequences back to back per timing sample */

/* Median kernel time (ms) of `what`, or -1 on error (printed). */
static double
time_of (const gfx_image *in, const gfx_enhance_params *p, gfx_enh_time_what what, int reps)
{
  gfx_error err;
  double ms = -1;
  if (gfx_cuda_enhance_time (in, p, what, reps, INNER, &ms, &err) != GFX_OK)
    {
      printf ("  GPU error: %s\n", err.msg);
      return -1;
    }
  return ms;
}

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* A gradient with dark textured patches and noise (deterministic). */
static void
fill (gfx_image *img)
{
  uint32_t s = 1;
  uint8_t *px = img->pixels;
  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width; x++)
      {
        s = s * 1664525u + 1013904223u;
        double v = 0.7 * (x + 2.0 * y) / (img->width + 2.0 * img->height)
                   + 0.15 * (s >> 8) / 16777216.0;
        if (((x / 97) + (y / 61)) % 3 == 0)
          v *= 0.2;
        px[(size_t) y * img->width + x] = (uint8_t) (v > 1 ? 255 : v * 255);
      }
}

/* The fused n = 3 kernel's phases in one back-to-back launch: per point, the times from
 * the earliest block start (median, min, max over blocks) and the median phase length. */
static void
print_trace (const gfx_image *in, const gfx_enhance_params *p)
{
  enum { MAXB = 1024, NP = GFX_ENH_TRACE_POINTS };
  static const char *const names[NP] = { "start",   "landed (0)", "totals",
                                         "barrier", "thresholds", "shared",
                                         "group 1", "group 2",    "end" };
  static long long t[MAXB * NP];
  double v[MAXB], d[MAXB];
  int blocks = 0;
  gfx_error err;
  if (gfx_cuda_enhance_trace (in, p, INNER, t, MAXB, &blocks, &err) != GFX_OK)
    {
      printf ("  trace: GPU error: %s\n", err.msg);
      return;
    }
  if (blocks == 0)
    {
      printf ("  trace: the fused kernel did not run\n");
      return;
    }
  printf ("  fused kernel phases over %d blocks (us from the first start: median [min, max]; "
          "median phase length):\n",
          blocks);
  for (int k = 0; k < NP; k++)
    {
      double lo = 1e30, hi = -1e30;
      for (int b = 0; b < blocks; b++)
        {
          v[b] = t[b * NP + k] / 1e3;
          d[b] = k ? (t[b * NP + k] - t[b * NP + k - 1]) / 1e3 : 0;
          lo = v[b] < lo ? v[b] : lo, hi = v[b] > hi ? v[b] : hi;
        }
      printf ("    %-10s %7.2f [%7.2f, %7.2f]  %+6.2f\n", names[k], gfx_bench_median (v, blocks),
              lo, hi, gfx_bench_median (d, blocks));
    }
}

static void
one_window (const gfx_image *in, int n, int reps, double copy_ms, double copyk_ms, int sweep)
{
  gfx_enhance_params p;
  gfx_params_defaults (&gfx_enhance_param_set, &p);
  p.window = n;
  gfx_image gpu, cpu, gmask, cmask;
  gfx_error err;
  gfx_image_alloc (&gpu, in->width, in->height, 1, false, GFX_U8, &err);
  gfx_image_alloc (&gmask, in->width, in->height, 1, false, GFX_U8, &err);
  double *k = malloc (sizeof *k * reps), *t = malloc (sizeof *t * reps);
  gfx_cuda_timing tm;
  for (int i = 0; i < 3; i++) /* warm-up: buffers, module load */
    gfx_cuda_enhance (in, &gpu, NULL, &p, &tm, &err);
  for (int i = 0; i < reps; i++)
    {
      if (gfx_cuda_enhance (in, &gpu, NULL, &p, &tm, &err) != GFX_OK)
        {
          printf ("n=%d: GPU error: %s\n", n, err.msg);
          return;
        }
      k[i] = tm.kernel_ms, t[i] = tm.total_ms;
    }
  double call_kernel = gfx_bench_median (k, reps), call_total = gfx_bench_median (t, reps);
  double all = time_of (in, &p, GFX_ENH_TIME_ALL, reps);
  double tot = time_of (in, &p, GFX_ENH_TIME_TOTALS, reps);
  double sta = time_of (in, &p, GFX_ENH_TIME_STATS, reps);
  gfx_cuda_enhance (in, &gpu, &gmask, &p, &tm, &err);
  double c0 = now_ms ();
  gfx_enhance_cpu (in, &cpu, &cmask, &p, NULL, &err);
  double cpu_ms = now_ms () - c0;
  size_t bytes = gfx_image_bytes (in), enhanced = 0;
  for (size_t i = 0; i < bytes; i++)
    enhanced += ((uint8_t *) cmask.pixels)[i] != 0;
  int same = !memcmp (gpu.pixels, cpu.pixels, bytes) && !memcmp (gmask.pixels, cmask.pixels, bytes);
  printf ("n=%-3d kernels %.4f ms = %.2f x copy, %.2f x copy kernel (separate kernels: totals "
          "%.4f ms, statistics %.4f ms); "
          "one call: kernels %.4f ms (min %.4f), with transfers %.3f ms; "
          "CPU (%d threads) %.1f ms; GPU %s CPU; %.1f%% enhanced\n",
          n, all, all / copy_ms, all / copyk_ms, tot, sta, call_kernel, k[0], call_total,
          gfx_threads (), cpu_ms, same ? "==" : "!=", 100.0 * enhanced / bytes);
  if (n == 3)
    {
      print_trace (in, &p);
      static const int tails[] = { 1, 3, 5, 7, 10, 14 };
      printf ("  fused kernel by rows in the last row group (ms):");
      for (int i = 0; i < (int) (sizeof tails / sizeof tails[0]); i++)
        {
          gfx_cuda_enhance_set_tuning (4, 0, tails[i], 0, 0, &err);
          printf (" %d: %.4f", tails[i], time_of (in, &p, GFX_ENH_TIME_ALL, reps));
        }
      gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
      printf ("\n");
    }
  if (sweep && n < 33)
    {
      /* kernel (1 tile, 2 strip), cols, strip rows, store */
      static const int knobs[][4] = { { 1, 0, 0, 0 },  { 2, 4, 4, 0 },  { 2, 4, 8, 0 },
                                      { 2, 4, 16, 0 }, { 2, 4, 32, 0 }, { 2, 4, 8, 1 },
                                      { 2, 4, 16, 1 }, { 2, 8, 8, 0 },  { 2, 8, 16, 0 },
                                      { 2, 16, 8, 0 }, { 3, 0, 2, 0 },  { 3, 0, 4, 0 },
                                      { 3, 0, 8, 0 },  { 3, 0, 16, 0 } };
      enum { N_KNOBS = sizeof knobs / sizeof knobs[0] };
      printf ("  statistics kernel alone by knob (tile, or strip cols/rows[/direct stores], ms):");
      for (int i = 0; i < N_KNOBS; i++)
        {
          gfx_cuda_enhance_set_tuning (knobs[i][0], knobs[i][1], knobs[i][2], 0, knobs[i][3], &err);
          double ms = time_of (in, &p, GFX_ENH_TIME_STATS, reps);
          if (knobs[i][0] == 1)
            printf (" tile %.4f", ms);
          else if (knobs[i][0] == 3)
            {
              if (n == 3)
                printf (" n3/%d %.4f", knobs[i][2], ms);
            }
          else
            printf (" %d/%d%s %.4f", knobs[i][1], knobs[i][2], knobs[i][3] ? "/d" : "", ms);
        }
      gfx_cuda_enhance_set_tuning (2, 0, 0, 1, 0, &err);
      printf ("\n  whole sequence: strip kernel (auto knobs) with overlapped start %.4f ms;",
              time_of (in, &p, GFX_ENH_TIME_ALL, reps));
      gfx_cuda_enhance_set_tuning (2, 0, 0, 0, 0, &err);
      printf (" plain start %.4f ms\n", time_of (in, &p, GFX_ENH_TIME_ALL, reps));
      if (n == 3)
        {
          gfx_cuda_enhance_set_tuning (3, 0, 0, 1, 0, &err);
          printf ("  whole sequence: totals + n = 3 kernel, overlapped start %.4f ms;",
                  time_of (in, &p, GFX_ENH_TIME_ALL, reps));
          gfx_cuda_enhance_set_tuning (3, 0, 0, 0, 0, &err);
          printf (" plain start %.4f ms;", time_of (in, &p, GFX_ENH_TIME_ALL, reps));
          gfx_cuda_enhance_set_tuning (4, 0, 0, 0, 0, &err);
          printf (" fused kernel %.4f ms;", time_of (in, &p, GFX_ENH_TIME_ALL, reps));
          gfx_cuda_enhance_set_tuning (1, 0, 0, 0, 0, &err);
          printf (" tile kernel %.4f ms\n", time_of (in, &p, GFX_ENH_TIME_ALL, reps));
        }
      gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
    }
  free (k), free (t);
  gfx_image_free (&gpu), gfx_image_free (&gmask), gfx_image_free (&cpu), gfx_image_free (&cmask);
}

int
main (int argc, char **argv)
{
  int sweep = argc > 1 && !strcmp (argv[1], "--sweep");
  int profile = argc > 1 && !strcmp (argv[1], "--profile");
  if (sweep || profile)
    argc--, argv++;
  int w = argc > 2 ? atoi (argv[1]) : 3241, h = argc > 2 ? atoi (argv[2]) : 3685;
  int reps = argc > 3 ? atoi (argv[3]) : 30;
  char name[GFX_MSG_LEN];
  gfx_error err;
  if (gfx_cuda_device_name (name, sizeof name, &err) != GFX_OK)
    {
      printf ("no GPU: %s\n", err.msg);
      return 0;
    }
  gfx_image in;
  if (gfx_image_alloc (&in, w, h, 1, false, GFX_U8, &err) != GFX_OK)
    return 1;
  fill (&in);
  if (profile)
    {
      gfx_enhance_params p;
      gfx_params_defaults (&gfx_enhance_param_set, &p);
      gfx_image out;
      gfx_image_alloc (&out, w, h, 1, false, GFX_U8, &err);
      static const int wins[] = { 3, 31, 3, 31 };
      for (int i = 0; i < 4; i++)
        {
          p.window = wins[i];
          gfx_cuda_enhance_set_tuning (i < 2 ? 0 : 1, 0, 0, 0, 0, &err);
          if (gfx_cuda_enhance (&in, &out, NULL, &p, NULL, &err) != GFX_OK)
            printf ("GPU error: %s\n", err.msg);
        }
      gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
      printf ("profile: n = 3, 31 (automatic kernels), 3, 31 (tile kernel) on %d x %d\n", w, h);
      gfx_image_free (&out);
      gfx_image_free (&in);
      return 0;
    }
  double copy_ms = 0, copy1_ms = 0, copyk_ms = 0;
  gfx_cuda_copy_ms (gfx_image_bytes (&in), 0, reps, INNER, &copy_ms, &err);
  gfx_cuda_copy_ms (gfx_image_bytes (&in), 0, reps, 1, &copy1_ms, &err);
  gfx_cuda_copy_ms (gfx_image_bytes (&in), 1, reps, INNER, &copyk_ms, &err);
  printf ("device: %s\nimage: %d x %d gray 8-bit (%.1f MB)\n", name, w, h,
          gfx_image_bytes (&in) / 1e6);
  printf ("copy floor: device-to-device copy of the same bytes, median %.4f ms back to back "
          "(%.0f GB/s r+w), %.4f ms alone; a copy kernel %.4f ms back to back (%.0f GB/s)\n",
          copy_ms, 2.0 * gfx_image_bytes (&in) / copy_ms / 1e6, copy1_ms, copyk_ms,
          2.0 * gfx_image_bytes (&in) / copyk_ms / 1e6);
  /* launch floors: an empty grid of the fused kernel's shape (one 1024-thread block an
   * SM, ~190 KB of shared memory) and a light one, back to back */
  double big_ms = 0, small_ms = 0;
  gfx_cuda_launch_floor_ms (0, 1024, 190 * 1024, reps, INNER, &big_ms, &err);
  gfx_cuda_launch_floor_ms (0, 128, 0, reps, INNER, &small_ms, &err);
  printf ("launch floor: empty kernel back to back, a block an SM, 1024 threads and 190 KB "
          "shared: %.4f ms; 128 threads: %.4f ms\n",
          big_ms, small_ms);
  static const int windows[] = { 3, 31, 33, 255 }; /* 33: first large-window path */
  for (int i = 0; i < 4; i++)
    one_window (&in, windows[i], reps, copy_ms, copyk_ms, sweep);
  if (sweep)
    {
      /* the statistics kernel alone per window: tile kernel, strip kernel (4 columns per
       * thread, 8 rows, staged and direct stores) */
      static const int ns[] = { 3, 5, 7, 9, 11, 15, 21, 23, 27, 31, 33 };
      gfx_enhance_params p;
      gfx_params_defaults (&gfx_enhance_param_set, &p);
      printf ("statistics kernel alone (ms): n tile strip4/8 strip4/8/d\n");
      for (int i = 0; i < (int) (sizeof ns / sizeof ns[0]); i++)
        {
          p.window = ns[i];
          double t[3];
          for (int v = 0; v < 3; v++)
            {
              gfx_cuda_enhance_set_tuning (v ? 2 : 1, 4, 8, 0, v == 2, &err);
              t[v] = time_of (&in, &p, GFX_ENH_TIME_STATS, reps);
            }
          printf ("  %3d %.4f %.4f %.4f\n", ns[i], t[0], t[1], t[2]);
        }
      gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
    }
  gfx_image_free (&in);
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
