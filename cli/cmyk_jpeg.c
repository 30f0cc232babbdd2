/* CMYK JPEGs as GIMP reads them (see image_io.h).  GEGL's jpg-load gives a CMYK JPEG that
 * has no ICC profile as babl's "cmyk" (ink amounts inverted, as Adobe writes them), and
 * babl turns that into RGB in linear light: a photograph came out much lighter than in
 * GIMP (mean 150 against 99 on skimage's coffee), whose JPEG loader multiplies the
 * inverted amounts in 8 bits, R = c * k / 255 rounded down, and calls the result sRGB.
 * With a profile, both convert through it. */
#include <stdlib.h>
#include <string.h>

#include "image_io.h"

gfx_status
cli_cmyk_jpeg_as_gimp (const char *path, GeglBuffer *buffer, gfx_image *img, gfx_error *err)
{
  const Babl *fmt = gegl_buffer_get_format (buffer);
  if (strcmp (babl_get_name (babl_format_get_model (fmt)), "cmyk")
      || babl_space_is_cmyk (babl_format_get_space (fmt)) || img->depth != GFX_U8
      || img->channels != 3)
    return GFX_OK;
  const char *loader = cli_loader_by_signature (path); /* opens the file: CMYK ones only */
  if (!loader || strcmp (loader, "gegl:jpg-load"))
    return GFX_OK;
  const size_t pixels = (size_t) img->width * img->height;
  unsigned char *ink = malloc (pixels * 4), *rgb = img->pixels;
  if (!ink)
    return gfx_fail (err, GFX_ERR_NOMEM, "%s: out of memory for its CMYK samples", path);
  gegl_buffer_get (buffer, gegl_buffer_get_extent (buffer), 1.0, babl_format ("cmyk u8"), ink,
                   GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  for (size_t i = 0; i < pixels; i++)
    for (int c = 0; c < 3; c++)
      rgb[3 * i + c] = (unsigned char) (ink[4 * i + c] * ink[4 * i + 3] / 255);
  free (ink);
  return GFX_OK;
}
