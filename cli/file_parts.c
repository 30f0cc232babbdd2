/* Parts of a PNG or JPEG file a saver wrote, taken out or put in, in place (see
 * image_io.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "image_io.h"

/* Reads the whole of path; NULL when it cannot. */
static unsigned char *
read_all (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  unsigned char *data = NULL;
  long size = -1;
  if (f && fseek (f, 0, SEEK_END) == 0 && (size = ftell (f)) >= 0 && fseek (f, 0, SEEK_SET) == 0)
    data = malloc ((size_t) size + 1);
  if (data && fread (data, 1, (size_t) size, f) != (size_t) size)
    {
      free (data);
      data = NULL;
    }
  if (f)
    fclose (f);
  *len = data ? (size_t) size : 0;
  return data;
}

static void
put32 (unsigned char *p, uint32_t v)
{
  p[0] = (unsigned char) (v >> 24), p[1] = (unsigned char) (v >> 16);
  p[2] = (unsigned char) (v >> 8), p[3] = (unsigned char) v;
}

static bool
write_all (const char *path, const unsigned char *d, size_t len)
{
  FILE *f = fopen (path, "wb");
  bool ok = f && fwrite (d, 1, len, f) == len;
  return (f && fclose (f) == 0) && ok;
}

bool
cli_png_drop_chunk (const char *path, const char type[4])
{
  size_t len, out = 8, at = 8;
  unsigned char *d = read_all (path, &len);
  if (!d || len < 8 || memcmp (d, "\x89PNG\r\n\x1a\n", 8) != 0)
    {
      free (d);
      return false;
    }
  bool found = false;
  while (at + 12 <= len)
    {
      size_t whole = 12 + (size_t) cli_be32 (d + at);
      if (whole > len - at)
        break; /* a cut file: left as it is */
      if (memcmp (d + at + 4, type, 4) == 0)
        found = true;
      else
        memmove (d + out, d + at, whole), out += whole;
      at += whole;
    }
  bool ok = at == len && (!found || write_all (path, d, out));
  free (d);
  return ok;
}

bool
cli_png_add_iccp (const char *path, const char *name, const void *icc, size_t icc_len)
{
  size_t len, name_len = strlen (name);
  unsigned char *d = read_all (path, &len);
  /* the signature, then IHDR (13 bytes of data): iCCP goes right after it */
  const size_t after_ihdr = 8 + 12 + 13;
  uLongf packed = compressBound ((uLong) icc_len);
  size_t data_len = name_len + 2 + packed;
  unsigned char *out = d && name_len >= 1 && name_len <= 79 ? malloc (len + 12 + data_len) : NULL;
  bool ok = out && len > after_ihdr && !memcmp (d, "\x89PNG\r\n\x1a\n", 8)
            && !memcmp (d + 12, "IHDR", 4) && cli_be32 (d + 8) == 13;
  if (ok)
    {
      unsigned char *c = out + after_ihdr; /* length, "iCCP", name, 0, method 0, zlib data */
      memcpy (c + 4, "iCCP", 4);
      memcpy (c + 8, name, name_len + 1);
      c[9 + name_len] = 0;
      ok = compress2 (c + 10 + name_len, &packed, icc, (uLong) icc_len, 9) == Z_OK;
      data_len = name_len + 2 + packed;
      put32 (c, (uint32_t) data_len);
      put32 (c + 8 + data_len, (uint32_t) crc32 (0, c + 4, (uInt) (4 + data_len)));
    }
  if (ok)
    {
      memcpy (out, d, after_ihdr);
      memcpy (out + after_ihdr + 12 + data_len, d + after_ihdr, len - after_ihdr);
      ok = write_all (path, out, len + 12 + data_len);
    }
  free (out);
  free (d);
  return ok;
}

bool
cli_jpeg_drop_icc (const char *path)
{
  size_t len, out = 2, at = 2;
  unsigned char *d = read_all (path, &len);
  if (!d || len < 4 || d[0] != 0xff || d[1] != 0xd8)
    {
      free (d);
      return false;
    }
  /* Marker segments (FF, type, 2-byte length that counts itself) up to the start of scan
   * (FF DA); the scan and what follows are copied as they are. */
  bool found = false;
  while (at + 4 <= len && d[at] == 0xff && d[at + 1] != 0xda)
    {
      size_t whole = 2 + ((size_t) d[at + 2] << 8 | d[at + 3]);
      if (whole > len - at)
        break;
      if (d[at + 1] == 0xe2 && whole >= 16 && !memcmp (d + at + 4, "ICC_PROFILE", 12))
        found = true;
      else
        memmove (d + out, d + at, whole), out += whole;
      at += whole;
    }
  bool ok = at + 4 <= len && d[at] == 0xff && d[at + 1] == 0xda;
  if (ok && found)
    {
      memmove (d + out, d + at, len - at);
      ok = write_all (path, d, out + (len - at));
    }
  free (d);
  return ok;
}
