/* The CPU quadrant IIR filter against a direct implementation of SPEC section 3's formula
 * written here (its own flips, boundary rule and summation order), plus properties:
 * identity, DC gain, alpha, channels alike, thread count, cancel, deblur apply(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/iir.h"
#include "../../common/iir_file.h"
#include "check.h"
#include "support_images.h"
#include "test_iir_util.h"

/* x of the input channel in quadrant q's frame, edge-replicated outside. */
static double
ref_x (const gfx_image *in, int ch, int q, int n1, int n2)
{
  int H = in->height, W = in->width;
  n1 = n1 < 0 ? 0 : n1 >= H ? H - 1 : n1;
  n2 = n2 < 0 ? 0 : n2 >= W ? W - 1 : n2;
  int row = (q >= 2) ? H - 1 - n1 : n1, col = (q == 1 || q == 2) ? W - 1 - n2 : n2;
  return gfx_sample_get (in, ((size_t) row * W + col) * in->channels + ch);
}

/* SPEC: y(n1,n2) = sum a(r1,r2) x(n1-r1,n2-r2) - sum_{k != 0} b(k1,k2) y(n1-k1,n2-k2). */
static void
ref_quadrant (const gfx_iir_filter *f, const gfx_image *in, int ch, int q, float *plane)
{
  int H = in->height, W = in->width;
  double *y = malloc (sizeof *y * (size_t) H * W);
  for (int n1 = 0; n1 < H; n1++)
    for (int n2 = 0; n2 < W; n2++)
      {
        double s = 0;
        for (int r1 = 0; r1 < f->m1; r1++)
          for (int r2 = 0; r2 < f->m2; r2++)
            s += f->a[q][r1 * f->m2 + r2] * ref_x (in, ch, q, n1 - r1, n2 - r2);
        for (int k1 = 0; k1 < f->m1; k1++)
          for (int k2 = 0; k2 < f->m2; k2++)
            {
              if (k1 == 0 && k2 == 0)
                continue;
              int i1 = n1 - k1, i2 = n2 - k2;
              double yv = (i1 < 0 || i2 < 0) ? ref_x (in, ch, q, i1, i2) : y[(size_t) i1 * W + i2];
              s -= f->b[q][k1 * f->m2 + k2] * yv;
            }
        y[(size_t) n1 * W + n2] = s;
        int row = (q >= 2) ? H - 1 - n1 : n1, col = (q == 1 || q == 2) ? W - 1 - n2 : n2;
        plane[(size_t) row * W + col] = (float) s;
      }
  free (y);
}

/* Largest difference between the CPU output and the reference, in output units (levels
 * for the integer depths); alpha must be equal. */
static double
compare_with_reference (const gfx_iir_filter *f, const gfx_image *in, const gfx_image *out)
{
  size_t plane = (size_t) in->width * in->height;
  float *q = malloc (sizeof *q * plane * 4);
  double worst = 0, scale = in->depth == GFX_U8 ? 255 : in->depth == GFX_U16 ? 65535 : 1;
  for (int ch = 0; ch < gfx_image_color_channels (in); ch++)
    {
      for (int k = 0; k < 4; k++)
        ref_quadrant (f, in, ch, k, q + k * plane);
      for (size_t i = 0; i < plane; i++)
        {
          double m = (q[i] + q[plane + i] + q[2 * plane + i] + q[3 * plane + i]) / 4.0;
          if (in->depth != GFX_F32)
            m = m < 0 ? 0 : m > 1 ? 1 : m;
          double got = gfx_sample_get (out, i * out->channels + ch);
          worst = fmax (worst, fabs (got - m) * scale);
        }
    }
  if (in->has_alpha)
    for (size_t i = 0; i < plane; i++)
      if (gfx_sample_get (out, i * in->channels + in->channels - 1)
          != gfx_sample_get (in, i * in->channels + in->channels - 1))
        worst = INFINITY;
  free (q);
  return worst;
}

static void
test_against_reference (void)
{
  static const int sizes[][2] = { { 1, 1 }, { 1, 17 }, { 19, 1 }, { 23, 31 }, { 40, 9 } };
  static const int masks[][2] = { { 1, 1 }, { 3, 3 }, { 2, 5 }, { 7, 7 }, { 5, 1 } };
  for (int s = 0; s < 5; s++)
    for (int m = 0; m < 5; m++)
      for (int d = 0; d < 3; d++)
        {
          gfx_iir_filter f;
          iir_random_filter (&f, masks[m][0], masks[m][1], 0.7);
          gfx_image in, out;
          int channels = 1 + (s + m + d) % 4;
          iir_random_image (&in, sizes[s][1], sizes[s][0], channels, channels % 2 == 0, d);
          gfx_error err;
          gfx_status st = gfx_iir_filter_cpu (&f, &in, &out, NULL, &err);
          double worst = st == GFX_OK ? compare_with_reference (&f, &in, &out) : INFINITY;
          /* Half a level of rounding plus a few float ulps of the mean, in levels. */
          double tol = d == GFX_F32 ? 1e-5 : 0.5 + (d == GFX_U8 ? 255 : 65535) * 4e-7;
          CHECK (worst <= tol, "cpu = SPEC formula: %dx%d, mask %dx%d, %s, %d channels: worst "
                 "%.3g (tolerance %.3g)", sizes[s][0], sizes[s][1], masks[m][0], masks[m][1],
                 gfx_depth_name (d), channels, worst, tol);
          gfx_image_free (&in);
          if (st == GFX_OK)
            gfx_image_free (&out);
        }
}

static void
test_identity_and_dc (void)
{
  gfx_iir_filter id = { .m1 = 3, .m2 = 2 };
  for (int q = 0; q < 4; q++)
    id.a[q][0] = id.b[q][0] = 1;
  for (int d = 0; d < 3; d++)
    {
      gfx_image in, out;
      iir_random_image (&in, 37, 21, 4, true, d);
      gfx_error err;
      CHECK (gfx_iir_filter_cpu (&id, &in, &out, NULL, &err) == GFX_OK && test_same_image (&in, &out),
             "identity filter (a = b = delta) returns the input exactly, %s RGBA",
             gfx_depth_name (d));
      gfx_image_free (&out);
      gfx_image_free (&in);
    }
  /* A constant image through a unit-DC-gain filter stays constant (y = x outside). */
  gfx_iir_filter f;
  iir_random_filter (&f, 4, 3, 0.6);
  gfx_image in, out;
  gfx_image_alloc (&in, 30, 20, 1, false, GFX_F32, NULL);
  for (int i = 0; i < 600; i++)
    ((float *) in.pixels)[i] = 0.375f;
  gfx_error err;
  double worst = 0;
  if (gfx_iir_filter_cpu (&f, &in, &out, NULL, &err) == GFX_OK)
    {
      for (int i = 0; i < 600; i++)
        worst = fmax (worst, fabs (((float *) out.pixels)[i] - 0.375));
      gfx_image_free (&out);
    }
  CHECK (worst < 1e-6, "constant image stays constant under unit DC gain (worst %.3g)", worst);
  gfx_image_free (&in);
}

static void
test_channels_threads_cancel (void)
{
  gfx_iir_filter f;
  iir_random_filter (&f, 3, 3, 0.8);
  gfx_image gray, rgb, out1, out3;
  iir_random_image (&gray, 45, 33, 1, false, GFX_U16);
  gfx_image_alloc (&rgb, 45, 33, 3, false, GFX_U16, NULL);
  for (int i = 0; i < 45 * 33; i++)
    for (int c = 0; c < 3; c++)
      ((uint16_t *) rgb.pixels)[i * 3 + c] = ((uint16_t *) gray.pixels)[i];
  gfx_error err;
  bool ok = gfx_iir_filter_cpu (&f, &gray, &out1, NULL, &err) == GFX_OK
            && gfx_iir_filter_cpu (&f, &rgb, &out3, NULL, &err) == GFX_OK;
  for (int i = 0; ok && i < 45 * 33; i++)
    for (int c = 0; c < 3; c++)
      ok = ok && ((uint16_t *) out3.pixels)[i * 3 + c] == ((uint16_t *) out1.pixels)[i];
  CHECK (ok, "each colour channel is filtered alike (RGB of a gray image = that gray)");
  setenv ("GPUFX_THREADS", "1", 1);
  gfx_image one;
  ok = gfx_iir_filter_cpu (&f, &rgb, &one, NULL, &err) == GFX_OK && test_same_image (&one, &out3);
  unsetenv ("GPUFX_THREADS");
  CHECK (ok, "one thread gives the same bits as all threads");
  gfx_image_free (&one);
  /* More threads than quadrants: each quadrant is a row wavefront of several threads. */
  gfx_iir_filter f5;
  iir_random_filter (&f5, 5, 4, 0.8);
  gfx_image wide, serial;
  iir_random_image (&wide, 301, 97, 3, false, GFX_F32);
  setenv ("GPUFX_THREADS", "1", 1);
  ok = gfx_iir_filter_cpu (&f5, &wide, &serial, NULL, &err) == GFX_OK;
  for (int t = 5; ok && t <= 23; t += 9)
    {
      char n[8];
      snprintf (n, sizeof n, "%d", t);
      setenv ("GPUFX_THREADS", n, 1);
      gfx_image par;
      ok = gfx_iir_filter_cpu (&f5, &wide, &par, NULL, &err) == GFX_OK && test_same_image (&par, &serial);
      CHECK (ok, "row wavefront with %d threads gives the same bits as one thread", t);
      if (par.pixels)
        gfx_image_free (&par);
    }
  unsetenv ("GPUFX_THREADS");
  gfx_image_free (&serial);
  gfx_image_free (&wide);
  gfx_progress p;
  gfx_progress_init (&p, NULL, NULL);
  gfx_progress_cancel (&p);
  gfx_image none;
  CHECK (gfx_iir_filter_cpu (&f, &rgb, &none, &p, &err) == GFX_ERR_CANCELLED && !none.pixels,
         "cancel stops the filter and leaves no output: %s", err.msg);
  gfx_image_free (&out1);
  gfx_image_free (&out3);
  gfx_image_free (&gray);
  gfx_image_free (&rgb);
}

static void
test_deblur_apply (void)
{
  char path[] = "/tmp/gpufx-test-iir-XXXXXX";
  int fd = mkstemp (path);
  close (fd);
  gfx_iir_filter f;
  iir_random_filter (&f, 3, 3, 0.5);
  gfx_error err;
  gfx_iir_write (path, &f, "test", &err);
  gfx_iir_deblur_params p;
  gfx_params_defaults (&gfx_iir_deblur_param_set, &p);
  snprintf (p.filter_file, sizeof p.filter_file, "%s", path);
  p.backend = GFX_BACKEND_CPU;
  gfx_image in, out, direct;
  iir_random_image (&in, 20, 10, 2, true, GFX_U8);
  gfx_filter_run run = { 0 };
  gfx_status st = gfx_iir_deblur_filter.apply (&in, &out, &p, &run, &err);
  bool same = st == GFX_OK && gfx_iir_filter_cpu (&f, &in, &direct, NULL, &err) == GFX_OK
              && test_same_image (&out, &direct);
  CHECK (same && run.info.used == GFX_BACKEND_CPU, "deblur apply() reads the file and filters "
         "on the CPU: %s", st == GFX_OK ? "ok" : err.msg);
  if (st == GFX_OK)
    gfx_image_free (&out), gfx_image_free (&direct);
  f.b[2][1] = -1.5; /* q3: 1 - 1.5 z2^-1 has its root at 1.5 */
  gfx_iir_write (path, &f, NULL, &err);
  st = gfx_iir_deblur_filter.apply (&in, &out, &p, &run, &err);
  CHECK (st == GFX_ERR_UNSTABLE && strstr (err.msg, "q3") && !strstr (err.msg, "q1")
           && !out.pixels, "unstable filter refused, naming the quadrant: %s", err.msg);
  f.b[2][1] = -0.2; /* the same file made stable again: the verdict follows the contents */
  gfx_iir_write (path, &f, NULL, &err);
  st = gfx_iir_deblur_filter.apply (&in, &out, &p, &run, &err);
  CHECK (st == GFX_OK, "a file rewritten stable is accepted again: %s",
         st == GFX_OK ? "ok" : err.msg);
  if (st == GFX_OK)
    gfx_image_free (&out);
  snprintf (p.filter_file, sizeof p.filter_file, "/nonexistent/filter.iir");
  st = gfx_iir_deblur_filter.apply (&in, &out, &p, &run, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "/nonexistent/filter.iir"),
         "unreadable filter file: %s", err.msg);
  p.filter_file[0] = 0;
  st = gfx_iir_deblur_filter.apply (&in, &out, &p, &run, &err);
  CHECK (st == GFX_ERR_PARAM && strstr (err.msg, "filter-file"), "empty filter-file: %s", err.msg);
  unlink (path);
  gfx_image_free (&in);
}

int
main (void)
{
  test_against_reference ();
  test_identity_and_dc ();
  test_channels_threads_cancel ();
  test_deblur_apply ();
  return check_exit_status ();
}
