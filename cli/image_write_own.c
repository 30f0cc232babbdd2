/* The two formats the CLI writes itself rather than through GEGL (see image_io.h): PGM/PPM,
 * whose GEGL saver makes even gray images RGB, and black-and-white PNG, 1 bit a pixel. */
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "image_io.h"

/* Whether samples in space (a file's; NULL when none was read) are sRGB's. */
bool
cli_space_is_srgb (const Babl *space)
{
  return !space || space == babl_space ("sRGB");
}

/* PGM/PPM ourselves: GEGL's ppm-save writes even gray images as RGB pixmaps.  8-bit stays
 * 8-bit; 16-bit and float become 16-bit (big-endian, as the format says). */
static bool
write_pnm (const char *path, const gfx_image *img)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return false;
  int wide = img->depth != GFX_U8;
  fprintf (f, "P%d\n%d %d\n%d\n", img->channels == 1 ? 5 : 6, img->width, img->height,
           wide ? 65535 : 255);
  /* A row at a time through one fwrite: a putc a sample cost a second on 16 megapixels. */
  const size_t row = (size_t) img->width * (size_t) img->channels;
  unsigned char *buf = malloc (row * (wide ? 2 : 1));
  bool ok = buf != NULL;
  for (int y = 0; ok && y < img->height; y++)
    {
      unsigned char *o = buf;
      for (size_t i = (size_t) y * row, end = i + row; i < end; i++)
        {
          float s = gfx_sample_get (img, i) * (wide ? 65535.0f : 255.0f) + 0.5f;
          unsigned v = s <= 0.0f ? 0 : s >= (wide ? 65535.0f : 255.0f) ? (wide ? 65535 : 255)
                                                                       : (unsigned) s;
          if (wide)
            *o++ = (unsigned char) (v >> 8);
          *o++ = (unsigned char) (v & 255);
        }
      ok = fwrite (buf, 1, (size_t) (o - buf), f) == (size_t) (o - buf);
    }
  free (buf);
  ok = ok && !ferror (f);
  return fclose (f) == 0 && ok;
}

/* A pixmap names no colour space: samples in another space go to sRGB first, as GEGL's
 * own saver would do (which writes even gray images as RGB pixmaps). */
bool
cli_write_pnm (const char *path, const gfx_image *img, const Babl *space)
{
  if (cli_space_is_srgb (space))
    return write_pnm (path, img);
  gfx_image srgb;
  gfx_error err;
  if (gfx_image_alloc (&srgb, img->width, img->height, img->channels, false, img->depth, &err)
      != GFX_OK)
    return false;
  const int colors = gfx_image_color_channels (img);
  babl_process (babl_fish (cli_layout_format (colors, false, img->depth, space),
                           cli_layout_format (colors, false, img->depth, NULL)),
                img->pixels, srgb.pixels, (long) img->width * img->height);
  bool ok = write_pnm (path, &srgb);
  gfx_image_free (&srgb);
  return ok;
}

/* An 8-bit gray image holding only 0 and 255 (a black-and-white halftone) is written as a
 * 1-bit PNG: every reader gives back the same 0 and 255, the file is several times
 * smaller, and it is written several times faster than GEGL's 8-bit PNG. */
bool
cli_is_black_and_white (const gfx_image *img)
{
  if (img->channels != 1 || img->depth != GFX_U8)
    return false;
  const uint8_t *p = img->pixels;
  for (size_t i = 0, n = gfx_image_samples (img); i < n; i++)
    if (p[i] != 0 && p[i] != 255)
      return false;
  return true;
}

bool
cli_write_png_1bit (const char *path, const gfx_image *img)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return false;
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct (png) : NULL;
  uint8_t *row = calloc ((size_t) img->width / 8 + 1, 1);
  volatile bool ok = false; /* set after setjmp: volatile so a longjmp keeps it */
  if (png && info && row && !setjmp (png_jmpbuf (png)))
    {
      png_init_io (png, f);
      png_set_IHDR (png, info, (png_uint_32) img->width, (png_uint_32) img->height, 1,
                    PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                    PNG_FILTER_TYPE_DEFAULT);
      png_set_compression_level (png, 3); /* 1.5x faster than 6 for 2% more bytes */
      png_write_info (png, info);
      const uint8_t *p = img->pixels;
      for (int y = 0; y < img->height; y++, p += img->width)
        {
          memset (row, 0, (size_t) img->width / 8 + 1);
          for (int x = 0; x < img->width; x++)
            row[x >> 3] |= (uint8_t) ((p[x] >> 7) << (7 - (x & 7)));
          png_write_row (png, row);
        }
      png_write_end (png, NULL);
      ok = true;
    }
  png_destroy_write_struct (png ? &png : NULL, info ? &info : NULL);
  free (row);
  return fclose (f) == 0 && ok;
}
