/* Local enhance: validation messages, hand-computed cases, the CPU running sums against
 * brute-force window sums, and the GPU against the CPU bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/enhance.h"
#include "../../common/enhance_math.h"
#include "check.h"
#include "support_cancel.h"
#include "support_enhance.h"
#include "support_images.h"

#ifdef GFX_HAVE_CUDA
#include "../../cuda/enhance_cuda.h"
#endif

static void
check_refused (gfx_enhance_params p, const char *name, const char *why)
{
  gfx_error err = { 0 };
  gfx_status st = gfx_params_validate (&gfx_enhance_param_set, &p, &err);
  CHECK (st == GFX_ERR_PARAM && strncmp (err.msg, name, strlen (name)) == 0,
         "%s refused, message names %s: %s", why, name, err.msg);
}

static void
test_validation (void)
{
  gfx_enhance_params p = test_enhance_defaults (), q;
  gfx_error err;
  CHECK (p.gain == 4.0 && p.k0 == 0.4 && p.k1 == 0.02 && p.k2 == 0.4 && p.k3 == 0.4
           && p.window == 3 && p.rule == GFX_RULE_3RD && !p.per_channel && !p.mask_layer,
         "defaults E=4 k0=0.4 k1=0.02 k2=0.4 k3=0.4 n=3 3rd edition");
  CHECK (gfx_params_validate (&gfx_enhance_param_set, &p, &err) == GFX_OK, "defaults valid");
  const char *order[] = { "gain", "k0", "k1", "k2", "k3", "rule", "window", "per-channel",
                          "mask-layer", "backend" };
  int ok = gfx_enhance_param_set.n_params == 10;
  for (int i = 0; ok && i < 10; i++)
    ok = !strcmp (gfx_enhance_param_set.params[i].name, order[i]);
  CHECK (ok, "PDB order gain k0 k1 k2 k3 rule window per-channel mask-layer backend");
  q = p, q.gain = 0, check_refused (q, "gain", "E = 0");
  q = p, q.gain = 64.5, check_refused (q, "gain", "E = 64.5");
  q = p, q.gain = 64, CHECK (gfx_params_validate (&gfx_enhance_param_set, &q, &err) == GFX_OK,
                             "E = 64 allowed");
  q = p, q.window = 4, check_refused (q, "window", "even window 4");
  q = p, q.window = 1, check_refused (q, "window", "window 1");
  q = p, q.window = 257, check_refused (q, "window", "window 257");
  q = p, q.k0 = -0.1, check_refused (q, "k0", "k0 < 0");
  q = p, q.k3 = NAN, check_refused (q, "k3", "k3 NaN");
  q = p, q.k1 = 0.5, check_refused (q, "k1", "3rd edition k1 > k2");
  q = p, q.rule = GFX_RULE_4TH, check_refused (q, "k0", "4th edition k0 > k1 (3rd-edition defaults)");
  q = p, q.rule = GFX_RULE_4TH, q.k0 = 0, q.k1 = 0.4, q.k2 = 0.5, q.k3 = 0.4;
  check_refused (q, "k2", "4th edition k2 > k3");
  q = p, q.rule = 2, check_refused (q, "rule", "rule 2");
  const gfx_param_desc *rule = gfx_params_find (&gfx_enhance_param_set, "rule");
  CHECK (gfx_param_parse (rule, &q, "4th", &err) == GFX_OK && q.rule == GFX_RULE_4TH,
         "--rule 4th parses");

  gfx_image img;
  gfx_image_alloc (&img, 3, 2, 1, false, GFX_F32, &err);
  ((float *) img.pixels)[4] = 1e30f;
  CHECK (gfx_enhance_check_input (&img, &p, &err) == GFX_OK, "float value 1e30 taken");
  ((float *) img.pixels)[4] = NAN;
  CHECK (gfx_enhance_check_input (&img, &p, &err) == GFX_ERR_INPUT, "float NaN refused");
  gfx_image_free (&img);
  /* The keys' scale comes from the largest |colour sample|: alpha left out, negative
   * values by their size, the last samples after whole blocks of 16 included. */
  gfx_image_alloc (&img, 7, 5, 4, true, GFX_F32, &err);
  float *f = img.pixels;
  for (int i = 0; i < 7 * 5 * 4; i++)
    f[i] = (i % 4 == 3) ? 1000.0f : 0.25f;
  f[4 * 33 + 1] = -3.5f;
  CHECK (gfx_image_max_abs (&img) == 3.5f, "max |colour sample| 3.5 (alpha 1000 left out): %g",
         gfx_image_max_abs (&img));
  gfx_image_free (&img);
  gfx_image_alloc (&img, 17, 1, 1, false, GFX_F32, &err);
  f = img.pixels;
  for (int i = 0; i < 17; i++)
    f[i] = 0.5f;
  f[16] = -2.0f;
  CHECK (gfx_image_max_abs (&img) == 2.0f, "max over 17 samples includes the 17th: %g",
         gfx_image_max_abs (&img));
  f[3] = NAN;
  CHECK (isinf (gfx_image_max_abs (&img)), "a NaN makes it infinite");
  gfx_image_free (&img);
  /* Large enough to be split among threads: the largest sample and a NaN are found
   * wherever they lie (first pixel, last pixel, the pixels either side of a split). */
  gfx_image_alloc (&img, 1031, 1019, 3, false, GFX_F32, &err);
  f = img.pixels;
  const size_t n = (size_t) 1031 * 1019;
  for (int threads = 1; threads <= 7; threads++)
    {
      char env[8];
      snprintf (env, sizeof env, "%d", threads);
      setenv ("GPUFX_THREADS", env, 1);
      const size_t at[] = { 0, n - 1, n / threads - 1, n * (threads - 1) / threads };
      int found = 0;
      for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
        {
          memset (f, 0, n * 3 * sizeof *f);
          f[at[k] * 3 + 2] = -5.0f; /* the last colour channel, negative */
          found += gfx_image_max_abs (&img) == 5.0f;
          f[at[k] * 3] = NAN;
          found += isinf (gfx_image_max_abs (&img));
        }
      CHECK (found == 8, "%d threads: the largest sample and a NaN found at the first and "
             "last pixels and either side of a split (%d of 8)", threads, found);
    }
  unsetenv ("GPUFX_THREADS");
  gfx_image_free (&img);
}

static void
test_reflect (void)
{
  /* scipy 'reflect' of [0 1 2] from -6 to 8: 2 1 0 0 1 2 | 0 1 2 | 2 1 0 0 1 2 */
  const int expect[] = { 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2 };
  int ok = 1;
  for (int i = -6; i <= 8; i++)
    ok &= gfx_enh_reflect (i, 3) == expect[i + 6];
  CHECK (ok, "reflect repeats the symmetric half-sample extension");
  CHECK (gfx_enh_reflect (-1, 1) == 0 && gfx_enh_reflect (200, 1) == 0, "reflect of width 1");
}

/* Runs the CPU path on a small 8-bit gray image with a mask. */
static int
run_u8 (const uint8_t *px, int w, int h, gfx_enhance_params p, uint8_t *out, uint8_t *mask)
{
  gfx_image in, o, m;
  gfx_error err;
  gfx_image_alloc (&in, w, h, 1, false, GFX_U8, &err);
  memcpy (in.pixels, px, (size_t) w * h);
  int ok = gfx_enhance_cpu (&in, &o, &m, &p, NULL, &err) == GFX_OK;
  if (ok)
    {
      memcpy (out, o.pixels, (size_t) w * h);
      memcpy (mask, m.pixels, (size_t) w * h);
      gfx_image_free (&o);
      gfx_image_free (&m);
    }
  gfx_image_free (&in);
  return ok;
}

static void
test_hand_cases (void)
{
  gfx_enhance_params p = test_enhance_defaults ();
  uint8_t out[9], mask[9];
  /* 1x1: window = image, m_S = m_G, sigma_S = sigma_G = 0. */
  uint8_t one = 10;
  p.k0 = 1.0, p.k1 = 0.0;
  CHECK (run_u8 (&one, 1, 1, p, out, mask) && out[0] == 40 && mask[0] == 255,
         "1x1, k0 = 1, k1 = 0: m_S <= m_G and 0 <= sigma_S <= 0 hold, 10 -> 40");
  p.k0 = 0.99;
  CHECK (run_u8 (&one, 1, 1, p, out, mask) && out[0] == 10 && mask[0] == 0,
         "1x1, k0 = 0.99: m_S > 0.99 m_G, unchanged");
  /* 3x3 with one 9 in the middle: with the reflected border every 3x3 window holds the 9
   * exactly once, so m_S = 1 = m_G and sigma_S = sqrt(8) = sigma_G everywhere. */
  const uint8_t dot[9] = { 0, 0, 0, 0, 9, 0, 0, 0, 0 };
  p = test_enhance_defaults ();
  p.k0 = 1.0, p.k1 = 0.5, p.k2 = 1.01;
  CHECK (run_u8 (dot, 3, 3, p, out, mask) && out[4] == 36 && out[0] == 0 && mask[0] == 255
           && mask[8] == 255,
         "3x3 dot: every window passes with k2 = 1.01, 9 -> 36");
  p.k2 = 0.99;
  CHECK (run_u8 (dot, 3, 3, p, out, mask) && out[4] == 9 && mask[4] == 0,
         "3x3 dot: sigma_S = sigma_G > 0.99 sigma_G, unchanged");
  p.k2 = 1.01, p.gain = 40;
  CHECK (run_u8 (dot, 3, 3, p, out, mask) && out[4] == 255, "gain 40: 360 clipped to 255");
  /* 4th edition, k0 m_G <= m_S <= k1 m_G with k0 = k1 = 1: equality passes. */
  p = test_enhance_defaults ();
  p.rule = GFX_RULE_4TH, p.k0 = 1, p.k1 = 1, p.k2 = 0.5, p.k3 = 1.01, p.gain = 2.5;
  CHECK (run_u8 (dot, 3, 3, p, out, mask) && out[4] == 23 && mask[1] == 255,
         "4th edition equality bounds pass; 9 * 2.5 = 22.5 rounds half up to 23");
}

/* Luminance mode keeps hue: the three channels of an enhanced pixel scale together. */
static void
test_hue (void)
{
  gfx_error err;
  gfx_image in, out, mask;
  gfx_image_alloc (&in, 1, 1, 3, false, GFX_U8, &err);
  uint8_t *px = in.pixels;
  px[0] = 20, px[1] = 40, px[2] = 100;
  gfx_enhance_params p = test_enhance_defaults ();
  p.k0 = 1, p.k1 = 0;
  int ok = gfx_enhance_cpu (&in, &out, &mask, &p, NULL, &err) == GFX_OK;
  const uint8_t *o = out.pixels;
  CHECK (ok && o[0] == 51 && o[1] == 102 && o[2] == 255,
         "luminance mode: (20,40,100) x4 limited to keep hue: (51,102,255), got (%d,%d,%d)",
         ok ? o[0] : -1, ok ? o[1] : -1, ok ? o[2] : -1);
  if (ok)
    gfx_image_free (&out), gfx_image_free (&mask);
  p.per_channel = 1;
  ok = gfx_enhance_cpu (&in, &out, &mask, &p, NULL, &err) == GFX_OK;
  o = out.pixels;
  CHECK (ok && o[0] == 80 && o[1] == 160 && o[2] == 255, "per-channel mode: (80,160,255)");
  if (ok)
    gfx_image_free (&out), gfx_image_free (&mask);
  gfx_image_free (&in);
}

/* --- brute force and GPU sweeps ------------------------------------------------------ */

static unsigned rng_state = 12345;

/* Photo-like content (dark textured patches, float outliers): decisions are mixed. */
static void
fill (gfx_image *img)
{
  test_fill_patches (img, &rng_state, 7, 5, 1);
}

static int64_t
key_of (const gfx_image *img, size_t i, int plane, int lum, float fix_scale)
{
  const int c = img->channels;
  if (img->depth == GFX_F32)
    {
      const float *px = (const float *) img->pixels + i * c;
      return gfx_enh_fix (lum ? gfx_enh_luma_float (px[0], px[1], px[2]) : px[plane],
                          fix_scale);
    }
  uint32_t v[3];
  for (int k = 0; k < 3 && k < c; k++)
    v[k] = img->depth == GFX_U8 ? ((const uint8_t *) img->pixels)[i * c + k]
                                : ((const uint16_t *) img->pixels)[i * c + k];
  return lum ? gfx_enh_luma_int (v[0], v[1], v[2]) : v[plane];
}

/* Float keys' scale as SPEC-free arithmetic: the largest power of two that keeps the
 * largest colour sample's key within 2^24 (the test images stay above 2^-103). */
static float
key_scale (const gfx_image *img)
{
  if (img->depth != GFX_F32)
    return 1.0f;
  double top = 0.0;
  for (size_t i = 0; i < (size_t) img->width * img->height; i++)
    for (int c = 0; c < gfx_image_color_channels (img); c++)
      top = fmax (top, fabs (((const float *) img->pixels)[i * img->channels + c]));
  double scale = 16777216.0;
  while (top * scale >= 16777216.0)
    scale /= 2.0;
  while (top > 0.0 && top * scale * 2.0 < 16777216.0)
    scale *= 2.0;
  return (float) scale;
}

/* The decisions of one plane by direct summation over every window. */
static void
brute_plane (const gfx_image *img, const gfx_enhance_params *p, int plane, uint8_t *dec)
{
  int w = img->width, h = img->height, r = p->window / 2;
  int lum = !p->per_channel && gfx_image_color_channels (img) >= 3;
  const float fix_scale = key_scale (img);
  size_t n = (size_t) w * h;
  int64_t *k = malloc (n * sizeof *k);
  gfx_i128 t1 = 0;
  gfx_u128 t2 = 0;
  for (size_t i = 0; i < n; i++)
    {
      k[i] = key_of (img, i, plane, lum, fix_scale);
      t1 += k[i];
      t2 += (gfx_u128) (k[i] * k[i]);
    }
  const double kk[4] = { p->k0, p->k1, p->k2, p->k3 };
  uint32_t nw = (uint32_t) (p->window * p->window);
  gfx_enh_thresholds th = gfx_enh_thresholds_make (t1, t2, n, nw, kk, p->rule);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        gfx_i128 s1 = 0, s2 = 0;
        for (int dy = -r; dy <= r; dy++)
          for (int dx = -r; dx <= r; dx++)
            {
              int64_t v = k[(size_t) gfx_enh_reflect (y + dy, h) * w + gfx_enh_reflect (x + dx, w)];
              s1 += v;
              s2 += (gfx_i128) v * v;
            }
        gfx_u128 d = (gfx_u128) ((gfx_i128) nw * s2 - s1 * s1);
        dec[(size_t) y * w + x] = (uint8_t) gfx_enh_decide128 ((int64_t) s1, d, &th);
      }
  free (k);
}

static double
get (const gfx_image *img, size_t s)
{
  return img->depth == GFX_U8    ? ((const uint8_t *) img->pixels)[s]
         : img->depth == GFX_U16 ? ((const uint16_t *) img->pixels)[s]
                                 : ((const float *) img->pixels)[s];
}

/* Whether out equals in with the gain on exactly the brute-force decisions. */
static int
check_against_brute (const gfx_image *in, const gfx_image *out, const gfx_image *mask,
                     const gfx_enhance_params *p, long *enhanced)
{
  int planes = p->per_channel ? gfx_image_color_channels (in) : 1, cc = gfx_image_color_channels (in);
  size_t n = (size_t) in->width * in->height;
  uint8_t *dec = malloc (n * planes);
  for (int pl = 0; pl < planes; pl++)
    brute_plane (in, p, pl, dec + pl * n);
  double maxv = in->depth == GFX_U8 ? 255 : 65535;
  int ok = 1;
  for (size_t i = 0; ok && i < n; i++)
    {
      size_t s = i * in->channels;
      double vmax = get (in, s);
      for (int c = 1; c < cc; c++)
        vmax = fmax (vmax, get (in, s + c));
      int hue = planes == 1 && cc >= 3, any = 0;
      for (int c = 0; c < in->channels; c++)
        {
          int d = c < cc && dec[(planes == 1 ? 0 : c * n) + i];
          double v = get (in, s + c), e = v;
          any |= d;
          if (d && in->depth == GFX_F32)
            e = hue ? gfx_enh_gain_hue_float ((float) v, (float) vmax, p->gain)
                    : gfx_enh_gain_float ((float) v, p->gain);
          else if (d)
            e = hue ? gfx_enh_gain_hue_int ((uint32_t) v, (uint32_t) vmax, p->gain, maxv)
                    : gfx_enh_gain_int ((uint32_t) v, p->gain, maxv);
          ok &= get (out, s + c) == e;
        }
      ok &= ((const uint8_t *) mask->pixels)[i] == (any ? 255 : 0);
      *enhanced += any;
    }
  free (dec);
  return ok;
}

static const int layouts[][2] = { { 1, 0 }, { 2, 1 }, { 3, 0 }, { 4, 1 } }; /* channels, alpha */
static const gfx_depth depths[] = { GFX_U8, GFX_U16, GFX_F32 };

static void
test_brute_force (void)
{
  static const int sizes[][2] = { { 1, 1 }, { 1, 17 }, { 17, 1 }, { 5, 3 }, { 40, 31 },
                                  { 64, 65 }, { 130, 67 } };
  static const int windows[] = { 3, 5, 33, 35, 255 };
  int case_no = 0;
  for (int si = 0; si < 7; si++)
    for (int wi = 0; wi < 5; wi++, case_no++)
      {
        if (windows[wi] == 255 && sizes[si][0] * sizes[si][1] > 3000)
          continue; /* brute force is n^2 per pixel */
        gfx_depth depth = depths[case_no % 3];
        const int *lay = layouts[case_no % 4];
        gfx_enhance_params p = test_enhance_case (windows[wi], case_no / 4 % 2, case_no / 8 % 2);
        gfx_image in, out, mask;
        gfx_error err;
        gfx_image_alloc (&in, sizes[si][0], sizes[si][1], lay[0], lay[1], depth, &err);
        fill (&in);
        long enhanced = 0;
        int ok = gfx_enhance_cpu (&in, &out, &mask, &p, NULL, &err) == GFX_OK;
        ok = ok && check_against_brute (&in, &out, &mask, &p, &enhanced);
        CHECK (ok, "CPU = brute force: %dx%d %s %d ch, n=%d, %s, rule %s (%ld enhanced)",
               in.width, in.height, gfx_depth_name (depth), lay[0], p.window,
               p.per_channel ? "per-channel" : "luminance", gfx_enhance_rule_choices[p.rule],
               enhanced);
        if (out.pixels)
          gfx_image_free (&out), gfx_image_free (&mask);
        gfx_image_free (&in);
      }
}

/* The rule is scale-invariant, and so are the decisions: the same float picture times
 * 2^-30, 2^-100 or 2^60 (exact products) gives the same mask, per channel and on luma.
 * (Keys in a fixed 2^-20 step made every pixel of the 2^-30 one "enhanced".) */
static void
test_scale_invariance (void)
{
  static const int shifts[] = { -30, -100, 60 };
  for (int per_channel = 0; per_channel <= 1; per_channel++)
    {
      gfx_enhance_params p = test_enhance_case (5, per_channel, 0);
      gfx_image in, out, mask;
      gfx_error err;
      gfx_image_alloc (&in, 61, 47, 3, false, GFX_F32, &err);
      fill (&in);
      int ok = gfx_enhance_cpu (&in, &out, &mask, &p, NULL, &err) == GFX_OK;
      long enhanced = 0;
      for (size_t i = 0; ok && i < 61 * 47; i++)
        enhanced += ((const uint8_t *) mask.pixels)[i] != 0;
      gfx_image_free (&out);
      for (int s = 0; ok && s < 3; s++)
        {
          gfx_image scaled, sout, smask;
          gfx_image_clone (&scaled, &in, &err);
          for (size_t i = 0; i < gfx_image_samples (&in); i++)
            ((float *) scaled.pixels)[i] = ldexpf (((float *) in.pixels)[i], shifts[s]);
          ok = gfx_enhance_cpu (&scaled, &sout, &smask, &p, NULL, &err) == GFX_OK
               && memcmp (mask.pixels, smask.pixels, 61 * 47) == 0;
          CHECK (ok, "float picture times 2^%d: the same %ld pixels enhanced (%s)", shifts[s],
                 enhanced, per_channel ? "per channel" : "luma");
          gfx_image_free (&scaled);
          if (sout.pixels)
            gfx_image_free (&sout), gfx_image_free (&smask);
        }
      CHECK (enhanced > 0 && enhanced < 61 * 47, "the scale test's mask is mixed (%ld)",
             enhanced);
      gfx_image_free (&mask);
      gfx_image_free (&in);
    }
}

/* A preview of part of the image with the whole region's totals decides like the full run
 * (away from the part's border, where the window would reach beyond it). */
static void
test_region (void)
{
  for (int per_channel = 0; per_channel <= 1; per_channel++)
    {
      gfx_image full, crop, out, mask, cout, cmask;
      gfx_error err;
      gfx_run_info info;
      gfx_image_alloc (&full, 150, 110, 3, false, GFX_U8, &err);
      fill (&full);
      gfx_enhance_params p = test_enhance_case (5, per_channel, GFX_RULE_3RD);
      int ok = gfx_enhance_cpu (&full, &out, &mask, &p, NULL, &err) == GFX_OK;
      ok = ok && gfx_enhance_region_totals (&full, &p, &p.region, &err) == GFX_OK;
      const int x0 = 40, y0 = 30, w = 60, h = 50, r = 2;
      gfx_image_alloc (&crop, w, h, 3, false, GFX_U8, &err);
      for (int y = 0; y < h; y++)
        memcpy ((uint8_t *) crop.pixels + (size_t) y * w * 3,
                (uint8_t *) full.pixels + ((size_t) (y0 + y) * full.width + x0) * 3, (size_t) w * 3);
      p.backend = GFX_BACKEND_AUTO;
      ok = ok && gfx_enhance (&crop, &cout, &cmask, &p, NULL, &info, &err) == GFX_OK
           && info.used == GFX_BACKEND_CPU;
      long same = 0, enhanced = 0;
      for (int y = r; ok && y < h - r; y++)
        for (int x = r; x < w - r; x++)
          {
            uint8_t a = ((uint8_t *) cmask.pixels)[y * w + x];
            uint8_t b = ((uint8_t *) mask.pixels)[(y0 + y) * full.width + x0 + x];
            same += a == b;
            enhanced += a != 0;
          }
      ok = ok && same == (long) (w - 2 * r) * (h - 2 * r) && enhanced > 0;
      CHECK (ok, "preview of a part with the whole region's totals = full run there (%s, %ld enhanced)",
             per_channel ? "per-channel" : "luminance", enhanced);
      gfx_image_free (&full), gfx_image_free (&crop);
      if (out.pixels)
        gfx_image_free (&out), gfx_image_free (&mask);
      if (cout.pixels)
        gfx_image_free (&cout), gfx_image_free (&cmask);
    }
}

static void
cancel_now (void *ctx, double f)
{
  (void) ctx, (void) f;
}

static void
cancel_in_output_stage (void *ctx, double fraction)
{
  if (fraction >= 0.95) /* the last tenth writes the output */
    gfx_progress_cancel (ctx);
}

/* A cancel from another thread (as GIMP's comes) at some moment of a run on all workers:
 * in the totals, the decisions (a plane at a time, per channel) or the output.  Every
 * run ends (test_hang_guard), cancelled with nothing allocated or finished and equal to
 * an uncancelled run. */
static void
test_cancel_midway (void)
{
  gfx_image in, ref = { 0 }, ref_mask = { 0 };
  gfx_error err;
  gfx_image_alloc (&in, 1600, 1200, 3, false, GFX_U16, &err);
  unsigned state = 99;
  test_fill_patches (&in, &state, 40, 30, 0);
  gfx_enhance_params p = test_enhance_case (9, 1, GFX_RULE_3RD);
  gfx_status st = gfx_enhance_cpu (&in, &ref, &ref_mask, &p, NULL, &err);
  CHECK (st == GFX_OK, "uncancelled 1600x1200 RGB 16-bit per channel (status %d)", st);
  int runs = 0, cancelled = 0, equal = 0;
  test_hang_guard (300, "enhance cancel");
  for (long delay_us = 100; delay_us <= 200000; delay_us *= 3, runs++)
    {
      gfx_progress prog;
      gfx_progress_init (&prog, NULL, NULL);
      test_late_cancel ui;
      gfx_image out = { 0 }, mask = { 0 };
      test_cancel_after (&ui, &prog, delay_us);
      st = gfx_enhance_cpu (&in, &out, &mask, &p, &prog, &err);
      test_cancel_join (&ui);
      cancelled += st == GFX_ERR_CANCELLED && !out.pixels && !mask.pixels;
      equal += st == GFX_OK && test_same_image (&out, &ref) && test_same_image (&mask, &ref_mask);
      gfx_image_free (&out);
      gfx_image_free (&mask);
    }
  gfx_progress prog;
  gfx_progress_init (&prog, cancel_in_output_stage, &prog);
  gfx_image out = { 0 }, mask = { 0 };
  st = gfx_enhance_cpu (&in, &out, &mask, &p, &prog, &err);
  test_hang_guard (0, "");
  CHECK (cancelled + equal == runs && cancelled > 0,
         "cancel from another thread midway: %d runs, %d cancelled with nothing allocated, "
         "%d finished equal", runs, cancelled, equal);
  CHECK (st == GFX_ERR_CANCELLED && !out.pixels && !mask.pixels,
         "cancel while the output is written: cancelled, nothing allocated (status %d)", st);
  gfx_image_free (&ref);
  gfx_image_free (&ref_mask);
  gfx_image_free (&in);
}

static void
test_cancel (void)
{
  gfx_progress prog;
  gfx_progress_init (&prog, cancel_now, NULL);
  gfx_progress_cancel (&prog);
  gfx_image in, out = { 0 }, mask = { 0 };
  gfx_error err;
  gfx_image_alloc (&in, 300, 200, 1, false, GFX_U8, &err);
  gfx_enhance_params p = test_enhance_defaults ();
  gfx_status st = gfx_enhance_cpu (&in, &out, &mask, &p, &prog, &err);
  CHECK (st == GFX_ERR_CANCELLED && !out.pixels && !mask.pixels,
         "cancel: status cancelled, nothing allocated");
  gfx_image_free (&in);
}

#ifdef GFX_HAVE_CUDA
/* One CPU/GPU comparison; returns 1 when identical (output and mask). */
static int
gpu_case (int w, int h, int channels, int alpha, gfx_depth depth, gfx_enhance_params p,
          long *enhanced)
{
  gfx_image in, cpu, cmask, gpu, gmask;
  gfx_error err;
  gfx_image_alloc (&in, w, h, channels, alpha, depth, &err);
  fill (&in);
  int ok = gfx_enhance_cpu (&in, &cpu, &cmask, &p, NULL, &err) == GFX_OK;
  gfx_image_alloc (&gpu, w, h, channels, alpha, depth, &err);
  gfx_image_alloc (&gmask, w, h, 1, false, GFX_U8, &err);
  gfx_status st = gfx_cuda_enhance (&in, &gpu, &gmask, &p, NULL, &err);
  if (st != GFX_OK)
    printf ("  gpu: %s\n", err.msg);
  ok = ok && st == GFX_OK && !memcmp (cpu.pixels, gpu.pixels, gfx_image_bytes (&in))
       && !memcmp (cmask.pixels, gmask.pixels, (size_t) w * h);
  for (size_t i = 0; ok && i < (size_t) w * h; i++)
    *enhanced += ((uint8_t *) cmask.pixels)[i] != 0;
  gfx_image_free (&in), gfx_image_free (&cpu), gfx_image_free (&cmask);
  gfx_image_free (&gpu), gfx_image_free (&gmask);
  return ok;
}

static void
test_gpu (void)
{
  char why[GFX_MSG_LEN];
  if (!gfx_backend_gpu_usable (why, sizeof why))
    {
      SKIP ("GPU = CPU bit-exact sweep: %s", why);
      return;
    }
  static const int sizes[][2] = { { 1, 1 }, { 1, 300 }, { 300, 1 }, { 7, 5 }, { 64, 64 },
                                  { 65, 63 }, { 200, 130 }, { 1031, 517 } };
  static const int windows[] = { 3, 5, 15, 31, 33, 35, 63, 127, 255 };
  /* GFX_TEST_QUICK: a small sweep for compute-sanitizer (both statistics paths). */
  int quick = getenv ("GFX_TEST_QUICK") != NULL, n_sizes = quick ? 7 : 8;
  int case_no = 0;
  for (int si = 0; si < n_sizes; si++)
    for (int wi = 0; wi < 9; wi++)
      for (int di = 0; di < 3; di++, case_no++)
        {
          if (quick && (si == 4 || si == 5 || (windows[wi] != 3 && windows[wi] != 35)))
            continue;
          const int *lay = layouts[(case_no + si) % 4];
          gfx_enhance_params p = test_enhance_case (windows[wi], case_no / 3 % 2, case_no / 5 % 2);
          long enhanced = 0;
          int ok = gpu_case (sizes[si][0], sizes[si][1], lay[0], lay[1], depths[di], p, &enhanced);
          CHECK (ok, "GPU = CPU: %dx%d %s %d ch, n=%d, %s, rule %s (%ld enhanced)",
                 sizes[si][0], sizes[si][1], gfx_depth_name (depths[di]), lay[0], p.window,
                 p.per_channel ? "per-channel" : "luminance",
                 gfx_enhance_rule_choices[p.rule], enhanced);
        }
  /* Fallback: an injected GPU failure falls back to the CPU under auto, fails under gpu. */
  setenv ("GPUFX_CUDA_FAIL", "gfx_cuda_enhance", 1);
  gfx_image in, out, mask;
  gfx_error err;
  gfx_run_info info;
  gfx_image_alloc (&in, 50, 40, 1, false, GFX_U8, &err);
  gfx_enhance_params p = test_enhance_defaults ();
  p.backend = GFX_BACKEND_AUTO;
  gfx_status st = gfx_enhance (&in, &out, &mask, &p, NULL, &info, &err);
  CHECK (st == GFX_OK && info.used == GFX_BACKEND_CPU && strstr (info.note, "injected"),
         "injected GPU failure: auto falls back to the CPU and says why: %s", info.note);
  if (st == GFX_OK)
    gfx_image_free (&out), gfx_image_free (&mask);
  p.backend = GFX_BACKEND_GPU;
  st = gfx_enhance (&in, &out, &mask, &p, NULL, &info, &err);
  CHECK (st == GFX_ERR_GPU && strstr (err.msg, "gfx_cuda_enhance"),
         "injected GPU failure: backend gpu is an error naming the call: %s", err.msg);
  unsetenv ("GPUFX_CUDA_FAIL");
  gfx_image_free (&in);
}
#else
static void
test_gpu (void)
{
  SKIP ("GPU = CPU bit-exact sweep: this build has no CUDA (nvcc was not found)");
}
#endif

/* The 4th rule with the 3rd edition's k values is refused; the message names values
 * that make the 3rd edition's default test under it, and they do, pixel for pixel. */
static void
test_fourth_rule_hint (void)
{
  gfx_enhance_params third = test_enhance_defaults (), fourth = third;
  fourth.rule = GFX_RULE_4TH;
  gfx_error err;
  bool hint = gfx_params_validate (&gfx_enhance_param_set, &fourth, &err) == GFX_ERR_PARAM;
  const char *at = hint ? strstr (err.msg, "with it, ") : NULL;
  hint = at && sscanf (at, "with it, k0 = %lf, k1 = %lf, k2 = %lf and k3 = %lf", &fourth.k0,
                       &fourth.k1, &fourth.k2, &fourth.k3) == 4;
  CHECK (hint && gfx_params_validate (&gfx_enhance_param_set, &fourth, &err) == GFX_OK,
         "4th rule with the 3rd edition's k: refused with valid values to use: %s", err.msg);
  gfx_image in, a = { 0 }, am = { 0 }, b = { 0 }, bm = { 0 };
  gfx_image_alloc (&in, 61, 47, 1, false, GFX_U8, &err);
  fill (&in);
  bool same = hint && gfx_enhance_cpu (&in, &a, &am, &third, NULL, &err) == GFX_OK
              && gfx_enhance_cpu (&in, &b, &bm, &fourth, NULL, &err) == GFX_OK
              && !memcmp (a.pixels, b.pixels, gfx_image_bytes (&a))
              && !memcmp (am.pixels, bm.pixels, gfx_image_bytes (&am));
  size_t enhanced = 0;
  for (size_t i = 0; same && i < gfx_image_samples (&am); i++)
    enhanced += ((const uint8_t *) am.pixels)[i] != 0;
  CHECK (same && enhanced > 0 && enhanced < gfx_image_samples (&am),
         "those values make the 3rd edition's default test (%zu pixels enhanced)", enhanced);
  gfx_image_free (&in), gfx_image_free (&a), gfx_image_free (&am), gfx_image_free (&b),
    gfx_image_free (&bm);
  /* Bounds of the user's own in the wrong order: refused, without the 3rd edition's hint. */
  fourth.k0 = 0.5, fourth.k1 = 0.4;
  CHECK (gfx_params_validate (&gfx_enhance_param_set, &fourth, &err) == GFX_ERR_PARAM
           && strstr (err.msg, "k0 = 0.5 and k1 = 0.4") && !strstr (err.msg, "3rd edition"),
         "4th rule with k0 > k1 of the user's own: refused with no hint (%s)", err.msg);
}

/* Switching the rule keeps the test (the dialog's rule switch): 3rd k0, k1, k2 = 4th 0,
 * k0, k1, k2, giving the same pixels and mask, and back; no twin for a 4th-edition k0 > 0. */
static void
test_rule_switch (void)
{
  gfx_enhance_params third = test_enhance_case (5, 0, GFX_RULE_3RD), fourth = third;
  third.k2 = 25.0;
  fourth = third;
  gfx_error err;
  int moved = gfx_enhance_rule_switch (GFX_RULE_4TH, &fourth);
  CHECK (moved && fourth.rule == GFX_RULE_4TH && fourth.k0 == 0 && fourth.k1 == third.k0
           && fourth.k2 == third.k1 && fourth.k3 == 25.0,
         "3rd -> 4th: k0, k1, k2 = %g, %g, %g become 0, %g, %g, %g", third.k0, third.k1,
         third.k2, fourth.k1, fourth.k2, fourth.k3);
  gfx_image in, a = { 0 }, am = { 0 }, b = { 0 }, bm = { 0 };
  gfx_image_alloc (&in, 61, 47, 1, false, GFX_U16, &err);
  fill (&in);
  bool same = gfx_enhance_cpu (&in, &a, &am, &third, NULL, &err) == GFX_OK
              && gfx_enhance_cpu (&in, &b, &bm, &fourth, NULL, &err) == GFX_OK
              && !memcmp (a.pixels, b.pixels, gfx_image_bytes (&a))
              && !memcmp (am.pixels, bm.pixels, gfx_image_bytes (&am));
  CHECK (same, "... and make the same test: the same pixels and mask (16-bit)");
  gfx_enhance_params back = fourth;
  CHECK (gfx_enhance_rule_switch (GFX_RULE_3RD, &back) && back.rule == GFX_RULE_3RD
           && back.k0 == third.k0 && back.k1 == third.k1 && back.k2 == 25.0,
         "4th -> 3rd with k0 = 0: the 3rd edition's values back");
  fourth.k0 = 0.1;
  back = fourth;
  CHECK (!gfx_enhance_rule_switch (GFX_RULE_3RD, &back) && !memcmp (&back, &fourth, sizeof back),
         "4th -> 3rd with k0 = 0.1 (no 3rd-edition twin): refused, values unchanged");
  gfx_image_free (&in), gfx_image_free (&a), gfx_image_free (&am), gfx_image_free (&b),
    gfx_image_free (&bm);
}

/* A side longer than the core's limit is refused before any work: the window's mirror
 * (2 n) and the row counts are int.  The pixels are a stand-in that must not be read. */
static void
test_side_limit (void)
{
  uint8_t stand_in[16] = { 0 };
  gfx_image in = { .width = 1, .height = GFX_MAX_SIDE + 1, .channels = 1, .depth = GFX_U8,
                   .pixels = stand_in };
  gfx_image out, mask;
  gfx_enhance_params p = test_enhance_defaults ();
  gfx_error err;
  gfx_status st = gfx_enhance (&in, &out, &mask, &p, NULL, NULL, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "a side may be at most 268435456 pixels"),
         "1 x 2^28+1 refused before any work: %s", st == GFX_OK ? "accepted" : err.msg);
  if (st == GFX_OK)
    gfx_image_free (&out), gfx_image_free (&mask);
}

int
main (void)
{
  test_side_limit ();
  test_validation ();
  test_reflect ();
  test_hand_cases ();
  test_hue ();
  test_fourth_rule_hint ();
  test_rule_switch ();
  test_brute_force ();
  test_scale_invariance ();
  test_region ();
  test_cancel ();
  test_cancel_midway ();
  test_gpu ();
  return check_exit_status ();
}
