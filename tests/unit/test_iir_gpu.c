/* CPU == GPU, bit for bit, for the quadrant IIR filter: sizes 1x1, 1xN, Nx1, odd and multi-
 * group, masks 1x1 to 7x7, every depth and layout, every tuning value (method, warps or pairs
 * per block, chunk, where the split kernel's mean is formed) across sizes and masks; plus the
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

/* Every tuning value (warps per block x chunk) on sizes that cross the
 * chunk, group and ring boundaries, masks of every kernel variant, every depth. */
static void
sweep_tuning (void)
{
  static const int warps[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, chunks[] = { 8, 16 };
  char why[GFX_MSG_LEN];
  gfx_iir_filter f;
  iir_random_filter (&f, 3, 3, 0.9);
  gfx_image in;
  iir_random_image (&in, 301, 203, 2, true, GFX_F32);
  for (int m = 1; m <= 2; m++) /* one warp per group; split (3x3) */
    for (int w = 0; w < 8; w++)
      for (int c = 0; c < 2; c++)
        {
          gfx_cuda_iir_tuning t = { warps[w], chunks[c], m, w % 2, 1 << (w / 2) % 3 };
          const char *mean = c ? "1" : "0"; /* split: the mean in the kernel's tail or not */
          setenv ("GPUFX_IIR_MEAN", mean, 1);
          CHECK (same_bits (&f, &in, &t, why, sizeof why), "gpu == cpu bits at method %d, "
                 "warps per block %d, chunk %d, feeders %d, GPUFX_IIR_MEAN=%s: %s", m,
                 warps[w], chunks[c], t.feeders, mean, why);
        }
  unsetenv ("GPUFX_IIR_MEAN");
  gfx_image_free (&in);
  /* Sizes around the chunk (8, 16), ring (64) and group (32 rows) boundaries, thin and
   * single-pixel images, masks 1..7 x 1..7 (all kernel variants, the exact 3x3 one too). */
  static const int sizes[][2] = { { 1, 1 }, { 1, 97 }, { 97, 1 }, { 2, 2 }, { 15, 17 },
                                  { 31, 33 }, { 32, 32 }, { 33, 63 }, { 64, 65 }, { 95, 96 },
                                  { 129, 47 }, { 7, 200 }, { 200, 7 } };
  int n = 0;
  for (int s = 0; s < 13; s++)
    for (int m1 = 1; m1 <= 7; m1++)
      for (int m2 = 1; m2 <= 7; m2++)
        {
          if ((m1 * 7 + m2 + s) % 3 != 0 && !(m1 == 3 && m2 == 3))
            continue; /* a third of the masks per size, every mask over the sizes */
          iir_random_filter (&f, m1, m2, 0.8);
          int d = (s + m1 + m2) % 3, channels = 1 + (s + m1) % 4;
          iir_random_image (&in, sizes[s][1], sizes[s][0], channels, channels % 2 == 0, d);
          gfx_cuda_iir_tuning t = { warps[(s + m2) % 8], chunks[(s + m1 + m2) % 2], 0,
                                    s % 3, 1 << (s + m1) % 3 };
          CHECK (same_bits (&f, &in, &t, why, sizeof why), "gpu == cpu bits: %dx%d, mask "
                 "%dx%d, %s, %d channels, warps %d, chunk %d, blocks per SM %d: %s",
                 sizes[s][0], sizes[s][1], m1, m2, gfx_depth_name (d), channels,
                 t.warps_per_block, t.chunk, t.per_sm, why);
          n++;
          if (m1 == 3 && m2 == 3) /* 3x3 runs split by default: the other kernel too */
            {
              t.method = 1;
              CHECK (same_bits (&f, &in, &t, why, sizeof why), "gpu == cpu bits: %dx%d, "
                     "mask 3x3, %s, %d channels, one warp per group, warps %d, chunk %d: %s",
                     sizes[s][0], sizes[s][1], gfx_depth_name (d), channels,
                     t.warps_per_block, t.chunk, why);
              n++;
            }
          gfx_image_free (&in);
        }
  printf ("# %d size x mask x tuning cases\n", n);
  gfx_cuda_iir_tuning bad = { 9, 0, 0, 0, 0 }, bad_chunk = { 0, 24, 0, 0, 0 };
  gfx_cuda_iir_tuning bad_method = { 0, 0, 3, 0, 0 }, bad_sm = { 0, 0, 0, 33, 0 };
  gfx_cuda_iir_tuning bad_feeders = { 0, 0, 0, 0, 3 };
  gfx_image out;
  gfx_error err;
  iir_random_image (&in, 8, 8, 1, false, GFX_U8);
  gfx_image_clone (&out, &in, NULL);
  CHECK (gfx_cuda_iir (&f, &in, &out, &bad, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "1 to 8"), "warps per block 9 refused: %s", err.msg);
  CHECK (gfx_cuda_iir (&f, &in, &out, &bad_chunk, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "8 or 16"), "chunk 24 refused: %s", err.msg);
  CHECK (gfx_cuda_iir (&f, &in, &out, &bad_method, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "method"), "method 3 refused: %s", err.msg);
  CHECK (gfx_cuda_iir (&f, &in, &out, &bad_sm, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "1 to 32"), "33 blocks per SM refused: %s", err.msg);
  CHECK (gfx_cuda_iir (&f, &in, &out, &bad_feeders, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "1, 2 or 4"), "3 feeders refused: %s", err.msg);
  gfx_image_free (&in);
  gfx_image_free (&out);
}

/* A large RGB image (many groups, the persistent loop, all quadrants and channels at
 * once), every depth. */
static void
large_rgb (void)
{
  char why[GFX_MSG_LEN];
  gfx_iir_filter f;
  iir_random_filter (&f, 3, 3, 0.9);
  for (int d = 0; d < 3; d++)
    {
      gfx_image in;
      iir_random_image (&in, 1031, 777, 3, false, d);
      if (d != 1) /* the split kernel's mean in its tail, every colour channel counted */
        setenv ("GPUFX_IIR_MEAN", "1", 1);
      CHECK (same_bits (&f, &in, NULL, why, sizeof why), "gpu == cpu bits: 1031x777 RGB %s "
             "(auto tuning, GPUFX_IIR_MEAN=%s): %s", gfx_depth_name (d), d != 1 ? "1" : "auto",
             why);
      unsetenv ("GPUFX_IIR_MEAN");
      gfx_image_free (&in);
    }
  /* More groups than resident warps (pairs): warps loop over tickets and wait on groups
     that started later than their own first one. */
  for (int m = 1; m <= 2; m++)
    {
      gfx_image in;
      gfx_cuda_iir_tuning t = { 1, 8, m, 1, m };
      iir_random_image (&in, 37, 40009, 1, false, GFX_U8);
      CHECK (same_bits (&f, &in, &t, why, sizeof why), "gpu == cpu bits: 40009 rows x 37 u8, "
             "method %d, 1 warp (pair) per block: %s", m, why);
      gfx_image_free (&in);
    }
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
  /* The injected fault is a real failed cudaMalloc (the runtime's last error set): the
   * next call must not take that error for its own. */
  st = gfx_iir_filter_image (&f, &in, &out, GFX_BACKEND_GPU, &run, &err);
  CHECK (st == GFX_OK && run.info.used == GFX_BACKEND_GPU && differing (&out, &cpu) == 0,
         "the next call runs on the GPU and matches the CPU%s%s", st == GFX_OK ? "" : ": ",
         st == GFX_OK ? "" : err.msg);
  if (st == GFX_OK)
    gfx_image_free (&out);
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
      setenv ("GPUFX_IIR_MEAN", "1", 1); /* split: the mean in the kernel's tail */
      gfx_cuda_iir_tuning t[] = { { 2, 16, 0, 0, 1 }, { 3, 8, 0, 1, 2 }, { 2, 16, 1, 0, 0 },
                                  { 1, 16, 2, 0, 4 }, { 4, 8, 2, 0, 1 }, { 1, 8, 2, 0, 4 } };
      for (int i = 0; i < 6; i++)
        CHECK (same_bits (&f, &in, &t[i], why, sizeof why), "small case under the sanitizer, "
               "chunk %d, method %d, feeders %d: %s", t[i].chunk, t[i].method, t[i].feeders,
               why);
      iir_random_filter (&f, 5, 2, 0.8);
      CHECK (same_bits (&f, &in, NULL, why, sizeof why), "small case under the sanitizer, "
             "mask 5x2: %s", why);
      gfx_image_free (&in);
      return check_exit_status ();
    }
  sweep_sizes_masks_depths ();
  sweep_tuning ();
  large_rgb ();
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
