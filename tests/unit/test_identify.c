/* Identification of one quadrant's coefficients from fragment pairs (SPEC section 3):
 * pairs made with a known stable filter (a direct, independent implementation of SPEC's
 * formula below) must give that filter back; LS and LAD agree on clean data and LAD wins
 * with impulse outliers; singular data is a clear error, never NaN. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/iir_identify_solve.h"
#include "../../common/image.h"
#include "check.h"
#include "test_rng.h"

#define M 3
#define SIZE 48
#define PAIRS 3

/* A stable 3 x 3 filter: sum |b(k != 0)| < 1 is sufficient. */
static const double true_a[M * M] = { 0.9, -0.2, 0.05, -0.25, 0.1, 0.02, 0.03, 0.01, -0.01 };
static const double true_b[M * M] = { 1.0, -0.3, 0.05, -0.25, 0.12, -0.02, 0.04, 0.0, 0.03 };

static unsigned rng_state = 12345u;
#define uniform() test_uniform (&rng_state)

/* SPEC's q1 recursion with its boundary rule (x edge-replicated, y = x outside). */
static double
xat (const double *x, int h, int w, int i, int j)
{
  i = i < 0 ? 0 : i >= h ? h - 1 : i;
  j = j < 0 ? 0 : j >= w ? w - 1 : j;
  return x[i * w + j];
}

static void
q1_reference (const double *x, double *y, int h, int w)
{
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++)
      {
        double s = 0.0;
        for (int r1 = 0; r1 < M; r1++)
          for (int r2 = 0; r2 < M; r2++)
            {
              s += true_a[r1 * M + r2] * xat (x, h, w, i - r1, j - r2);
              if (r1 || r2)
                s -= true_b[r1 * M + r2] * (i - r1 < 0 || j - r2 < 0
                                                ? xat (x, h, w, i - r1, j - r2)
                                                : y[(i - r1) * w + j - r2]);
            }
        y[i * w + j] = s;
      }
}

/* Quadrant q's output: q1 on the image flipped into q1's direction, flipped back. */
static void
quadrant_reference (int q, const double *x, double *y, int h, int w)
{
  double *fx = malloc (sizeof (double) * h * w), *fy = malloc (sizeof (double) * h * w);
  int flip_rows = q >= 2, flip_cols = q == 1 || q == 2;
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++)
      fx[i * w + j] = x[(flip_rows ? h - 1 - i : i) * w + (flip_cols ? w - 1 - j : j)];
  q1_reference (fx, fy, h, w);
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++)
      y[(flip_rows ? h - 1 - i : i) * w + (flip_cols ? w - 1 - j : j)] = fy[i * w + j];
  free (fx), free (fy);
}

typedef struct {
  float x[PAIRS][SIZE * SIZE], y[PAIRS][SIZE * SIZE];
  gfx_fragment_pair pairs[PAIRS];
} pair_set;

/* Random blurred-side fragments in [0.2, 0.8], their quadrant-q outputs, stored through
 * an image of `depth` (float or 16-bit quantisation). */
static void
make_pairs (pair_set *ps, int q, gfx_depth depth)
{
  double x[SIZE * SIZE], y[SIZE * SIZE];
  for (int p = 0; p < PAIRS; p++)
    {
      for (int i = 0; i < SIZE * SIZE; i++)
        x[i] = 0.2 + 0.6 * uniform ();
      quadrant_reference (q, x, y, SIZE, SIZE);
      gfx_image img;
      gfx_image_alloc (&img, SIZE, SIZE, 1, false, depth, NULL);
      for (int i = 0; i < SIZE * SIZE; i++)
        gfx_sample_set (&img, (size_t) i, (float) x[i]);
      gfx_image_get_plane (&img, 0, ps->x[p]);
      for (int i = 0; i < SIZE * SIZE; i++)
        gfx_sample_set (&img, (size_t) i, (float) y[i]);
      gfx_image_get_plane (&img, 0, ps->y[p]);
      gfx_image_free (&img);
      ps->pairs[p] = (gfx_fragment_pair) { ps->x[p], ps->y[p], SIZE, SIZE, SIZE };
    }
}

static double
coef_error (const double *a, const double *b)
{
  double e = 0.0;
  for (int k = 0; k < M * M; k++)
    e = fmax (e, fmax (fabs (a[k] - true_a[k]), fabs (b[k] - true_b[k])));
  return e;
}

static double
identify (const pair_set *ps, int q, int method, double *a, double *b, gfx_solve_info *info)
{
  gfx_identify_system sys;
  gfx_error err;
  double e = INFINITY;
  if (gfx_identify_system_build (ps->pairs, PAIRS, q, M, M, 0, &sys, &err) == GFX_OK
      && gfx_identify_solve (&sys, method, 0.0, a, b, info, &err) == GFX_OK)
    e = coef_error (a, b);
  else
    printf ("# %s\n", err.msg);
  gfx_identify_system_free (&sys);
  return e;
}

static void
test_exact (void)
{
  static pair_set ps;
  double a[M * M], b[M * M];
  gfx_solve_info info;
  for (int q = 0; q < 4; q++)
    {
      make_pairs (&ps, q, GFX_F32);
      double e = identify (&ps, q, GFX_IDENTIFY_LS, a, b, &info);
      CHECK (e < 2e-5, "identify_float_q%d_ls (max coefficient error %.2e, cond %.1f)", q + 1, e,
             info.cond);
      double e_lad = identify (&ps, q, GFX_IDENTIFY_LAD, a, b, &info);
      CHECK (e_lad < 2e-5, "identify_float_q%d_lad (max coefficient error %.2e)", q + 1, e_lad);
      /* Another quadrant's equations must not fit: proves the flips are not all alike. */
      double e_other = identify (&ps, (q + 1) % 4, GFX_IDENTIFY_LS, a, b, &info);
      CHECK (e_other > 1e-2, "identify_q%d_data_as_q%d_differs (error %.2e)", q + 1,
             (q + 1) % 4 + 1, e_other);
    }
  make_pairs (&ps, 0, GFX_U16);
  double e16 = identify (&ps, 0, GFX_IDENTIFY_LS, a, b, &info);
  CHECK (e16 < 2e-3, "identify_u16_q1_ls (max coefficient error %.2e)", e16);
  make_pairs (&ps, 2, GFX_U16);
  e16 = identify (&ps, 2, GFX_IDENTIFY_LAD, a, b, &info);
  CHECK (e16 < 2e-3, "identify_u16_q3_lad (max coefficient error %.2e)", e16);
}

static void
test_ls_lad_clean_and_outliers (void)
{
  static pair_set ps;
  double a_ls[M * M], b_ls[M * M], a_lad[M * M], b_lad[M * M];
  gfx_solve_info info;
  make_pairs (&ps, 0, GFX_F32);
  identify (&ps, 0, GFX_IDENTIFY_LS, a_ls, b_ls, &info);
  identify (&ps, 0, GFX_IDENTIFY_LAD, a_lad, b_lad, &info);
  double diff = 0.0;
  for (int k = 0; k < M * M; k++)
    diff = fmax (diff, fmax (fabs (a_ls[k] - a_lad[k]), fabs (b_ls[k] - b_lad[k])));
  CHECK (diff < 1e-5, "ls_lad_agree_on_clean_data (max difference %.2e)", diff);

  /* Impulse noise in 0.5% of the sharp pixels (each one enters up to M*M equations, as the
   * right-hand side and in the y-window: about 4% of the equations are hit). */
  int hit = 0;
  for (int p = 0; p < PAIRS; p++)
    for (int i = 0; i < SIZE * SIZE; i++)
      if (uniform () < 0.005)
        ps.y[p][i] = uniform () < 0.5 ? 0.0f : 1.0f, hit++;
  double e_ls = identify (&ps, 0, GFX_IDENTIFY_LS, a_ls, b_ls, &info);
  double e_lad = identify (&ps, 0, GFX_IDENTIFY_LAD, a_lad, b_lad, &info);
  printf ("# %d impulses: LS error %.4f, LAD error %.2e (%d IRLS iterations)\n", hit, e_ls,
          e_lad, info.iterations);
  CHECK (e_lad < 0.01 * e_ls && e_lad < 1e-3,
         "lad_beats_ls_with_impulse_noise (LS %.4f, LAD %.2e)", e_ls, e_lad);

  /* Gross errors ("failures", seed 004) in 3% of the equations' sharp sample only. */
  make_pairs (&ps, 3, GFX_F32);
  gfx_identify_system sys;
  gfx_error err;
  gfx_identify_system_build (ps.pairs, PAIRS, 3, M, M, 0, &sys, &err);
  for (size_t r = 0; r < sys.rows; r++)
    if (uniform () < 0.03)
      sys.y[r] += uniform () < 0.5 ? -0.5 : 0.5;
  gfx_identify_solve (&sys, GFX_IDENTIFY_LS, 0.0, a_ls, b_ls, NULL, &err);
  gfx_identify_solve (&sys, GFX_IDENTIFY_LAD, 0.0, a_lad, b_lad, &info, &err);
  e_ls = coef_error (a_ls, b_ls);
  e_lad = coef_error (a_lad, b_lad);
  CHECK (e_lad < 0.01 * e_ls && e_lad < 1e-4,
         "lad_beats_ls_with_gross_equation_errors (LS %.4f, LAD %.2e, %d iterations)", e_ls,
         e_lad, info.iterations);
  gfx_identify_system_free (&sys);
}

static void
test_singular (void)
{
  static float flat_x[SIZE * SIZE], flat_y[SIZE * SIZE];
  for (int i = 0; i < SIZE * SIZE; i++)
    flat_x[i] = 0.4f, flat_y[i] = 0.4f;
  gfx_fragment_pair p = { flat_x, flat_y, SIZE, SIZE, SIZE };
  gfx_identify_system sys;
  gfx_error err = { 0 };
  double a[M * M], b[M * M];
  for (int k = 0; k < M * M; k++)
    a[k] = b[k] = 7.0;
  gfx_status st = gfx_identify_system_build (&p, 1, 0, M, M, 0, &sys, &err);
  if (st == GFX_OK)
    st = gfx_identify_solve (&sys, GFX_IDENTIFY_LS, 0.0, a, b, NULL, &err);
  int finite = 1;
  for (int k = 0; k < M * M; k++)
    finite &= isfinite (a[k]) && isfinite (b[k]);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "singular") && finite,
         "constant_fragment_is_singular_error (%s: %s)", gfx_status_name (st), err.msg);
  gfx_identify_system_free (&sys);

  gfx_fragment_pair tiny = { flat_x, flat_y, 5, 5, SIZE };
  st = gfx_identify_system_build (&tiny, 1, 0, M, M, 0, &sys, &err);
  if (st == GFX_OK)
    st = gfx_identify_solve (&sys, GFX_IDENTIFY_LAD, 0.0, a, b, NULL, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "equations"),
         "too_few_equations_error (%s)", err.msg);
  gfx_identify_system_free (&sys);
}

static void
test_row_cap_and_ridge (void)
{
  static pair_set ps;
  make_pairs (&ps, 1, GFX_F32);
  gfx_identify_system sys;
  gfx_error err;
  double a[M * M], b[M * M], a_r[M * M], b_r[M * M];
  gfx_identify_system_build (ps.pairs, PAIRS, 1, M, M, 1000, &sys, &err);
  CHECK (sys.rows <= 1000 && sys.rows >= 900, "row_cap_keeps_about_max_rows (%zu)", sys.rows);
  gfx_identify_solve (&sys, GFX_IDENTIFY_LS, 0.0, a, b, NULL, &err);
  CHECK (coef_error (a, b) < 2e-5, "identify_from_subsampled_rows (%.2e)", coef_error (a, b));
  gfx_identify_solve (&sys, GFX_IDENTIFY_LS, 10.0, a_r, b_r, NULL, &err);
  double nb = 0.0, nb_r = 0.0;
  for (int k = 1; k < M * M; k++)
    nb += fabs (b[k]), nb_r += fabs (b_r[k]);
  CHECK (nb_r < 0.2 * nb, "ridge_shrinks_recursive_part (|b| %.3f -> %.3f)", nb, nb_r);
  gfx_identify_solve_fir (&sys, GFX_IDENTIFY_LS, a_r, b_r, NULL, &err);
  int fir = b_r[0] == 1.0;
  for (int k = 1; k < M * M; k++)
    fir &= b_r[k] == 0.0;
  CHECK (fir, "fir_fit_has_unit_impulse_b");
  gfx_identify_system_free (&sys);
}

int
main (void)
{
  test_exact ();
  test_ls_lad_clean_and_outliers ();
  test_singular ();
  test_row_cap_and_ridge ();
  return check_exit_status ();
}
