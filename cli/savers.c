/* The output formats gpufx writes: the GEGL saver of each file name extension, and what
 * each format can hold (see cli.h).  GEGL need not run for any of this. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cli.h"

typedef struct {
  const char *ext, *op, *format;
  bool alpha; /* holds an alpha channel */
  bool lossy; /* compresses with loss (GEGL's JPEG and WebP savers have no lossless mode) */
  int bits;   /* most bits a sample (32: float); 0: RGBE, 8-bit mantissas sharing an exponent */
} saver_kind;

/* GEGL's own lookup silently falls back to PNG for unknown extensions (and warns on
 * stderr); an explicit table refuses them instead.  What each holds was read back from
 * what GEGL 0.4 writes (tests/py/test_cli_output_losses.py checks it still is). */
static const saver_kind SAVERS[] = {
  { ".png", "gegl:png-save", "PNG", true, false, 16 },
  { ".jpg", "gegl:jpg-save", "JPEG", false, true, 8 },
  { ".jpeg", "gegl:jpg-save", "JPEG", false, true, 8 },
  { ".tif", "gegl:tiff-save", "TIFF", true, false, 32 },
  { ".tiff", "gegl:tiff-save", "TIFF", true, false, 32 },
  { ".ppm", "gegl:ppm-save", "PNM", false, false, 16 },
  { ".pgm", "gegl:ppm-save", "PNM", false, false, 16 },
  { ".pnm", "gegl:ppm-save", "PNM", false, false, 16 },
  { ".webp", "gegl:webp-save", "WebP", true, true, 8 },
  { ".exr", "gegl:exr-save", "OpenEXR", true, false, 32 },
  { ".hdr", "gegl:rgbe-save", "Radiance HDR", false, false, 0 },
  { ".npy", "gegl:npy-save", "NumPy", false, false, 32 },
};

const char *
cli_file_extension (const char *path)
{
  const char *dot = strrchr (path, '.'), *slash = strrchr (path, '/');
  return dot && (!slash || dot > slash) ? dot : NULL;
}

/* The table's row for the extension of path, or NULL. */
static const saver_kind *
saver_kind_of (const char *path)
{
  const char *ext = cli_file_extension (path);
  for (size_t i = 0; ext && i < sizeof SAVERS / sizeof SAVERS[0]; i++)
    if (!g_ascii_strcasecmp (ext, SAVERS[i].ext))
      return &SAVERS[i];
  return NULL;
}

/* The row for an output named path ("-", "tif:-" or a file name). */
static const saver_kind *
output_kind (const char *path)
{
  char file[GFX_PATH_LEN];
  if (!cli_is_stdout (path))
    return saver_kind_of (path);
  cli_stdout_file (path, file, sizeof file);
  return saver_kind_of (file);
}

const char *
cli_saver_named (const char *path)
{
  const saver_kind *s = saver_kind_of (path);
  return s ? s->op : NULL;
}

const char *
cli_saver_for_output (const char *path)
{
  const saver_kind *s = output_kind (path);
  return s ? s->op : NULL;
}

#define FEW_LEVELS 16

/* Marks value v (below 65536) in seen; counts it in *n the first time. */
static inline void
mark_value (unsigned char *seen, unsigned v, int *n)
{
  *n += !seen[v];
  seen[v] = 1;
}

/* Marks a float's bit pattern in a small open-addressed set (FEW_LEVELS + 1 values fill at
 * most half of it); counts it in *n the first time. */
#define FLOAT_SLOTS 64
static inline void
mark_float (uint32_t *keys, unsigned char *used, float v, int *n)
{
  uint32_t bits;
  memcpy (&bits, &v, sizeof bits);
  unsigned slot = (bits * 2654435761u) >> 26; /* 6 bits: FLOAT_SLOTS */
  while (used[slot] && keys[slot] != bits)
    slot = (slot + 1) % FLOAT_SLOTS;
  if (!used[slot])
    used[slot] = 1, keys[slot] = bits, (*n)++;
}

/* How many distinct values the colour samples of img take, up to FEW_LEVELS + 1: a result
 * of a few levels (a halftone's) is what lossy compression spoils most visibly.  One
 * table look-up a sample (integer values, or a float's bits): a few milliseconds a
 * megapixel, and a photograph stops at its first rows. */
static int
distinct_levels (const gfx_image *img)
{
  const size_t pixels = (size_t) img->width * (size_t) img->height, ch = (size_t) img->channels;
  const size_t nc = (size_t) gfx_image_color_channels (img);
  unsigned char seen[65536] = { 0 }, used[FLOAT_SLOTS] = { 0 };
  uint32_t keys[FLOAT_SLOTS];
  const uint8_t *u8 = img->pixels;
  const uint16_t *u16 = img->pixels;
  const float *f = img->pixels;
  int n = 0;
  for (size_t p = 0; p < pixels && n <= FEW_LEVELS; p++)
    for (size_t c = 0, i = p * ch; c < nc; c++, i++)
      if (img->depth == GFX_U8)
        mark_value (seen, u8[i], &n);
      else if (img->depth == GFX_U16)
        mark_value (seen, u16[i], &n);
      else
        mark_float (keys, used, f[i], &n);
  return n;
}

void
cli_output_losses (const char *path, const gfx_image *img, char *note, size_t len)
{
  static const char *const depth_name[] = { [GFX_U8] = "8-bit", [GFX_U16] = "16-bit",
                                            [GFX_F32] = "float" };
  const saver_kind *s = output_kind (path);
  note[0] = '\0';
  if (!s)
    return;
  const bool alpha = !s->alpha && !gfx_image_opaque (img);
  const bool bits = s->bits == 0 || !gfx_image_fits_bits (img, s->bits, s->alpha);
  const int levels = s->lossy ? distinct_levels (img) : FEW_LEVELS + 1;
  size_t used = 0;
  if (alpha || bits)
    {
      char holds[96], rounded[64];
      if (s->bits)
        {
          snprintf (holds, sizeof holds, "at most %d bits a sample", s->bits);
          snprintf (rounded, sizeof rounded, "the %s samples are rounded to %d bits",
                    depth_name[img->depth], s->bits);
        }
      else
        {
          snprintf (holds, sizeof holds, "RGBE (8-bit mantissas sharing an exponent)");
          snprintf (rounded, sizeof rounded, "the samples are rounded to RGBE");
        }
      snprintf (note, len, "%s: %s holds %s%s%s, so %s%s%s (.tif keeps %s)",
                cli_stream_name (path), s->format, alpha ? "no alpha channel" : "",
                alpha && bits ? " and " : "", bits ? holds : "",
                alpha ? "the alpha channel is left out" : "", alpha && bits ? " and " : "",
                bits ? rounded : "", alpha && bits ? "both" : alpha ? "it" : "them");
      used = strlen (note);
    }
  if (levels < 2 || levels > FEW_LEVELS || used >= len) /* one level: a flat picture stays */
    return;
  if (used)
    snprintf (note + used, len - used, "; %s also compresses with loss, so the result's %d "
              "levels do not stay exact", s->format, levels);
  else
    snprintf (note, len, "%s: %s compresses with loss, so the result's %d levels do not stay "
              "exact (.png keeps them)", cli_stream_name (path), s->format, levels);
}
