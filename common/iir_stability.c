/* Root loci of the quadrant denominators and the stability verdict (iir_stability.h). */
#include "iir_stability.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "c_numbers.h"
#include "iir_file.h"
#include "pool.h"

/* Coefficients c[j] (j = 0..m-1) of the polynomial in the locus variable for the other
 * variable at w = e^{i theta}: locus 0 sums over k2 (c[k1] = sum b(k1,k2) w^-k2), locus 1
 * over k1.  Sums run in index order so every caller gets the same numbers. */
static int
locus_coefficients (const gfx_iir_filter *f, int q, int locus, double theta,
                    double complex *c)
{
  int m = locus == 0 ? f->m1 : f->m2, other = locus == 0 ? f->m2 : f->m1;
  for (int j = 0; j < m; j++)
    {
      double complex s = 0;
      for (int k = 0; k < other; k++)
        {
          int idx = locus == 0 ? j * f->m2 + k : k * f->m2 + j;
          s += f->b[q][idx] * cexp (-I * theta * k);
        }
      c[j] = s;
    }
  return m;
}

/* Roots z of c[0] z^(m-1) + c[1] z^(m-2) + ... + c[m-1] = 0 (the locus polynomial times
 * z^(m-1)), as eigenvalues of the companion matrix.  Returns the count, -1 when c[0] = 0
 * or a ratio c[j] / c[0] overflows (a root at infinity, or beyond double's range: LAPACK
 * would fail on it), -2 when LAPACK fails. */
static int
poly_roots (const double complex *c, int m, double complex *roots)
{
  int d = m - 1;
  if (c[0] == 0)
    return -1;
  if (d == 0)
    return 0;
  lapack_complex_double comp[(GFX_IIR_MAX_MASK - 1) * (GFX_IIR_MAX_MASK - 1)];
  lapack_complex_double w[GFX_IIR_MAX_MASK - 1];
  memset (comp, 0, sizeof comp);
  for (int j = 0; j < d; j++)
    {
      comp[j] = -c[j + 1] / c[0]; /* first row */
      if (!isfinite (creal (comp[j])) || !isfinite (cimag (comp[j])))
        return -1;
    }
  for (int i = 1; i < d; i++)
    comp[i * d + i - 1] = 1;    /* sub-diagonal */
  lapack_int info = LAPACKE_zgeev (LAPACK_ROW_MAJOR, 'N', 'N', d, comp, d, w, NULL, 1, NULL, 1);
  if (info != 0)
    return -2;
  for (int j = 0; j < d; j++)
    roots[j] = w[j];
  return d;
}

static int
checked_samples (int samples, gfx_error *err)
{
  if (samples == 0)
    return GFX_IIR_STAB_SAMPLES;
  if (samples < 4 || samples > (1 << 20))
    {
      gfx_fail (err, GFX_ERR_PARAM, "stability samples = %d: 0 (default %d) or 4 to %d",
                samples, GFX_IIR_STAB_SAMPLES, 1 << 20);
      return -1;
    }
  return samples;
}

gfx_status
gfx_iir_locus (const gfx_iir_filter *f, int q, int locus, int samples, double *roots,
               int max_roots, int *n_roots, gfx_error *err)
{
  *n_roots = 0;
  if ((samples = checked_samples (samples, err)) < 0)
    return GFX_ERR_PARAM;
  for (int s = 0; s < samples; s++)
    {
      double complex c[GFX_IIR_MAX_MASK], r[GFX_IIR_MAX_MASK];
      int m = locus_coefficients (f, q, locus, 2.0 * M_PI * s / samples, c);
      int n = poly_roots (c, m, r);
      if (n == -2)
        return gfx_fail (err, GFX_ERR_INTERNAL, "LAPACKE_zgeev failed on quadrant q%d", q + 1);
      for (int j = 0; j < n && *n_roots < max_roots; j++, ++*n_roots)
        {
          roots[2 * *n_roots] = creal (r[j]);
          roots[2 * *n_roots + 1] = cimag (r[j]);
        }
    }
  return GFX_OK;
}

enum { MAX_ROOT_WORKERS = 64 };

typedef struct {
  const gfx_iir_filter *f;
  int q, samples;
  double max_root[MAX_ROOT_WORKERS];
  bool failed[MAX_ROOT_WORKERS]; /* LAPACKE_zgeev failed */
} root_scan;

/* Worker w takes points w, w + n, ... of the two loci (2 * samples in all). */
static void
scan_roots (void *ctx, int worker, int n_workers)
{
  root_scan *job = ctx;
  double mx = 0;
  for (int i = worker; i < 2 * job->samples; i += n_workers)
    {
      const int locus = i / job->samples, s = i % job->samples;
      double complex c[GFX_IIR_MAX_MASK], r[GFX_IIR_MAX_MASK];
      int m = locus_coefficients (job->f, job->q, locus, 2.0 * M_PI * s / job->samples, c);
      int n = poly_roots (c, m, r);
      if (n == -2)
        {
          job->failed[worker] = true;
          return;
        }
      if (n == -1)
        mx = INFINITY;
      for (int j = 0; j < n; j++)
        mx = fmax (mx, cabs (r[j]));
    }
  job->max_root[worker] = mx;
}

/* Largest |root| of quadrant q over both loci; INFINITY for a root at infinity.  The
 * points are shared among threads (a 7x7 --stabilise bisects through tens of thousands);
 * a maximum does not depend on their order, so neither does the result. */
static gfx_status
quadrant_max_root (const gfx_iir_filter *f, int q, int samples, double *max_root,
                   gfx_error *err)
{
  root_scan job = { .f = f, .q = q, .samples = samples };
  int workers = gfx_threads_for (2.0 * samples, 4096, false);
  workers = workers < MAX_ROOT_WORKERS ? workers : MAX_ROOT_WORKERS;
  gfx_parallel_run (workers, scan_roots, &job);
  double mx = 0;
  for (int w = 0; w < workers; w++)
    {
      if (job.failed[w])
        return gfx_fail (err, GFX_ERR_INTERNAL, "LAPACKE_zgeev failed on quadrant q%d", q + 1);
      mx = fmax (mx, job.max_root[w]);
    }
  *max_root = mx;
  return GFX_OK;
}

const char *
gfx_iir_margin_text (double margin, char buf[GFX_IIR_MARGIN_TEXT])
{
  double size = fabs (margin);
  snprintf (buf, GFX_IIR_MARGIN_TEXT, size >= 1e4 || (size < 5e-5 && size > 1e-9) ? "%.4g" : "%.4f",
            margin);
  return buf;
}

void
gfx_iir_unstable_list (const gfx_iir_stability *st, char *list, size_t size)
{
  size_t used = 0;
  if (size)
    list[0] = '\0';
  for (int q = 0; q < GFX_IIR_QUADRANTS && used < size; q++)
    if (!st->stable[q]) /* a message's numbers: "margin -1.286" */
      used += (size_t) gfx_snprintf_c (list + used, size - used, "%sq%d (margin %.4g)",
                                       used ? ", " : "", q + 1, st->margin[q]);
}

gfx_status
gfx_iir_stability_check (const gfx_iir_filter *f, int samples, gfx_iir_stability *st,
                         gfx_error *err)
{
  memset (st, 0, sizeof *st);
  if ((samples = checked_samples (samples, err)) < 0)
    return GFX_ERR_PARAM;
  gfx_status s = gfx_iir_validate (f, err);
  st->all_stable = true;
  for (int q = 0; s == GFX_OK && q < GFX_IIR_QUADRANTS; q++)
    {
      s = quadrant_max_root (f, q, samples, &st->max_root[q], err);
      st->margin[q] = 1.0 - st->max_root[q];
      st->stable[q] = st->max_root[q] < 1.0;
      st->all_stable = st->all_stable && st->stable[q];
    }
  return s;
}

/* Quadrant q's b scaled by r^(k1+k2) into dst (a copy of the filter). */
static void
shrink (const gfx_iir_filter *src, gfx_iir_filter *dst, int q, double r)
{
  for (int k1 = 0; k1 < src->m1; k1++)
    for (int k2 = 0; k2 < src->m2; k2++)
      dst->b[q][k1 * src->m2 + k2] = src->b[q][k1 * src->m2 + k2] * pow (r, k1 + k2);
}

static double
coefficient_sum (const double *c, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += c[i];
  return s;
}

gfx_status
gfx_iir_stabilise (gfx_iir_filter *f, double min_margin, int samples,
                   gfx_iir_stabilise_report *rep, gfx_error *err)
{
  memset (rep, 0, sizeof *rep);
  if (!(min_margin > 0 && min_margin < 1))
    return gfx_fail (err, GFX_ERR_PARAM, "stabilise margin = %g: it must be above 0 and "
                     "below 1", min_margin);
  gfx_iir_stability st;
  gfx_status s = gfx_iir_stability_check (f, samples, &st, err);
  gfx_iir_filter trial = *f;
  for (int q = 0; s == GFX_OK && q < GFX_IIR_QUADRANTS; q++)
    {
      rep->r[q] = rep->a_scale[q] = 1.0;
      rep->margin_before[q] = rep->margin_after[q] = st.margin[q];
      if (st.margin[q] >= min_margin)
        continue;
      /* r = 0 leaves B = 1 (margin 1): bisect between it and r = 1. */
      double lo = 0.0, hi = 1.0, mr;
      for (int it = 0; s == GFX_OK && it < 48; it++)
        {
          double mid = 0.5 * (lo + hi);
          shrink (f, &trial, q, mid);
          s = quadrant_max_root (&trial, q, samples ? samples : GFX_IIR_STAB_SAMPLES, &mr, err);
          if (1.0 - mr >= min_margin)
            lo = mid;
          else
            hi = mid;
        }
      if (s != GFX_OK)
        break;
      int n = f->m1 * f->m2;
      double before = coefficient_sum (f->b[q], n);
      shrink (f, &trial, q, lo);
      double after = coefficient_sum (trial.b[q], n);
      if (before != 0)
        {
          rep->a_scale[q] = after / before;
          for (int i = 0; i < n; i++)
            trial.a[q][i] = f->a[q][i] * rep->a_scale[q];
        }
      s = quadrant_max_root (&trial, q, samples ? samples : GFX_IIR_STAB_SAMPLES, &mr, err);
      rep->changed[q] = true;
      rep->r[q] = lo;
      rep->margin_after[q] = 1.0 - mr;
    }
  if (s == GFX_OK)
    *f = trial;
  return s;
}
