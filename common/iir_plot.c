/* The root-locus ("hodograph") picture of iir_stability.h: four panels of the complex
 * plane, drawn with plain pixel writes (no fonts or GUI libraries in the core). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iir_stability.h"

typedef struct {
  gfx_image *img;
  int x0, y0, size; /* the panel's corner and side */
  double extent;    /* the panel shows [-extent, extent] on both axes */
} panel;

static void
put (const panel *p, int x, int y, const uint8_t rgb[3])
{
  if (x < 0 || y < 0 || x >= p->size || y >= p->size)
    return;
  uint8_t *px = (uint8_t *) p->img->pixels
                + ((size_t) (p->y0 + y) * p->img->width + p->x0 + x) * 3;
  memcpy (px, rgb, 3);
}

/* A coordinate far outside the panel (a root near infinity, or at it) stays outside it:
 * clamped before the conversion to int, which would overflow. */
static int
pixel_of (double v, int size)
{
  return v > -2.0 * size && v < 2.0 * size ? (int) lround (v) : v > 0 ? 2 * size : -2 * size;
}

static void
to_pixel (const panel *p, double re, double im, int *x, int *y)
{
  double half = 0.5 * (p->size - 1);
  *x = pixel_of (half + re / p->extent * half, p->size);
  *y = pixel_of (half - im / p->extent * half, p->size);
}

static void
dot (const panel *p, double re, double im, int radius, const uint8_t rgb[3])
{
  int x, y;
  to_pixel (p, re, im, &x, &y);
  for (int dy = -radius; dy <= radius; dy++)
    for (int dx = -radius; dx <= radius; dx++)
      put (p, x + dx, y + dy, rgb);
}

/* A 3x5 bitmap font for the panel labels: 'q' and the digits 1 to 4, one row per 3 bits. */
static const uint8_t glyphs[5][5] = {
  { 0, 7, 5, 7, 1 }, /* q */ { 2, 6, 2, 2, 7 }, /* 1 */ { 7, 1, 7, 4, 7 }, /* 2 */
  { 7, 1, 7, 1, 7 }, /* 3 */ { 5, 5, 7, 1, 1 }, /* 4 */
};

static void
label (const panel *p, int q, const uint8_t rgb[3])
{
  /* at least 2: the dialog's 110-pixel panels had 5-pixel labels */
  int scale = p->size / 64 > 2 ? p->size / 64 : 2, glyph[2] = { 0, q + 1 };
  for (int g = 0; g < 2; g++)
    for (int row = 0; row < 5; row++)
      for (int col = 0; col < 3; col++)
        if (glyphs[glyph[g]][row] & (4 >> col))
          for (int s = 0; s < scale * scale; s++)
            put (p, 6 * scale + (g * 4 + col) * scale + s % scale, 6 * scale + row * scale
                 + s / scale, rgb);
}

static void
draw_frame (const panel *p, const uint8_t rgb[3])
{
  int t = p->size / 100 + 2;
  for (int i = 0; i < p->size; i++)
    for (int k = 0; k < t; k++)
      {
        put (p, i, k, rgb), put (p, i, p->size - 1 - k, rgb);
        put (p, k, i, rgb), put (p, p->size - 1 - k, i, rgb);
      }
}

static void
draw_axes_and_circle (const panel *p)
{
  static const uint8_t axis[3] = { 200, 200, 200 }, circle[3] = { 96, 96, 96 };
  for (int i = 0; i < p->size; i++)
    {
      put (p, i, p->size / 2, axis);
      put (p, p->size / 2, i, axis);
    }
  int steps = 8 * p->size;
  for (int s = 0; s < steps; s++)
    dot (p, cos (2 * M_PI * s / steps), sin (2 * M_PI * s / steps), 0, circle);
}

/* Draws quadrant q's panel: both loci, then the frame and label coloured by the verdict. */
static gfx_status
draw_quadrant (const gfx_iir_filter *f, int q, int samples, bool stable, panel *p,
               double *roots, gfx_error *err)
{
  static const uint8_t colours[2][3] = { { 31, 119, 180 }, { 255, 127, 14 } };
  static const uint8_t good[3] = { 44, 160, 44 }, bad[3] = { 214, 39, 40 };
  draw_axes_and_circle (p);
  for (int locus = 0; locus < 2; locus++)
    {
      int n = 0, cap = samples * GFX_IIR_MAX_MASK;
      gfx_status st = gfx_iir_locus (f, q, locus, samples, roots, cap, &n, err);
      if (st != GFX_OK)
        return st;
      for (int i = 0; i < n; i++)
        dot (p, roots[2 * i], roots[2 * i + 1], p->size >= 256 ? 1 : 0, colours[locus]);
    }
  draw_frame (p, stable ? good : bad);
  label (p, q, stable ? good : bad);
  return GFX_OK;
}

gfx_status
gfx_iir_plot_loci (const gfx_iir_filter *f, int samples, int size, gfx_image *out,
                   gfx_error *err)
{
  memset (out, 0, sizeof *out);
  if (size < 64 || size > 2048)
    return gfx_fail (err, GFX_ERR_PARAM, "plot size = %d: 64 to 2048 pixels per panel", size);
  gfx_iir_stability st;
  gfx_status s = gfx_iir_stability_check (f, samples, &st, err);
  if (s != GFX_OK)
    return s;
  samples = samples ? samples : GFX_IIR_STAB_SAMPLES;
  double *roots = malloc (sizeof *roots * 2 * (size_t) samples * GFX_IIR_MAX_MASK);
  if (!roots)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the root loci");
  s = gfx_image_alloc (out, 2 * size, 2 * size, 3, false, GFX_U8, err);
  if (s == GFX_OK)
    memset (out->pixels, 255, gfx_image_bytes (out));
  for (int q = 0; s == GFX_OK && q < GFX_IIR_QUADRANTS; q++)
    {
      /* The scale shows the unit circle and, within reason, the farthest root. */
      double far = isfinite (st.max_root[q]) ? st.max_root[q] * 1.1 : 4.0;
      panel p = { out, (q % 2) * size, (q / 2) * size, size, fmin (4.0, fmax (1.25, far)) };
      s = draw_quadrant (f, q, samples, st.stable[q], &p, roots, err);
    }
  free (roots);
  if (s != GFX_OK)
    gfx_image_free (out);
  return s;
}
