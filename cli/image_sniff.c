/* Which GEGL loader reads a file, or whether only ImageMagick does, told by its first
 * bytes (see image_io.h).  gegl:load chooses by the file name's extension alone, and
 * where it finds none it does not fail: it hands back a picture of the words "Failed to
 * detect content type".  Standard input (read through a memory file's /proc name) has no
 * extension at all. */
#include <stdio.h>
#include <string.h>

#include <gegl.h>

#include "image_io.h"

typedef struct {
  const char *magic;
  size_t offset, len;
  const char *op; /* the GEGL loader; NULL in MAGICK_SIGNATURES */
} signature;

static const signature SIGNATURES[] = {
  { "\x89PNG\r\n\x1a\n", 0, 8, "gegl:png-load" },
  { "\xff\xd8\xff", 0, 3, "gegl:jpg-load" },
  { "II*\0", 0, 4, "gegl:tiff-load" },
  { "MM\0*", 0, 4, "gegl:tiff-load" },
  { "v/1\x01", 0, 4, "gegl:exr-load" },
  { "WEBP", 8, 4, "gegl:webp-load" }, /* after "RIFF" and the size */
  { "GIF87a", 0, 6, "gegl:gif-load" },
  { "GIF89a", 0, 6, "gegl:gif-load" },
  { "#?RADIANCE", 0, 10, "gegl:rgbe-load" },
  { "#?RGBE", 0, 6, "gegl:rgbe-load" },
  { "P2", 0, 2, "gegl:ppm-load" },
  { "P3", 0, 2, "gegl:ppm-load" },
  { "P5", 0, 2, "gegl:ppm-load" },
  { "P6", 0, 2, "gegl:ppm-load" },
};

/* Formats only ImageMagick reads here (BMP apart: its test is below). */
static const signature MAGICK_SIGNATURES[] = {
  { "8BPS", 0, 4, NULL },                         /* Photoshop */
  { "qoif", 0, 4, NULL },                         /* QOI */
  { "\0\0\0\x0cjP  \r\n\x87\n", 0, 12, NULL },     /* JPEG 2000 */
  { "\xff\x4f\xff\x51", 0, 4, NULL },             /* JPEG 2000 codestream */
  { "DDS ", 0, 4, NULL },                         /* DirectDraw surface */
  { "\x59\xa6\x6a\x95", 0, 4, NULL },             /* Sun raster */
  { "ftypheic", 4, 8, NULL }, { "ftypheix", 4, 8, NULL }, /* HEIF */
  { "ftypmif1", 4, 8, NULL }, { "ftypavif", 4, 8, NULL }, /* HEIF, AVIF */
  { "PF\n", 0, 3, NULL }, { "Pf\n", 0, 3, NULL },     /* PFM, colour and gray */
  { "P1", 0, 2, NULL }, { "P4", 0, 2, NULL },         /* Netpbm that GEGL's ppm-load */
  { "P7", 0, 2, NULL },                           /* does not read */
};

/* The first bytes of the file at path into head (zeros past its end); how many it has. */
static size_t
read_head (const char *path, unsigned char *head, size_t len)
{
  memset (head, 0, len);
  FILE *f = fopen (path, "rb");
  if (!f)
    return 0;
  size_t got = fread (head, 1, len, f);
  fclose (f);
  return got;
}

/* Whether one of the n signatures of table matches the got bytes of head. */
static const signature *
match (const unsigned char *head, size_t got, const signature *table, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (got >= table[i].offset + table[i].len
        && !memcmp (head + table[i].offset, table[i].magic, table[i].len))
      return &table[i];
  return NULL;
}

const char *
cli_loader_by_signature (const char *path)
{
  unsigned char head[16];
  const size_t got = read_head (path, head, sizeof head);
  const signature *s = match (head, got, SIGNATURES, sizeof SIGNATURES / sizeof SIGNATURES[0]);
  return s ? s->op : NULL;
}

bool
cli_magick_by_signature (const char *path)
{
  unsigned char h[32];
  const size_t got = read_head (path, h, sizeof h);
  /* "BM", then a DIB header that says its own size: 12, 40, 52, 56, 64, 108 or 124. */
  const unsigned dib = h[14] | h[15] << 8 | (unsigned) h[16] << 16 | (unsigned) h[17] << 24;
  if (got >= 18 && !memcmp (h, "BM", 2)
      && (dib == 12 || dib == 40 || dib == 52 || dib == 56 || dib == 64 || dib == 108
          || dib == 124))
    return true;
  return match (h, got, MAGICK_SIGNATURES,
                sizeof MAGICK_SIGNATURES / sizeof MAGICK_SIGNATURES[0]) != NULL;
}

/* Whether one of a gegl:load node's children runs operation op. */
static bool
load_uses (GeglNode *load, const char *op)
{
  bool found = false;
  GSList *children = gegl_node_get_children (load);
  for (GSList *c = children; c; c = c->next)
    found = found || !g_strcmp0 (gegl_node_get_operation (c->data), op);
  g_slist_free (children);
  return found;
}

bool
cli_load_found_no_loader (GeglNode *load)
{
  return load_uses (load, "gegl:text");
}

bool
cli_load_falls_to_magick (const char *path)
{
  GeglNode *graph = gegl_node_new ();
  GeglNode *load = gegl_node_new_child (graph, "operation", "gegl:load", "path", path, NULL);
  bool magick = load_uses (load, "gegl:magick-load");
  g_object_unref (graph);
  return magick;
}
