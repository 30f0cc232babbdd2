#include "iir_identify_solve.h"
#include "iir_identify_lsq.h"

#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iir_filter.h"

/* Row/column offsets of quadrant q's "previous" samples: q1 reads up-left, q2 up-right,
 * q3 down-right, q4 down-left (the mirror images of q1). */
static void
quadrant_signs (int q, int *s1, int *s2)
{
  *s1 = (q == 0 || q == 1) ? 1 : -1;
  *s2 = (q == 0 || q == 3) ? 1 : -1;
}

static size_t
pair_equations (const gfx_fragment_pair *p, int m1, int m2)
{
  if (p->height < m1 || p->width < m2)
    return 0;
  return (size_t) (p->height - m1 + 1) * (size_t) (p->width - m2 + 1);
}

/* Writes row `row` of the system: pixel (i, j) of pair p. */
static void
put_row (gfx_identify_system *sys, size_t row, const gfx_fragment_pair *p, int i, int j,
         int s1, int s2)
{
  size_t ld = sys->rows;
  int m1 = sys->m1, m2 = sys->m2;
  for (int r1 = 0; r1 < m1; r1++)
    for (int r2 = 0; r2 < m2; r2++)
      {
        size_t at = (size_t) (i - s1 * r1) * (size_t) p->stride + (size_t) (j - s2 * r2);
        int k = r1 * m2 + r2;
        sys->s[row + (size_t) k * ld] = p->x[at];
        if (k > 0)
          sys->s[row + (size_t) (sys->n_a + k - 1) * ld] = -(double) p->y[at];
      }
  sys->y[row] = p->y[(size_t) i * (size_t) p->stride + (size_t) j];
}

/* Whether equation number `seen` is kept when one in keep_every is: one pseudo-randomly
 * placed equation of each run of keep_every.  A plain stride aliases with the pixel grid
 * (keep_every 2 on rows of an even number of equations keeps one column parity only, and
 * on an image enlarged 2x by pixel doubling two columns of the system become equal). */
static bool
kept (size_t seen, size_t keep_every)
{
  if (keep_every == 1)
    return true;
  uint64_t h = (uint64_t) (seen / keep_every) + 0x9e3779b97f4a7c15u; /* splitmix64 */
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
  h ^= h >> 31;
  return seen % keep_every == h % keep_every;
}

/* Puts the kept equations of q into sys (sys->s NULL: only counts them).  Returns the
 * count. */
static size_t
fill_rows (gfx_identify_system *sys, const gfx_fragment_pair *pairs, int n_pairs, int q,
           size_t keep_every)
{
  int s1, s2;
  quadrant_signs (q, &s1, &s2);
  size_t seen = 0, row = 0;
  for (int f = 0; f < n_pairs; f++)
    {
      const gfx_fragment_pair *p = &pairs[f];
      if (!pair_equations (p, sys->m1, sys->m2))
        continue;
      /* Rows where all of the mask's previous rows exist, in q's direction. */
      int i0 = s1 > 0 ? sys->m1 - 1 : 0, i1 = s1 > 0 ? p->height : p->height - sys->m1 + 1;
      int j0 = s2 > 0 ? sys->m2 - 1 : 0, j1 = s2 > 0 ? p->width : p->width - sys->m2 + 1;
      for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++)
          {
            if (!kept (seen++, keep_every))
              continue;
            if (sys->s)
              put_row (sys, row, p, i, j, s1, s2);
            row++;
          }
    }
  return row;
}

gfx_status
gfx_identify_system_build (const gfx_fragment_pair *pairs, int n_pairs, int q, int m1, int m2,
                           size_t max_rows, gfx_identify_system *sys, gfx_error *err)
{
  memset (sys, 0, sizeof *sys);
  if (m1 < 1 || m1 > GFX_IIR_MAX_MASK || m2 < 1 || m2 > GFX_IIR_MAX_MASK)
    return gfx_fail (err, GFX_ERR_PARAM, "mask %d x %d: rows and columns must be 1 to %d", m1,
                     m2, GFX_IIR_MAX_MASK);
  size_t total = 0;
  for (int f = 0; f < n_pairs; f++)
    total += pair_equations (&pairs[f], m1, m2);
  if (total == 0)
    return gfx_fail (err, GFX_ERR_INPUT, "no fragment is large enough for a %d x %d mask", m1,
                     m2);
  size_t keep_every = max_rows > 0 && total > max_rows ? (total + max_rows - 1) / max_rows : 1;
  sys->m1 = m1;
  sys->m2 = m2;
  sys->n_a = m1 * m2;
  sys->n_b = m1 * m2 - 1;
  sys->rows = fill_rows (sys, pairs, n_pairs, q, keep_every); /* counts (sys->s is NULL) */
  size_t cols = (size_t) (sys->n_a + sys->n_b);
  sys->s = calloc (sys->rows * cols, sizeof (double));
  sys->y = calloc (sys->rows, sizeof (double));
  if (!sys->s || !sys->y)
    {
      gfx_identify_system_free (sys);
      return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for %zu identification equations",
                       total);
    }
  fill_rows (sys, pairs, n_pairs, q, keep_every);
  double sum = 0.0;
  for (size_t r = 0; r < sys->rows; r++)
    sum += sys->y[r] * sys->y[r];
  sys->y_rms = sqrt (sum / (double) sys->rows);
  return GFX_OK;
}

void
gfx_identify_system_free (gfx_identify_system *sys)
{
  free (sys->s), free (sys->y), free (sys->qr_full), free (sys->qr_fir), free (sys->qr_lad);
  free (sys->lad_w);
  sys->s = sys->y = sys->qr_full = sys->qr_fir = sys->qr_lad = sys->lad_w = NULL;
  sys->rows = 0;
}

/* Residual r = y - S phi over the first n columns, in a fixed order. */
void
identify_residual (const gfx_identify_system *sys, int n, const double *phi, double *r)
{
  memcpy (r, sys->y, sys->rows * sizeof (double));
  for (int c = 0; c < n; c++)
    {
      const double *col = sys->s + (size_t) c * sys->rows;
      for (size_t i = 0; i < sys->rows; i++)
        r[i] -= col[i] * phi[c];
    }
}

double
identify_sum_abs (const double *r, size_t n)
{
  double s = 0.0;
  for (size_t i = 0; i < n; i++)
    s += fabs (r[i]);
  return s;
}

static lsq_job
full_job (const gfx_identify_system *sys, int n, double ridge)
{
  return (lsq_job) { sys, n, sys->s, sys->y, sys->rows, sys->rows, NULL, ridge };
}

/* min |W^(1/2) (S phi - y)|^2 + |ridge b|^2 by SVD (dgelsd). */
gfx_status
identify_weighted_lstsq (const lsq_job *job, double *phi, double *cond, gfx_error *err)
{
  const gfx_identify_system *sys = job->sys;
  int n = job->n, n_ridge = job->ridge > 0.0 ? n - sys->n_a : 0;
  size_t m = job->rows + (size_t) n_ridge;
  double *a = calloc (m * (size_t) n, sizeof (double));
  double *rhs = calloc (m > (size_t) n ? m : (size_t) n, sizeof (double));
  double *sv = calloc ((size_t) n, sizeof (double));
  if (!a || !rhs || !sv)
    {
      free (a), free (rhs), free (sv);
      return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the least-squares solve");
    }
  for (size_t i = 0; i < job->rows; i++)
    {
      double sw = job->w ? sqrt (job->w[i]) : 1.0;
      for (int c = 0; c < n; c++)
        a[i + (size_t) c * m] = sw * job->s[i + (size_t) c * job->ld];
      rhs[i] = sw * job->y[i];
    }
  for (int k = 0; k < n_ridge; k++)
    a[job->rows + (size_t) k + (size_t) (sys->n_a + k) * m] = job->ridge;
  lapack_int rank = 0;
  lapack_int info = LAPACKE_dgelsd (LAPACK_COL_MAJOR, (lapack_int) m, n, 1, a, (lapack_int) m,
                                    rhs, (lapack_int) (m > (size_t) n ? m : (size_t) n), sv,
                                    -1.0, &rank);
  *cond = sv[n - 1] > 0.0 ? sv[0] / sv[n - 1] : INFINITY;
  gfx_status st = GFX_OK;
  if (info != 0)
    st = gfx_fail (err, GFX_ERR_INTERNAL, "LAPACK dgelsd failed (info %d)", (int) info);
  else if (!(*cond <= GFX_IDENTIFY_MAX_COND) || !isfinite (sv[0]))
    st = gfx_fail (err, GFX_ERR_INPUT,
                   "the identification equations are singular (condition number %.3g, limit "
                   "%.0e): the fragments do not vary enough for a %d x %d mask; use a textured "
                   "reference, edges of more orientations, or a smaller mask",
                   *cond, GFX_IDENTIFY_MAX_COND, sys->m1, sys->m2);
  for (int c = 0; st == GFX_OK && c < n; c++)
    if (!isfinite (rhs[c]))
      st = gfx_fail (err, GFX_ERR_INPUT, "the identification gave non-finite coefficients");
  if (st == GFX_OK)
    memcpy (phi, rhs, (size_t) n * sizeof (double));
  free (a), free (rhs), free (sv);
  return st;
}

/* Householder QR (dgeqrf) of W^(1/2) [S_n | y]: its (n+1) x (n+1) triangle R holds the
 * whole least-squares problem (|S phi - y| = |R11 phi - r12| up to a constant) and S's
 * singular values, so the ladder's many solves are done on R, not on the tall system. */
static double *
compress (const gfx_identify_system *sys, int n, const double *w)
{
  size_t m = sys->rows, nc = (size_t) n + 1;
  double *a = malloc (m * nc * sizeof (double)), *tau = malloc (nc * sizeof (double));
  double *r = calloc (nc * nc, sizeof (double));
  if (!a || !tau || !r || m < nc)
    {
      free (a), free (tau), free (r);
      return NULL;
    }
  for (size_t c = 0; c < nc; c++)
    for (size_t i = 0; i < m; i++)
      a[i + c * m] = (w ? sqrt (w[i]) : 1.0) * (c < (size_t) n ? sys->s[i + c * m] : sys->y[i]);
  if (LAPACKE_dgeqrf (LAPACK_COL_MAJOR, (lapack_int) m, (lapack_int) nc, a, (lapack_int) m, tau)
      != 0)
    {
      free (a), free (tau), free (r);
      return NULL;
    }
  for (size_t c = 0; c < nc; c++)
    for (size_t i = 0; i <= c; i++)
      r[i + c * nc] = a[i + c * m];
  free (a), free (tau);
  return r;
}

/* The job of the compressed problem: R11 phi = r12 (n rows), same ridge. */
static lsq_job
compressed_job (const gfx_identify_system *sys, int n, const double *r, double ridge)
{
  size_t nc = (size_t) n + 1;
  return (lsq_job) { sys, n, r, r + (size_t) n * nc, nc, (size_t) n, NULL, ridge };
}

/* Least squares, or LAD with lambda > 0: on the cached QR of the (LAD-weighted) system. */
static gfx_status
solve_compressed (gfx_identify_system *sys, int n, int method, double ridge, double *phi,
                  double *cond, gfx_error *err)
{
  int fir = n == sys->n_a;
  double **cache = method == GFX_IDENTIFY_LAD ? &sys->qr_lad : fir ? &sys->qr_fir : &sys->qr_full;
  const double *w = method == GFX_IDENTIFY_LAD ? sys->lad_w : NULL;
  if (w)
    {
      double mean_w = 0.0;
      for (size_t i = 0; i < sys->rows; i++)
        mean_w += w[i] / (double) sys->rows;
      ridge *= sqrt (mean_w);
    }
  if (!*cache && !(*cache = compress (sys, n, w)))
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the QR factorisation");
  lsq_job job = compressed_job (sys, n, *cache, ridge);
  return identify_weighted_lstsq (&job, phi, cond, err);
}

static gfx_status
solve_columns (gfx_identify_system *sys, int n, int method, double lambda, double *a,
               double *b, gfx_solve_info *info, gfx_error *err)
{
  double phi[2 * GFX_IIR_MAX_MASK * GFX_IIR_MAX_MASK] = { 0 };
  gfx_solve_info local = { 0 };
  if (sys->rows < (size_t) (2 * n))
    return gfx_fail (err, GFX_ERR_INPUT, "only %zu equations for %d unknowns: give larger or "
                     "more fragments, or a smaller mask", sys->rows, n);
  double ridge = lambda * sqrt ((double) sys->rows) * sys->y_rms;
  int full_irls = method == GFX_IDENTIFY_LAD && (lambda == 0.0 || n == sys->n_a);
  gfx_status st = GFX_OK;
  if (method == GFX_IDENTIFY_LAD && !full_irls && !sys->lad_w) /* needs the LAD weights */
    st = solve_columns (sys, n, method, 0.0, a, b, NULL, err);
  double *r = malloc (sys->rows * sizeof (double));
  if (!r)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the residuals");
  lsq_job job = full_job (sys, n, ridge);
  if (st == GFX_OK)
    st = full_irls ? identify_weighted_lstsq (&job, phi, &local.cond, err)
                   : solve_compressed (sys, n, method, ridge, phi, &local.cond, err);
  local.iterations = 1;
  if (st == GFX_OK)
    identify_residual (sys, n, phi, r);
  if (st == GFX_OK && full_irls)
    st = identify_irls (&job, phi, r, &local.iterations,
               n > sys->n_a && !sys->lad_w ? &sys->lad_w : NULL, err);
  if (st == GFX_OK)
    {
      double sq = 0.0;
      for (size_t i = 0; i < sys->rows; i++)
        sq += r[i] * r[i];
      local.rms = sqrt (sq / (double) sys->rows);
      local.mean_abs = identify_sum_abs (r, sys->rows) / (double) sys->rows;
      memset (b, 0, (size_t) sys->n_a * sizeof (double));
      memcpy (a, phi, (size_t) sys->n_a * sizeof (double));
      b[0] = 1.0;
      for (int k = sys->n_a; k < n; k++)
        b[k - sys->n_a + 1] = phi[k];
      if (info)
        *info = local;
    }
  free (r);
  return st;
}

gfx_status
gfx_identify_solve (gfx_identify_system *sys, int method, double lambda, double *a, double *b,
                    gfx_solve_info *info, gfx_error *err)
{
  if (!(lambda >= 0.0) || !isfinite (lambda))
    return gfx_fail (err, GFX_ERR_PARAM, "regularisation %g: must be 0 or more", lambda);
  return solve_columns (sys, sys->n_a + sys->n_b, method, lambda, a, b, info, err);
}

gfx_status
gfx_identify_solve_fir (gfx_identify_system *sys, int method, double *a, double *b,
                        gfx_solve_info *info, gfx_error *err)
{
  return solve_columns (sys, sys->n_a, method, 0.0, a, b, info, err);
}
