/* Automatic test fragments for IIR identification (SPEC section 3, seed 004 section 4):
 * square windows of the blurred image that hold one strong straight edge between two flat
 * areas, several orientations among them.  Each edge is "retouched" into the ideal step
 * that a sharp image would show: the two flat levels, split by the estimated edge line,
 * with the pixels the line crosses anti-aliased (8 x 8 supersampled coverage).  A priori assumption:
 * the scene has objects with sharp straight edges. */
#ifndef GFX_FRAGMENTS_H
#define GFX_FRAGMENTS_H

#include "image.h"
#include "status.h"

#define GFX_FRAG_MAX 64
#define GFX_FRAG_MIN_SIZE 12
#define GFX_FRAG_MAX_SIZE 128

typedef struct {
  int x0, y0, size;      /* the window: columns x0.., rows y0.., size x size pixels */
  double angle;          /* direction of the edge normal (from level0 to level1), radians:
                            n = (cos, sin) in (column, row) coordinates */
  double offset;         /* the edge line: (p - window centre) . n = offset, pixels */
  double level0, level1; /* flat levels on the two sides, as gfx_sample_get scales them */
  double width;          /* blur of the edge: s of the fitted l0 + (l1 - l0) Phi((t - offset) / s) */
  double score;          /* edge energy x coherence^4: the ranking */
} gfx_edge_fragment;

typedef struct {
  int size;            /* window side in pixels, a multiple of 4 from GFX_FRAG_MIN_SIZE to
                          GFX_FRAG_MAX_SIZE (windows are searched on a size / 4 grid) */
  int max_fragments;   /* 1..GFX_FRAG_MAX */
  double min_contrast; /* |level1 - level0| at least this (0..1) */
  /* Called between batches of candidates from the caller's thread with the share searched
   * (0..1); a status other than GFX_OK (err set) stops the search with it.  May be NULL. */
  gfx_status (*checkpoint) (void *ctx, double searched, gfx_error *err);
  void *checkpoint_ctx;
} gfx_fragment_opts;

/* size 32, 24 fragments, contrast 0.08, no checkpoint. */
void gfx_fragment_opts_default (gfx_fragment_opts *opt);

/* The plane the fragments are found on: mean of the colour channels (alpha ignored). */
void gfx_luminance_plane (const gfx_image *img, float *plane);

/* Finds up to opt->max_fragments edge fragments in lum (width x height), best first, at most
 * a few per orientation, windows overlapping by less than a quarter.  GFX_ERR_INPUT with a
 * hint when fewer than 3 are found or they all share one orientation (the equations would
 * be singular). */
gfx_status gfx_fragments_find (const float *lum, int width, int height,
                               const gfx_fragment_opts *opt, gfx_edge_fragment *frags,
                               int *n_frags, gfx_error *err);

/* The ideal step of fragment f: size x size floats, row-major. */
void gfx_fragment_step (const gfx_edge_fragment *f, float *y);

/* A picture of which fragments were used: the image in dimmed grey, each fragment's frame
 * and edge line in a colour for its orientation (angle NaN: a reference tile, a yellow
 * frame only).  out: new RGB u8 image of the same size. */
gfx_status gfx_fragments_overlay (const gfx_image *img, const gfx_edge_fragment *frags,
                                  int n_frags, gfx_image *out, gfx_error *err);

#endif
