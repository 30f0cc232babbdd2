/* The orientation a photograph's file asks it to be shown in (see exif_orientation.h).  Cameras
 * and phones store the sensor's rows as they came and say in EXIF how to turn them; GEGL's
 * loaders do not turn them, so a portrait photograph came out lying on its side.  The
 * EXIF block is found in its container (a JPEG's APP1 segment, a PNG's eXIf chunk, a
 * WebP's EXIF chunk; a TIFF file is one itself) and read by cli_tiff_orientation. */
#include "exif_orientation.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiff_pages.h"

/* An EXIF block larger than this is no camera's (a JPEG segment holds 64 KiB at most). */
#define MAX_EXIF (16u << 20)

/* The orientation in the len bytes at f's position (a TIFF structure, after an "Exif\0\0"
 * where one leads it). */
static int
orientation_of_block (FILE *f, uint64_t len)
{
  /* No more than the file holds: a length read from the file may be anything. */
  const off_t at = ftello (f);
  if (len < 8 || len > MAX_EXIF || at < 0 || fseeko (f, 0, SEEK_END) != 0
      || (uint64_t) (ftello (f) - at) < len || fseeko (f, at, SEEK_SET) != 0)
    return 1;
  unsigned char *block = malloc ((size_t) len);
  int orientation = 1;
  if (block && fread (block, 1, (size_t) len, f) == len)
    {
      size_t skip = len >= 14 && !memcmp (block, "Exif\0\0", 6) ? 6 : 0;
      FILE *m = fmemopen (block + skip, (size_t) len - skip, "rb");
      if (m)
        {
          orientation = cli_tiff_orientation (m);
          fclose (m);
        }
    }
  free (block);
  return orientation;
}

static int
jpeg_orientation (FILE *f)
{
  unsigned char m[4];
  while (fread (m, 1, 2, f) == 2 && m[0] == 0xff)
    {
      while (m[1] == 0xff) /* fill bytes */
        if (fread (m + 1, 1, 1, f) != 1)
          return 1;
      if (m[1] == 0x01 || (m[1] >= 0xd0 && m[1] <= 0xd7)) /* no length */
        continue;
      if (m[1] == 0xda || m[1] == 0xd9 || fread (m + 2, 1, 2, f) != 2) /* the scan: no more */
        return 1;
      const unsigned len = (unsigned) m[2] << 8 | m[3];
      if (len < 2)
        return 1;
      unsigned char tag[6];
      if (m[1] == 0xe1 && len >= 2 + 6 + 8)
        {
          if (fread (tag, 1, 6, f) != 6)
            return 1;
          if (!memcmp (tag, "Exif\0\0", 6)) /* the first EXIF segment is the camera's */
            return orientation_of_block (f, len - 2 - 6);
          if (fseek (f, (long) len - 2 - 6, SEEK_CUR) != 0)
            return 1;
        }
      else if (fseek (f, (long) len - 2, SEEK_CUR) != 0)
        return 1;
    }
  return 1;
}

static int
png_orientation (FILE *f)
{
  unsigned char c[8];
  while (fread (c, 1, 8, f) == 8) /* length, type */
    {
      const uint32_t len
        = (uint32_t) c[0] << 24 | (uint32_t) c[1] << 16 | (uint32_t) c[2] << 8 | c[3];
      if (!memcmp (c + 4, "eXIf", 4))
        return orientation_of_block (f, len);
      if (!memcmp (c + 4, "IEND", 4) || len > 0x7fffffffu
          || fseeko (f, (off_t) len + 4, SEEK_CUR) != 0) /* data, CRC */
        return 1;
    }
  return 1;
}

static int
webp_orientation (FILE *f)
{
  unsigned char c[8];
  while (fread (c, 1, 8, f) == 8) /* FourCC, little-endian size */
    {
      const uint32_t len = (uint32_t) c[4] | (uint32_t) c[5] << 8 | (uint32_t) c[6] << 16
                           | (uint32_t) c[7] << 24;
      if (!memcmp (c, "EXIF", 4))
        return orientation_of_block (f, len);
      if (fseeko (f, (off_t) len + (len & 1), SEEK_CUR) != 0) /* padded to even */
        return 1;
    }
  return 1;
}

int
cli_file_orientation (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return 1;
  unsigned char head[12] = { 0 };
  size_t got = fread (head, 1, sizeof head, f);
  int orientation = 1;
  if (got >= 2 && head[0] == 0xff && head[1] == 0xd8)
    orientation = fseek (f, 2, SEEK_SET) == 0 ? jpeg_orientation (f) : 1;
  else if (got >= 8 && !memcmp (head, "\x89PNG\r\n\x1a\n", 8))
    orientation = fseek (f, 8, SEEK_SET) == 0 ? png_orientation (f) : 1;
  else if (got == 12 && !memcmp (head, "RIFF", 4) && !memcmp (head + 8, "WEBP", 4))
    orientation = webp_orientation (f);
  else if (got >= 4 && (!memcmp (head, "II", 2) || !memcmp (head, "MM", 2)))
    orientation = fseek (f, 0, SEEK_SET) == 0 ? cli_tiff_orientation (f) : 1;
  fclose (f);
  return orientation;
}
