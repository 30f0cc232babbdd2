/* GPU halftone == CPU halftone, byte for byte (SPEC sections 0 and 1): sizes from 1x1 to
 * 16384x16384, every kernel, levels 2/3/256, 8/16/32f, GRAY/RGB/RGBA, block sizes 32..1024
 * and margins 0, 1, 40, auto, huge; plus fault injection and parameter errors.  Needs no
 * GIMP.  SKIPs when the build has no CUDA or no GPU is usable.
 * Both GPU kernels (rows, the default, and strip) and FS with 2, 3, 4 rows a thread.
 * GPUFX_TEST_QUICK=1: small images only (for compute-sanitizer runs);
 * GPUFX_TEST_QUICK=2: a handful of small cases (for racecheck, which is slow on the
 * spinning hand-offs); GPUFX_TEST_LARGE=0: everything but the 8192^2 / 16384^2 cases. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/halftone.h"
#include "check.h"
#include "test_rng.h"
#ifdef GFX_HAVE_CUDA /* everything but main: a CPU-only build only SKIPs */
#include "../../cuda/cuda_halftone.h"

static uint32_t rng_state = 0x9e3779b9u;

static uint32_t
rng (void)
{
  return test_xorshift32 (&rng_state);
}

/* Ramp plus noise, so every level and both error signs occur; float images also get
 * values outside [0, 1] and exact midpoints. */
static gfx_image
make_image (int w, int h, int channels, gfx_depth depth)
{
  gfx_image img;
  gfx_error err;
  if (gfx_image_alloc (&img, w, h, channels, channels == 2 || channels == 4, depth, &err))
    {
      printf ("FAIL allocating a %dx%d test image: %s\n", w, h, err.msg);
      exit (1);
    }
  const float near_midpoint[5] = { 0.5f, 1.0f / 3.0f, nextafterf (0.5f, 0.0f),
                                   nextafterf (1.0f / 6.0f, 0.0f), 0.0f };
  size_t n = gfx_image_samples (&img);
  for (size_t i = 0; i < n; i++)
    {
      size_t pixel = i / channels;
      float ramp = (float) (pixel % w + pixel / w) / (float) (w + h);
      float v = 0.7f * ramp + 0.3f * (float) (rng () % 1000) / 999.0f;
      if (depth == GFX_F32 && rng () % 40 == 0)
        v = v * 1.3f - 0.15f;
      if (depth == GFX_F32 && rng () % 16 == 0) /* midpoints and the floats just below */
        v = near_midpoint[rng () % 5];
      gfx_sample_set (&img, i, v);
    }
  return img;
}

static gfx_status
run (const gfx_image *in, gfx_image *out, int backend, int kernel, int levels, int bs,
     int margin, gfx_error *err)
{
  gfx_halftone_params p;
  gfx_params_defaults (&gfx_halftone_param_set, &p);
  p.backend = backend;
  p.kernel = kernel;
  p.levels = levels;
  p.block_size = bs;
  p.margin = margin;
  gfx_run_info info;
  gfx_status st = gfx_halftone (in, out, &p, NULL, &info, err);
  if (st == GFX_OK && info.used != (gfx_backend) backend)
    return gfx_fail (err, GFX_ERR_INTERNAL, "ran on the wrong backend");
  return st;
}

static const char *depth_names[] = { "u8", "u16", "f32" };

/* One input, one CPU result, then the GPU with each (block size, margin) pair. */
static void
compare (int w, int h, int channels, gfx_depth depth, int kernel, int levels, const int *bs,
         const int *margins, int n)
{
  gfx_image in = make_image (w, h, channels, depth), ref, out;
  gfx_error err;
  if (run (&in, &ref, GFX_BACKEND_CPU, kernel, levels, 0, -1, &err))
    {
      CHECK (0, "cpu reference %dx%dx%d: %s", w, h, channels, err.msg);
      gfx_image_free (&in);
      return;
    }
  for (int i = 0; i < n; i++)
    {
      gfx_status st = run (&in, &out, GFX_BACKEND_GPU, kernel, levels, bs[i], margins[i], &err);
      size_t diff = 0, first = 0, bytes = gfx_image_bytes (&in);
      if (st == GFX_OK)
        for (size_t b = bytes; b-- > 0;)
          if (((unsigned char *) out.pixels)[b] != ((unsigned char *) ref.pixels)[b])
            diff++, first = b;
      if (!CHECK (st == GFX_OK && diff == 0,
                  "gpu == cpu %dx%d ch%d %s %s levels %d block %d margin %d", w, h, channels,
                  depth_names[depth], gfx_kernel_choices[kernel], levels, bs[i], margins[i]))
        {
          if (st != GFX_OK)
            printf ("  error: %s\n", err.msg);
          else
            printf ("  %zu bytes differ, first at byte %zu (pixel %zu)\n", diff, first,
                    first / gfx_depth_bytes (depth) / channels);
        }
      gfx_image_free (&out);
    }
  gfx_image_free (&ref);
  gfx_image_free (&in);
}

static void
sizes_sweep (int quick)
{
  static const int wh_full[][2] = { { 1, 1 }, { 1, 700 }, { 700, 1 }, { 31, 33 }, { 257, 1023 },
                                    { 1000, 1 }, { 4097, 13 }, { 2, 2000 }, { 333, 64 } };
  static const int wh_quick[][2] = { { 1, 1 }, { 1, 70 }, { 70, 1 }, { 31, 33 }, { 97, 45 } };
  const int (*wh)[2] = quick ? wh_quick : wh_full;
  int n = quick ? 5 : 9;
  const int bs[] = { 0, 32, 64, 128 }, mg[] = { -1, 0, 1, 40 };
  for (int i = 0; i < n; i++)
    compare (wh[i][0], wh[i][1], 1, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 4);
}

/* FS levels 2 gray 8-bit with widths a multiple of 16 (rows_block_out): the paired kernel
 * (the default), the rows kernel's aligned 16-byte blocks (GPUFX_HALFTONE_PAIR=0) and its
 * byte write-back (GPUFX_HALFTONE_OB=0). */
static void
block_out_sweep (int quick)
{
  static const int wh[][2] = { { 16, 1 }, { 16, 300 }, { 48, 70 }, { 208, 65 }, { 416, 200 },
                               { 512, 513 }, { 1024, 129 }, { 2048, 300 }, { 4096, 1000 },
                               { 160, 64 }, { 8192, 131 } };
  const int bs[] = { 0, 32, 64, 128, 1024 }, mg[] = { -1, 0, 1, 40, 100000 };
  int n = quick ? 5 : 11;
  for (int mode = 0; mode < 3; mode++)
    {
      if (mode == 1)
        setenv ("GPUFX_HALFTONE_PAIR", "0", 1);
      if (mode == 2)
        setenv ("GPUFX_HALFTONE_OB", "0", 1);
      for (int i = 0; i < n; i += mode ? 2 : 1)
        compare (wh[i][0], wh[i][1], 1, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, quick ? 3 : 5);
    }
  unsetenv ("GPUFX_HALFTONE_PAIR");
  unsetenv ("GPUFX_HALFTONE_OB");
}

/* FS levels 2 8-bit with alpha or colour channels: the paired kernel on planes (the
 * default; rows of whole 16-byte blocks, or padded to them where the width is not a
 * multiple of 16, of 4, or of neither) and the rows kernel (GPUFX_HALFTONE_PAIR=0). */
static void
planar_sweep (int quick)
{
  static const int wh[][2] = { { 16, 1 },     { 17, 5 },     { 16, 130 },   { 48, 70 },
                               { 100, 65 },   { 208, 65 },   { 333, 70 },   { 1024, 129 },
                               { 1001, 129 }, { 2048, 300 }, { 4096, 200 }, { 4095, 37 } };
  const int bs[] = { 0, 32, 1024 }, mg[] = { -1, 0, 40 };
  int n = quick ? 7 : 12;
  for (int mode = 0; mode < 2; mode++)
    {
      if (mode == 1)
        setenv ("GPUFX_HALFTONE_PAIR", "0", 1);
      for (int ch = 2; ch <= 4; ch++)
        for (int i = 0; i < n; i += mode ? 2 : 1)
          compare (wh[i][0], wh[i][1], ch, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 3);
    }
  unsetenv ("GPUFX_HALFTONE_PAIR");
}

static void
kernels_sweep (int quick)
{
  const int bs[] = { 0, 64 }, mg[] = { -1, 1 };
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    for (int d = 0; d < 3; d++)
      {
        const int levels[] = { 2, 3, 256 };
        for (int l = 0; l < 3; l++)
          compare (quick ? 45 : 203, quick ? 70 : 611, 1, (gfx_depth) d, k, levels[l], bs, mg,
                   quick ? 1 : 2);
      }
}

static void
blocks_sweep (int quick)
{
  const int bs[] = { 32, 96, 160, 256, 288, 512, 992, 1024, 1024, 128, 64, 32 };
  const int mg[] = { 0, 1, 40, -1, 100000, 0, 1, 40, 100000, -1, 100000, 40 };
  int n = quick ? 6 : 12;
  compare (quick ? 60 : 450, quick ? 300 : 2500, 1, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, n);
  compare (quick ? 60 : 301, quick ? 300 : 2200, 1, GFX_F32, GFX_KERNEL_JJN, 3, bs, mg, n);
  compare (quick ? 50 : 129, quick ? 200 : 2100, 1, GFX_U16, GFX_KERNEL_ATKINSON, 256, bs, mg, n);
}

static void
layouts_sweep (int quick)
{
  const int bs[] = { 0, 32, 256 }, mg[] = { -1, 0, 40 };
  for (int ch = 2; ch <= 4; ch++)
    {
      compare (quick ? 40 : 513, quick ? 90 : 700, ch, GFX_U8, GFX_KERNEL_FS, 2, bs, mg,
               quick ? 1 : 3);
      compare (quick ? 40 : 300, quick ? 90 : 301, ch, GFX_F32, GFX_KERNEL_STUCKI, 3, bs, mg,
               quick ? 1 : 3);
      compare (quick ? 40 : 211, quick ? 90 : 400, ch, GFX_U16, GFX_KERNEL_SIERRA, 256, bs, mg,
               quick ? 1 : 3);
    }
}

static void
large (void)
{
  const int bs[] = { 0, 1024 }, mg[] = { -1, 0 };
  compare (8192, 8192, 3, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 1);
  compare (16384, 16384, 1, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 2);
}

/* The default is the rows kernel with 2 rows a thread; also FS with 3 and 4 rows a
 * thread, and the strip kernel (GPUFX_HALFTONE_GPU=strip). */
static void
other_variants (int quick)
{
  const int bs[] = { 0, 32, 64, 128, 1024 }, mg[] = { -1, 0, 1, 40, 3 };
  for (int k = 3; k <= 4; k++)
    {
      char v[2] = { (char) ('0' + k), 0 };
      setenv ("GPUFX_HALFTONE_ROWS", v, 1);
      printf ("rows per thread %d (FS levels 2 u8):\n", k);
      sizes_sweep (quick);
      compare (quick ? 300 : 1500, quick ? 400 : 1300, 1, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 5);
      compare (quick ? 300 : 999, quick ? 200 : 777, 3, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 2);
    }
  unsetenv ("GPUFX_HALFTONE_ROWS");
  setenv ("GPUFX_HALFTONE_GPU", "strip", 1);
  printf ("strip kernel:\n");
  sizes_sweep (1);
  blocks_sweep (1);
  compare (quick ? 45 : 203, quick ? 70 : 611, 3, GFX_F32, GFX_KERNEL_JJN, 3, bs, mg, 2);
  unsetenv ("GPUFX_HALFTONE_GPU");
}

/* A few small cases over both hand-offs (warps in a block, strips in global memory),
 * a 2-row and a 3-row kernel and a margin: for the slow sanitizer tools. */
static void
tiny (void)
{
  const int bs[] = { 32, 64, 96 }, mg[] = { 0, 1, 40 };
  compare (97, 150, 1, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 3);
  compare (96, 150, 1, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 3); /* block output */
  compare (96, 70, 3, GFX_U8, GFX_KERNEL_FS, 2, bs, mg, 3);  /* on planes */
  compare (70, 100, 1, GFX_F32, GFX_KERNEL_JJN, 3, bs, mg, 2);
}

static void
errors (void)
{
  gfx_image in = make_image (64, 40, 4, GFX_U8), ref, out;
  gfx_error err;
  gfx_status st;
  run (&in, &ref, GFX_BACKEND_CPU, GFX_KERNEL_FS, 2, 0, -1, &err);
  setenv ("GPUFX_CUDA_FAIL", "gfx_cuda_halftone", 1);
  st = run (&in, &out, GFX_BACKEND_GPU, GFX_KERNEL_FS, 2, 0, -1, &err);
  CHECK (st == GFX_ERR_GPU && strstr (err.msg, "gfx_cuda_halftone"),
         "injected GPU failure is an error under backend gpu (%s)", err.msg);
  gfx_halftone_params p;
  gfx_params_defaults (&gfx_halftone_param_set, &p);
  gfx_run_info info;
  st = gfx_halftone (&in, &out, &p, NULL, &info, &err);
  CHECK (st == GFX_OK && info.used == GFX_BACKEND_CPU && info.note[0]
           && memcmp (out.pixels, ref.pixels, gfx_image_bytes (&in)) == 0,
         "injected GPU failure falls back to the CPU under auto, same pixels");
  if (st == GFX_OK)
    gfx_image_free (&out);
  unsetenv ("GPUFX_CUDA_FAIL");

  gfx_cuda_timing t = { -1, -1 };
  gfx_image o2;
  gfx_image_alloc (&o2, 64, 40, 4, true, GFX_U8, &err);
  st = gfx_cuda_halftone (&in, &o2, GFX_KERNEL_FS, 2, 0, -1, &t, &err);
  CHECK (st == GFX_OK && t.kernel_ms > 0 && t.total_ms >= t.kernel_ms,
         "timing filled (kernel %.3f ms, total %.3f ms)", t.kernel_ms, t.total_ms);
  CHECK (gfx_cuda_halftone (&in, &o2, GFX_KERNEL_FS, 1, 0, -1, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "levels"), "levels 1 refused: %s", err.msg);
  CHECK (gfx_cuda_halftone (&in, &o2, GFX_KERNEL_FS, 2, 48, -1, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "block-size"), "block size 48 refused: %s", err.msg);
  CHECK (gfx_cuda_halftone (&in, &o2, GFX_KERNEL_FS, 2, 0, -2, NULL, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "margin"), "margin -2 refused: %s", err.msg);
  gfx_image_free (&o2);
  gfx_image_free (&ref);
  gfx_image_free (&in);
}
#endif

int
main (void)
{
#ifndef GFX_HAVE_CUDA
  SKIP ("gpu halftone: this build has no CUDA (nvcc was not found)");
  (void) check_report;
  return 0;
#else
  char why[GFX_MSG_LEN];
  if (!gfx_backend_gpu_usable (why, sizeof why))
    {
      SKIP ("gpu halftone: no usable GPU: %s", why);
      return 0;
    }
  printf ("device: %s\n", why);
  setenv ("GPUFX_HALFTONE_POISON", "1", 1); /* unwritten output pixels cannot pass */
  const char *q = getenv ("GPUFX_TEST_QUICK"), *lg = getenv ("GPUFX_TEST_LARGE");
  int quick = q && *q && strcmp (q, "0") != 0;
  if (q && !strcmp (q, "2"))
    {
      tiny ();
      return check_exit_status ();
    }
  errors ();
  sizes_sweep (quick);
  block_out_sweep (quick);
  planar_sweep (quick);
  kernels_sweep (quick);
  blocks_sweep (quick);
  layouts_sweep (quick);
  other_variants (quick);
  if (!quick && !(lg && !strcmp (lg, "0")))
    large ();
  return check_exit_status ();
#endif
}
