/* Halftone on the CPU: the fast path equals the serial reference bit for bit across sizes,
 * kernels, levels, depths, layouts and thread counts; plus properties that hold whatever
 * the implementation (allowed levels, tone, mid-grey pattern, alpha, cancel, validation).
 * GPUFX_PERF=1 instead times 8192 x 8192 gray 8-bit Floyd-Steinberg (not a check;
 * GPUFX_PERF_SIZE=N, GPUFX_PERF_KERNEL=index change it). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/halftone.h"
#include "../../common/halftone_cpu.h"
#include "../../common/halftone_internal.h"
#include "../../common/pool.h"
#include "check.h"
#include "support_cancel.h"
#include "support_images.h"
#include "test_rng.h"

static uint32_t rng_state = 12345;

static uint32_t
rng (void)
{
  return test_xorshift32 (&rng_state);
}

/* Noise over a ramp, so every level and both error signs occur; float images also get
 * values slightly outside [0, 1] as GIMP allows. */
static void
fill (gfx_image *img)
{
  const float special[5] = { 0.0f, 1.0f, 0.5f, nextafterf (0.5f, 0.0f), 1.0f / 3.0f };
  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width; x++)
      for (int c = 0; c < img->channels; c++)
        {
          size_t i = ((size_t) y * img->width + x) * img->channels + c;
          float ramp = (float) (x + y) / (float) (img->width + img->height);
          float v = 0.7f * ramp + 0.3f * (float) (rng () % 1000) / 999.0f;
          if (img->depth == GFX_F32 && rng () % 50 == 0)
            v = v * 1.2f - 0.1f;
          /* Exact levels leave zero error, so a following near-midpoint value meets the
           * midpoint rule unperturbed. */
          if (img->depth == GFX_F32 && rng () % 8 == 0)
            v = special[rng () % 5];
          gfx_sample_set (img, i, v);
        }
}

static gfx_image
make_image (int w, int h, int channels, gfx_depth depth)
{
  gfx_image img;
  gfx_error err;
  if (gfx_image_alloc (&img, w, h, channels, channels == 2 || channels == 4, depth, &err))
    {
      printf ("FAIL allocating a test image: %s\n", err.msg);
      exit (1);
    }
  fill (&img);
  return img;
}

static void
set_threads (int n)
{
  char buf[16];
  snprintf (buf, sizeof buf, "%d", n);
  setenv ("GPUFX_THREADS", buf, 1);
}

/* Fast path == reference for one kernel, level count and depth over many shapes and
 * thread counts; one check line each. */
static void
sweep (int kernel, int levels, gfx_depth depth)
{
  static const int sizes[][2] = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 1, 70 }, { 70, 1 },
                                  { 2, 2 }, { 3, 17 }, { 13, 17 }, { 31, 9 }, { 64, 65 },
                                  { 100, 37 }, { 257, 19 } };
  int n_sizes = sizeof sizes / sizeof sizes[0], bad = 0, runs = 0;
  char what[160] = "";
  for (int s = 0; s < n_sizes; s++)
    {
      int channels = 1 + (s + kernel) % 4;
      gfx_image in = make_image (sizes[s][0], sizes[s][1], channels, depth);
      gfx_image ref, fast;
      gfx_error err;
      gfx_image_alloc (&ref, in.width, in.height, channels, in.has_alpha, depth, &err);
      gfx_halftone_ref (&in, &ref, kernel, levels, &err);
      for (int threads = 1; threads <= 5; threads++)
        {
          set_threads (threads);
          gfx_image_alloc (&fast, in.width, in.height, channels, in.has_alpha, depth, &err);
          gfx_status st = gfx_halftone_cpu (&in, &fast, kernel, levels, NULL, &err);
          runs++;
          if (st != GFX_OK || !test_same_image (&ref, &fast))
            {
              if (!bad++)
                snprintf (what, sizeof what, "first at %dx%dx%d, %d threads, status %d",
                          in.width, in.height, channels, threads, (int) st);
            }
          gfx_image_free (&fast);
        }
      gfx_image_free (&ref);
      gfx_image_free (&in);
    }
  CHECK (!bad, "fast == reference: %s levels %d %s (%d runs) %s", gfx_kernel_choices[kernel],
         levels, gfx_depth_name (depth), runs, what);
}

/* Repeats multi-band, multi-channel shapes on 2-5 threads: races between the workers'
 * hand-offs and ring-slot reuse show up as rare mismatches, so give them many chances. */
static void
stress (void)
{
  static const int shapes[][3] = { { 257, 19, 4 }, { 67, 45, 3 }, { 9, 70, 2 }, { 130, 33, 1 } };
  int bad = 0, runs = 0;
  for (int s = 0; s < 4; s++)
    for (int kernel = 0; kernel < GFX_KERNEL_COUNT; kernel += 3)
      {
        gfx_image in = make_image (shapes[s][0], shapes[s][1], shapes[s][2], GFX_U8), ref, fast;
        gfx_error err;
        gfx_image_alloc (&ref, in.width, in.height, in.channels, in.has_alpha, GFX_U8, &err);
        gfx_halftone_ref (&in, &ref, kernel, 3, &err);
        for (int rep = 0; rep < 40; rep++, runs++)
          {
            set_threads (2 + rep % 4);
            gfx_image_alloc (&fast, in.width, in.height, in.channels, in.has_alpha, GFX_U8, &err);
            bad += gfx_halftone_cpu (&in, &fast, kernel, 3, NULL, &err) != GFX_OK
                   || !test_same_image (&ref, &fast);
            gfx_image_free (&fast);
          }
        gfx_image_free (&ref);
        gfx_image_free (&in);
      }
  CHECK (!bad, "fast == reference under repetition on 2-5 threads: %d of %d runs differ", bad,
         runs);
}

/* Every output sample is one of the `levels` values gfx_sample_set makes of q/(L-1). */
static void
check_allowed_levels (void)
{
  static const int levels[] = { 2, 3, 16, 256 };
  for (int d = 0; d < 3; d++)
    for (int l = 0; l < 4; l++)
      {
        gfx_image in = make_image (97, 41, 3, (gfx_depth) d), out;
        gfx_halftone_params p;
        gfx_error err;
        gfx_params_defaults (&gfx_halftone_param_set, &p);
        p.backend = GFX_BACKEND_CPU;
        p.levels = levels[l];
        int bad = gfx_halftone (&in, &out, &p, NULL, NULL, &err) != GFX_OK;
        for (size_t i = 0; !bad && i < gfx_image_samples (&out); i++)
          {
            float v = gfx_sample_get (&out, i) * (float) (levels[l] - 1);
            double scale = d == GFX_U8 ? 255.0 : d == GFX_U16 ? 65535.0 : 1e6;
            bad = fabs (v - roundf (v)) > (levels[l] - 1) / scale;
          }
        CHECK (!bad, "only the %d allowed levels appear (%s)", levels[l],
               gfx_depth_name ((gfx_depth) d));
        gfx_image_free (&in);
        gfx_image_free (&out);
      }
}

/* Box blur of radius r of channel 0, as doubles. */
static double *
blurred (const gfx_image *img, int r)
{
  int w = img->width, h = img->height;
  double *b = calloc ((size_t) w * h, sizeof *b);
  for (int y = r; y < h - r; y++)
    for (int x = r; x < w - r; x++)
      {
        double s = 0;
        for (int dy = -r; dy <= r; dy++)
          for (int dx = -r; dx <= r; dx++)
            s += gfx_sample_get (img, ((size_t) (y + dy) * w + x + dx) * img->channels);
        b[(size_t) y * w + x] = s / ((2 * r + 1) * (2 * r + 1));
      }
  return b;
}

/* A smooth ramp keeps its local tone: blurred halftone ~ blurred input. */
static void
check_tone (void)
{
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    {
      gfx_image in, out;
      gfx_error err;
      gfx_image_alloc (&in, 128, 96, 1, false, GFX_F32, &err);
      for (int y = 0; y < 96; y++)
        for (int x = 0; x < 128; x++)
          ((float *) in.pixels)[y * 128 + x] = 0.05f + 0.9f * (float) x / 127.0f;
      gfx_halftone_params p;
      gfx_params_defaults (&gfx_halftone_param_set, &p);
      p.backend = GFX_BACKEND_CPU;
      p.kernel = k;
      gfx_halftone (&in, &out, &p, NULL, NULL, &err);
      double *a = blurred (&in, 6), *b = blurred (&out, 6), worst = 0;
      for (int y = 20; y < 96 - 20; y++)
        for (int x = 20; x < 128 - 20; x++)
          worst = fmax (worst, fabs (a[y * 128 + x] - b[y * 128 + x]));
      /* Atkinson drops 1/4 of the error, so highlights and shadows drift further. */
      double bound = k == GFX_KERNEL_ATKINSON ? 0.12 : 0.07;
      CHECK (worst < bound, "tone kept under a 13x13 blur (%s): worst difference %.3f < %.2f",
             gfx_kernel_choices[k], worst, bound);
      free (a);
      free (b);
      gfx_image_free (&in);
      gfx_image_free (&out);
    }
}

/* Constant 50% grey: half the pixels white, and for Floyd-Steinberg a checkerboard
 * (neighbours mostly differ). */
static void
check_mid_grey (void)
{
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    {
      gfx_image in, out;
      gfx_error err;
      gfx_image_alloc (&in, 64, 64, 1, false, GFX_F32, &err);
      for (int i = 0; i < 64 * 64; i++)
        ((float *) in.pixels)[i] = 0.5f;
      gfx_halftone_params p;
      gfx_params_defaults (&gfx_halftone_param_set, &p);
      p.backend = GFX_BACKEND_CPU;
      p.kernel = k;
      gfx_halftone (&in, &out, &p, NULL, NULL, &err);
      const float *o = out.pixels;
      int white = 0, differ = 0;
      for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++)
          {
            white += o[y * 64 + x] == 1.0f;
            differ += x + 1 < 64 && o[y * 64 + x] != o[y * 64 + x + 1];
            differ += y + 1 < 64 && o[y * 64 + x] != o[(y + 1) * 64 + x];
          }
      double density = white / 4096.0, alternation = differ / (2.0 * 63 * 64);
      CHECK (fabs (density - 0.5) < 0.02, "50%% grey gives 50%% white (%s): %.3f",
             gfx_kernel_choices[k], density);
      if (k == GFX_KERNEL_FS)
        CHECK (alternation > 0.9 && o[0] == 1.0f, "50%% grey gives a checkerboard (fs): "
               "%.3f of neighbours differ, first pixel white (midpoint goes up)", alternation);
      gfx_image_free (&in);
      gfx_image_free (&out);
    }
}

/* Float samples outside [0, 1] are clipped before the diffusion: a dark field (0.1) with a
 * 3.0 highlight and a -2.0 hole halftones as the reference does on the clipped copy, with
 * alpha (2.5) copied as it was and the input left as it was.  Unclipped, the highlight's
 * excess whitened the dark pixels below it. */
static void
check_out_of_range_clipped (void)
{
  const int w = 40, h = 30;
  gfx_image in, clipped, out, ref;
  gfx_error err;
  gfx_image_alloc (&in, w, h, 2, true, GFX_F32, &err);
  float *px = in.pixels;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        float v = 0.1f;
        if (x >= 8 && x < 14 && y >= 4 && y < 10)
          v = 3.0f;
        if (x >= 24 && x < 30 && y >= 4 && y < 10)
          v = -2.0f;
        px[2 * (y * w + x)] = v;
        px[2 * (y * w + x) + 1] = 2.5f;
      }
  gfx_image_clone (&clipped, &in, &err);
  float *c = clipped.pixels;
  for (int i = 0; i < w * h; i++)
    c[2 * i] = fminf (fmaxf (c[2 * i], 0.0f), 1.0f);
  gfx_image_alloc (&ref, w, h, 2, true, GFX_F32, &err);
  gfx_halftone_ref (&clipped, &ref, GFX_KERNEL_FS, 2, &err);
  gfx_halftone_params p;
  gfx_params_defaults (&gfx_halftone_param_set, &p);
  p.backend = GFX_BACKEND_CPU;
  gfx_status st = gfx_halftone (&in, &out, &p, NULL, NULL, &err);
  int differ = 0, white_below = 0, alpha_kept = 1;
  for (int i = 0; st == GFX_OK && i < w * h; i++)
    {
      differ += ((float *) out.pixels)[2 * i] != ((float *) ref.pixels)[2 * i];
      alpha_kept &= ((float *) out.pixels)[2 * i + 1] == 2.5f;
    }
  for (int y = 10; st == GFX_OK && y < 20; y++)
    for (int x = 4; x < 18; x++)
      white_below += ((float *) out.pixels)[2 * (y * w + x)] == 1.0f;
  CHECK (st == GFX_OK && !differ && alpha_kept && px[2 * (5 * w + 9)] == 3.0f
         && white_below < 20, "float samples outside [0, 1] are clipped before diffusing: "
         "== reference on the clipped copy (%d differ), alpha kept %d, input kept, %d of 140 "
         "white under the highlight", differ, alpha_kept, white_below);
  gfx_image_free (&in);
  gfx_image_free (&clipped);
  gfx_image_free (&ref);
  if (st == GFX_OK)
    gfx_image_free (&out);
}

/* The clipped copy the halftone diffuses is made on all cores: the same samples for any
 * number of workers (GPUFX_THREADS 1, 3, 7 over an odd 101 x 37 RGBA image): colour clipped
 * to [0, 1], alpha (also out of range) as it was. */
static void
check_clamped_copy_threads (void)
{
  gfx_image in;
  gfx_error err;
  gfx_image_alloc (&in, 101, 37, 4, true, GFX_F32, &err);
  float *px = in.pixels;
  for (size_t i = 0; i < gfx_image_samples (&in); i++)
    px[i] = (float) ((i * 2654435761u) % 1000) / 200.0f - 2.0f; /* -2 .. 3 */
  static const char *const threads[] = { "1", "3", "7" };
  for (int t = 0; t < 3; t++)
    {
      setenv ("GPUFX_THREADS", threads[t], 1);
      gfx_image out;
      int bad = gfx_image_clamped_copy (&out, &in, &err) != GFX_OK;
      for (size_t i = 0; !bad && i < gfx_image_samples (&in); i++)
        {
          float want = i % 4 == 3 ? px[i] : fminf (fmaxf (px[i], 0.0f), 1.0f);
          bad = ((float *) out.pixels)[i] != want;
        }
      CHECK (!bad, "clamped copy, %s thread(s): colour clipped to [0, 1], alpha kept",
             threads[t]);
      if (out.pixels)
        gfx_image_free (&out);
    }
  unsetenv ("GPUFX_THREADS");
  gfx_image_free (&in);
}

static void
check_alpha_and_validation (void)
{
  gfx_image in = make_image (33, 21, 4, GFX_U16), out;
  gfx_halftone_params p;
  gfx_error err;
  gfx_params_defaults (&gfx_halftone_param_set, &p);
  p.backend = GFX_BACKEND_CPU;
  int ok = gfx_halftone (&in, &out, &p, NULL, NULL, &err) == GFX_OK;
  for (size_t i = 3; ok && i < gfx_image_samples (&in); i += 4)
    ok = ((uint16_t *) in.pixels)[i] == ((uint16_t *) out.pixels)[i];
  CHECK (ok, "alpha passes through untouched (RGBA 16-bit)");
  gfx_image_free (&out);

  p.levels = 300;
  gfx_status st = gfx_halftone (&in, &out, &p, NULL, NULL, &err);
  CHECK (st == GFX_ERR_PARAM && !out.pixels && strstr (err.msg, "levels = 300")
           && strstr (err.msg, "2 to 256"),
         "levels 300 refused, no output: %s", err.msg);
  p.levels = 2;
  p.kernel = GFX_KERNEL_COUNT;
  st = gfx_halftone (&in, &out, &p, NULL, NULL, &err);
  CHECK (st == GFX_ERR_PARAM && strstr (err.msg, "kernel"), "unknown kernel refused: %s",
         err.msg);
  gfx_image_free (&in);
}

static void
cancel_at_ten_percent (void *ctx, double fraction)
{
  if (fraction > 0.1)
    gfx_progress_cancel (ctx);
}

static void
check_cancel (void)
{
  gfx_image in = make_image (300, 400, 3, GFX_U8), out;
  gfx_halftone_params p;
  gfx_error err;
  gfx_progress progress;
  gfx_params_defaults (&gfx_halftone_param_set, &p);
  p.backend = GFX_BACKEND_CPU;
  for (int threads = 1; threads <= 3; threads += 2)
    {
      set_threads (threads);
      gfx_progress_init (&progress, NULL, NULL);
      gfx_progress_cancel (&progress);
      gfx_status st = gfx_halftone (&in, &out, &p, &progress, NULL, &err);
      CHECK (st == GFX_ERR_CANCELLED && !out.pixels, "cancel before start (%d threads): %s",
             threads, err.msg);
      gfx_progress_init (&progress, cancel_at_ten_percent, &progress);
      st = gfx_halftone (&in, &out, &p, &progress, NULL, &err);
      CHECK (st == GFX_ERR_CANCELLED && !out.pixels,
             "cancel from the progress report (%d threads): status %d", threads, (int) st);
    }
  gfx_image_free (&in);
}

/* A cancel while the wavefront runs on several workers (an image past the one-thread
 * size), from another thread at some moment as GIMP's would come, with more workers than
 * cores so that some of them are asleep in a wait for the band above: every run ends
 * (test_hang_guard: a hang is a failure), cancelled or finished and exact. */
static void
check_cancel_wavefront (void)
{
  gfx_image in = make_image (1500, 600, 3, GFX_U8), ref, out;
  gfx_error err;
  gfx_image_alloc (&ref, in.width, in.height, in.channels, in.has_alpha, in.depth, &err);
  gfx_halftone_ref (&in, &ref, GFX_KERNEL_FS, 2, &err);
  int cancelled = 0, exact = 0, runs = 0;
  for (int threads = 2; threads <= 6; threads += 2)
    for (long delay_us = 50; delay_us <= 12800; delay_us *= 4, runs++)
      {
        set_threads (threads);
        gfx_progress progress;
        gfx_progress_init (&progress, NULL, NULL);
        test_late_cancel ui;
        test_cancel_after (&ui, &progress, delay_us);
        out = (gfx_image) { 0 };
        gfx_image_alloc (&out, in.width, in.height, in.channels, in.has_alpha, in.depth, &err);
        gfx_status st = gfx_halftone_cpu (&in, &out, GFX_KERNEL_FS, 2, &progress, &err);
        test_cancel_join (&ui);
        cancelled += st == GFX_ERR_CANCELLED;
        exact += st == GFX_OK && test_same_image (&out, &ref);
        gfx_image_free (&out);
      }
  CHECK (cancelled + exact == runs && cancelled > 0,
         "cancel from another thread mid-wavefront, 2-6 workers: %d runs, %d cancelled, "
         "%d finished exact", runs, cancelled, exact);
  unsetenv ("GPUFX_THREADS");
  gfx_image_free (&ref);
  gfx_image_free (&in);
}

/* Fast path == reference for one image under the current GPUFX_THREADS (unset: the
 * automatic choice), with an optional progress report. */
static bool
fast_equals_ref (const gfx_image *in, int kernel, int levels, gfx_progress *progress)
{
  gfx_image ref, fast;
  gfx_error err;
  gfx_image_alloc (&ref, in->width, in->height, in->channels, in->has_alpha, in->depth, &err);
  gfx_image_alloc (&fast, in->width, in->height, in->channels, in->has_alpha, in->depth, &err);
  gfx_halftone_ref (in, &ref, kernel, levels, &err);
  bool ok = gfx_halftone_cpu (in, &fast, kernel, levels, progress, &err) == GFX_OK
            && test_same_image (&ref, &fast);
  gfx_image_free (&ref);
  gfx_image_free (&fast);
  return ok;
}

static void
last_fraction (void *ctx, double fraction)
{
  *(double *) ctx = fraction;
}

/* The automatic thread choice (one thread below 400000 samples, the free cores
 * above); workers retiring (forced: every worker but the last retires after its first
 * band, the bands left run on, progress still reaches 1); more workers than cores (they lose their cores mid-band,
 * sleep in the waits and may retire on their own).  The result stays exact. */
static void
check_thread_choice_and_retire (void)
{
  unsetenv ("GPUFX_THREADS");
  gfx_image small = make_image (300, 200, 1, GFX_U8), large = make_image (700, 700, 1, GFX_U8);
  CHECK (fast_equals_ref (&small, GFX_KERNEL_FS, 2, NULL)
           && fast_equals_ref (&large, GFX_KERNEL_FS, 2, NULL),
         "automatic thread count (GPUFX_THREADS unset): 300x200 and 700x700 == reference");
  gfx_image_free (&small);
  gfx_image_free (&large);
  gfx_image in = make_image (400, 700, 3, GFX_U8);
  double fraction = gfx_halftone_retire_fraction, min_s = gfx_halftone_retire_min_s;
  gfx_halftone_retire_fraction = gfx_halftone_retire_min_s = 0;
  for (int threads = 2; threads <= 5; threads++)
    {
      set_threads (threads);
      int before = atomic_load (&gfx_halftone_retired);
      double last = 0;
      gfx_progress progress;
      gfx_progress_init (&progress, last_fraction, &last);
      bool ok = fast_equals_ref (&in, (threads - 2) * 2, 2 + threads % 2, &progress);
      int retired = atomic_load (&gfx_halftone_retired) - before;
      CHECK (ok && retired >= 1 && retired <= threads - 1 && last == 1.0, "workers retire "
             "after their first band (%d threads: %d retired), the rest finish, result == "
             "reference, progress reaches %g", threads, retired, last);
    }
  gfx_halftone_retire_fraction = fraction;
  gfx_halftone_retire_min_s = min_s;
  set_threads (4 * gfx_threads ());
  gfx_image wide = make_image (2000, 300, 2, GFX_U8);
  int before = atomic_load (&gfx_halftone_retired);
  bool ok = true;
  for (int rep = 0; rep < 4; rep++)
    ok = ok && fast_equals_ref (&wide, GFX_KERNEL_FS, 2, NULL);
  CHECK (ok, "4x more workers than cores, 2000x300, 2 channels, 4 runs == reference (%d retired on "
         "their own)", atomic_load (&gfx_halftone_retired) - before);
  gfx_image_free (&wide);
  gfx_image_free (&in);
}

/* Hand-computed: 2 x 2 of 0.5 with Floyd-Steinberg.  (0,0) 0.5 -> 1, error -0.5;
 * (1,0) 0.5 - 7/16*0.5 = 0.28125 -> 0; (0,1) 0.5 + 3/16*0.28125 + 5/16*(-0.5) = 0.396... -> 0;
 * (1,1) 0.5 + 7/16*0.396 + 5/16*0.28125 + 1/16*(-0.5) = 0.7301... -> 1. */
static void
check_hand_values (void)
{
  gfx_image in, out;
  gfx_error err;
  gfx_image_alloc (&in, 2, 2, 1, false, GFX_F32, &err);
  gfx_image_alloc (&out, 2, 2, 1, false, GFX_F32, &err);
  for (int i = 0; i < 4; i++)
    ((float *) in.pixels)[i] = 0.5f;
  gfx_halftone_ref (&in, &out, GFX_KERNEL_FS, 2, &err);
  const float *o = out.pixels;
  CHECK (o[0] == 1.0f && o[1] == 0.0f && o[2] == 0.0f && o[3] == 1.0f,
         "reference matches hand-computed 2x2 Floyd-Steinberg: %g %g %g %g", o[0], o[1], o[2],
         o[3]);
  gfx_image_free (&in);
  gfx_image_free (&out);
}

/* The quantiser against exact arithmetic: v * (L - 1) is exact in double (a 24-bit
 * significand times an integer below 2^9), so the nearest level is floor of it + 1/2.
 * Checked at and around every midpoint, where a rounded "+ 0.5f" went wrong, and on random
 * floats; and the two-level threshold the fast paths compare with. */
static int
exact_index (float v, int levels)
{
  double t = floor ((double) v * (levels - 1) + 0.5);
  return t < 0 ? 0 : t > levels - 1 ? levels - 1 : (int) t;
}

static void
check_quantizer_exact (void)
{
  static const int levels[] = { 2, 3, 4, 5, 7, 16, 100, 255, 256 };
  int bad = 0, checked = 0;
  for (size_t l = 0; l < sizeof levels / sizeof *levels; l++)
    {
      int L = levels[l];
      for (int q = 0; q < L - 1; q++)
        {
          float v = (float) ((2.0 * q + 1.0) / (2.0 * (L - 1)));
          for (int k = 0; k < 3; k++)
            v = nextafterf (v, 0.0f);
          for (int k = 0; k < 7; k++, v = nextafterf (v, 2.0f), checked++)
            if (gfx_quantize_index (v, L) != exact_index (v, L) && bad++ < 5)
              printf ("  levels %d: v = %.9g gives %d, the nearest level is %d\n", L, v,
                      gfx_quantize_index (v, L), exact_index (v, L));
        }
      for (int i = 0; i < 20000; i++, checked++)
        {
          float v = (float) (rng () % 3000000) / 2000000.0f - 0.25f;
          if (gfx_quantize_index (v, L) != exact_index (v, L) && bad++ < 5)
            printf ("  levels %d: v = %.9g gives %d, the nearest level is %d\n", L, v,
                    gfx_quantize_index (v, L), exact_index (v, L));
        }
    }
  CHECK (!bad, "quantiser == nearest level in exact arithmetic (%d values, %d differ)",
         checked, bad);
  float below = nextafterf (0.5f, 0.0f);
  CHECK (gfx_quantize_index (below, 2) == 0 && gfx_quantize_index (0.5f, 2) == 1
           && (below >= GFX_LEVEL2_THRESHOLD) == 0 && (0.5f >= GFX_LEVEL2_THRESHOLD) == 1
           && gfx_quantize_index (NAN, 2) == 0 && gfx_quantize_index (-0.0f, 4) == 0,
         "two levels: 0.5 goes up, the float below it down, NaN to 0 (threshold %g)",
         GFX_LEVEL2_THRESHOLD);
}

/* A float row of the value just below 0.5 (Floyd-Steinberg, 1 x 5): each pixel's error
 * carries 7/16 on; the first is below the midpoint, so 0 1 0 1 0 by hand, on the fast
 * path as on the reference. */
static void
check_just_below_midpoint (void)
{
  gfx_image in, out, ref;
  gfx_error err;
  gfx_image_alloc (&in, 5, 1, 1, false, GFX_F32, &err);
  gfx_image_alloc (&out, 5, 1, 1, false, GFX_F32, &err);
  gfx_image_alloc (&ref, 5, 1, 1, false, GFX_F32, &err);
  for (int i = 0; i < 5; i++)
    ((float *) in.pixels)[i] = nextafterf (0.5f, 0.0f);
  gfx_halftone_ref (&in, &ref, GFX_KERNEL_FS, 2, &err);
  gfx_status st = gfx_halftone_cpu (&in, &out, GFX_KERNEL_FS, 2, NULL, &err);
  const float *o = out.pixels, *r = ref.pixels;
  CHECK (st == GFX_OK && o[0] == 0.0f && o[1] == 1.0f && o[2] == 0.0f && o[3] == 1.0f
           && o[4] == 0.0f && memcmp (o, r, 5 * sizeof *o) == 0,
         "a row just below 0.5 gives 0 1 0 1 0: %g %g %g %g %g", o[0], o[1], o[2], o[3], o[4]);
  gfx_image_free (&in);
  gfx_image_free (&out);
  gfx_image_free (&ref);
}

/* gfx_halftone_filter.rows_causal: a result's first rows are the result of those rows
 * alone (errors only flow down), for every kernel, through the filter's own apply(). */
static void
check_rows_causal (void)
{
  static const gfx_halftone_params base = { .kernel = 0, .levels = 3, .backend = GFX_BACKEND_CPU,
                                            .block_size = 0, .margin = -1 };
  gfx_image in = make_image (53, 41, 3, GFX_U8);
  int bad = 0, cases = 0;
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    for (int rows = 1; rows < in.height; rows += 13)
      {
        gfx_halftone_params p = base;
        p.kernel = k;
        gfx_image top = in, whole = { 0 }, part = { 0 };
        top.height = rows;
        gfx_error err;
        gfx_filter_run run = { 0 };
        const gfx_filter *f = &gfx_halftone_filter;
        if (f->apply (&in, &whole, &p, &run, &err) != GFX_OK
            || f->apply (&top, &part, &p, &run, &err) != GFX_OK)
          bad++;
        else
          bad += memcmp (whole.pixels, part.pixels, gfx_image_bytes (&part)) != 0;
        cases++;
        gfx_image_free (&whole);
        gfx_image_free (&part);
      }
  CHECK (gfx_halftone_filter.rows_causal && !bad,
         "rows causal: the first rows' result is theirs alone (%d of %d cases differ)", bad,
         cases);
  gfx_image_free (&in);
}

static void
time_large (void)
{
  gfx_image in, out;
  gfx_error err;
  int n = getenv ("GPUFX_PERF_SIZE") ? atoi (getenv ("GPUFX_PERF_SIZE")) : 8192;
  int kernel = getenv ("GPUFX_PERF_KERNEL") ? atoi (getenv ("GPUFX_PERF_KERNEL")) : 0;
  gfx_image_alloc (&in, n, n, 1, false, GFX_U8, &err);
  fill (&in);
  for (int rep = 0; rep < 3; rep++)
    {
      gfx_image_alloc (&out, n, n, 1, false, GFX_U8, &err);
      struct timespec a, b, ca, cb; /* wall, and CPU time of the calling thread (worker 0) */
      clock_gettime (CLOCK_MONOTONIC, &a);
      clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ca);
      gfx_halftone_cpu (&in, &out, kernel, 2, NULL, &err);
      clock_gettime (CLOCK_THREAD_CPUTIME_ID, &cb);
      clock_gettime (CLOCK_MONOTONIC, &b);
      printf ("time: %s gray u8 %dx%d, %d threads: %.1f ms (worker 0 CPU %.1f ms)\n",
              gfx_kernel_choices[kernel], n, n, gfx_threads (), (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6,
              (cb.tv_sec - ca.tv_sec) * 1e3 + (cb.tv_nsec - ca.tv_nsec) / 1e6);
      gfx_image_free (&out);
    }
  gfx_image_free (&in);
}

int
main (void)
{
  if (getenv ("GPUFX_PERF"))
    {
      time_large ();
      return 0;
    }
  static const int levels[] = { 2, 3, 16, 256 };
  check_hand_values ();
  check_quantizer_exact ();
  check_just_below_midpoint ();
  for (int k = 0; k < GFX_KERNEL_COUNT; k++)
    for (int l = 0; l < 4; l++)
      for (int d = 0; d < 3; d++)
        sweep (k, levels[l], (gfx_depth) d);
  stress ();
  set_threads (2);
  check_allowed_levels ();
  check_tone ();
  check_mid_grey ();
  check_out_of_range_clipped ();
  check_clamped_copy_threads ();
  check_alpha_and_validation ();
  check_rows_causal ();
  test_hang_guard (300, "cancel");
  check_cancel ();
  check_cancel_wavefront ();
  test_hang_guard (0, "");
  check_thread_choice_and_retire ();
  return check_exit_status ();
}
