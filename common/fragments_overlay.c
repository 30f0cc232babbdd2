/* The picture of the fragments used for identification (CLI --fragments, dialog overlay). */
#include <math.h>
#include <stdlib.h>

#include "fragments.h"

/* One colour per 22.5-degree orientation class, distinct on a grey background. */
static const uint8_t palette[8][3] = { { 255, 64, 64 },  { 255, 160, 0 }, { 230, 230, 0 },
                                       { 64, 220, 64 },  { 0, 220, 220 }, { 64, 128, 255 },
                                       { 170, 90, 255 }, { 255, 80, 200 } };

static void
put (gfx_image *out, int x, int y, const uint8_t *rgb)
{
  if (x < 0 || y < 0 || x >= out->width || y >= out->height)
    return;
  uint8_t *p = (uint8_t *) out->pixels + ((size_t) y * out->width + (size_t) x) * 3;
  p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2];
}

static void
draw_fragment (gfx_image *out, const gfx_edge_fragment *f)
{
  static const uint8_t tile_rgb[3] = { 255, 255, 96 };
  double folded = fmod (f->angle + 2 * M_PI, M_PI);
  const uint8_t *rgb = isnan (f->angle) ? tile_rgb : palette[(int) (folded / M_PI * 8) % 8];
  for (int k = 0; k < f->size; k++)
    {
      put (out, f->x0 + k, f->y0, rgb);
      put (out, f->x0 + k, f->y0 + f->size - 1, rgb);
      put (out, f->x0, f->y0 + k, rgb);
      put (out, f->x0 + f->size - 1, f->y0 + k, rgb);
    }
  if (isnan (f->angle))
    return; /* a reference tile: no edge */
  /* The estimated edge line: pixels whose centre lies within half a pixel of it. */
  double nx = cos (f->angle), ny = sin (f->angle), half = f->size / 2.0;
  for (int i = 1; i < f->size - 1; i++)
    for (int j = 1; j < f->size - 1; j++)
      {
        double t = (j + 0.5 - half) * nx + (i + 0.5 - half) * ny - f->offset;
        if (fabs (t) <= 0.5)
          put (out, f->x0 + j, f->y0 + i, rgb);
      }
}

gfx_status
gfx_fragments_overlay (const gfx_image *img, const gfx_edge_fragment *frags, int n_frags,
                       gfx_image *out, gfx_error *err)
{
  gfx_status st = gfx_image_alloc (out, img->width, img->height, 3, false, GFX_U8, err);
  if (st != GFX_OK)
    return st;
  size_t n = (size_t) img->width * (size_t) img->height;
  float *lum = malloc (n * sizeof (float));
  if (!lum)
    {
      gfx_image_free (out);
      return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the fragment overlay");
    }
  gfx_luminance_plane (img, lum);
  uint8_t *px = out->pixels;
  for (size_t p = 0; p < n; p++)
    {
      /* Dimmed to 25..165 so that the coloured marks stand out. */
      float v = lum[p] < 0.0f ? 0.0f : lum[p] > 1.0f ? 1.0f : lum[p];
      px[3 * p] = px[3 * p + 1] = px[3 * p + 2] = (uint8_t) (25.0f + 140.0f * v + 0.5f);
    }
  free (lum);
  for (int k = 0; k < n_frags; k++)
    draw_fragment (out, &frags[k]);
  return GFX_OK;
}
