/* Which GEGL loader reads a file, told by its first bytes (see image_io.h).  gegl:load
 * chooses by the file name's extension alone, and where it finds none it does not fail:
 * it hands back a picture of the words "Failed to detect content type".  Standard input
 * (read through a memory file's /proc name) has no extension at all. */
#include <stdio.h>
#include <string.h>

#include <gegl.h>

#include "image_io.h"

static const struct {
  const char *magic;
  size_t offset, len;
  const char *op;
} SIGNATURES[] = {
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

const char *
cli_loader_by_signature (const char *path)
{
  unsigned char head[16] = { 0 };
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  size_t got = fread (head, 1, sizeof head, f);
  fclose (f);
  for (size_t i = 0; i < sizeof SIGNATURES / sizeof SIGNATURES[0]; i++)
    if (got >= SIGNATURES[i].offset + SIGNATURES[i].len
        && !memcmp (head + SIGNATURES[i].offset, SIGNATURES[i].magic, SIGNATURES[i].len))
      return SIGNATURES[i].op;
  return NULL;
}

const char *
cli_loader_for_content (const char *path)
{
  const char *op = cli_loader_by_signature (path);
  return op && gegl_has_operation (op) ? op : NULL;
}

bool
cli_load_found_no_loader (GeglNode *load)
{
  bool text = false;
  GSList *children = gegl_node_get_children (load);
  for (GSList *c = children; c; c = c->next)
    {
      const char *op = gegl_node_get_operation (c->data);
      text = text || (op && !strcmp (op, "gegl:text"));
    }
  g_slist_free (children);
  return text;
}
