/* Files that only ImageMagick reads here (see image_io.h).
 *
 * GEGL has no loader of its own for BMP, TGA, PSD, PAM and the like; its fallback,
 * gegl:magick-load, has convert write a PNG and loads that.  convert tags that PNG with a
 * gamma of 1/2.2 and sRGB's chromaticities, and GEGL takes them at their word: a plain BMP
 * (sRGB by convention, and as GIMP reads it) came out converted from gamma 2.2 to sRGB, up
 * to 9 levels darker in the shadows, as float RGBA.  gpufx runs convert itself, leaving
 * those chunks out (an embedded ICC profile still goes through), and reads the PNG. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "cli.h"
#include "image_io.h"
#include "private_tmp.h"

/* Extensions that only ImageMagick reads among GEGL's loaders (GEGL has its own for PNG,
 * JPEG, TIFF, OpenEXR, WebP, GIF, PNM, Radiance HDR, SVG, PDF and camera raw files). */
static const char *const MAGICK_ONLY[] = {
  ".bmp", ".dib", ".tga", ".icb", ".vda", ".vst", ".pcx", ".psd", ".ico", ".cur", ".sgi",
  ".rgb", ".ras", ".sun", ".xpm", ".jp2", ".j2k", ".heic", ".avif", ".dds", ".pfm", ".miff",
  ".qoi", ".xwd", ".pam", ".pbm",
};

bool
cli_magick_only (const char *path)
{
  const char *ext = cli_file_extension (path);
  for (size_t i = 0; ext && i < sizeof MAGICK_ONLY / sizeof MAGICK_ONLY[0]; i++)
    if (!g_ascii_strcasecmp (ext, MAGICK_ONLY[i]))
      return true;
  return cli_magick_by_signature (path);
}

/* In convert's process, before it starts: the file at fd becomes its standard input. */
static void
feed_stdin (gpointer fd)
{
  dup2 (GPOINTER_TO_INT (fd), 0);
}

bool
cli_magick_to_png (const char *path, const char *name, char *png, size_t len, gfx_error *err)
{
  png[0] = '\0';
  GError *gerr = NULL;
  char *tmp = NULL, own[GFX_PATH_LEN];
  /* In the run's own folder under a name its signal handler knows; else a unique one. */
  int fd = cli_private_tmp_magick_file (own, sizeof own)
             ? open (own, O_WRONLY | O_CREAT | O_EXCL, 0600)
             : g_file_open_tmp ("gpufx-magick-XXXXXX.png", &tmp, &gerr);
  if (fd >= 0 && !tmp)
    tmp = g_strdup (own);
  else if (fd < 0 && !gerr)
    gerr = g_error_new_literal (G_FILE_ERROR, g_file_error_from_errno (errno), g_strerror (errno));
  if (fd < 0)
    {
      gfx_fail (err, GFX_ERR_IO, "%s: cannot make a temporary file for ImageMagick: %s", name,
                gerr->message);
      g_error_free (gerr);
      return true;
    }
  close (fd);
  /* "./" keeps a name that starts with '-' from reading as an option; [0] is the first
   * frame or page.  -auto-orient: ImageMagick 6 only notes a bottom-up TGA's origin (what
   * Pillow and GIMP write), and the picture came out upside down. */
  /* Standard input (read into a memory file named /proc/self/fd/N) is handed to convert
   * as its own standard input: that name would be convert's, and its policy refuses
   * /proc/PID paths. */
  const int piped = g_str_has_prefix (path, "/proc/self/fd/") ? open (path, O_RDONLY) : -1;
  char *in = piped >= 0 ? g_strdup ("-[0]")
                        : g_strdup_printf ("%s%s[0]", path[0] == '/' ? "" : "./", path);
  char *out = g_strdup_printf ("png:%s", tmp);
  char *argv[] = { "convert", in, "-auto-orient", "-define", "png:exclude-chunks=gAMA,cHRM,sRGB",
                   out, NULL };
  char *said = NULL;
  int status = -1;
  bool ran = g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                           piped >= 0 ? feed_stdin : NULL, GINT_TO_POINTER (piped), NULL, &said,
                           &status, &gerr);
  if (piped >= 0)
    close (piped);
  g_free (in);
  g_free (out);
  if (!ran) /* no convert here: GEGL's own fallback says what it can */
    {
      g_clear_error (&gerr);
      unlink (tmp);
      g_free (tmp);
      g_free (said);
      return false;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_strstrip (said);
      char *line = strchr (said, '\n');
      if (line)
        *line = '\0';
      gfx_fail (err, GFX_ERR_INPUT, "%s: ImageMagick cannot read this file as an image (%s)",
                name, said[0] ? said : "convert failed");
      unlink (tmp);
    }
  else
    snprintf (png, len, "%s", tmp);
  g_free (tmp);
  g_free (said);
  return true;
}
