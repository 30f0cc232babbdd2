/* GPU halftone benchmark (SPEC section 5, issue 4): kernel and end-to-end times for
 * Floyd-Steinberg on 1024^2 .. 8192^2 gray and 8192^2 RGB, the measured chain floor
 * (2H + W dependent pixel steps of the same per-step work, one warp), and seed 003's
 * Table 1 (GTX 285) beside them.  Medians of several runs after a warm-up.
 * Usage: halftone_gpu [--sweep] [--quick]
 *        halftone_gpu --one W H CHANNELS KERNEL BLOCK MARGIN REPS [DEPTH [LEVELS]]
 *   --sweep: also, for 8192^2 gray, the rows kernel's rows per thread K x block size, the
 *   strip kernel, block size x margin, and the other kernels.
 *   --one W H CH KERNEL BLOCK MARGIN REPS [DEPTH [LEVELS]]: one configuration (default u8,
 *   levels 2), median kernel and total ms (for profilers and A/B runs). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/halftone.h"
#ifdef GFX_HAVE_CUDA
#include "../cuda/cuda_halftone.h"
#include "../cuda/halftone_bench.h"
#endif

#ifdef GFX_HAVE_CUDA
static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* A ramp with noise, at any depth (the same 8-bit values, scaled) */
static gfx_image
noise_image_depth (int w, int h, int ch, gfx_depth depth)
{
  gfx_image img;
  gfx_error err;
  if (gfx_image_alloc (&img, w, h, ch, false, depth, &err))
    {
      fprintf (stderr, "halftone_gpu: %s\n", err.msg);
      exit (1);
    }
  uint32_t s = 12345;
  for (size_t i = 0; i < gfx_image_samples (&img); i++)
    {
      s = s * 1664525u + 1013904223u;
      size_t pix = i / ch;
      gfx_sample_set (&img, i, (float) ((pix % w + pix / w) * 200 / (w + h) + (s >> 26)) / 255.0f);
    }
  return img;
}

static gfx_image
noise_image (int w, int h, int ch)
{
  return noise_image_depth (w, h, ch, GFX_U8);
}

/* Median kernel and total times of reps calls (after one warm-up). */
static int
time_gpu_levels (const gfx_image *in, int kernel, int levels, int bs, int margin, int reps,
                 double *kms, double *tms)
{
  gfx_image out;
  gfx_error err;
  double k[64], t[64];
  if (gfx_image_alloc (&out, in->width, in->height, in->channels, in->has_alpha, in->depth,
                       &err))
    return -1;
  for (int r = 0; r <= reps && r < 64; r++)
    {
      gfx_cuda_timing tm;
      if (gfx_cuda_halftone (in, &out, kernel, levels, bs, margin, &tm, &err))
        {
          fprintf (stderr, "halftone_gpu: %s\n", err.msg);
          gfx_image_free (&out);
          return -1;
        }
      if (r)
        k[r - 1] = tm.kernel_ms, t[r - 1] = tm.total_ms;
    }
  qsort (k, reps, sizeof k[0], cmp_double);
  qsort (t, reps, sizeof t[0], cmp_double);
  *kms = k[reps / 2];
  *tms = t[reps / 2];
  gfx_image_free (&out);
  return 0;
}

static int
time_gpu (const gfx_image *in, int kernel, int bs, int margin, int reps, double *kms,
          double *tms)
{
  return time_gpu_levels (in, kernel, 2, bs, margin, reps, kms, tms);
}

static void
main_table (int quick)
{
  static const struct { int n, ch; double seed_ms; } rows[] = {
    { 1024, 1, 4.865 }, { 2048, 1, 10.066 }, { 4096, 1, 26.404 }, { 8192, 1, 73.270 },
    { 8192, 3, 0 },
  };
  printf ("| image | GPU kernel ms | end-to-end ms | chain floor ms (2H+W steps) | kernel / floor "
          "| seed 003 GTX 285 kernel ms |\n|---|---|---|---|---|---|\n");
  for (int i = 0; i < 5; i++)
    {
      int n = quick ? rows[i].n / 4 : rows[i].n, reps = n >= 4096 ? 7 : 21;
      gfx_image in = noise_image (n, n, rows[i].ch);
      double kms, tms, fms = 0;
      gfx_error err;
      if (time_gpu (&in, GFX_KERNEL_FS, 0, -1, reps, &kms, &tms) == 0
          && gfx_cuda_halftone_floor (2 * n + n, 5, &fms, &err) == GFX_OK)
        {
          char seed[32] = "-";
          if (rows[i].seed_ms > 0)
            snprintf (seed, sizeof seed, "%.1f", rows[i].seed_ms);
          printf ("| %d x %d %s | %.3f | %.2f | %.3f | %.2f | %s |\n", n, n,
                  rows[i].ch == 1 ? "gray" : "RGB", kms, tms, fms, kms / fms, seed);
        }
      fflush (stdout);
      gfx_image_free (&in);
    }
}

/* a: W H CH KERNEL BLOCK MARGIN REPS [DEPTH (0 u8, 1 u16, 2 float) [LEVELS]] */
static int
one (int n, char **a)
{
  int w = atoi (a[0]), h = atoi (a[1]), ch = atoi (a[2]), k = atoi (a[3]), bs = atoi (a[4]);
  int mg = atoi (a[5]), reps = atoi (a[6]);
  int depth = n > 7 ? atoi (a[7]) : 0, levels = n > 8 ? atoi (a[8]) : 2;
  double kms, tms;
  if (w < 1 || h < 1 || ch < 1 || ch > 4 || k < 0 || k >= GFX_KERNEL_COUNT || reps < 1
      || reps > 63 || depth < 0 || depth > 2 || levels < 2 || levels > 256)
    return 2;
  const gfx_depth d = depth == 0 ? GFX_U8 : depth == 1 ? GFX_U16 : GFX_F32;
  gfx_image in = noise_image_depth (w, h, ch, d);
  int r = time_gpu_levels (&in, k, levels, bs, mg, reps, &kms, &tms);
  if (r == 0)
    printf ("one %dx%d ch%d %s depth %d levels %d block %d margin %d: kernel %.3f ms, total "
            "%.2f ms\n", w, h, ch, gfx_kernel_labels[k], depth, levels, bs, mg, kms, tms);
  gfx_image_free (&in);
  return r ? 1 : 0;
}

/* The rows kernel's rows per thread K and warps per block, and the strip kernel. */
static void
rows_sweep (const gfx_image *in)
{
  const int bs[] = { 32, 64, 128 };
  printf ("\nFS %d x %d gray, kernel ms by rows per thread K and block size (margin 0):\n"
          "| K | block 32 | 64 | 128 |\n|---|---|---|---|\n", in->width, in->height);
  for (int k = 2; k <= 4; k++)
    {
      char v[2] = { (char) ('0' + k), 0 };
      setenv ("GPUFX_HALFTONE_ROWS", v, 1);
      printf ("| %d |", k);
      for (int b = 0; b < 3; b++)
        {
          double kms, tms;
          if (time_gpu (in, GFX_KERNEL_FS, bs[b], 0, 5, &kms, &tms) == 0)
            printf (" %.3f |", kms);
          else
            printf (" err |");
          fflush (stdout);
        }
      printf ("\n");
    }
  unsetenv ("GPUFX_HALFTONE_ROWS");
  double kms, tms;
  setenv ("GPUFX_HALFTONE_GPU", "strip", 1);
  if (time_gpu (in, GFX_KERNEL_FS, 0, -1, 3, &kms, &tms) == 0)
    printf ("strip kernel (one row a thread), auto: %.3f ms\n", kms);
  unsetenv ("GPUFX_HALFTONE_GPU");
}

static void
sweep (int quick)
{
  int n = quick ? 2048 : 8192;
  gfx_image in = noise_image (n, n, 1);
  rows_sweep (&in);
  const int bs[] = { 32, 64, 96, 128, 256, 1024 }, mg[] = { 0, 16, 64, 100000 };
  printf ("\nFS %d x %d gray, kernel ms by block size (rows) and margin:\n| block |", n, n);
  for (int m = 0; m < 4; m++)
    printf (" m=%d |", mg[m]);
  printf ("\n|---|---|---|---|---|\n");
  for (int b = 0; b < 6; b++)
    {
      printf ("| %d |", bs[b]);
      for (int m = 0; m < 4; m++)
        {
          double kms, tms;
          if (mg[m] == 100000 && bs[b] < 256)
            {
              printf (" - |");
              continue;
            }
          if (time_gpu (&in, GFX_KERNEL_FS, bs[b], mg[m], 3, &kms, &tms) == 0)
            printf (" %.3f |", kms);
          else
            printf (" err |");
          fflush (stdout);
        }
      printf ("\n");
    }
  printf ("\nOther kernels, %d x %d gray, auto block and margin:\n| kernel | kernel ms |\n"
          "|---|---|\n", n, n);
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    {
      double kms, tms;
      if (time_gpu (&in, k, 0, -1, 3, &kms, &tms) == 0)
        printf ("| %s | %.3f |\n", gfx_kernel_labels[k], kms);
    }
  gfx_image_free (&in);
}
#endif

int
main (int argc, char **argv)
{
  int do_sweep = 0, quick = 0;
  for (int i = 1; i < argc; i++)
    {
      do_sweep |= !strcmp (argv[i], "--sweep");
      quick |= !strcmp (argv[i], "--quick");
    }
#ifndef GFX_HAVE_CUDA
  (void) do_sweep;
  (void) quick;
  printf ("SKIP halftone_gpu: this build has no CUDA\n");
  return 0;
#else
  char name[GFX_MSG_LEN];
  if (!gfx_backend_gpu_usable (name, sizeof name))
    {
      printf ("SKIP halftone_gpu: %s\n", name);
      return 0;
    }
  if (argc >= 9 && argc <= 11 && !strcmp (argv[1], "--one"))
    return one (argc - 2, argv + 2);
  printf ("GPU halftone (Floyd-Steinberg, levels 2, u8), device: %s\n\n", name);
  main_table (quick);
  if (do_sweep)
    sweep (quick);
  return 0;
#endif
}
