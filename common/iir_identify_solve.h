/* The linear system of one quadrant's identification (seed 004, eq. 2): one equation per
 * pixel of a fragment pair where the M1 x M2 mask fits,
 *   y(n) = sum_r a(r) x(n - r) - sum_{k != 0} b(k) y(n - k),
 * in the quadrant's own frame, and its solution by least squares (LAPACK dgelsd: SVD,
 * never normal equations) or least absolute deviations (IRLS over the same solver). */
#ifndef GFX_IIR_IDENTIFY_SOLVE_H
#define GFX_IIR_IDENTIFY_SOLVE_H

#include <stdatomic.h>
#include <stddef.h>

#include "status.h"

/* One pair of fragments: blurred x and sharp y, float planes of the same size. */
typedef struct {
  const float *x, *y;
  int width, height;
  int stride; /* floats from one row to the next */
} gfx_fragment_pair;

typedef struct {
  int m1, m2;
  int n_a, n_b;   /* unknowns: m1 m2 of a, m1 m2 - 1 of b (b(0,0) = 1 is known) */
  size_t rows;    /* equations */
  double *s;      /* column-major rows x (n_a + n_b): x-window, then minus the y-window */
  double *y;      /* right-hand side */
  double y_rms;   /* root mean square of y: the scale of the regularisation */
  /* Filled by the solves and reused: QR triangles (full, FIR, LAD-weighted) and the
   * weights of the unregularised LAD fit. */
  double *qr_full, *qr_fir, *qr_lad, *lad_w;
  /* The caller's cancel flag (may be NULL): once set, LAD's iterations stop early, keeping
   * their last iterate, so that a cancel does not wait for a whole fit. */
  const atomic_int *cancel;
} gfx_identify_system;

/* Builds quadrant q's equations (q = 0..3 for q1..q4: the pairs are read as if flipped into
 * q1's down-right direction).  At most max_rows equations: beyond that, every k-th pixel
 * is kept (deterministic).  Fails with GFX_ERR_INPUT when no fragment holds the mask. */
gfx_status gfx_identify_system_build (const gfx_fragment_pair *pairs, int n_pairs, int q,
                                      int m1, int m2, size_t max_rows,
                                      gfx_identify_system *sys, gfx_error *err);
void gfx_identify_system_free (gfx_identify_system *sys);

typedef enum { GFX_IDENTIFY_LS = 0, GFX_IDENTIFY_LAD = 1 } gfx_identify_method;

typedef struct {
  double rms;      /* of the equation residual (unregularised rows) */
  double mean_abs; /* ditto */
  double cond;     /* s_max / s_min of the weighted system (lambda = 0: the data's own) */
  int iterations;  /* IRLS iterations (1 for LS) */
} gfx_solve_info;

/* Solves for a (m1 m2 values, row-major) and b (m1 m2 values, b[0] = 1).  lambda >= 0 adds
 * Tikhonov rows lambda * sqrt(rows) * y_rms * b(k) = 0 for k != 0: it pulls the recursive
 * part towards zero (an FIR filter, always stable).  Least squares works on a QR of the
 * system made once (dgeqrf), then dgelsd on the triangle.  LAD: IRLS on the full system at
 * lambda = 0; with lambda > 0, a weighted least-squares solve with that fit's final
 * weights (so the ladder costs one IRLS, not one per rung).  A singular or ill-conditioned system
 * (cond > GFX_IDENTIFY_MAX_COND) fails with GFX_ERR_INPUT; a, b are never left non-finite. */
#define GFX_IDENTIFY_MAX_COND 1e12
gfx_status gfx_identify_solve (gfx_identify_system *sys, int method, double lambda,
                               double *a, double *b, gfx_solve_info *info, gfx_error *err);

/* The FIR fit: b fixed to the unit impulse, a by least squares / LAD. */
gfx_status gfx_identify_solve_fir (gfx_identify_system *sys, int method, double *a,
                                   double *b, gfx_solve_info *info, gfx_error *err);

#endif
