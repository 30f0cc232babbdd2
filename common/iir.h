/* IIR deblur (SPEC section 3): four single-quadrant IIR filters on the same input, their
 * outputs averaged.  Quadrant q1 recurses down-right, q2 down-left, q3 up-left, q4
 * up-right; each is q1 applied to the image flipped into q1's direction, with that
 * quadrant's own coefficients.  Outside the image x is edge-replicated and y = x.
 *
 * What the two paths (CPU here, CUDA in cuda/cuda_iir.h) compute, bit for bit: per colour
 * channel, x = the sample as a float (u8 / 255, u16 / 65535, float as stored); each
 * quadrant runs the recursion of iir_kernels.h in double and stores (float) y; the output
 * sample is gfx_iir_mean(q1, q2, q3, q4) = ((q1 + q2) + (q3 + q4)) * 0.25f, rounded and
 * clipped to [0, 1] for the integer depths (float output is not clipped).  Alpha is
 * copied. */
#ifndef GFX_IIR_H
#define GFX_IIR_H

#include "filter.h"
#include "iir_filter.h"
#include "params.h"
#include "progress.h"

typedef struct {
  char filter_file[GFX_PATH_LEN]; /* SPEC format, read by apply() */
  int backend;                    /* gfx_backend */
} gfx_iir_deblur_params;

extern const gfx_param_set gfx_iir_deblur_param_set;

/* Reads the filter file, refuses an unstable filter (GFX_ERR_UNSTABLE naming the
 * quadrants and their margins), then filters on the chosen backend. */
extern const gfx_filter gfx_iir_deblur_filter;

/* Filters `in` into `out` (allocated here, same layout) on the CPU, all cores (quadrants
 * x channels in parallel).  The filter must be valid (gfx_iir_validate); stability is the
 * caller's business.  progress may be NULL; GFX_ERR_CANCELLED when cancelled. */
gfx_status gfx_iir_filter_cpu (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out,
                               gfx_progress *progress, gfx_error *err);

/* The same through the backend rules of backend.h (auto / cpu / gpu with fallback). */
gfx_status gfx_iir_filter_image (const gfx_iir_filter *f, const gfx_image *in,
                                 gfx_image *out, int backend, gfx_filter_run *run,
                                 gfx_error *err);

#endif
