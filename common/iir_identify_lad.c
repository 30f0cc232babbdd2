/* Least absolute deviations by iteratively reweighted least squares, each step the SVD
 * solve of iir_identify_solve.c, with a final descent polish (see lad_polish). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "iir_identify_lsq.h"

#define IRLS_MAX_ITER 30
#define IRLS_TOL 1e-9     /* relative change of the sum of |residuals| that ends IRLS */
#define IRLS_FLOOR 1e-10  /* final smoothing of |r|, relative to y_rms */
#define IRLS_SHRINK 0.1  /* smoothing reduction per iteration */

/* The caller has cancelled: stop iterating and keep the last iterate. */
static bool
cancelled (const gfx_identify_system *sys)
{
  return sys->cancel && atomic_load (sys->cancel);
}

/* IRLS for min sum |r|: weights 1 / sqrt(r^2 + eps^2), eps shrinking to a floor, each step
 * the weighted SVD solve.  The ridge rows are scaled by the root of the mean weight so that
 * lambda means about the same as in least squares.  w holds rows weights (scratch). */
static int
irls_iterate (lsq_job *job, double *phi, double *r, double *w, double *next)
{
  const gfx_identify_system *sys = job->sys;
  double floor_r = IRLS_FLOOR * (sys->y_rms > 0.0 ? sys->y_rms : 1.0), ridge = job->ridge;
  double obj = identify_sum_abs (r, sys->rows), cond;
  double eps = fmax (obj / (double) sys->rows, floor_r);
  int it = 1;
  for (; it < IRLS_MAX_ITER && obj > 0.0 && !cancelled (sys); it++)
    {
      double mean_w = 0.0;
      for (size_t i = 0; i < sys->rows; i++)
        {
          w[i] = 1.0 / sqrt (r[i] * r[i] + eps * eps);
          mean_w += w[i] / (double) sys->rows;
        }
      job->w = w;
      job->ridge = ridge * sqrt (mean_w);
      gfx_error ignored;
      if (identify_weighted_lstsq (job, next, &cond, &ignored) != GFX_OK)
        break; /* extreme weights: keep the last good iterate */
      memcpy (phi, next, (size_t) job->n * sizeof (double));
      identify_residual (sys, job->n, phi, r);
      double now = identify_sum_abs (r, sys->rows);
      int done = fabs (obj - now) <= IRLS_TOL * obj && eps <= floor_r;
      eps = fmax (eps * IRLS_SHRINK, floor_r);
      obj = now;
      if (done)
        break;
    }
  job->w = NULL;
  job->ridge = ridge;
  return it;
}

static int
cmp_double (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;
  return a < b ? -1 : a > b;
}

/* IRLS creeps towards a LAD optimum that fits many equations exactly (clean data with a few
 * gross errors).  A LAD optimum fits at least n equations exactly, so refit by least
 * squares on the equations with the smallest |r| (a quarter, half, three quarters) and
 * keep a refit only when it lowers sum |r|: every accepted step is a LAD descent. */
static void
lad_polish (lsq_job *job, double *phi, double *r, double *w, double *next)
{
  const gfx_identify_system *sys = job->sys;
  size_t n = sys->rows;
  double *sorted = malloc (n * sizeof (double)), *r_next = malloc (n * sizeof (double));
  if (!sorted || !r_next)
    {
      free (sorted), free (r_next);
      return;
    }
  for (int part = 1; part <= 3; part++)
    {
      for (size_t i = 0; i < n; i++)
        sorted[i] = fabs (r[i]);
      qsort (sorted, n, sizeof (double), cmp_double);
      double limit = sorted[n * (size_t) part / 4];
      for (size_t i = 0; i < n; i++)
        w[i] = fabs (r[i]) <= limit ? 1.0 : 0.0;
      job->w = w;
      double cond;
      gfx_error ignored;
      if (identify_weighted_lstsq (job, next, &cond, &ignored) == GFX_OK)
        {
          identify_residual (sys, job->n, next, r_next);
          if (identify_sum_abs (r_next, n) < identify_sum_abs (r, n))
            {
              memcpy (phi, next, (size_t) job->n * sizeof (double));
              memcpy (r, r_next, n * sizeof (double));
            }
        }
      job->w = NULL;
    }
  free (sorted), free (r_next);
}

gfx_status
identify_irls (lsq_job *job, double *phi, double *r, int *iterations, double **weights,
      gfx_error *err)
{
  double *w = malloc (job->sys->rows * sizeof (double));
  double *next = malloc ((size_t) job->n * sizeof (double));
  if (!w || !next)
    {
      free (w), free (next);
      return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the LAD iterations");
    }
  *iterations = irls_iterate (job, phi, r, w, next);
  if (job->ridge == 0.0 /* with a ridge the objective is no longer sum |r| alone */
      && !cancelled (job->sys))
    lad_polish (job, phi, r, w, next);
  if (weights)
    { /* the final IRLS weights, for the ladder's regularised LAD solves */
      double floor_r = IRLS_FLOOR * (job->sys->y_rms > 0.0 ? job->sys->y_rms : 1.0);
      for (size_t i = 0; i < job->sys->rows; i++)
        w[i] = 1.0 / fmax (fabs (r[i]), floor_r);
      *weights = w;
      w = NULL;
    }
  free (w), free (next);
  return GFX_OK;
}

