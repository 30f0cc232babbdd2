/* gfx_iir_identify end to end: on a blurred synthetic scene the identified filter is
 * stable, finite and brings the fragments closer to their sharp versions, in both modes
 * and both methods; bad inputs are clear errors and leave no NaN behind. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/iir_identify.h"
#include "check.h"
#include "test_rng.h"

#define W 192
#define H 192

static unsigned rng = 7u;
#define uniform() test_uniform (&rng)

/* Rectangles and a rotated square (edges of several orientations) over a flat field. */
static void
scene (float *img)
{
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      {
        double v = 0;
        for (int s = 0; s < 16; s++)
          {
            double x = j + (s % 4 + 0.5) / 4 - 96, y = i + (s / 4 + 0.5) / 4 - 96;
            double u = x * cos (0.4) + y * sin (0.4), w = -x * sin (0.4) + y * cos (0.4);
            v += fabs (u) < 45 && fabs (w) < 45 ? 0.8 : (i < 40 && j > 100) ? 0.5 : 0.15;
          }
        img[i * W + j] = (float) (v / 16);
      }
}

/* 3 x 3 binomial blur twice (about a Gaussian of sigma 1), edges replicated. */
static void
blur (const float *in, float *out)
{
  static float tmp[W * H];
  memcpy (out, in, sizeof tmp);
  for (int pass = 0; pass < 2; pass++)
    {
      for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++)
          {
            int l = j ? j - 1 : 0, r = j < W - 1 ? j + 1 : j;
            tmp[i * W + j] = 0.25f * out[i * W + l] + 0.5f * out[i * W + j] + 0.25f * out[i * W + r];
          }
      for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++)
          {
            int u = i ? i - 1 : 0, d = i < H - 1 ? i + 1 : i;
            out[i * W + j] = 0.25f * tmp[u * W + j] + 0.5f * tmp[i * W + j] + 0.25f * tmp[d * W + j];
          }
    }
}

static int
finite_filter (const gfx_iir_filter *f)
{
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    for (int k = 0; k < f->m1 * f->m2; k++)
      if (!isfinite (f->a[q][k]) || !isfinite (f->b[q][k]))
        return 0;
  return 1;
}

/* A stand-in translation: each message marked, so that the report shows what went
 * through the dialog's gettext (a ring of buffers: one line may ask for two). */
static const char *
mark (const char *msgid)
{
  static char ring[4][128];
  static int next;
  char *out = ring[next++ % 4];
  snprintf (out, sizeof ring[0], "#%s", msgid);
  return out;
}

/* Every line of the report, and every word put into one, is a message for translators. */
static void
report_translated (const gfx_identify_report *rep, int method, const char *name)
{
  char text[2048];
  gfx_identify_report_text (rep, method, mark, text, sizeof text);
  int lines = 0, marked = 0;
  for (const char *line = text; line; line = strchr (line, '\n'), line = line ? line + 1 : NULL)
    lines++, marked += line[0] == '#';
  const char *word = method == GFX_IDENTIFY_LAD ? "(#mean absolute)" : "(#RMS)";
  /* 9 lines, or 12 where the quadrants chose different regularisations (one line each) */
  CHECK ((lines == 9 || lines == 12) && marked == lines
           && strstr (text, " #edges found automatically")
           && strstr (text, word) && strstr (text, "q4 #stable"),
         "identify_%s_report_every_message_translated (%d of %d lines)", name, marked, lines);
}

static void
run_mode (const gfx_image *blurred, const gfx_image *sharp, int method, const char *name)
{
  gfx_iir_filter f;
  gfx_identify_report rep;
  gfx_error err = { 0 };
  gfx_status st = gfx_iir_identify (blurred, sharp, 3, 3, method, &f, &rep, NULL, &err);
  CHECK (st == GFX_OK, "identify_%s_succeeds (%s)", name, st == GFX_OK ? "ok" : err.msg);
  if (st != GFX_OK)
    return;
  CHECK (finite_filter (&f) && rep.stability.all_stable && f.m1 == 3 && f.m2 == 3,
         "identify_%s_filter_finite_and_stable (margins %.3f %.3f %.3f %.3f)", name,
         rep.stability.margin[0], rep.stability.margin[1], rep.stability.margin[2],
         rep.stability.margin[3]);
  CHECK (rep.output_rms < 0.8 * rep.blurred_rms,
         "identify_%s_filter_sharpens_fragments (RMS %.4f -> %.4f)", name, rep.blurred_rms,
         rep.output_rms);
  CHECK (rep.cond[0] > 1 && rep.cond[0] < GFX_IDENTIFY_MAX_COND && rep.equations[0] > 100
           && rep.residual > 0 && isfinite (rep.residual),
         "identify_%s_report_filled (cond %.3g, %zu equations, residual %.4g, lambda %g)", name,
         rep.cond[0], rep.equations[0], rep.residual, rep.lambda[0]);
  if (!sharp)
    report_translated (&rep, method, name);
}

/* The quadrants are fitted in parallel: any number of threads identifies the same filter
 * and reports the same numbers as one thread. */
static void
same_on_any_thread_count (const gfx_image *blurred, const gfx_image *sharp, int method,
                          const char *name)
{
  gfx_iir_filter one, many;
  gfx_identify_report r1, rn;
  gfx_error err = { 0 };
  setenv ("GPUFX_THREADS", "1", 1);
  gfx_status st = gfx_iir_identify (blurred, sharp, 3, 3, method, &one, &r1, NULL, &err);
  for (int threads = 2; st == GFX_OK && threads <= 3; threads++) /* 2 quadrants a worker, or 2 and 1 */
    {
      char value[4];
      snprintf (value, sizeof value, "%d", threads);
      setenv ("GPUFX_THREADS", value, 1);
      gfx_status st_n = gfx_iir_identify (blurred, sharp, 3, 3, method, &many, &rn, NULL, &err);
      bool same = st_n == GFX_OK && !memcmp (one.a, many.a, sizeof one.a)
                  && !memcmp (one.b, many.b, sizeof one.b)
                  && !memcmp (r1.cond, rn.cond, sizeof r1.cond)
                  && !memcmp (r1.equations, rn.equations, sizeof r1.equations)
                  && !memcmp (r1.lambda, rn.lambda, sizeof r1.lambda)
                  && r1.residual == rn.residual && r1.output_rms == rn.output_rms;
      CHECK (same, "identify_%s_same_on_%d_threads (residual %.6g vs %.6g)", name, threads,
             r1.residual, rn.residual);
    }
  CHECK (st == GFX_OK, "identify_%s_on_one_thread (%s)", name, st == GFX_OK ? "ok" : err.msg);
  unsetenv ("GPUFX_THREADS");
}

/* A progress that cancels once the work has passed `at` of the whole, recording how far
 * the reports went and whether they only moved forward. */
typedef struct {
  gfx_progress pr;
  double at, last;
  int reports, backwards;
} cancel_at;

static void
cancel_report (void *ctx, double fraction)
{
  cancel_at *c = ctx;
  c->backwards += fraction < c->last;
  c->last = fraction, c->reports++;
  if (fraction >= c->at)
    gfx_progress_cancel (&c->pr);
}

/* The identification moves a progress bar from start to end, and a cancel, whenever it
 * comes, stops it with GFX_ERR_CANCELLED (the dialog then writes no file). */
static void
progress_and_cancel (const gfx_image *blurred, const gfx_image *sharp, const char *name)
{
  const double at[] = { 2.0, 0.0, 0.01, 0.3, 0.6, 0.88 };
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
    {
      cancel_at c = { .at = at[i] };
      gfx_progress_init (&c.pr, cancel_report, &c);
      gfx_iir_filter f;
      gfx_error err = { 0 };
      gfx_status st = gfx_iir_identify (blurred, sharp, 3, 3, GFX_IDENTIFY_LAD, &f, NULL, &c.pr,
                                        &err);
      if (at[i] > 1)
        CHECK (st == GFX_OK && c.last == 1.0 && c.reports >= 10 && !c.backwards,
               "identify_%s_progress_runs_to_the_end (%d reports, last %.2f, %d backwards: %s)",
               name, c.reports, c.last, c.backwards, st == GFX_OK ? "ok" : err.msg);
      else
        CHECK (st == GFX_ERR_CANCELLED && strstr (err.msg, "cancelled") && c.last < 1.0,
               "identify_%s_cancelled_after_%.2f (status %d, %s, stopped at %.2f)", name, at[i],
               (int) st, err.msg, c.last);
    }
}

/* Automatic identification on a texture of coherent stripes searches many candidates in
 * vain (seconds on a large picture): a cancel during that search stops it. */
static void
cancel_during_edge_search (void)
{
  static float waves[W * H];
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      waves[i * W + j] = (float) (0.5 + 0.4 * sin ((0.8 * j + 0.3 * i) / 3.0));
  gfx_image img = { .width = W, .height = H, .channels = 1, .depth = GFX_F32, .pixels = waves };
  cancel_at c = { .at = 0.04 };
  gfx_progress_init (&c.pr, cancel_report, &c);
  gfx_iir_filter f;
  gfx_error err = { 0 };
  gfx_status st = gfx_iir_identify (&img, NULL, 3, 3, GFX_IDENTIFY_LS, &f, NULL, &c.pr, &err);
  CHECK (st == GFX_ERR_CANCELLED && c.last >= 0.04 && c.last < 0.15,
         "identify_cancelled_during_edge_search (status %d, %s, stopped at %.2f)", (int) st,
         err.msg, c.last);
}

int
main (void)
{
  static float sharp_px[W * H], blur_px[W * H], noisy[W * H];
  scene (sharp_px);
  for (int p = 0; p < W * H; p++) /* texture, so that the reference tiles are not flat */
    sharp_px[p] += (float) (0.04 * (uniform () - 0.5));
  blur (sharp_px, blur_px);
  gfx_image sharp = { .width = W, .height = H, .channels = 1, .depth = GFX_F32,
                     .pixels = sharp_px };
  gfx_image blurred = { .width = W, .height = H, .channels = 1, .depth = GFX_F32,
                       .pixels = blur_px };
  run_mode (&blurred, &sharp, GFX_IDENTIFY_LS, "reference_ls");
  run_mode (&blurred, &sharp, GFX_IDENTIFY_LAD, "reference_lad");
  run_mode (&blurred, NULL, GFX_IDENTIFY_LS, "auto_ls");
  run_mode (&blurred, NULL, GFX_IDENTIFY_LAD, "auto_lad");
  same_on_any_thread_count (&blurred, &sharp, GFX_IDENTIFY_LS, "reference_ls");
  progress_and_cancel (&blurred, &sharp, "reference");
  progress_and_cancel (&blurred, NULL, "auto");
  cancel_during_edge_search ();

  gfx_iir_filter f;
  memset (&f, 0, sizeof f);
  gfx_error err = { 0 };
  static float flat_px[W * H];
  for (int p = 0; p < W * H; p++)
    noisy[p] = 0.3f, flat_px[p] = 0.6f;
  gfx_image flat = { .width = W, .height = H, .channels = 1, .depth = GFX_F32, .pixels = noisy };
  gfx_image flat2 = { .width = W, .height = H, .channels = 1, .depth = GFX_F32, .pixels = flat_px };
  gfx_status st = gfx_iir_identify (&flat, &flat2, 3, 3, GFX_IDENTIFY_LS, &f, NULL, NULL, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "singular") && finite_filter (&f),
         "identify_constant_image_singular (%s)", err.msg);
  st = gfx_iir_identify (&blurred, &blurred, 3, 3, GFX_IDENTIFY_LS, &f, NULL, NULL, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "same picture"),
         "identify_reference_equal_to_blurred_says_so (%s)", err.msg);
  gfx_image half = { .width = W / 2, .height = H, .channels = 1, .depth = GFX_F32,
                    .pixels = sharp_px };
  st = gfx_iir_identify (&blurred, &half, 3, 3, GFX_IDENTIFY_LS, &f, NULL, NULL, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "same area"), "identify_size_mismatch (%s)",
         err.msg);
  st = gfx_iir_identify (&blurred, NULL, 3, 8, GFX_IDENTIFY_LS, &f, NULL, NULL, &err);
  CHECK (st == GFX_ERR_PARAM, "identify_mask_out_of_range (%s)", err.msg);
  st = gfx_iir_identify (&blurred, NULL, 3, 3, 2, &f, NULL, NULL, &err);
  CHECK (st == GFX_ERR_PARAM, "identify_bad_method (%s)", err.msg);
  return check_exit_status ();
}
