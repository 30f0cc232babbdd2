/* Error-diffusion halftoning (SPEC section 1): parameters and the entry point used by
 * the plug-in and the CLI.  Colour channels are processed independently; alpha is copied. */
#ifndef GFX_HALFTONE_H
#define GFX_HALFTONE_H

#include "backend.h"
#include "filter.h"
#include "halftone_kernels.h"
#include "image.h"
#include "params.h"
#include "progress.h"

typedef struct {
  int kernel;     /* gfx_kernel_id */
  int levels;     /* 2..256 per channel */
  int backend;    /* gfx_backend */
  int block_size; /* GPU threads per block: 0 auto, else a multiple of 32 (cuda_halftone.h) */
  int margin;     /* GPU hand-off margin in columns: -1 auto */
} gfx_halftone_params;

extern const gfx_param_set gfx_halftone_param_set;
extern const char *const gfx_kernel_choices[];     /* CLI spellings: fs, jjn, ... */
extern const char *const gfx_kernel_labels[];      /* "Floyd-Steinberg", ... */
extern const gfx_filter gfx_halftone_filter;       /* for the plug-in and the CLI */

/* Halftones `in` into `out` (allocated here with the same layout; alpha copied).  On any
 * error or cancel `out` is left unallocated. */
gfx_status gfx_halftone (const gfx_image *in, gfx_image *out, const gfx_halftone_params *p,
                         gfx_progress *progress, gfx_run_info *info, gfx_error *err);

#endif
