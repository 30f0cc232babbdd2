/* Inside the halftone filter: the serial reference and the fast CPU path, both computing
 * every colour channel of `in` into `out` (allocated by the caller with the same layout;
 * alpha is not touched).  Tests compare them bit for bit. */
#ifndef GFX_HALFTONE_INTERNAL_H
#define GFX_HALFTONE_INTERNAL_H

#include "image.h"
#include "progress.h"
#include "status.h"

/* Plain serial loop written for clarity: the definition every other path must equal.
 * Fails only for lack of memory. */
gfx_status gfx_halftone_ref (const gfx_image *in, gfx_image *out, int kernel, int levels,
                             gfx_error *err);

/* All cores (gfx_threads(), GPUFX_THREADS): channels and bands of rows in a wavefront.
 * Polls progress->cancel (GFX_ERR_CANCELLED) and reports progress from worker 0. */
gfx_status gfx_halftone_cpu (const gfx_image *in, gfx_image *out, int kernel, int levels,
                             gfx_progress *progress, gfx_error *err);

#endif
