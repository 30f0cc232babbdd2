/* GPU local enhance against the CPU path, bit for bit, over the GPU's speed knobs
 * (gfx_cuda_enhance_set_tuning: tile, strip, n = 3 or fused n = 3 kernel, columns per
 * strip-kernel thread, rows per strip-kernel block or n = 3 warp, overlapped or plain
 * start, staged or direct stores), for sizes around the kernels' block and strip edges,
 * windows
 * on both sides of the 32-bit / 64-bit decision and of the small / large window paths,
 * n larger than the image, 8-bit gray (written by the statistics kernel itself, with and
 * without a mask) and 8-bit colour (decision planes, luminance and per channel), and a
 * few 16-bit and float cases.  GFX_TEST_QUICK: a small subset (for compute-sanitizer). */
#include <stdlib.h>
#include <string.h>

#include "../../common/enhance.h"
#include "check.h"
#include "support_enhance.h"
#include "support_images.h"

#ifdef GFX_HAVE_CUDA
#include "../../cuda/cuda_device.h"
#include "../../cuda/enhance_cuda.h"

static unsigned rnd_state = 12345;

static void
fill (gfx_image *img)
{
  test_fill_patches (img, &rnd_state, 11, 6, 0);
}

/* 1 when the GPU gives the CPU's output (and mask, when asked for) on this case. */
static int
same (int w, int h, int ch, int alpha, gfx_depth depth, gfx_enhance_params p, int want_mask,
      long *enhanced)
{
  gfx_image in, cpu, cmask, gpu, gmask = { 0 };
  gfx_error err;
  if (gfx_image_alloc (&in, w, h, ch, alpha, depth, &err) != GFX_OK)
    return 0;
  fill (&in);
  int ok = gfx_enhance_cpu (&in, &cpu, &cmask, &p, NULL, &err) == GFX_OK;
  gfx_image_alloc (&gpu, w, h, ch, alpha, depth, &err);
  if (want_mask)
    gfx_image_alloc (&gmask, w, h, 1, false, GFX_U8, &err);
  gfx_status st = gfx_cuda_enhance (&in, &gpu, want_mask ? &gmask : NULL, &p, NULL, &err);
  if (st != GFX_OK)
    printf ("  gpu: %s\n", err.msg);
  ok = ok && st == GFX_OK && !memcmp (cpu.pixels, gpu.pixels, gfx_image_bytes (&in))
       && (!want_mask || !memcmp (cmask.pixels, gmask.pixels, (size_t) w * h));
  for (size_t i = 0; ok && i < (size_t) w * h; i++)
    *enhanced += ((uint8_t *) cmask.pixels)[i] != 0;
  gfx_image_free (&in), gfx_image_free (&cpu), gfx_image_free (&cmask);
  gfx_image_free (&gpu);
  if (want_mask)
    gfx_image_free (&gmask);
  return ok;
}

/* kernel (0 auto, 1 tile, 2 strip, 3 n = 3, 4 fused n = 3), cols, strip (for the fused
 * kernel: rows in a band's last row group), overlap (for the fused kernel: odd blocks
 * leave their bands' totals to helpers, the barrier's path for blocks that are not
 * resident; broken, it hangs or changes the thresholds), store */
static const int knobs[][5] = { { 0, 0, 0, 0, 0 },    { 1, 0, 0, 0, 0 },   { 2, 8, 1, 0, 0 },
                                { 2, 4, 7, 1, 1 },    { 2, 16, 16, 0, 0 }, { 2, 16, 64, 1, 0 },
                                { 2, 8, 4096, 0, 1 }, { 2, 0, 0, 1, 0 },   { 2, 4, 3, 0, 0 },
                                { 2, 8, 32, 1, 1 },   { 2, 0, 0, 0, 0 },   { 2, 0, 0, 0, 1 },
                                { 3, 0, 0, 0, 0 },    { 3, 0, 2, 1, 0 },   { 3, 0, 8, 0, 0 },
                                { 3, 0, 16, 1, 0 },   { 4, 0, 0, 0, 0 },   { 1, 0, 0, 1, 0 },
                                { 4, 0, 1, 0, 0 },    { 4, 0, 4096, 0, 0 }, { 4, 0, 0, 1, 0 },
                                { 4, 0, 1, 1, 0 } };
enum { N_KNOBS = sizeof knobs / sizeof knobs[0] };

static void
test_knobs (int quick)
{
  /* 3001, 3241, 3400 wide: 24, 26, 27 tiles (the fused kernel's tile a warp, with 0, 2
   * and 1 tiles cut in two) */
  static const int sizes[][2] = { { 1, 1 },       { 1, 300 },    { 300, 1 },     { 7, 5 },
                                  { 65, 63 },     { 1031, 517 }, { 2100, 70 },   { 993, 40 },
                                  { 130, 200 },   { 257, 1500 }, { 3001, 400 },  { 3241, 300 },
                                  { 3400, 140 } };
  static const int windows[] = { 3, 5, 9, 21, 23, 31, 33 };
  /* layouts: gray (direct, with and without mask), RGB luminance, RGBA per channel */
  static const int lay[][4] = { { 1, 0, 0, 1 }, { 1, 0, 0, 0 }, { 3, 0, 0, 1 }, { 4, 1, 1, 1 } };
  const int n_sizes = sizeof sizes / sizeof sizes[0], n_win = sizeof windows / sizeof windows[0];
  int case_no = 0;
  for (int k = 0; k < N_KNOBS; k++)
    {
      gfx_error err;
      CHECK (gfx_cuda_enhance_set_tuning (knobs[k][0], knobs[k][1], knobs[k][2], knobs[k][3],
                                          knobs[k][4], &err)
               == GFX_OK,
             "tuning kernel=%d cols=%d strip=%d overlap=%d store=%d accepted", knobs[k][0],
             knobs[k][1], knobs[k][2], knobs[k][3], knobs[k][4]);
      for (int si = 0; si < n_sizes; si++)
        for (int wi = 0; wi < n_win; wi++, case_no++)
          {
            if (quick
                && (si == 5 || si == 6 || wi % 3 != 0
                    || (k != 0 && k != 3 && k != 5 && k != 11 && k != 13 && k != 15
                        && k != 16 && k != 19 && k != 20)))
              continue;
            const int *l = lay[case_no % 4];
            int rule = case_no / 4 % 2;
            gfx_enhance_params p = test_enhance_case (windows[wi], l[2], rule);
            long enhanced = 0;
            int ok = same (sizes[si][0], sizes[si][1], l[0], l[1], GFX_U8, p, l[3], &enhanced);
            CHECK (ok,
                   "GPU = CPU, kernel=%d cols=%d strip=%d overlap=%d store=%d: %dx%d u8 %d ch%s%s, "
                   "n=%d, rule %s (%ld enhanced)",
                   knobs[k][0], knobs[k][1], knobs[k][2], knobs[k][3], knobs[k][4], sizes[si][0],
                   sizes[si][1], l[0],
                   l[2] ? " per-channel" : "", l[3] ? " +mask" : "", p.window,
                   gfx_enhance_rule_choices[rule], enhanced);
          }
    }
  gfx_error err;
  gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
}

/* Windows larger than the image (reflection repeats) and the last small windows, on
 * both kernels. */
static void
test_big_windows (int quick)
{
  static const int sizes[][2] = { { 1, 1 }, { 2, 3 }, { 9, 40 }, { 40, 9 }, { 31, 33 } };
  static const int windows[] = { 23, 29, 31, 33, 255 };
  gfx_error err;
  for (int kern = 1; kern <= 2; kern++)
    {
      gfx_cuda_enhance_set_tuning (kern, 0, 0, 0, 0, &err);
      for (int si = 0; si < 5; si++)
        for (int wi = 0; wi < 5; wi++)
          {
            if (quick && wi != 2)
              continue;
            gfx_enhance_params p = test_enhance_case (windows[wi], 0, (si + wi) % 2);
            long enhanced = 0;
            int ok = same (sizes[si][0], sizes[si][1], 1, 0, GFX_U8, p, 1, &enhanced);
            CHECK (ok,
                   "GPU = CPU, kernel=%d, window over the image: %dx%d u8 gray, n=%d "
                   "(%ld enhanced)",
                   kern, sizes[si][0], sizes[si][1], p.window, enhanced);
          }
    }
  gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
}

/* The other depths always use the tile kernel: a few cases, with the kernel knob set both
 * ways. */
static void
test_depths (int quick)
{
  static const gfx_depth depths[] = { GFX_U16, GFX_F32 };
  static const int windows[] = { 3, 31, 35 };
  gfx_error err;
  for (int t = 0; t < 2; t++)
    {
      gfx_cuda_enhance_set_tuning (t + 1, 0, 0, 0, 0, &err);
      for (int di = 0; di < 2; di++)
        for (int wi = 0; wi < 3; wi++)
          {
            if (quick && wi != 0)
              continue;
            gfx_enhance_params p = test_enhance_case (windows[wi], wi == 1, di);
            long enhanced = 0;
            int ok = same (517, 131, wi == 2 ? 1 : 3, 0, depths[di], p, 1, &enhanced);
            CHECK (ok, "GPU = CPU, kernel=%d: 517x131 %s, n=%d (%ld enhanced)", t + 1,
                   gfx_depth_name (depths[di]), p.window, enhanced);
          }
    }
  gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
}

/* k without an upper bound (SPEC: every k >= 0): with k = 1e300 the bound's product
 * overflows a double and the integer thresholds saturate; every kernel and depth must
 * saturate as the CPU does.  3rd edition: the mean bound and the upper sigma bound off;
 * 4th: both upper bounds off. */
static void
test_unbounded_k (void)
{
  static const gfx_depth depths[] = { GFX_U8, GFX_U16, GFX_F32 };
  gfx_error err;
  for (int kern = 1; kern <= 2; kern++)
    for (int di = 0; di < 3; di++)
      for (int rule = 0; rule <= 1; rule++)
        {
          gfx_cuda_enhance_set_tuning (kern, 0, 0, 0, 0, &err);
          gfx_enhance_params p = test_enhance_case (di == 0 ? 3 : 7, 0, rule);
          if (rule == GFX_RULE_3RD)
            p.k0 = 1e300, p.k2 = 1e300;
          else
            p.k1 = 1e300, p.k3 = 1e300;
          long enhanced = 0;
          int ok = same (203, 61, 1, 0, depths[di], p, 1, &enhanced);
          CHECK (ok, "GPU = CPU, kernel=%d, k = 1e300: 203x61 %s, rule %s (%ld enhanced)", kern,
                 gfx_depth_name (depths[di]), gfx_enhance_rule_choices[rule], enhanced);
        }
  gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
}

/* Images taller than a grid's second dimension allows (65535 blocks: 4.2 million rows of
 * 64-row tiles, 8.4 million of 128-row walks): the tile and walk kernels number their
 * blocks in one dimension.  8-bit n = 5 and 16-bit and float n = 3 (tile kernel), 8-bit
 * n = 35 (row prefixes and walks). */
static void
test_tall (void)
{
  static const struct { int h, window; gfx_depth depth; } cases[] = {
    { 4194240 + 70, 5, GFX_U8 }, { 4194240 + 70, 3, GFX_U16 }, { 4194240 + 70, 3, GFX_F32 },
    { 8388480 + 200, 35, GFX_U8 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      gfx_enhance_params p = test_enhance_case (cases[i].window, 0, 0);
      long enhanced = 0;
      int ok = same (3, cases[i].h, 1, 0, cases[i].depth, p, 0, &enhanced);
      CHECK (ok, "GPU = CPU on a tall image: 3x%d %s, n=%d", cases[i].h,
             gfx_depth_name (cases[i].depth), p.window);
    }
}

/* A call after a failed one stands on its own: the injected fault is a real failed
 * cudaMalloc, which leaves the CUDA runtime's last error set, as a real out-of-memory
 * does; a later launch check must not take that error for its own. */
static void
test_after_failure (void)
{
  gfx_enhance_params p = test_enhance_case (5, 0, 0);
  gfx_image in, out;
  gfx_error err;
  gfx_image_alloc (&in, 64, 48, 1, false, GFX_U8, &err);
  fill (&in);
  gfx_image_alloc (&out, 64, 48, 1, false, GFX_U8, &err);
  setenv ("GPUFX_CUDA_FAIL", "gfx_cuda_enhance", 1);
  gfx_status st = gfx_cuda_enhance (&in, &out, NULL, &p, NULL, &err);
  unsetenv ("GPUFX_CUDA_FAIL");
  CHECK (st == GFX_ERR_GPU, "injected GPU failure: %s", err.msg);
  long enhanced = 0;
  for (int n = 3; n <= 35; n += 32) /* the n = 3 kernels and the walk */
    {
      p = test_enhance_case (n, 0, 0);
      CHECK (same (64, 48, 1, 0, GFX_U8, p, 0, &enhanced),
             "the next call, n=%d, runs on the GPU and gives the CPU's pixels", n);
    }
  gfx_image_free (&in);
  gfx_image_free (&out);
}

static void
test_tuning_refused (void)
{
  gfx_error err;
  CHECK (gfx_cuda_enhance_set_tuning (0, 12, 0, 0, 0, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "cols"),
         "tuning cols = 12 refused: %s", err.msg);
  CHECK (gfx_cuda_enhance_set_tuning (0, 0, 5000, 0, 0, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "strip"),
         "tuning strip = 5000 refused: %s", err.msg);
  CHECK (gfx_cuda_enhance_set_tuning (5, 0, 0, 0, 0, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "kernel"),
         "tuning kernel = 5 refused: %s", err.msg);
  CHECK (gfx_cuda_enhance_set_tuning (0, 0, 0, 2, 0, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "overlap"),
         "tuning overlap = 2 refused: %s", err.msg);
  CHECK (gfx_cuda_enhance_set_tuning (0, 0, 0, 0, -1, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "store"),
         "tuning store = -1 refused: %s", err.msg);
}

/* The fused n = 3 kernel on a GPU whose SMs are all held but 8 by another kernel, which
 * lets them go only after the call: most of the fused kernel's blocks cannot start before
 * the resident ones have passed the grid barrier, so those must sum the other bands
 * themselves.  Broken, the call never returns (the device runs tests under a timeout).
 * The help_test knob of test_knobs covers the same path, also under compute-sanitizer. */
static void
test_not_resident (void)
{
  gfx_enhance_params p = test_enhance_case (3, 0, 0);
  long enhanced = 0;
  gfx_error err;
  gfx_cuda_enhance_set_tuning (4, 0, 0, 0, 0, &err);
  CHECK (same (3241, 700, 1, 0, GFX_U8, p, 0, &enhanced), "fused kernel, 3241x700, all SMs");
  gfx_status st = gfx_cuda_hold_sms (8, &err); /* after the first call: it allocates */
  CHECK (st == GFX_OK, "all SMs but 8 held%s%s", st == GFX_OK ? "" : ": ",
         st == GFX_OK ? "" : err.msg);
  if (st == GFX_OK)
    {
      int ok = same (3241, 700, 1, 0, GFX_U8, p, 0, &enhanced);
      CHECK (gfx_cuda_release_sms (&err) == GFX_OK, "SMs released");
      CHECK (ok, "GPU = CPU, fused kernel, 3241x700 on 8 free SMs (%ld enhanced)", enhanced);
    }
  gfx_cuda_enhance_set_tuning (0, 0, 0, 0, 0, &err);
}

int
main (void)
{
  char why[GFX_MSG_LEN];
  if (!gfx_backend_gpu_usable (why, sizeof why))
    {
      SKIP ("GPU local enhance against the CPU: %s", why);
      return check_exit_status ();
    }
  int quick = getenv ("GFX_TEST_QUICK") != NULL;
  if (!quick) /* compute-sanitizer reports the failed allocation it makes as an API error */
    test_after_failure ();
  test_tuning_refused ();
  test_knobs (quick);
  if (!quick) /* not under compute-sanitizer, which may run the two kernels one after the other */
    test_not_resident ();
  test_big_windows (quick);
  test_depths (quick);
  test_unbounded_k ();
  if (!quick) /* 12-25 million pixels: too slow under compute-sanitizer */
    test_tall ();
  return check_exit_status ();
}
#else
int
main (void)
{
  (void) check_report; /* no CHECK in a build without CUDA */
  SKIP ("GPU local enhance against the CPU: this build has no CUDA (nvcc was not found)");
  return check_exit_status ();
}
#endif
