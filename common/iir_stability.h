/* Stability of the quadrant filters (SPEC section 3, seed 004 section 2).  For quadrant q,
 * B(z1,z2) = sum b(k1,k2) z1^-k1 z2^-k2 (coefficients in q's own frame).  Locus 1: for z2
 * on `samples` equally spaced points of the unit circle (starting at z2 = 1), the roots of
 * B(z1, z2) = 0 in z1; locus 2: roles swapped.  The quadrant is stable when every root of
 * both loci lies strictly inside the unit circle; margin = 1 - max |root|.  Roots are the
 * eigenvalues of the companion matrix of the complex polynomial (LAPACKE_zgeev).  A
 * polynomial whose leading coefficient vanishes on the circle has a root at infinity:
 * unstable, margin -inf; so does one whose companion matrix overflows double (a ratio of
 * coefficients beyond 1e308: a root that large). */
#ifndef GFX_IIR_STABILITY_H
#define GFX_IIR_STABILITY_H

#include <stdbool.h>
#include <stddef.h>

#include "image.h"
#include "iir_filter.h"
#include "status.h"

#define GFX_IIR_STAB_SAMPLES 720 /* default points on the unit circle (every 0.5 degree) */

typedef struct {
  bool stable[GFX_IIR_QUADRANTS];
  double margin[GFX_IIR_QUADRANTS];   /* 1 - max |root| over both loci (-inf: root at inf) */
  double max_root[GFX_IIR_QUADRANTS]; /* max |root| (inf when a leading term vanishes) */
  bool all_stable;
} gfx_iir_stability;

/* Verdict and margins; samples 0 = GFX_IIR_STAB_SAMPLES, else 4..1<<20.  GFX_ERR_PARAM for
 * a bad sample count, GFX_ERR_INTERNAL if LAPACK fails.  The filter must be valid. */
gfx_status gfx_iir_stability_check (const gfx_iir_filter *f, int samples,
                                    gfx_iir_stability *st, gfx_error *err);

/* A margin as a report shows it: "0.1234"; "-2e-05" where four decimals would print
 * "-0.0000" (an unstable filter that looks stable; below 1e-9 that is rounding, and
 * four decimals stay), "-3e+05" and "-inf" where they would print hundreds of digits (a
 * wildly unstable filter).  Returns buf. */
#define GFX_IIR_MARGIN_TEXT 32
const char *gfx_iir_margin_text (double margin, char buf[GFX_IIR_MARGIN_TEXT]);

/* "q2 (margin -0.1), q4 (margin -inf)": the unstable quadrants of st, for messages. */
void gfx_iir_unstable_list (const gfx_iir_stability *st, char *list, size_t size);

/* The roots of one locus of quadrant q (0..3): locus 0 = roots in z1 for z2 on the circle,
 * 1 = roots in z2 for z1 on the circle.  Writes up to max_roots complex roots as (re, im)
 * pairs into roots (2 * max_roots doubles) and their count into *n_roots.  Needs
 * samples * (M - 1) slots, M = M1 for locus 0 and M2 for locus 1; roots at infinity are
 * skipped (and make the quadrant unstable in gfx_iir_stability_check). */
gfx_status gfx_iir_locus (const gfx_iir_filter *f, int q, int locus, int samples,
                          double *roots, int max_roots, int *n_roots, gfx_error *err);

/* What gfx_iir_stabilise changed, per quadrant. */
typedef struct {
  bool changed[GFX_IIR_QUADRANTS];
  double r[GFX_IIR_QUADRANTS];          /* b(k1,k2) scaled by r^(k1+k2); 1 = unchanged */
  double a_scale[GFX_IIR_QUADRANTS];    /* a scaled by this to keep the DC gain; 1 = none */
  double margin_before[GFX_IIR_QUADRANTS], margin_after[GFX_IIR_QUADRANTS];
} gfx_iir_stabilise_report;

/* Makes every quadrant whose margin is below min_margin (0 < min_margin < 1) stable with
 * at least that margin: b(k1,k2) *= r^(k1+k2) with the largest r in (0, 1] found by
 * bisection (this pulls the roots towards the origin), then a is scaled so that the DC
 * gain sum(a) / sum(b) is what it was (when sum(b) was nonzero).  Stable quadrants with
 * enough margin are untouched.  The report says what changed. */
gfx_status gfx_iir_stabilise (gfx_iir_filter *f, double min_margin, int samples,
                              gfx_iir_stabilise_report *rep, gfx_error *err);

/* Draws both root loci of every quadrant into a new RGB u8 image (allocated here) of
 * 2 x 2 panels, q1 q2 over q3 q4, each size x size pixels (64..2048): axes, the unit
 * circle (grey), locus 0 (roots in z1, blue), locus 1 (roots in z2, orange), a green
 * frame for a stable quadrant and a red one for an unstable quadrant, and a "qN" label. */
gfx_status gfx_iir_plot_loci (const gfx_iir_filter *f, int samples, int size,
                              gfx_image *out, gfx_error *err);

#endif
