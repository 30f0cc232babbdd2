/* How many pages a TIFF file holds (see image_io.h).  GEGL's TIFF loader reads one
 * directory (the first, unless told another) and does not say whether there are more, so
 * a scanned document of several pages would lose all but the first without a word.
 * The count follows the chain of image file directories (classic TIFF and BigTIFF) and
 * leaves out reduced-resolution copies (thumbnails) and transparency masks, which are no
 * pages of their own (NewSubfileType bits 0 and 2, or the old SubfileType 2). */
#include <stdio.h>
#include <string.h>

#include "image_io.h"

#define MAX_DIRECTORIES 100000 /* a chain that loops back on itself stops here */

typedef struct {
  FILE *f;
  bool big_endian, big_tiff;
} tiff_reader;

/* The unsigned number of `bytes` bytes at offset, in the file's byte order; false when the
 * file ends first. */
static bool
read_at (tiff_reader *t, uint64_t offset, int bytes, uint64_t *v)
{
  unsigned char b[8];
  if (fseeko (t->f, (off_t) offset, SEEK_SET) != 0 || fread (b, 1, (size_t) bytes, t->f) != (size_t) bytes)
    return false;
  *v = 0;
  for (int i = 0; i < bytes; i++)
    *v |= (uint64_t) b[t->big_endian ? i : bytes - 1 - i] << (8 * (bytes - 1 - i));
  return true;
}

/* Whether the directory at offset is a page (not a thumbnail or a mask); *next gets the
 * next directory's offset (0: none).  False when the directory cannot be read. */
static bool
read_directory (tiff_reader *t, uint64_t offset, bool *page, uint64_t *next)
{
  const int count_bytes = t->big_tiff ? 8 : 2, entry_bytes = t->big_tiff ? 20 : 12,
            offset_bytes = t->big_tiff ? 8 : 4, value_at = t->big_tiff ? 12 : 8;
  uint64_t entries;
  if (!read_at (t, offset, count_bytes, &entries) || entries > 65535)
    return false;
  *page = true;
  for (uint64_t e = 0; e < entries; e++)
    {
      const uint64_t at = offset + (uint64_t) count_bytes + e * (uint64_t) entry_bytes;
      uint64_t tag, type, value;
      if (!read_at (t, at, 2, &tag) || !read_at (t, at + 2, 2, &type))
        return false;
      if (tag != 254 && tag != 255)
        continue;
      /* A SHORT sits in the first two bytes of the value field, a LONG in four. */
      if (!read_at (t, at + (uint64_t) value_at, type == 3 ? 2 : 4, &value))
        return false;
      if ((tag == 254 && (value & 5u)) || (tag == 255 && value == 2))
        *page = false;
    }
  return read_at (t, offset + (uint64_t) count_bytes + entries * (uint64_t) entry_bytes,
                  offset_bytes, next);
}

int
cli_tiff_pages (const char *path)
{
  tiff_reader t = { .f = fopen (path, "rb") };
  if (!t.f)
    return 0;
  unsigned char head[4] = { 0 };
  uint64_t version = 0, first = 0;
  int pages = 0;
  if (fread (head, 1, 4, t.f) == 4 && (!memcmp (head, "II", 2) || !memcmp (head, "MM", 2)))
    {
      t.big_endian = head[0] == 'M';
      read_at (&t, 2, 2, &version);
      t.big_tiff = version == 43;
      if ((version == 42 && read_at (&t, 4, 4, &first))
          || (version == 43 && read_at (&t, 8, 8, &first)))
        for (int n = 0; first != 0 && n < MAX_DIRECTORIES; n++)
          {
            bool page;
            if (!read_directory (&t, first, &page, &first))
              break;
            pages += page;
          }
    }
  fclose (t.f);
  return pages;
}
