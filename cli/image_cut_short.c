/* Whether an image file ends before its own data does (see image_io.h).  GEGL's JPEG,
 * WebP, PNM and GIF loaders decode what there is of a cut file, fill the rest with one
 * colour, and say nothing; the file's own structure tells (and where the loader fails, as
 * for PNG, it says why in words a user reads). */
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"

/* A JPEG's image data (after its last start-of-scan marker, FF DA) ends with the
 * end-of-image marker, FF D9.  Neither pair can occur inside the entropy-coded data (an FF
 * there is followed by 00 or a restart marker), and an embedded thumbnail's markers come
 * before the main image's scans. */
static bool
jpeg_cut_short (FILE *f)
{
  enum { CHUNK = 1 << 16 };
  unsigned char *buf = malloc (CHUNK + 1);
  if (!buf)
    return false;
  bool scan = false, ended = false;
  int prev = -1; /* the byte before this chunk */
  size_t got;
  while ((got = fread (buf + 1, 1, CHUNK, f)) > 0)
    {
      for (size_t i = 1; i <= got; i++)
        {
          const int before = i == 1 ? prev : buf[i - 1];
          if (before == 0xFF && buf[i] == 0xDA)
            scan = true, ended = false;
          else if (before == 0xFF && buf[i] == 0xD9 && scan)
            ended = true;
        }
      prev = buf[got];
    }
  free (buf);
  return !scan || !ended; /* no scan at all: cut inside its header */
}

/* A WebP file is one RIFF chunk: "RIFF", its size (little-endian, the bytes after these
 * eight), "WEBP". */
static bool
webp_cut_short (FILE *f)
{
  unsigned char head[12];
  if (fread (head, 1, sizeof head, f) != sizeof head || fseek (f, 0, SEEK_END) != 0)
    return false;
  const long size = ftell (f);
  const uint32_t riff = (uint32_t) head[4] | (uint32_t) head[5] << 8 | (uint32_t) head[6] << 16
                        | (uint32_t) head[7] << 24;
  return size >= 0 && (uint64_t) size < (uint64_t) riff + 8;
}

/* A PNG is its signature and chunks (length, type, data, CRC) up to IEND.  GEGL's loader
 * does fail on a cut one, but its message speaks of failing to open the file. */
static bool
png_cut_short (FILE *f)
{
  if (fseek (f, 8, SEEK_SET) != 0)
    return false;
  unsigned char head[8];
  while (fread (head, 1, sizeof head, f) == sizeof head)
    {
      unsigned char crc[4];
      if (!memcmp (head + 4, "IEND", 4))
        return fread (crc, 1, sizeof crc, f) != sizeof crc;
      const long length = (long) ((uint32_t) head[0] << 24 | (uint32_t) head[1] << 16
                                  | (uint32_t) head[2] << 8 | head[3]);
      if (length < 0 || fseek (f, length + 4, SEEK_CUR) != 0) /* past EOF is allowed here */
        return true;
    }
  return true;
}

/* The next number of a PNM header (skipping white space and # comments), -1 if none. */
static long long
pnm_number (FILE *f)
{
  int c = fgetc (f);
  for (;;)
    {
      while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
        c = fgetc (f);
      if (c != '#')
        break;
      while (c != '\n' && c != '\r' && c != EOF)
        c = fgetc (f);
    }
  long long v = 0;
  int digits = 0;
  for (; c >= '0' && c <= '9' && v < (1LL << 40); c = fgetc (f), digits++)
    v = v * 10 + (c - '0');
  return digits ? v : -1; /* the one white-space byte after the number is read */
}

/* A PNM (P2, P3, P5, P6) holds width x height x channels samples after its header:
 * binary ones 1 or 2 bytes each (maxval above 255), plain ones as numbers. */
static bool
pnm_cut_short (FILE *f)
{
  char magic[2];
  if (fread (magic, 1, 2, f) != 2)
    return true;
  const long long w = pnm_number (f), h = pnm_number (f), maxval = pnm_number (f);
  if (w <= 0 || h <= 0 || maxval <= 0)
    return false; /* the loader says what is wrong with the header */
  const int per_pixel = magic[1] == '3' || magic[1] == '6' ? 3 : 1;
  if (w > LLONG_MAX / 2 / per_pixel / h) /* more bytes than any file holds */
    return true;
  const long long samples = w * h * per_pixel;
  if (magic[1] == '5' || magic[1] == '6')
    {
      const long at = ftell (f);
      if (at < 0 || fseek (f, 0, SEEK_END) != 0)
        return false;
      return ftell (f) - at < samples * (maxval > 255 ? 2 : 1);
    }
  for (long long n = 0; n < samples; n++)
    if (pnm_number (f) < 0)
      return true;
  return false;
}

/* Skips a GIF's data sub-blocks (each a length byte and that many bytes, up to a 0
 * length); false when the file ends first. */
static bool
gif_skip_blocks (FILE *f)
{
  for (int len; (len = fgetc (f)) != 0;)
    if (len == EOF || fseek (f, len, SEEK_CUR) != 0)
      return false;
  return true;
}

/* A GIF is its header and screen descriptor (with a colour table), extensions and images
 * (a descriptor, a colour table, LZW data in sub-blocks), then its trailer (3B): cut where
 * the file ends before the trailer. */
static bool
gif_cut_short (FILE *f)
{
  unsigned char head[13];
  if (fread (head, 1, sizeof head, f) != sizeof head)
    return true;
  if ((head[10] & 0x80) && fseek (f, 3L << ((head[10] & 7) + 1), SEEK_CUR) != 0)
    return true;
  for (int c; (c = fgetc (f)) != EOF;)
    {
      unsigned char desc[9];
      if (c == 0x21) /* an extension: its label, then sub-blocks */
        {
          if (fgetc (f) == EOF || !gif_skip_blocks (f))
            return true;
        }
      else if (c == 0x2C) /* an image */
        {
          if (fread (desc, 1, sizeof desc, f) != sizeof desc
              || ((desc[8] & 0x80) && fseek (f, 3L << ((desc[8] & 7) + 1), SEEK_CUR) != 0)
              || fgetc (f) == EOF || !gif_skip_blocks (f))
            return true;
        }
      else
        return c != 0x3B; /* the trailer, or garbage (the loader says what it makes of it) */
    }
  return true;
}

bool
cli_file_cut_short (const char *path, const char *loader)
{
  static const struct {
    const char *loader;
    bool (*cut_short) (FILE *f);
  } CHECKS[] = {
    { "gegl:jpg-load", jpeg_cut_short },
    { "gegl:webp-load", webp_cut_short },
    { "gegl:png-load", png_cut_short },
    { "gegl:ppm-load", pnm_cut_short },
    { "gegl:gif-load", gif_cut_short },
  };
  for (size_t i = 0; loader && i < sizeof CHECKS / sizeof CHECKS[0]; i++)
    if (!strcmp (loader, CHECKS[i].loader))
      {
        FILE *f = fopen (path, "rb");
        const bool cut = f && CHECKS[i].cut_short (f);
        if (f)
          fclose (f);
        return cut;
      }
  return false;
}
