#include "iir_identify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_numbers.h"
#include "iir.h"
#include "params.h" /* N_ */
#include "pool.h"

#define TILE 64              /* reference mode: tiles of the sharp image used as fragments */
#define MAX_TILES 48
#define MAX_PAIRS (MAX_TILES > GFX_FRAG_MAX ? MAX_TILES : GFX_FRAG_MAX)
#define MAX_ROWS 120000      /* equations per quadrant (then every k-th pixel) */
/* LAD: each IRLS step solves the whole system again, so its cost (rows x unknowns^2) is
 * bounded, keeping at least 100 equations per unknown. */
#define LAD_COST 9e6
#define MAX_ROWS_LAD 30000
#define LADDER_SAMPLES 256   /* unit-circle points for the stability of ladder candidates */

/* Regularisation ladder (iir_identify.h); INFINITY = the pure FIR fit. */
static const double ladder[] = { 0.0, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, INFINITY };

typedef struct {
  int n, size[MAX_PAIRS];
  gfx_fragment_pair pairs[MAX_PAIRS];
  float *store; /* the x and y planes of every pair */
} pair_set;

static gfx_status
pairs_alloc (pair_set *ps, int n, int size, gfx_error *err)
{
  ps->n = n;
  ps->store = malloc (sizeof (float) * 2 * (size_t) n * (size_t) size * (size_t) size);
  if (!ps->store)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for %d fragments", n);
  for (int k = 0; k < n; k++)
    {
      float *x = ps->store + 2 * (size_t) k * (size_t) size * (size_t) size;
      ps->size[k] = size;
      ps->pairs[k] = (gfx_fragment_pair) { x, x + (size_t) size * size, size, size, size };
    }
  return GFX_OK;
}

static void
copy_window (const float *plane, int width, int x0, int y0, int size, float *dst)
{
  for (int i = 0; i < size; i++)
    memcpy (dst + (size_t) i * size, plane + (size_t) (y0 + i) * width + (size_t) x0,
            sizeof (float) * (size_t) size);
}

static double
window_variance (const float *plane, int width, int x0, int y0, int size)
{
  double s = 0, sq = 0, n = (double) size * size;
  for (int i = 0; i < size; i++)
    for (int j = 0; j < size; j++)
      {
        double v = plane[(size_t) (y0 + i) * width + (size_t) (x0 + j)];
        s += v, sq += v * v;
      }
  return sq / n - (s / n) * (s / n);
}

typedef struct {
  double var;
  int x0, y0;
} tile;

static int
by_variance (const void *pa, const void *pb)
{
  const tile *a = pa, *b = pb;
  return a->var > b->var ? -1 : a->var < b->var ? 1 : (a->y0 != b->y0 ? a->y0 - b->y0
                                                                       : a->x0 - b->x0);
}

/* The most textured tiles of the sharp reference (flat tiles only teach the DC gain). */
static gfx_status
reference_pairs (const float *lb, const float *ls, int w, int h, pair_set *ps,
                 gfx_identify_report *rep, gfx_error *err)
{
  int size = TILE < w ? TILE : w;
  size = size < h ? size : h;
  int nx = w / size, ny = h / size;
  tile *tiles = malloc (sizeof (tile) * (size_t) nx * (size_t) ny);
  if (!tiles)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the reference tiles");
  for (int i = 0; i < ny; i++)
    for (int j = 0; j < nx; j++)
      tiles[i * nx + j] = (tile) { window_variance (ls, w, j * size, i * size, size),
                                   j * size, i * size };
  qsort (tiles, (size_t) nx * (size_t) ny, sizeof (tile), by_variance);
  int n = nx * ny < MAX_TILES ? nx * ny : MAX_TILES;
  gfx_status st = pairs_alloc (ps, n, size, err);
  for (int k = 0; st == GFX_OK && k < n; k++)
    {
      copy_window (lb, w, tiles[k].x0, tiles[k].y0, size, (float *) ps->pairs[k].x);
      copy_window (ls, w, tiles[k].x0, tiles[k].y0, size, (float *) ps->pairs[k].y);
      /* For the overlay: a frame without an edge line. */
      rep->fragments[k] = (gfx_edge_fragment) { .x0 = tiles[k].x0, .y0 = tiles[k].y0,
                                                .size = size, .angle = NAN };
    }
  free (tiles);
  return st;
}

/* Moves the progress to `fraction` of the whole identification, and stops the work once
 * the user has cancelled: the stages check it between their steps. */
static gfx_status
checkpoint (gfx_progress *progress, double fraction, gfx_error *err)
{
  if (!progress)
    return GFX_OK;
  if (gfx_progress_cancelled (progress))
    return gfx_fail (err, GFX_ERR_CANCELLED, "identification cancelled");
  gfx_progress_update (progress, fraction);
  return GFX_OK;
}

/* The edge search takes the identification's progress from 2 % to 15 %. */
static gfx_status
search_checkpoint (void *progress, double searched, gfx_error *err)
{
  return checkpoint (progress, 0.02 + 0.13 * searched, err);
}

static gfx_status
automatic_pairs (const float *lb, int w, int h, pair_set *ps, gfx_identify_report *rep,
                 gfx_progress *progress, gfx_error *err)
{
  gfx_fragment_opts opt;
  gfx_fragment_opts_default (&opt);
  opt.checkpoint = search_checkpoint, opt.checkpoint_ctx = progress;
  gfx_status st = gfx_fragments_find (lb, w, h, &opt, rep->fragments, &rep->n_fragments, err);
  if (st == GFX_OK)
    st = pairs_alloc (ps, rep->n_fragments, opt.size, err);
  for (int k = 0; st == GFX_OK && k < ps->n; k++)
    {
      const gfx_edge_fragment *f = &rep->fragments[k];
      copy_window (lb, w, f->x0, f->y0, f->size, (float *) ps->pairs[k].x);
      gfx_fragment_step (f, (float *) ps->pairs[k].y);
    }
  return st;
}

/* RMS of (filter(x) - y) over the fragments' interiors (a mask-wide border is left out:
 * there the image-boundary rule, not the filter, decides).  f == NULL: of (x - y). */
static gfx_status
fragment_error (const pair_set *ps, const gfx_iir_filter *f, double *rms, gfx_error *err)
{
  double sq = 0.0, count = 0.0;
  int border = f ? (f->m1 > f->m2 ? f->m1 : f->m2) : GFX_IIR_MAX_MASK;
  for (int k = 0; k < ps->n; k++)
    {
      const gfx_fragment_pair *p = &ps->pairs[k];
      gfx_image in = { .width = p->width, .height = p->height, .channels = 1,
                        .depth = GFX_F32, .pixels = (void *) p->x }, out = { 0 };
      if (f)
        {
          gfx_status st = gfx_iir_filter_cpu (f, &in, &out, NULL, err);
          if (st != GFX_OK)
            return st;
        }
      const float *v = f ? out.pixels : p->x;
      for (int i = border; i < p->height - border; i++)
        for (int j = border; j < p->width - border; j++)
          {
            const size_t at = (size_t) i * p->width + j;
            double d = (double) v[at] - p->y[at];
            sq += d * d, count += 1.0;
          }
      if (f)
        gfx_image_free (&out);
    }
  *rms = count > 0 ? sqrt (sq / count) : 0.0;
  return GFX_OK;
}

typedef struct {
  gfx_identify_system *sys;
  int method;
  double lambda;
  gfx_iir_filter *f;
  gfx_solve_info *info;
  gfx_status st[GFX_IIR_QUADRANTS];
} rung_job;

/* Scales a so that the DC gain sum(a) / sum(b) is 1.  SPEC's boundary rule (y = x outside
 * the image) is the steady state of such a filter, and deblurring must keep flat areas as
 * they are; the fits leave the gain 1 +- 1% (a flat 200 came out 201).  A gain far from 1
 * (below 1/2 or above 2) is not a deblurring filter's and is left alone. */
static void
unit_dc_gain (double *a, const double *b, int n)
{
  double sum_a = 0.0, sum_b = 0.0;
  for (int i = 0; i < n; i++)
    sum_a += a[i], sum_b += b[i];
  double scale = sum_b / sum_a;
  if (scale >= 0.5 && scale <= 2.0)
    for (int i = 0; i < n; i++)
      a[i] *= scale;
}

/* fn on one worker a quadrant at most (fewer where there are fewer cores); each worker w
 * takes q = w, w + n, ..., so the results do not depend on the count. */
static void
run_on_quadrants (gfx_worker_fn fn, void *job)
{
  int threads = gfx_threads ();
  gfx_parallel_run (threads < GFX_IIR_QUADRANTS ? threads : GFX_IIR_QUADRANTS, fn, job);
}

/* Quadrants are independent: worker w fits q = w, w + n, ... (same numbers on any count). */
static void
fit_quadrants (void *ctx, int worker, int n_workers)
{
  rung_job *job = ctx;
  for (int q = worker; q < GFX_IIR_QUADRANTS; q += n_workers)
    {
      gfx_error ignored;
      gfx_identify_system *sys = &job->sys[q];
      job->st[q] = isinf (job->lambda)
                     ? gfx_identify_solve_fir (sys, job->method, job->f->a[q], job->f->b[q],
                                               &job->info[q], &ignored)
                     : gfx_identify_solve (sys, job->method, job->lambda, job->f->a[q],
                                           job->f->b[q], &job->info[q], &ignored);
      if (job->st[q] == GFX_OK)
        unit_dc_gain (job->f->a[q], job->f->b[q], job->f->m1 * job->f->m2);
    }
}

typedef struct {
  const pair_set *ps;
  int m1, m2, max_rows;
  gfx_identify_system *sys;
  const atomic_int *cancel;
  gfx_solve_info info[GFX_IIR_QUADRANTS];
  gfx_status st[GFX_IIR_QUADRANTS];
  gfx_error err[GFX_IIR_QUADRANTS];
} system_job;

/* Each quadrant's equations and their plain least-squares fit (its condition number goes
 * into the report), worker w taking q = w, w + n, ... as fit_quadrants does. */
static void
build_systems (void *ctx, int worker, int n_workers)
{
  system_job *job = ctx;
  for (int q = worker; q < GFX_IIR_QUADRANTS; q += n_workers)
    {
      double a[GFX_IIR_MAX_MASK * GFX_IIR_MAX_MASK], b[GFX_IIR_MAX_MASK * GFX_IIR_MAX_MASK];
      gfx_identify_system *sys = &job->sys[q];
      job->st[q] = gfx_identify_system_build (job->ps->pairs, job->ps->n, q, job->m1, job->m2,
                                              job->max_rows, sys, &job->err[q]);
      if (job->st[q] != GFX_OK)
        continue;
      sys->cancel = job->cancel;
      job->st[q] = gfx_identify_solve (sys, GFX_IDENTIFY_LS, 0.0, a, b, &job->info[q],
                                       &job->err[q]);
    }
}

/* Quadrant q as a pass-through (a = b = the unit impulse: y = x). */
static void
pass_through (gfx_iir_filter *f, int q)
{
  memset (f->a[q], 0, sizeof f->a[q]);
  memset (f->b[q], 0, sizeof f->b[q]);
  f->a[q][0] = f->b[q][0] = 1.0;
}

/* The four quadrants fitted at one rung of the ladder; usable[q] is 0 where the solve
 * failed (that quadrant is then a pass-through) or its margin is below
 * GFX_IDENTIFY_MIN_MARGIN. */
static void
fit_rung (gfx_identify_system *sys, int method, double lambda, gfx_iir_filter *f,
          gfx_solve_info *info, int usable[GFX_IIR_QUADRANTS])
{
  rung_job job = { sys, method, lambda, f, info, { GFX_OK } };
  run_on_quadrants (fit_quadrants, &job);
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    {
      usable[q] = job.st[q] == GFX_OK;
      if (!usable[q])
        pass_through (f, q);
    }
  if (isinf (lambda))
    return; /* B = 1: no poles */
  gfx_error ignored;
  gfx_iir_stability stab;
  const bool checked = gfx_iir_stability_check (f, LADDER_SAMPLES, &stab, &ignored) == GFX_OK;
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    usable[q] = usable[q] && checked && stab.margin[q] >= GFX_IDENTIFY_MIN_MARGIN;
}

/* The filter whose quadrant q is the fit of rung[q]. */
static void
assemble (const gfx_iir_filter *fits, const int *rung, gfx_iir_filter *f)
{
  *f = fits[rung[0]];
  for (int q = 1; q < GFX_IIR_QUADRANTS; q++)
    {
      memcpy (f->a[q], fits[rung[q]].a[q], sizeof f->a[q]);
      memcpy (f->b[q], fits[rung[q]].b[q], sizeof f->b[q]);
    }
}

/* Each quadrant's rung of the ladder, for the filtered blurred fragments closest (RMS) to
 * the sharp ones: the best rung common to the four (or, where none is usable by all, each
 * quadrant's first usable one), then each quadrant's rung in turn changed while that
 * lowers the error.  So a quadrant keeps its own regularisation: one that fits its data
 * exactly is not held back by the others' (they often cannot fit data made in another
 * direction), and the result is never worse than the best common rung. */
static gfx_status
choose_rungs (const pair_set *ps, const gfx_iir_filter *fits, int (*usable)[GFX_IIR_QUADRANTS],
              int rungs, int *rung, double *rms, gfx_progress *progress, gfx_error *err)
{
  static const char *const qname[] = { "q1", "q2", "q3", "q4" };
  gfx_iir_filter f;
  double best = INFINITY, e;
  gfx_status st = GFX_OK;
  for (int k = 0; st == GFX_OK && k < rungs; k++)
    {
      if (!(usable[k][0] && usable[k][1] && usable[k][2] && usable[k][3]))
        continue;
      st = checkpoint (progress, 0.85 + 0.05 * k / rungs, err);
      if (st == GFX_OK)
        st = fragment_error (ps, &fits[k], &e, err);
      if (st == GFX_OK && e < best)
        {
          best = e;
          for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
            rung[q] = k;
        }
    }
  for (int q = 0; st == GFX_OK && isinf (best) && q < GFX_IIR_QUADRANTS; q++)
    {
      rung[q] = -1;
      for (int k = rungs - 1; k >= 0; k--)
        if (usable[k][q])
          rung[q] = k;
      if (rung[q] < 0)
        return gfx_fail (err, GFX_ERR_INPUT, "%s: no usable filter: every fit failed",
                         qname[q]);
    }
  if (st == GFX_OK && isinf (best))
    {
      assemble (fits, rung, &f);
      st = fragment_error (ps, &f, &best, err);
    }
  for (int sweep = 0, changed = 1; st == GFX_OK && changed && sweep < 4; sweep++)
    {
      changed = 0;
      for (int q = 0; st == GFX_OK && q < GFX_IIR_QUADRANTS; q++)
        for (int k = 0; st == GFX_OK && k < rungs; k++)
          {
            const int was = rung[q];
            if (k == was || !usable[k][q])
              continue;
            rung[q] = k;
            assemble (fits, rung, &f);
            st = checkpoint (progress, 0.9 + 0.02 * sweep + 0.005 * q, err);
            if (st == GFX_OK)
              st = fragment_error (ps, &f, &e, err);
            if (st == GFX_OK && e < best)
              best = e, changed = 1;
            else
              rung[q] = was;
          }
    }
  *rms = best;
  return st;
}

static void
record_residual (gfx_identify_report *rep, const gfx_solve_info *info, int method)
{
  rep->residual = 0.0;
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    {
      rep->residual_rms[q] = info[q].rms;
      rep->residual_mean_abs[q] = info[q].mean_abs;
      rep->residual += (method == GFX_IDENTIFY_LAD ? info[q].mean_abs : info[q].rms) / 4.0;
    }
}

static size_t
lad_rows (int m1, int m2)
{
  double n = 2.0 * m1 * m2 - 1, rows = fmin (MAX_ROWS_LAD, LAD_COST / (n * n));
  return (size_t) fmax (rows, 100 * n);
}

/* Checks the plain equations (condition, singularity), then walks the ladder. */
static gfx_status
identify_pairs (const pair_set *ps, int m1, int m2, int method, gfx_iir_filter *out,
                gfx_identify_report *rep, gfx_progress *progress, gfx_error *err)
{
  static const char *const qname[] = { "q1", "q2", "q3", "q4" };
  gfx_identify_system sys[GFX_IIR_QUADRANTS] = { 0 };
  gfx_solve_info chosen[GFX_IIR_QUADRANTS];
  gfx_status st = checkpoint (progress, 0.15, err);
  if (st == GFX_OK)
    {
      system_job job = { .ps = ps, .m1 = m1, .m2 = m2, .sys = sys,
                         .max_rows = method == GFX_IDENTIFY_LAD ? lad_rows (m1, m2) : MAX_ROWS,
                         .cancel = progress ? &progress->cancel : NULL };
      run_on_quadrants (build_systems, &job);
      for (int q = 0; st == GFX_OK && q < GFX_IIR_QUADRANTS; q++)
        if (job.st[q] != GFX_OK) /* the first quadrant that failed, as one by one */
          st = job.st[q] == GFX_ERR_CANCELLED
                 ? gfx_fail (err, job.st[q], "%s", job.err[q].msg)
                 : gfx_fail (err, job.st[q], "%s: %s", qname[q], job.err[q].msg);
        else
          rep->equations[q] = sys[q].rows, rep->cond[q] = job.info[q].cond;
    }
  enum { RUNGS = sizeof ladder / sizeof ladder[0] };
  gfx_iir_filter fits[RUNGS];
  gfx_solve_info info[RUNGS][GFX_IIR_QUADRANTS];
  int usable[RUNGS][GFX_IIR_QUADRANTS];
  for (int k = 0; st == GFX_OK && k < RUNGS; k++)
    {
      fits[k] = (gfx_iir_filter) { .m1 = m1, .m2 = m2 };
      /* LAD's first rung, its full IRLS, takes most of the time; the others reuse its
       * weights */
      st = checkpoint (progress, method != GFX_IDENTIFY_LAD ? 0.35 + 0.5 * k / RUNGS
                                 : k == 0 ? 0.35 : 0.75 + 0.1 * (k - 1) / (RUNGS - 1),
                       err);
      if (st == GFX_OK)
        fit_rung (sys, method, ladder[k], &fits[k], info[k], usable[k]);
    }
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    gfx_identify_system_free (&sys[q]);
  int rung[GFX_IIR_QUADRANTS];
  if (st == GFX_OK)
    st = choose_rungs (ps, fits, usable, RUNGS, rung, &rep->output_rms, progress, err);
  if (st == GFX_OK)
    assemble (fits, rung, out);
  for (int q = 0; st == GFX_OK && q < GFX_IIR_QUADRANTS; q++)
    {
      rep->lambda[q] = ladder[rung[q]];
      chosen[q] = info[rung[q]][q];
    }
  if (st == GFX_OK)
    record_residual (rep, chosen, method);
  return st;
}

static gfx_status
check_images (const gfx_image *blurred, const gfx_image *sharp, int m1, int m2, gfx_error *err)
{
  if (m1 < 1 || m1 > GFX_IIR_MAX_MASK || m2 < 1 || m2 > GFX_IIR_MAX_MASK)
    return gfx_fail (err, GFX_ERR_PARAM, "mask %d x %d: rows and columns must be 1 to %d", m1,
                     m2, GFX_IIR_MAX_MASK);
  if (sharp && (sharp->width != blurred->width || sharp->height != blurred->height))
    return gfx_fail (err, GFX_ERR_INPUT, "the sharp reference is %d x %d but the blurred image "
                     "is %d x %d: they must cover the same area", sharp->width, sharp->height,
                     blurred->width, blurred->height);
  if (blurred->width < 2 * m2 || blurred->height < 2 * m1)
    return gfx_fail (err, GFX_ERR_INPUT, "the area %d x %d is too small for a %d x %d mask",
                     blurred->width, blurred->height, m1, m2);
  gfx_status st = gfx_image_check_finite (blurred, "identification (blurred image)", err);
  if (st == GFX_OK && sharp)
    st = gfx_image_check_finite (sharp, "identification (sharp reference)", err);
  return st;
}

gfx_status
gfx_iir_identify (const gfx_image *blurred, const gfx_image *sharp, int m1, int m2, int method,
                  gfx_iir_filter *out, gfx_identify_report *report, gfx_progress *progress,
                  gfx_error *err)
{
  gfx_identify_report local;
  gfx_identify_report *rep = report ? report : &local;
  memset (rep, 0, sizeof *rep);
  if (method != GFX_IDENTIFY_LS && method != GFX_IDENTIFY_LAD)
    return gfx_fail (err, GFX_ERR_PARAM, "method %d: 0 (least squares) or 1 (least absolute "
                     "deviations)", method);
  gfx_status st = check_images (blurred, sharp, m1, m2, err);
  if (st != GFX_OK)
    return st;
  int w = blurred->width, h = blurred->height;
  size_t n = (size_t) w * (size_t) h;
  float *lb = malloc (n * sizeof (float)), *ls = sharp ? malloc (n * sizeof (float)) : NULL;
  pair_set ps = { 0 };
  if (!lb || (sharp && !ls))
    st = gfx_fail (err, GFX_ERR_NOMEM, "out of memory for a %d x %d luminance plane", w, h);
  if (st == GFX_OK)
    {
      gfx_luminance_plane (blurred, lb);
      rep->automatic = !sharp;
      if (sharp)
        gfx_luminance_plane (sharp, ls);
      /* Else every fit is singular, and "singular" would not say why. */
      if (sharp && !memcmp (lb, ls, n * sizeof (float)))
        st = gfx_fail (err, GFX_ERR_INPUT, "the sharp reference is the same picture as the "
                       "blurred one: there is no blur between them to identify (the reference "
                       "must be a sharp original of the same scene)");
      if (st == GFX_OK)
        st = checkpoint (progress, 0.02, err);
      if (st == GFX_OK)
        st = sharp ? reference_pairs (lb, ls, w, h, &ps, rep, err)
                   : automatic_pairs (lb, w, h, &ps, rep, progress, err);
    }
  rep->n_fragments = ps.n;
  if (st == GFX_OK)
    st = fragment_error (&ps, NULL, &rep->blurred_rms, err);
  if (st == GFX_OK)
    st = identify_pairs (&ps, m1, m2, method, out, rep, progress, err);
  if (st == GFX_OK)
    st = gfx_iir_stability_check (out, 0, &rep->stability, err);
  if (st == GFX_OK && !rep->stability.all_stable)
    st = gfx_fail (err, GFX_ERR_UNSTABLE, "the identified filter is unstable");
  if (st == GFX_OK) /* a cancel that came during the last stage still counts */
    st = checkpoint (progress, 1.0, err);
  free (lb), free (ls), free (ps.store);
  return st;
}

void
gfx_identify_report_text (const gfx_identify_report *r, int method, gfx_translate_fn tr,
                          char *buf, size_t len)
{
  size_t at = 0;
  /* English (a file's comment, the CLI) with C's numbers; translated, the user's. */
  locale_t user_locale = tr ? (locale_t) 0 : gfx_c_numbers_begin ();
#define T(msgid) (tr ? tr (msgid) : (msgid))
#define ADD(...) at += (size_t) snprintf (buf + at, at < len ? len - at : 0, __VA_ARGS__)
  ADD (T (N_("fragments: %d %s\n")), r->n_fragments,
       r->automatic ? T (N_("edges found automatically")) : T (N_("tiles of the sharp reference")));
  double cond = 0;
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    cond = fmax (cond, r->cond[q]);
  ADD (T (N_("equations: %zu per quadrant, condition number %.3g\n")), r->equations[0], cond);
  ADD (T (N_("residual (%s): %.6g\n")),
       method == GFX_IDENTIFY_LAD ? T (N_("mean absolute")) : T (N_("RMS")), r->residual);
  bool same = true; /* one line for all four quadrants when they agree, else one each */
  for (int q = 1; q < GFX_IIR_QUADRANTS; q++)
    same = same && r->lambda[q] == r->lambda[0]; /* INFINITY (FIR) equals itself */
  if (same && isinf (r->lambda[0]))
    ADD ("%s\n", T (N_("regularisation: recursive part dropped (FIR fit)")));
  else if (same)
    ADD (T (N_("regularisation: lambda %g\n")), r->lambda[0]);
  for (int q = 0; !same && q < GFX_IIR_QUADRANTS; q++)
    if (isinf (r->lambda[q]))
      ADD (T (N_("q%d regularisation: recursive part dropped (FIR fit)\n")), q + 1);
    else
      ADD (T (N_("q%d regularisation: lambda %g\n")), q + 1, r->lambda[q]);
  ADD (T (N_("fragments RMS error: %.6g blurred, %.6g filtered\n")), r->blurred_rms,
       r->output_rms);
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    ADD (T (N_("q%d %s margin %.4f\n")), q + 1,
         r->stability.stable[q] ? T (N_("stable")) : T (N_("unstable")), r->stability.margin[q]);
#undef T
  gfx_c_numbers_end (user_locale);
#undef ADD
  if (at > 0 && at <= len)
    buf[at - 1] = '\0'; /* no trailing newline */
}
