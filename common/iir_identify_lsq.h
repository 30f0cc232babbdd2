/* Internals of the identification solver shared by iir_identify_solve.c (least squares)
 * and iir_identify_lad.c (IRLS for least absolute deviations). */
#ifndef GFX_IIR_IDENTIFY_LSQ_H
#define GFX_IIR_IDENTIFY_LSQ_H

#include "iir_identify_solve.h"

typedef struct {
  const gfx_identify_system *sys;
  int n;              /* columns used: n_a (FIR) or n_a + n_b */
  const double *s;    /* rows x n matrix (column-major, leading dimension ld) and its rhs */
  const double *y;
  size_t ld, rows;
  const double *w;    /* row weights, NULL = all 1 */
  double ridge;       /* scale of the rows that pull b(k != 0) to 0; 0 = none */
} lsq_job;

/* Residual r = y - S phi over the first n columns, in a fixed order. */
void identify_residual (const gfx_identify_system *sys, int n, const double *phi, double *r);
double identify_sum_abs (const double *r, size_t n);

/* min |W^(1/2) (S phi - y)|^2 + |ridge b|^2 by SVD (dgelsd); cond = s_max / s_min.  A
 * condition above GFX_IDENTIFY_MAX_COND is GFX_ERR_INPUT (singular equations). */
gfx_status identify_weighted_lstsq (const lsq_job *job, double *phi, double *cond,
                                    gfx_error *err);

/* IRLS from the least-squares start phi (residual r), then the LAD polish when there is
 * no ridge; *weights (if not NULL) receives the final weights (malloc'd). */
gfx_status identify_irls (lsq_job *job, double *phi, double *r, int *iterations,
                          double **weights, gfx_error *err);

#endif
