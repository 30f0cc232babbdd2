/* Radiance RGBE (.hdr) files (see rgbe_read.h), after Greg Ward's format notes and
 * Radiance's own reader (color.c: freadcolrs, oldreadcolrs): a "#?" line, variables up to
 * an empty line, the resolution line ("-Y H +X W" for rows top to bottom, left to right;
 * any of the eight orientations), then one scanline after another.  A scanline of 8 to
 * 32767 pixels may be run-length encoded by components (2, 2, its length, then the R, G, B
 * and E bytes in runs and dumps); otherwise it holds 4-byte pixels, where 1, 1, 1, n
 * repeats the previous pixel n times (n << 8 for a second marker in a row, and so on). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rgbe_read.h"

enum { LINE_OK, LINE_SHORT, LINE_BAD };
enum { HEADER_MAX = 1 << 16 }; /* bytes of variables, far above any real file's */
enum { SIDE_MAX = 1 << 24 };   /* pixels a side: the caller judges the whole picture's size */

static gfx_status
cut_short (const char *name, gfx_error *err)
{
  return gfx_fail (err, GFX_ERR_INPUT, "%s: the file is cut short (it ends before its image "
                   "data does)", name);
}

/* One header line into buf (its end cut if longer); false at the end of the file. */
static bool
header_line (FILE *f, char *buf, size_t len, size_t *used)
{
  size_t n = 0;
  int c;
  while ((c = getc (f)) != EOF && c != '\n')
    {
      if (n + 1 < len) /* past the kept part: read on to the newline */
        buf[n++] = (char) c;
      (*used)++;
    }
  (*used)++;
  buf[n] = '\0';
  if (n > 0 && buf[n - 1] == '\r')
    buf[n - 1] = '\0';
  return c != EOF;
}

/* "-Y 512 +X 768" and its seven siblings. */
static bool
parse_resolution (const char *line, cli_rgbe_header *head)
{
  char s1, a1, s2, a2;
  long n1, n2;
  char end;
  if (sscanf (line, " %c%c %ld %c%c %ld %c", &s1, &a1, &n1, &s2, &a2, &n2, &end) != 6)
    return false;
  a1 = (char) (a1 | 0x20), a2 = (char) (a2 | 0x20); /* x or y */
  if ((s1 != '+' && s1 != '-') || (s2 != '+' && s2 != '-') || a1 == a2
      || (a1 != 'x' && a1 != 'y') || (a2 != 'x' && a2 != 'y') || n1 < 1 || n2 < 1
      || n1 > SIDE_MAX || n2 > SIDE_MAX)
    return false;
  head->x_major = a1 == 'x';
  const char xs = head->x_major ? s1 : s2, ys = head->x_major ? s2 : s1;
  head->width = (int) (head->x_major ? n1 : n2);
  head->height = (int) (head->x_major ? n2 : n1);
  head->rows_up = ys == '+';
  head->columns_left = xs == '-';
  return true;
}

gfx_status
cli_rgbe_read_header (FILE *f, const char *name, cli_rgbe_header *head, gfx_error *err)
{
  char line[256];
  size_t used = 0;
  memset (head, 0, sizeof *head);
  if (!header_line (f, line, sizeof line, &used))
    return cut_short (name, err);
  if (strncmp (line, "#?", 2) != 0)
    return gfx_fail (err, GFX_ERR_INPUT, "%s: not a Radiance HDR file (it does not start with "
                     "#?)", name);
  for (;;)
    {
      if (!header_line (f, line, sizeof line, &used))
        return cut_short (name, err);
      if (!line[0])
        break;
      if (used > HEADER_MAX)
        return gfx_fail (err, GFX_ERR_INPUT, "%s: a Radiance HDR header without its end in "
                         "its first %d bytes", name, HEADER_MAX);
      if (!strncmp (line, "FORMAT=", 7) && strncmp (line + 7, "32-bit_rle_rgbe", 15) != 0)
        return gfx_fail (err, GFX_ERR_INPUT, "%s: a Radiance file of %s pixels; gpufx reads "
                         "32-bit_rle_rgbe ones", name, line + 7);
    }
  if (!header_line (f, line, sizeof line, &used))
    return cut_short (name, err);
  if (!parse_resolution (line, head))
    return gfx_fail (err, GFX_ERR_INPUT, "%s: a Radiance HDR file whose resolution line "
                     "\"%.64s\" is not two axes and sizes from 1 to %d (such as -Y 512 +X 768)",
                     name, line, SIDE_MAX);
  return GFX_OK;
}

/* An old-style scanline from its first 4 bytes on: pixels, and 1, 1, 1, n repeats. */
static int
read_old_line (FILE *f, uint8_t *line, int len, const uint8_t first[4])
{
  uint8_t px[4];
  memcpy (px, first, 4);
  int shift = 0;
  for (int i = 0;;)
    {
      if (px[0] == 1 && px[1] == 1 && px[2] == 1)
        {
          const size_t count = (size_t) px[3] << shift;
          if (i == 0 || shift > 24 || count > (size_t) (len - i))
            return LINE_BAD;
          for (size_t k = 0; k < count; k++, i++)
            memcpy (line + 4 * i, line + 4 * (i - 1), 4);
          shift += 8;
        }
      else
        {
          memcpy (line + 4 * i++, px, 4);
          shift = 0;
        }
      if (i == len)
        return LINE_OK;
      if (fread (px, 1, 4, f) != 4)
        return LINE_SHORT;
    }
}

/* A new-style scanline after its 4-byte head: each component in runs (128 + n, a byte
 * repeated n times) and dumps (n, then n bytes). */
static int
read_rle_line (FILE *f, uint8_t *line, int len)
{
  for (int c = 0; c < 4; c++)
    for (int j = 0; j < len;)
      {
        int code = getc_unlocked (f);
        if (code == EOF)
          return LINE_SHORT;
        const bool run = code > 128;
        if (run)
          code -= 128;
        if (code > len - j)
          return LINE_BAD;
        int v = run ? getc_unlocked (f) : 0;
        for (; code > 0; code--, j++)
          {
            if (!run)
              v = getc_unlocked (f);
            if (v == EOF)
              return LINE_SHORT;
            line[4 * j + c] = (uint8_t) v;
          }
      }
  return LINE_OK;
}

static int
read_line (FILE *f, uint8_t *line, int len)
{
  uint8_t head[4];
  if (fread (head, 1, 4, f) != 4)
    return LINE_SHORT;
  if (len < 8 || len > 0x7fff || head[0] != 2 || head[1] != 2 || (head[2] & 0x80))
    return read_old_line (f, line, len, head);
  if ((head[2] << 8 | head[3]) != len)
    return LINE_BAD;
  return read_rle_line (f, line, len);
}

gfx_status
cli_rgbe_read_pixels (FILE *f, const char *name, const cli_rgbe_header *head, gfx_image *img,
                      gfx_error *err)
{
  const int w = head->width, h = head->height;
  const int lines = head->x_major ? w : h, len = head->x_major ? h : w;
  uint8_t *line = malloc ((size_t) len * 4);
  if (!line)
    return gfx_fail (err, GFX_ERR_NOMEM, "%s: out of memory for a scanline of %d pixels",
                     name, len);
  gfx_status st = gfx_image_alloc (img, w, h, 3, false, GFX_F32, err);
  float *px = img->pixels;
  for (int s = 0; st == GFX_OK && s < lines; s++)
    {
      const int got = read_line (f, line, len);
      if (got == LINE_SHORT)
        st = cut_short (name, err);
      else if (got == LINE_BAD)
        st = gfx_fail (err, GFX_ERR_INPUT, "%s: a damaged Radiance HDR file (scanline %d "
                       "does not hold %d pixels)", name, s + 1, len);
      for (int p = 0; st == GFX_OK && p < len; p++)
        {
          const int along = head->x_major ? s : p, down = head->x_major ? p : s;
          const int x = head->columns_left ? w - 1 - along : along;
          const int y = head->rows_up ? h - 1 - down : down;
          const uint8_t *q = line + 4 * p;
          /* m * 2^(e - 136), as GEGL's loader and Ward's rgbe.c convert; exact in float */
          const float scale = q[3] ? ldexpf (1.0f, q[3] - 136) : 0.0f;
          float *o = px + 3 * ((size_t) y * w + x);
          o[0] = q[0] * scale, o[1] = q[1] * scale, o[2] = q[2] * scale;
        }
    }
  free (line);
  if (st != GFX_OK)
    gfx_image_free (img);
  return st;
}
