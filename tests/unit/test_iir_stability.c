/* Stability of quadrant filters against closed forms: B = 1 - a z1^-1 - b z2^-1 (stable iff
 * |a| + |b| < 1, margin 1 - max(|a| / (1 - |b|), |b| / (1 - |a|))), separable filters whose
 * roots are known, a root at infinity; stabilisation; the root-locus picture. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/iir_stability.h"
#include "check.h"

/* Every quadrant: B = 1 - a z1^-1 - b z2^-1 (mask 2x2, b(1,0) = -a, b(0,1) = -b). */
static void
textbook (gfx_iir_filter *f, double a, double b)
{
  memset (f, 0, sizeof *f);
  f->m1 = f->m2 = 2;
  for (int q = 0; q < 4; q++)
    {
      f->b[q][0] = 1, f->b[q][1] = -b, f->b[q][2] = -a;
      f->a[q][0] = 1 - a - b;
    }
}

static void
test_textbook (void)
{
  static const double cases[][2] = { { 0.3, 0.4 }, { 0.5, 0.45 }, { -0.3, 0.6 }, { 0.2, -0.7 },
                                     { 0.6, 0.5 }, { -0.45, -0.6 }, { 0.05, 0.9 }, { 0, 0.3 } };
  for (int i = 0; i < 8; i++)
    {
      double a = cases[i][0], b = cases[i][1];
      gfx_iir_filter f;
      textbook (&f, a, b);
      gfx_iir_stability st = { 0 };
      gfx_error err;
      gfx_status s = gfx_iir_stability_check (&f, 0, &st, &err);
      double want = 1 - fmax (fabs (a) / (1 - fabs (b)), fabs (b) / (1 - fabs (a)));
      bool stable = fabs (a) + fabs (b) < 1;
      bool ok = s == GFX_OK && st.all_stable == stable;
      for (int q = 0; q < 4; q++)
        ok = ok && st.stable[q] == stable && fabs (st.margin[q] - want) < 1e-12;
      CHECK (ok, "1 - %g z1^-1 - %g z2^-1: %s, margin %.15f (closed form %.15f)", a, b,
             stable ? "stable" : "unstable", st.margin[0], want);
    }
}

/* B = (1 - 2 rho cos(theta) z1^-1 + rho^2 z1^-2) (1 - s z2^-1). */
static void
separable (gfx_iir_filter *f, double rho, double theta, double s)
{
  double p[3] = { 1, -2 * rho * cos (theta), rho * rho }, r[2] = { 1, -s };
  memset (f, 0, sizeof *f);
  f->m1 = 3, f->m2 = 2;
  for (int q = 0; q < 4; q++)
    {
      for (int k1 = 0; k1 < 3; k1++)
        for (int k2 = 0; k2 < 2; k2++)
          f->b[q][k1 * 2 + k2] = p[k1] * r[k2];
      f->a[q][0] = 1;
    }
}

static void
test_separable (void)
{
  static const double cases[][3] = { { 0.5, 0.7, 0.3 }, { 0.9, 2.0, -0.6 }, { 0.3, 0, 0.95 },
                                     { 1.1, 1.0, 0.2 } };
  for (int i = 0; i < 4; i++)
    {
      double rho = cases[i][0], th = cases[i][1], s = cases[i][2];
      gfx_iir_filter f;
      separable (&f, rho, th, s);
      gfx_error err;
      int samples = 64, n0 = 0, n1 = 0;
      double *r0 = malloc (sizeof *r0 * 2 * samples * 6), *r1 = malloc (sizeof *r1 * 2 * samples * 6);
      gfx_iir_locus (&f, 1, 0, samples, r0, samples * 6, &n0, &err);
      gfx_iir_locus (&f, 1, 1, samples, r1, samples * 6, &n1, &err);
      double worst = 0;
      double complex z1 = rho * cexp (I * th), z2 = rho * cexp (-I * th);
      for (int k = 0; k < n0; k++)
        {
          double complex z = r0[2 * k] + I * r0[2 * k + 1];
          worst = fmax (worst, fmin (cabs (z - z1), cabs (z - z2)));
        }
      for (int k = 0; k < n1; k++)
        worst = fmax (worst, cabs (r1[2 * k] + I * r1[2 * k + 1] - s));
      /* theta = 0 makes a double root, which eigenvalues find to about sqrt(eps). */
      double tol = th == 0 ? 1e-7 : 1e-9;
      CHECK (n0 == 2 * samples && n1 == samples && worst < tol, "separable rho %g theta %g, "
             "s %g: every locus root is a known root (worst distance %.3g)", rho, th, s, worst);
      gfx_iir_stability st = { 0 };
      gfx_iir_stability_check (&f, 0, &st, &err);
      double want = 1 - fmax (rho, fabs (s));
      CHECK (st.stable[2] == (want > 0) && fabs (st.margin[2] - want) < 1e-9,
             "separable rho %g, s %g: margin %.12f = 1 - max(rho, |s|) = %.12f", rho, s,
             st.margin[2], want);
      free (r0);
      free (r1);
    }
}

static void
test_edge_cases (void)
{
  gfx_iir_filter f = { .m1 = 1, .m2 = 2 };
  for (int q = 0; q < 4; q++)
    f.b[q][0] = 1, f.b[q][1] = -0.5, f.a[q][0] = 0.5;
  gfx_iir_stability st = { 0 };
  gfx_error err;
  CHECK (gfx_iir_stability_check (&f, 0, &st, &err) == GFX_OK && st.all_stable
           && fabs (st.margin[0] - 0.5) < 1e-12, "1-D mask 1x2: margin 0.5 (%.12f)", st.margin[0]);
  gfx_iir_filter g = { .m1 = 2, .m2 = 2 };
  for (int q = 0; q < 4; q++)
    g.b[q][0] = 1, g.b[q][1] = -1, g.b[q][2] = 0.1, g.a[q][0] = 1;
  CHECK (gfx_iir_stability_check (&g, 8, &st, &err) == GFX_OK && !st.stable[0]
           && isinf (st.margin[0]) && st.margin[0] < 0,
         "leading term 1 - z2^-1 vanishes at z2 = 1: root at infinity, unstable");
  gfx_iir_filter h = { .m1 = 2, .m2 = 2 }; /* finite, but B's coefficients overflow double */
  for (int q = 0; q < 4; q++)
    h.b[q][0] = 1, h.b[q][2] = 1e308, h.b[q][3] = 1e308, h.a[q][0] = 1;
  err.msg[0] = '\0';
  CHECK (gfx_iir_stability_check (&h, 0, &st, &err) == GFX_OK && !st.all_stable
           && isinf (st.margin[0]) && st.margin[0] < 0,
         "coefficients of 1e308: unstable, a root beyond double's range (margin %g) %s",
         st.margin[0], err.msg);
  char text[GFX_IIR_MARGIN_TEXT];
  CHECK (!strcmp (gfx_iir_margin_text (0.5, text), "0.5000")
           && !strcmp (gfx_iir_margin_text (-1e300, text), "-1e+300")
           && !strcmp (gfx_iir_margin_text (-299999, text), "-3e+05")
           && !strcmp (gfx_iir_margin_text (-INFINITY, text), "-inf")
           && !strcmp (gfx_iir_margin_text (-2e-5, text), "-2e-05")
           && !strcmp (gfx_iir_margin_text (0.0, text), "0.0000"),
         "margin text: four decimals, or %%g for tiny and huge margins (%s)", text);
  CHECK (gfx_iir_stability_check (&f, 3, &st, &err) == GFX_ERR_PARAM && strstr (err.msg, "samples"),
         "3 samples refused: %s", err.msg);
  f.b[2][0] = 0.5;
  CHECK (gfx_iir_stability_check (&f, 0, &st, &err) == GFX_ERR_INPUT && strstr (err.msg, "q3"),
         "invalid filter refused: %s", err.msg);
}

static void
test_stabilise (void)
{
  gfx_iir_filter f, before;
  textbook (&f, 0.6, 0.5);
  textbook (&before, 0.3, 0.4);
  for (int i = 0; i < 4; i++) /* q2 stays stable */
    f.b[1][i] = before.b[1][i], f.a[1][i] = before.a[1][i];
  before = f;
  gfx_iir_stabilise_report rep;
  gfx_error err;
  gfx_iir_stability st = { 0 };
  bool ok = gfx_iir_stabilise (&f, 0.05, 0, &rep, &err) == GFX_OK
            && gfx_iir_stability_check (&f, 0, &st, &err) == GFX_OK;
  CHECK (ok && st.all_stable && st.margin[0] >= 0.05 - 1e-12 && st.margin[0] < 0.06,
         "stabilised to margin %.4f (asked 0.05)", st.margin[0]);
  CHECK (rep.changed[0] && !rep.changed[1] && rep.r[0] < 1 && rep.r[1] == 1
           && memcmp (f.b[1], before.b[1], sizeof f.b[1]) == 0, "report: q1 r = %.6f, q2 untouched",
         rep.r[0]);
  double dc_before = before.a[0][0] / (1 - 0.6 - 0.5), sb = 0, sa = 0;
  for (int i = 0; i < 4; i++)
    sb += f.b[0][i], sa += f.a[0][i];
  CHECK (fabs (sa / sb - dc_before) < 1e-12, "DC gain kept: %.15f vs %.15f", sa / sb, dc_before);
  double r = rep.r[0];
  CHECK (fabs (f.b[0][1] - -0.5 * r) < 1e-15 && fabs (f.b[0][2] - -0.6 * r) < 1e-15,
         "b(k1,k2) scaled by r^(k1+k2)");
  CHECK (gfx_iir_stabilise (&f, 1.5, 0, &rep, &err) == GFX_ERR_PARAM, "margin 1.5 refused: %s",
         err.msg);
}

/* The unit-circle points are shared among threads: any count gives the same margins and
 * the same stabilised filter, bit for bit (GPUFX_THREADS shares even a few points). */
static void
test_threads (void)
{
  gfx_iir_filter f = { .m1 = 4, .m2 = 4 };
  unsigned seed = 12345u;
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    for (int i = 0; i < 16; i++)
      {
        seed = seed * 1103515245u + 12345u;
        double u = (seed >> 8) / 16777216.0 - 0.5;
        f.b[q][i] = i == 0 ? 1.0 : 0.6 * u;
        f.a[q][i] = i == 0 ? 1.0 : 0.1 * u;
      }
  gfx_iir_filter one = f, many;
  gfx_iir_stability st1, stn;
  gfx_iir_stabilise_report r1, rn;
  gfx_error err;
  setenv ("GPUFX_THREADS", "1", 1);
  bool ok = gfx_iir_stability_check (&f, 100, &st1, &err) == GFX_OK
            && gfx_iir_stabilise (&one, 0.1, 100, &r1, &err) == GFX_OK;
  CHECK (ok && !st1.all_stable && (r1.changed[0] || r1.changed[1] || r1.changed[2] || r1.changed[3]),
         "4x4 filter unstable, stabilised on one thread (%s)", ok ? "ok" : err.msg);
  for (int threads = 2; ok && threads <= 5; threads += 3)
    {
      char value[4];
      snprintf (value, sizeof value, "%d", threads);
      setenv ("GPUFX_THREADS", value, 1);
      many = f;
      bool same = gfx_iir_stability_check (&f, 100, &stn, &err) == GFX_OK
                  && gfx_iir_stabilise (&many, 0.1, 100, &rn, &err) == GFX_OK
                  && !memcmp (st1.margin, stn.margin, sizeof st1.margin)
                  && !memcmp (r1.r, rn.r, sizeof r1.r)
                  && !memcmp (r1.margin_after, rn.margin_after, sizeof r1.margin_after)
                  && !memcmp (one.a, many.a, sizeof one.a) && !memcmp (one.b, many.b, sizeof one.b);
      CHECK (same, "same margins and stabilised filter on %d threads", threads);
    }
  unsetenv ("GPUFX_THREADS");
}

static void
test_plot (void)
{
  gfx_iir_filter f;
  separable (&f, 0.5, 0, 0.2); /* double root at z1 = 0.5 */
  for (int i = 0; i < 6; i++)
    f.b[3][i] = 0;
  f.b[3][0] = 1, f.b[3][1] = -1.5; /* q4 unstable: root at z2 = 1.5 */
  gfx_image img;
  gfx_error err;
  int size = 200;
  bool ok = gfx_iir_plot_loci (&f, 0, size, &img, &err) == GFX_OK;
  CHECK (ok && img.width == 2 * size && img.height == 2 * size && img.channels == 3
           && img.depth == GFX_U8, "picture is RGB u8, 2 x 2 panels");
  if (!ok)
    return;
  const uint8_t *px = img.pixels;
#define PX(x, y) (px + ((size_t) (y) * img.width + (x)) * 3)
  /* q1's panel spans 1.25 (its roots are small): z = 0.5 sits at 0.2 of the half width. */
  int x = (int) lround (99.5 + 0.5 / 1.25 * 99.5), y = 100;
  bool blue = false;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      blue = blue || (PX (x + dx, y + dy)[2] > 150 && PX (x + dx, y + dy)[0] < 80);
  CHECK (blue, "q1's root z1 = 0.5 drawn in blue");
  CHECK (PX (1, 1)[1] > 120 && PX (1, 1)[0] < 80, "q1 (stable) has a green frame");
  CHECK (PX (size + 1, size + 1)[0] > 180 && PX (size + 1, size + 1)[1] < 80,
         "q4 (unstable) has a red frame");
  gfx_image_free (&img);
  /* The dialog's 110-pixel panels: q1's label (green, like its frame) at least 10 pixels
   * tall, so it can be read. */
  ok = gfx_iir_plot_loci (&f, 0, 110, &img, &err) == GFX_OK;
  int top = 110, bottom = -1;
  px = img.pixels;
  for (int yy = 3; ok && yy < 40; yy++)
    for (int xx = 3; xx < 40; xx++)
      if (PX (xx, yy)[1] > 120 && PX (xx, yy)[0] < 80)
        top = yy < top ? yy : top, bottom = yy > bottom ? yy : bottom;
  CHECK (ok && bottom - top + 1 >= 10, "110-pixel panels: the label is %d pixels tall",
         bottom - top + 1);
  if (ok)
    gfx_image_free (&img);
  CHECK (gfx_iir_plot_loci (&f, 0, 10, &img, &err) == GFX_ERR_PARAM, "size 10 refused: %s",
         err.msg);
}

int
main (void)
{
  test_textbook ();
  test_separable ();
  test_edge_cases ();
  test_stabilise ();
  test_threads ();
  test_plot ();
  return check_exit_status ();
}
