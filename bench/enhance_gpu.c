/* Local enhance on the GPU at the seed's size (3241 x 3685 gray 8-bit, photo-like
 * synthetic content): kernel time at n = 3, 31 and 255 (CUDA events, transfers
 * excluded), the device-to-device copy of the same bytes measured in the same run, the
 * CPU path for reference, and a bit-exact check of GPU against CPU.
 * Usage: build/bench/enhance_gpu [WIDTH HEIGHT [REPEATS]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/enhance.h"
#include "../common/pool.h"

#ifdef GFX_HAVE_CUDA
#include "../cuda/enhance_cuda.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
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

static void
one_window (const gfx_image *in, int n, int reps, double copy_ms)
{
  gfx_enhance_params p;
  gfx_params_defaults (&gfx_enhance_param_set, &p);
  p.window = n;
  gfx_image gpu, cpu, gmask, cmask;
  gfx_error err;
  gfx_image_alloc (&gpu, in->width, in->height, 1, false, GFX_U8, &err);
  gfx_image_alloc (&gmask, in->width, in->height, 1, false, GFX_U8, &err);
  double *k = malloc (sizeof *k * reps), *t = malloc (sizeof *t * reps);
  gfx_cuda_enhance_timing tm;
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
  qsort (k, reps, sizeof *k, cmp_double);
  qsort (t, reps, sizeof *t, cmp_double);
  gfx_cuda_enhance (in, &gpu, &gmask, &p, &tm, &err);
  double c0 = now_ms ();
  gfx_enhance_cpu (in, &cpu, &cmask, &p, NULL, &err);
  double cpu_ms = now_ms () - c0;
  size_t bytes = gfx_image_bytes (in), enhanced = 0;
  for (size_t i = 0; i < bytes; i++)
    enhanced += ((uint8_t *) cmask.pixels)[i] != 0;
  int same = !memcmp (gpu.pixels, cpu.pixels, bytes) && !memcmp (gmask.pixels, cmask.pixels, bytes);
  printf ("n=%-3d kernel median %.4f ms (min %.4f) = %.2f x copy; call with transfers %.3f ms; "
          "CPU (%d threads) %.1f ms; GPU %s CPU; %.1f%% enhanced\n",
          n, k[reps / 2], k[0], k[reps / 2] / copy_ms, t[reps / 2], gfx_threads (), cpu_ms,
          same ? "==" : "!=", 100.0 * enhanced / bytes);
  free (k), free (t);
  gfx_image_free (&gpu), gfx_image_free (&gmask), gfx_image_free (&cpu), gfx_image_free (&cmask);
}

int
main (int argc, char **argv)
{
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
  double copy_ms = 0;
  gfx_cuda_copy_ms (gfx_image_bytes (&in), reps, &copy_ms, &err);
  printf ("device: %s\nimage: %d x %d gray 8-bit (%.1f MB)\n", name, w, h,
          gfx_image_bytes (&in) / 1e6);
  printf ("copy floor: device-to-device copy of the same bytes, median %.4f ms (%.0f GB/s r+w)\n",
          copy_ms, 2.0 * gfx_image_bytes (&in) / copy_ms / 1e6);
  static const int windows[] = { 3, 31, 33, 255 }; /* 33: first large-window path */
  for (int i = 0; i < 4; i++)
    one_window (&in, windows[i], reps, copy_ms);
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
