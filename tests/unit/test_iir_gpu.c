/* CPU == GPU, bit for bit, for the quadrant IIR filter: sizes 1x1, 1xN, Nx1, odd and
 * multi-group, masks 1x1 to 7x7, every depth and layout, every tuning value; plus the
 * backend rules (fallback note, injected fault).  SKIPs with the reason without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/backend.h"
#include "../../common/iir.h"
#include "check.h"
#include "test_iir_util.h"

#ifdef GFX_HAVE_CUDA
#include "../../cuda/cuda_iir.h"

/* Number of samples that differ between two images of one layout. */
static size_t
differing (const gfx_image *a, const gfx_image *b)
{
  size_t n = gfx_image_samples (a), bytes = gfx_depth_bytes (a->depth), d = 0;
  for (size_t i = 0; i < n; i++)
    d += memcmp ((const char *) a->pixels + i * bytes, (const char *) b->pixels + i * bytes,
                 bytes) != 0;
  return d;
}

/* Runs CPU and GPU on one case; true when bit-identical. */
static bool
same_bits (const gfx_iir_filter *f, const gfx_image *in, const gfx_cuda_iir_tuning *tune,
           char *why, size_t len)
{
  gfx_image cpu, gpu;
  gfx_error err;
  if (gfx_iir_filter_cpu (f, in, &cpu, NULL, &err) != GFX_OK)
    {
      snprintf (why, len, "cpu: %s", err.msg);
      return false;
    }
  gfx_image_clone (&gpu, in, NULL);
  memset (gpu.pixels, 0x5a, gfx_image_bytes (&gpu)); /* alpha must come back from the GPU */
  bool ok = gfx_cuda_iir (f, in, &gpu, tune, NULL, &err) == GFX_OK;
  size_t d = ok ? differing (&cpu, &gpu) : 0;
  snprintf (why, len, "%s", !ok ? err.msg : d ? "samples differ" : "identical");
  if (ok && d)
    snprintf (why, len, "%zu of %zu samples differ", d, gfx_image_samples (in));
  gfx_image_free (&cpu);
  gfx_image_free (&gpu);
  return ok && d == 0;
}

static void
sweep_sizes_masks_depths (void)
{
  static const int sizes[][2] = { { 1, 1 }, { 1, 300 }, { 300, 1 }, { 33, 65 }, { 97, 31 },
                                  { 130, 257 }, { 64, 64 } };
  static const int masks[][2] = { { 1, 1 }, { 3, 3 }, { 1, 7 }, { 7, 1 }, { 2, 5 }, { 5, 5 },
                                  { 4, 6 }, { 7, 7 } };
  char why[GFX_MSG_LEN];
  for (int s = 0; s < 7; s++)
    for (int m = 0; m < 8; m++)
      for (int d = 0; d < 3; d++)
        {
          gfx_iir_filter f;
          iir_random_filter (&f, masks[m][0], masks[m][1], 0.85);
          int channels = 1 + (s + m + d) % 4;
          gfx_image in;
          iir_random_image (&in, sizes[s][1], sizes[s][0], channels, channels % 2 == 0, d);
          CHECK (same_bits (&f, &in, NULL, why, sizeof why), "gpu == cpu bits: %dx%d, mask "
                 "%dx%d, %s, %d channels: %s", sizes[s][0], sizes[s][1], masks[m][0],
                 masks[m][1], gfx_depth_name (d), channels, why);
          gfx_image_free (&in);
        }
}

static void
sweep_tuning (void)
{
  static const int warps[] = { 1, 2, 3, 4, 8 }, syncs[] = { 1, 2, 3, 7, 64, 256 };
  char why[GFX_MSG_LEN];
  gfx_iir_filter f;
  iir_random_filter (&f, 3, 3, 0.9);
  gfx_image in;
  iir_random_image (&in, 301, 203, 2, true, GFX_F32);
  for (int w = 0; w < 5; w++)
    for (int s = 0; s < 6; s++)
      {
        gfx_cuda_iir_tuning t = { warps[w], syncs[s] };
        CHECK (same_bits (&f, &in, &t, why, sizeof why), "gpu == cpu bits at warps per block "
               "%d, sync interval %d: %s", warps[w], syncs[s], why);
      }
  gfx_image_free (&in);
  gfx_cuda_iir_tuning bad = { 9, 0 };
  gfx_image out;
  gfx_error err;
  iir_random_image (&in, 8, 8, 1, false, GFX_U8);
  gfx_image_clone (&out, &in, NULL);
  CHECK (gfx_cuda_iir (&f, &in, &out, &bad, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "1 to 8"), "warps per block 9 refused: %s", err.msg);
  gfx_image_free (&in);
  gfx_image_free (&out);
}

static void
backend_rules (void)
{
  gfx_iir_filter f;
  iir_random_filter (&f, 3, 3, 0.5);
  gfx_image in, out, cpu;
  gfx_error err;
  iir_random_image (&in, 40, 30, 3, false, GFX_U8);
  gfx_iir_filter_cpu (&f, &in, &cpu, NULL, &err);
  gfx_filter_run run = { 0 };
  CHECK (gfx_iir_filter_image (&f, &in, &out, GFX_BACKEND_GPU, &run, &err) == GFX_OK
           && run.info.used == GFX_BACKEND_GPU && differing (&out, &cpu) == 0,
         "backend gpu runs on the GPU and matches the CPU");
  if (out.pixels)
    gfx_image_free (&out);
  setenv ("GPUFX_CUDA_FAIL", "gfx_cuda_iir", 1);
  gfx_status st = gfx_iir_filter_image (&f, &in, &out, GFX_BACKEND_AUTO, &run, &err);
  CHECK (st == GFX_OK && run.info.used == GFX_BACKEND_CPU && run.info.note[0]
           && differing (&out, &cpu) == 0, "auto falls back to the CPU on a GPU fault: %s",
         run.info.note);
  if (st == GFX_OK)
    gfx_image_free (&out);
  st = gfx_iir_filter_image (&f, &in, &out, GFX_BACKEND_GPU, &run, &err);
  CHECK (st == GFX_ERR_GPU && strstr (err.msg, "gfx_cuda_iir") && !out.pixels,
         "backend gpu reports the GPU fault: %s", err.msg);
  unsetenv ("GPUFX_CUDA_FAIL");
  gfx_image_free (&in);
  gfx_image_free (&cpu);
}

int
main (int argc, char **argv)
{
  char name[GFX_MSG_LEN];
  if (!gfx_backend_gpu_usable (name, sizeof name))
    {
      SKIP ("iir gpu == cpu: no usable GPU (%s)", name);
      return check_exit_status ();
    }
  printf ("# GPU: %s\n", name);
  if (argc > 1 && !strcmp (argv[1], "--small")) /* a short run for compute-sanitizer */
    {
      char why[GFX_MSG_LEN];
      gfx_iir_filter f;
      iir_random_filter (&f, 3, 3, 0.8);
      gfx_image in;
      iir_random_image (&in, 70, 75, 2, true, GFX_U16);
      gfx_cuda_iir_tuning t = { 2, 3 };
      CHECK (same_bits (&f, &in, &t, why, sizeof why), "small case under the sanitizer: %s", why);
      gfx_image_free (&in);
      return check_exit_status ();
    }
  sweep_sizes_masks_depths ();
  sweep_tuning ();
  backend_rules ();
  return check_exit_status ();
}
#else
int
main (void)
{
  (void) check_report; /* no CHECKs in a CPU-only build */
  SKIP ("iir gpu == cpu: this build has no CUDA (nvcc was not found)");
  return check_exit_status ();
}
#endif
