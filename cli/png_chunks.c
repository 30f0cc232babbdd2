/* Taking one kind of chunk out of a PNG file (see image_io.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"

static uint32_t
be32 (const unsigned char *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

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
      size_t whole = 12 + (size_t) be32 (d + at);
      if (whole > len - at)
        break; /* a cut file: left as it is */
      if (memcmp (d + at + 4, type, 4) == 0)
        found = true;
      else
        memmove (d + out, d + at, whole), out += whole;
      at += whole;
    }
  bool ok = at == len;
  if (ok && found)
    {
      FILE *f = fopen (path, "wb");
      ok = f && fwrite (d, 1, out, f) == out;
      ok = (f && fclose (f) == 0) && ok;
    }
  free (d);
  return ok;
}
