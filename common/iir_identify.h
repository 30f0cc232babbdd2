/* Identification of the four quadrant IIR filters from fragment pairs (SPEC section 3,
 * seed 004 eq. 2-3), the engine behind `gpufx identify` and plug-in-gpufx-iir-identify.
 *
 * Fragment pairs (blurred x, sharp y) come from a sharp reference of the same size (the
 * most textured 64 x 64 tiles) or, without one, from straight edges found in the blurred
 * image and retouched into ideal steps (fragments.h).  Work is on the luminance (mean of
 * the colour channels); the filter then applies to every channel alike.
 *
 * Each quadrant is fitted on its own (LS or LAD, iir_identify_solve.h).  A plain fit on
 * real images is often unstable (the equations use the true sharp y in the recursion, the
 * filter its own output), so the recursive part is regularised: for lambda on a fixed
 * ladder (0 first, up to the pure FIR fit) every quadrant is fitted, fits with a stability
 * margin below GFX_IDENTIFY_MIN_MARGIN are dropped, and each quadrant keeps its own rung:
 * starting from the best rung common to the four, each quadrant's rung is changed in turn
 * while the filtered blurred fragments come closer (RMS) to the sharp ones.  Each fit's a
 * is scaled to a DC gain sum(a) / sum(b) of 1 (flat areas keep their value), unless the
 * gain is below 1/2 or above 2.  A quadrant whose data a stable filter of unit gain made
 * exactly comes back as that filter (lambda = 0), whatever the other three. */
#ifndef GFX_IIR_IDENTIFY_H
#define GFX_IIR_IDENTIFY_H

#include <stddef.h>

#include "filter.h"
#include "fragments.h"
#include "iir_filter.h"
#include "iir_identify_solve.h"
#include "iir_stability.h"
#include "image.h"
#include "params.h"

#define GFX_IDENTIFY_MIN_MARGIN 0.02

/* The parameters of plug-in-gpufx-iir-identify (SPEC section 4), in PDB order. */
typedef struct {
  int sharp_drawable;              /* the sharp reference; -1 = automatic fragments */
  int mask_rows, mask_cols;        /* M1, M2: 1..7 */
  int method;                      /* gfx_identify_method: 0 LS, 1 LAD */
  char filter_file[GFX_PATH_LEN];  /* where the identified filter is written */
} gfx_identify_params;

extern const gfx_param_set gfx_identify_param_set;
extern const gfx_filter gfx_identify_filter; /* table, title, blurb; apply is NULL */
extern const char *const gfx_identify_method_choices[]; /* "ls", "lad" */
extern const char *const gfx_identify_method_labels[];

typedef struct {
  int automatic;                 /* fragments found automatically (else reference tiles) */
  int n_fragments;
  gfx_edge_fragment fragments[GFX_FRAG_MAX]; /* automatic: the edges, for the overlay */
  size_t equations[GFX_IIR_QUADRANTS];       /* per quadrant */
  double cond[GFX_IIR_QUADRANTS];            /* of the plain (unregularised) equations */
  double residual_rms[GFX_IIR_QUADRANTS];    /* equation error of the chosen fit (before
                                                the gain is set to 1) */
  double residual_mean_abs[GFX_IIR_QUADRANTS];
  double residual;     /* the one number reported: mean over quadrants of the RMS (LS) or
                          the mean absolute (LAD) equation error */
  double lambda[GFX_IIR_QUADRANTS]; /* the regularisation each quadrant chose; INFINITY =
                                       pure FIR fit */
  double output_rms;   /* RMS of (filtered blurred fragment - sharp fragment), interiors */
  double blurred_rms;  /* the same without filtering: what the filter improved upon */
  gfx_iir_stability stability;
} gfx_identify_report;

/* Identifies the filter that maps `blurred` to `sharp` (same size; NULL = automatic edge
 * fragments).  m1, m2: mask 1..7; method: gfx_identify_method.  On success *out is a valid,
 * stable filter.  GFX_ERR_INPUT for singular or ill-conditioned equations, too few
 * fragments or mismatched images (a clear message, never NaN coefficients); report may be
 * NULL.  progress (may be NULL) moves between the stages, and a cancel there stops the
 * work at the next stage (GFX_ERR_CANCELLED). */
gfx_status gfx_iir_identify (const gfx_image *blurred, const gfx_image *sharp, int m1, int m2,
                             int method, gfx_iir_filter *out, gfx_identify_report *report,
                             gfx_progress *progress, gfx_error *err);

/* The report in a few lines of text (CLI output, dialog label, filter-file comment), each
 * message passed through tr (a dialog's gettext; NULL: English, as files keep it). */
void gfx_identify_report_text (const gfx_identify_report *r, int method, gfx_translate_fn tr,
                               char *buf, size_t len);

#endif
