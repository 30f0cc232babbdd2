/* How many pages a TIFF file holds, and the orientation a TIFF structure gives its image
 * (see tiff_pages.h).  GEGL's TIFF loader reads one
 * directory (the first, unless told another) and does not say whether there are more, so
 * a scanned document of several pages would lose all but the first without a word.
 * The count follows the chain of image file directories (classic TIFF and BigTIFF) and
 * leaves out reduced-resolution copies (thumbnails) and transparency masks, which are no
 * pages of their own (NewSubfileType bits 0 and 2, or the old SubfileType 2). */
#include "tiff_pages.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file made to make us read for ever stops here (a chain that comes back on itself
 * stops where it does): a real document of a thousand pages has some 20 000 entries. */
#define MAX_DIRECTORIES 65536
#define MAX_ENTRIES (1 << 22)

typedef struct {
  FILE *f;
  bool big_endian, big_tiff;
  long entries_left;
} tiff_reader;

/* The unsigned number of `bytes` bytes at p, in the file's byte order. */
static uint64_t
number (const tiff_reader *t, const unsigned char *p, int bytes)
{
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++)
    v |= (uint64_t) p[t->big_endian ? i : bytes - 1 - i] << (8 * (bytes - 1 - i));
  return v;
}

/* Reads len bytes at offset into buf; false when the file ends first. */
static bool
read_at (tiff_reader *t, uint64_t offset, void *buf, size_t len)
{
  return offset <= (uint64_t) INT64_MAX && fseeko (t->f, (off_t) offset, SEEK_SET) == 0
         && fread (buf, 1, len, t->f) == len;
}

/* The first of the SHORT values of an entry (SampleFormat: one a sample): in the value
 * field where they fit in it, else at the offset it holds; 0 when it cannot be read. */
static uint64_t
first_short (tiff_reader *t, const unsigned char *entry)
{
  const int field = t->big_tiff ? 8 : 4;
  const uint64_t count = number (t, entry + 4, t->big_tiff ? 8 : 4);
  if (count * 2 <= (uint64_t) field)
    return number (t, entry + 4 + field, 2);
  unsigned char v[2];
  return read_at (t, number (t, entry + 4 + field, field), v, 2) ? number (t, v, 2) : 0;
}

/* Whether the directory at offset is a page (not a thumbnail or a mask); *next gets the
 * next directory's offset (0: none); *sample_format (if not NULL) its SampleFormat (1
 * unsigned integers, 2 signed, 3 floats, 5 and 6 complex; 1 where it is not given), and
 * *orientation (if not NULL) its Orientation (1 where it is not given).  False when the
 * directory cannot be read. */
static bool
read_directory (tiff_reader *t, uint64_t offset, bool *page, uint64_t *next, int *sample_format,
                int *orientation)
{
  const int count_bytes = t->big_tiff ? 8 : 2, entry_bytes = t->big_tiff ? 20 : 12,
            offset_bytes = t->big_tiff ? 8 : 4, value_at = t->big_tiff ? 12 : 8;
  unsigned char b[8];
  if (!read_at (t, offset, b, (size_t) count_bytes))
    return false;
  const uint64_t entries = number (t, b, count_bytes);
  if (entries > 65535 || (long) entries > t->entries_left)
    return false;
  t->entries_left -= (long) entries;
  const size_t len = (size_t) entries * (size_t) entry_bytes + (size_t) offset_bytes;
  unsigned char *d = malloc (len);
  bool ok = d && read_at (t, offset + (uint64_t) count_bytes, d, len);
  *page = true;
  if (sample_format)
    *sample_format = 1;
  if (orientation)
    *orientation = 1;
  for (uint64_t e = 0; ok && e < entries; e++)
    {
      const unsigned char *entry = d + e * (uint64_t) entry_bytes;
      const uint64_t tag = number (t, entry, 2), type = number (t, entry + 2, 2);
      /* A SHORT sits in the first two bytes of the value field, a LONG in four. */
      const uint64_t value = number (t, entry + value_at, type == 3 ? 2 : 4);
      if ((tag == 254 && (value & 5u)) || (tag == 255 && value == 2))
        *page = false;
      if (tag == 339 && sample_format)
        *sample_format = (int) first_short (t, entry);
      if (tag == 274 && orientation)
        *orientation = (int) first_short (t, entry);
    }
  if (ok)
    *next = number (t, d + len - (size_t) offset_bytes, offset_bytes);
  free (d);
  return ok;
}

/* Whether offset (not 0) is in the hash set seen (2 * MAX_DIRECTORIES slots, open
 * addressing); adds it if not.  A chain that comes back to a directory ends there. */
static bool
seen_before (uint64_t *seen, uint64_t offset)
{
  const size_t slots = 2 * MAX_DIRECTORIES;
  for (size_t i = (size_t) ((offset * 0x9e3779b97f4a7c15u) >> 47) % slots;; i = (i + 1) % slots)
    {
      if (seen[i] == offset)
        return true;
      if (seen[i] == 0)
        {
          seen[i] = offset;
          return false;
        }
    }
}

/* The first directory's offset of the TIFF structure at the start of t->f, with t's byte
 * order and kind set; 0 when it is no TIFF. */
static uint64_t
read_header (tiff_reader *t)
{
  unsigned char head[16] = { 0 };
  if (fread (head, 1, sizeof head, t->f) < 8 || (memcmp (head, "II", 2) && memcmp (head, "MM", 2)))
    return 0;
  t->big_endian = head[0] == 'M';
  const uint64_t version = number (t, head + 2, 2);
  t->big_tiff = version == 43;
  return version == 42 ? number (t, head + 4, 4) : version == 43 ? number (t, head + 8, 8) : 0;
}

int
cli_tiff_pages (const char *path, int *sample_format)
{
  if (sample_format)
    *sample_format = 0;
  tiff_reader t = { .f = fopen (path, "rb"), .entries_left = MAX_ENTRIES };
  if (!t.f)
    return 0;
  uint64_t next = read_header (&t);
  int pages = 0;
  uint64_t *seen = next ? calloc (2 * MAX_DIRECTORIES, sizeof *seen) : NULL;
  for (int n = 0; seen && next != 0 && n < MAX_DIRECTORIES && !seen_before (seen, next); n++)
    {
      bool page;
      if (!read_directory (&t, next, &page, &next, n == 0 ? sample_format : NULL, NULL))
        break;
      pages += page;
    }
  free (seen);
  fclose (t.f);
  return pages;
}

int
cli_tiff_orientation (FILE *f)
{
  tiff_reader t = { .f = f, .entries_left = MAX_ENTRIES };
  uint64_t first = read_header (&t), next;
  bool page;
  int orientation = 1;
  if (!first || !read_directory (&t, first, &page, &next, NULL, &orientation))
    return 1;
  return orientation >= 1 && orientation <= 8 ? orientation : 1;
}
