/* A filter as the plug-ins and the CLI see it: its parameter set and one function that
 * turns an input image into an output image.  The GIMP glue (ui/, plugins/) and the CLI
 * (cli/) are written once over this descriptor; each algorithm provides one. */
#ifndef GFX_FILTER_H
#define GFX_FILTER_H

#include <stdbool.h>

#include "backend.h"
#include "image.h"
#include "params.h"
#include "progress.h"

/* Everything a run needs besides the images and parameter values. */
typedef struct {
  gfx_progress *progress; /* may be NULL */
  gfx_run_info info;      /* filled by the run: backend used, fallback note */
  gfx_image *mask;        /* optional second output (local enhance's decision mask):
                             NULL = not wanted; else allocated by the run (1 channel, u8) */
} gfx_filter_run;

/* A rectangle of pixels, in the coordinates of the image it is part of. */
typedef struct { int x, y, width, height; } gfx_rect;

/* The pixels in both a and b (width or height 0 when there are none). */
static inline gfx_rect
gfx_rect_intersect (gfx_rect a, gfx_rect b)
{
  const int x0 = a.x > b.x ? a.x : b.x, y0 = a.y > b.y ? a.y : b.y;
  const int x1 = a.x + a.width < b.x + b.width ? a.x + a.width : b.x + b.width;
  const int y1 = a.y + a.height < b.y + b.height ? a.y + a.height : b.y + b.height;
  return (gfx_rect) { x0, y0, x1 > x0 ? x1 - x0 : 0, y1 > y0 ? y1 - y0 : 0 };
}

typedef struct {
  const char *name;             /* "halftone": CLI sub-command, parameter-set name */
  const char *title;            /* "Halftone (error diffusion)", marked N_() */
  const char *blurb;            /* one line, marked N_() */
  const gfx_param_set *params;
  /* Computes `out` (allocated by the call, same layout as `in`, alpha copied) from `in`.
   * On error or cancel, `out` and run->mask are left unallocated. */
  gfx_status (*apply) (const gfx_image *in, gfx_image *out, const void *values,
                       gfx_filter_run *run, gfx_error *err);
  /* For a preview of `visible`, a part of `region` (what a run filters as its image): the
   * part of region that apply() must be given so that its result, cut to visible, equals
   * a run's over the whole region.  NULL: every pixel depends on the whole region. */
  gfx_rect (*preview_source) (const void *values, gfx_rect region, gfx_rect visible);
  /* Whether a result's first rows do not depend on the rows below them (the preview may
   * then cut a shorter source's result from a taller one's). */
  bool rows_causal;
} gfx_filter;

#endif
