/* Turning an image upright as an EXIF orientation asks (see image.h). */
#include <string.h>

#include "image.h"

/* The source pixel (sx, sy) of the upright image's pixel (x, y), for an image stored w x h
 * (EXIF's numbering: 2 mirrored, 3 turned half round, 4 flipped, 5 transposed, 6 turned a
 * quarter clockwise to view, 7 transversed, 8 a quarter anticlockwise). */
static void
source_of (int orientation, int w, int h, int x, int y, int *sx, int *sy)
{
  switch (orientation)
    {
    case 2: *sx = w - 1 - x; *sy = y; break;
    case 3: *sx = w - 1 - x; *sy = h - 1 - y; break;
    case 4: *sx = x; *sy = h - 1 - y; break;
    case 5: *sx = y; *sy = x; break;
    case 6: *sx = y; *sy = h - 1 - x; break;
    case 7: *sx = w - 1 - y; *sy = h - 1 - x; break;
    case 8: *sx = w - 1 - y; *sy = x; break;
    default: *sx = x; *sy = y; break;
    }
}

gfx_status
gfx_image_orient (gfx_image *img, int orientation, gfx_error *err)
{
  if (orientation < 2 || orientation > 8)
    return GFX_OK;
  const bool swap = orientation >= 5;
  gfx_image up;
  gfx_status st = gfx_image_alloc (&up, swap ? img->height : img->width,
                                   swap ? img->width : img->height, img->channels,
                                   img->has_alpha, img->depth, err);
  if (st != GFX_OK)
    return st;
  const size_t pixel = (size_t) img->channels * gfx_depth_bytes (img->depth);
  const unsigned char *src = img->pixels;
  unsigned char *dst = up.pixels;
  for (int y = 0; y < up.height; y++)
    for (int x = 0; x < up.width; x++)
      {
        int sx, sy;
        source_of (orientation, img->width, img->height, x, y, &sx, &sy);
        memcpy (dst + ((size_t) y * up.width + x) * pixel,
                src + ((size_t) sy * img->width + sx) * pixel, pixel);
      }
  gfx_image_free (img);
  *img = up;
  return GFX_OK;
}
