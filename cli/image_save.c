/* Writing images with GEGL for the CLI (see cli.h): savers by extension, a temporary file
 * renamed at the end (or copied to standard output); PGM/PPM and black-and-white PNG
 * written directly (image_write_own.c). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <gegl.h>

#include "../common/file_target.h"
#include "cli.h"
#include "image_io.h"
#include "private_tmp.h"

/* The output is written as a file of the output's own name in a private folder next to
 * the file it replaces (whatever a saver leaves there goes with the folder), then renamed
 * into place.  The folder is removed on failure, on a signal and on
 * an exit() from inside a codec. */
static char pending_dir[GFX_PATH_LEN + 32], pending_tmp[2 * GFX_PATH_LEN + 32];

/* The saver for the extension of path, if GEGL has it. */
static const char *
saver_for (const char *path)
{
  const char *op = cli_saver_named (path);
  return op && gegl_has_operation (op) ? op : NULL;
}

void
cli_remove_dir (const char *dir)
{
  DIR *d = opendir (dir);
  if (d)
    {
      for (struct dirent *e; (e = readdir (d));)
        if (strcmp (e->d_name, ".") && strcmp (e->d_name, ".."))
          {
            char *f = g_build_filename (dir, e->d_name, NULL);
            unlink (f);
            g_free (f);
          }
      closedir (d);
    }
  rmdir (dir);
}

/* Removes the private folder and what is in it (savers make no folders). */
static void
discard_pending (void)
{
  if (pending_dir[0])
    cli_remove_dir (pending_dir);
  pending_dir[0] = pending_tmp[0] = '\0';
}

void
cli_save_abandon_now (void)
{
  if (pending_tmp[0]) /* async-signal-safe calls only: a saver's own leftovers may stay */
    unlink (pending_tmp);
  if (pending_dir[0])
    rmdir (pending_dir);
}

static void
remove_pending (int sig)
{
  cli_save_abandon_now ();
  cli_private_tmp_remove_now ();
  signal (sig, SIG_DFL);
  raise (sig);
}

/* gfx_file_target, with the CLI's message. */
static gfx_status
output_target (const char *path, char *target, size_t len, gfx_error *err)
{
  int e = gfx_file_target (path, target, len);
  return e ? gfx_fail (err, GFX_ERR_IO, "%s: cannot write: %s%s", path,
                       gfx_file_target_error (e),
                       e == GFX_FILE_NOT_REGULAR ? "; - writes to standard output" : "")
           : GFX_OK;
}

/* Makes the private folder next to path and names the file to write in it. */
static gfx_status
make_temp (const char *path, gfx_error *err)
{
  const char *slash = strrchr (path, '/');
  int dir_len = slash ? (int) (slash - path) + 1 : 0;
  snprintf (pending_dir, sizeof pending_dir, "%.*s.gpufx-XXXXXX", dir_len, path);
  if (!mkdtemp (pending_dir))
    {
      pending_dir[0] = '\0';
      return gfx_fail (err, GFX_ERR_IO, "%s: cannot write in %.*s: %s", path,
                       dir_len ? dir_len : 1, dir_len ? path : ".", strerror (errno));
    }
  snprintf (pending_tmp, sizeof pending_tmp, "%s/%s", pending_dir, path + dir_len);
  return GFX_OK;
}

/* Free blocks on the file system of path (for this user), or -1 if unknown. */
static long long
free_blocks (const char *path)
{
  struct statvfs fs;
  if (statvfs (path, &fs) != 0)
    return -1;
  return (long long) (geteuid () == 0 ? fs.f_bfree : fs.f_bavail);
}

/* Some savers (TIFF, WebP, EXR, RGBE, NPY) say nothing when a write fails and leave a
 * shortened file.  The common causes still show: the file system that had room is full,
 * or the file has reached the process's size limit.  (A full quota does not show here; a
 * write that happens to take the very last block is refused too.) */
static const char *
write_stopped (off_t size, long long free_before)
{
  struct rlimit lim;
  if (getrlimit (RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY
      && (unsigned long long) size >= (unsigned long long) lim.rlim_cur)
    return "the file size limit (ulimit -f) was reached";
  if (free_before > 0 && free_blocks (pending_dir) == 0)
    return "no space left on the device";
  return NULL;
}

/* gray: one colour channel, written as such where the saver has the choice (JPEG). */
static void
write_buffer (GeglBuffer *buffer, const char *op, const char *path, bool gray)
{
  GeglNode *graph = gegl_node_new ();
  GeglNode *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer",
                                       buffer, NULL);
  GeglNode *save = gegl_node_new_child (graph, "operation", op, "path", path, NULL);
  /* Keep the buffer's precision (the file's own, for a filter's result on a file kept as
   * it was stored): png and ppm hold 8 or 16 bits; tiff (it has "fp") also half, float
   * and double. */
  const Babl *format = gegl_buffer_get_format (buffer);
  int bits = 8 * babl_format_get_bytes_per_pixel (format) / babl_format_get_n_components (format);
  if (!gegl_operation_find_property (op, "fp") && bits > 16)
    bits = 16;
  if (gegl_operation_find_property (op, "bitdepth"))
    gegl_node_set (save, "bitdepth", bits, NULL);
  if (gray && gegl_operation_find_property (op, "grayscale"))
    gegl_node_set (save, "grayscale", TRUE, NULL);
  gegl_node_link (src, save);
  gegl_node_process (save);
  g_object_unref (graph);
}

/* GEGL's PNG saver writes no profile for a gray image: where its space came with a gray
 * ICC profile (a scanned photograph's "Gray Gamma 2.2", say) the file gets that one, as
 * the TIFF and JPEG savers give it.  (An RGB profile cannot go with gray samples.) */
static bool
png_gray_profile (const char *path, const gfx_image *img, const Babl *space)
{
  int len = 0;
  const char *icc = space && gfx_image_color_channels (img) == 1 ? babl_space_get_icc (space, &len)
                                                                 : NULL;
  if (!icc || len < 20 || memcmp (icc + 16, "GRAY", 4) != 0)
    return true;
  return cli_png_add_iccp (path, "ICC profile", icc, (size_t) len);
}

/* A gray JPEG only in sRGB: GEGL's saver would give it the space's RGB profile, which no
 * reader can apply to one channel; without a profile it is sRGB's gray. */
static bool
gray_jpeg (const char *op, const gfx_image *img, const Babl *space)
{
  return !strcmp (op, "gegl:jpg-save") && gfx_image_color_channels (img) == 1
         && cli_space_is_srgb (space);
}

/* What GEGL's savers get wrong, put right in the file at path they wrote.  False when the
 * file could not be read back. */
static bool
mend_saved (const char *op, const char *path, const gfx_image *img, const Babl *space)
{
  if (gray_jpeg (op, img, space)) /* the profile GEGL gave it */
    return cli_jpeg_drop_icc (path);
  /* GEGL 0.4.42's PNG saver gives an image not in sRGB a background colour (bKGD) it
   * never sets: 8-bit files lose it to a libpng warning, 16-bit ones keep whatever the
   * memory held, different from run to run.  It means nothing: out it goes. */
  if (!strcmp (op, "gegl:png-save") && !cli_space_is_srgb (space))
    return cli_png_drop_chunk (path, "bKGD") && png_gray_profile (path, img, space);
  return true;
}

/* Whether a saver's words on stderr say it failed.  libpng's warnings do not: libpng goes
 * on after each (GEGL's PNG saver hands it an unset background colour for any image not in
 * sRGB, which libpng drops with "Ignoring attempt to write 16-bit bKGD chunk ..."). */
static bool
codec_failed (const char *codec)
{
  static const char warning[] = "libpng warning:";
  return codec[0] && (strncmp (codec, warning, sizeof warning - 1) != 0
                      || strcasestr (codec, "error"));
}

/* img as the buffer to save: in the core's layout (in src's colour space) or, for a
 * filter's result on in whose file cli_load_source kept (src), in that file's own format
 * with every sample the filter left alone (img has it as in has it) as the file stored it.
 * NULL and err when there is no memory for the latter (a large half-float file needs two
 * buffers besides the core's images). */
static GeglBuffer *
buffer_to_save (const gfx_image *in, const gfx_image *img, const cli_source *src,
                const char *name, gfx_error *err)
{
  const Babl *work = cli_layout_format (gfx_image_color_channels (img), img->has_alpha,
                                        img->depth, src ? src->work_space : NULL);
  const GeglRectangle rect = { 0, 0, img->width, img->height };
  if (!in || !src || !src->buffer)
    {
      GeglBuffer *buffer = gegl_buffer_new (&rect, work);
      gegl_buffer_set (buffer, &rect, 0, work, img->pixels, GEGL_AUTO_ROWSTRIDE);
      return buffer;
    }
  const Babl *own = gegl_buffer_get_format (src->buffer);
  const size_t pixels = (size_t) img->width * img->height;
  const size_t sample_bytes = (size_t) babl_format_get_bytes_per_pixel (own) / img->channels;
  const size_t bytes = pixels * img->channels * sample_bytes;
  guchar *result = g_try_malloc (bytes);
  guchar *stored = result ? g_try_malloc (bytes) : NULL;
  if (!stored)
    {
      g_free (result);
      gfx_fail (err, GFX_ERR_NOMEM, "%s: out of memory for the result in the file's "
                "precision (2 x %zu MiB)", name, bytes >> 20);
      return NULL;
    }
  babl_process (babl_fish (work, own), img->pixels, result, (long) pixels);
  gegl_buffer_get (src->buffer, &rect, 1.0, own, stored, GEGL_AUTO_ROWSTRIDE,
                   GEGL_ABYSS_NONE);
  gfx_image_keep_unchanged (in, img, stored, result, sample_bytes);
  /* The file's own samples in the file's own space (buffer may be labelled in the twin). */
  const Babl *file = babl_format_with_space (babl_format_get_encoding (own), src->space);
  GeglBuffer *buffer = gegl_buffer_new (&rect, file);
  gegl_buffer_set (buffer, &rect, 0, file, result, GEGL_AUTO_ROWSTRIDE);
  g_free (stored);
  g_free (result);
  return buffer;
}

gfx_status
cli_save (const char *path, const gfx_image *img, gfx_error *err)
{
  return cli_save_result (path, NULL, img, NULL, err);
}

gfx_status
cli_save_result (const char *path, const gfx_image *in, const gfx_image *img,
                 const cli_source *src, gfx_error *err)
{
  gfx_status st = cli_check_output (path, err);
  if (st != GFX_OK)
    return st;
  char stdout_file[GFX_PATH_LEN], target[GFX_PATH_LEN];
  const bool to_stdout = cli_is_stdout (path);
  const char *name = cli_stream_name (path);
  if (to_stdout)
    cli_stdout_file (path, stdout_file, sizeof stdout_file);
  else if ((st = output_target (path, target, sizeof target, err)) != GFX_OK)
    return st;
  const char *op = saver_for (to_stdout ? stdout_file : path); /* the name given, not a link's */
  /* Our own writers take PPM without alpha and black-and-white PNG (in any space); GEGL's
   * savers the rest, from a buffer made before the temporary file exists. */
  const bool own = (!strcmp (op, "gegl:ppm-save") && !img->has_alpha)
                   || (!strcmp (op, "gegl:png-save") && cli_is_black_and_white (img));
  GeglBuffer *buffer = own ? NULL : buffer_to_save (in, img, src, name, err);
  if (!own && !buffer)
    return err->status;
  /* GEGL 0.4's TIFF writer sizes its row buffer in a 32-bit int and aborts (an assertion)
   * when the image is 2 GiB or more: refused before it starts. */
  const size_t bytes = buffer ? (size_t) img->width * img->height
                                  * babl_format_get_bytes_per_pixel (gegl_buffer_get_format (buffer))
                              : 0;
  if (!strcmp (op, "gegl:tiff-save") && bytes >= (size_t) 1 << 31)
    {
      g_clear_object (&buffer);
      return gfx_fail (err, GFX_ERR_IO, "%s: a TIFF of %d x %d (%zu MiB) is more than GEGL's "
                       "TIFF writer can make (less than 2 GiB); write .png, .pgm or .exr instead",
                       name, img->width, img->height, bytes >> 20);
    }
  st = make_temp (to_stdout ? stdout_file : target, err);
  if (st != GFX_OK)
    {
      g_clear_object (&buffer);
      return st;
    }
  void (*old_int) (int) = signal (SIGINT, remove_pending);
  void (*old_term) (int) = signal (SIGTERM, remove_pending);
  void (*old_hup) (int) = signal (SIGHUP, remove_pending); /* the terminal closed */
  const char *tmp = pending_tmp;
  long long free_before = free_blocks (pending_dir);
  char *said = cli_gegl_said (), codec[256] = "";
  said[0] = '\0';
  bool written = true, tidy = true;
  errno = 0;
  const Babl *space = src ? src->space : NULL;
  if (own && !strcmp (op, "gegl:ppm-save"))
    written = cli_write_pnm (tmp, img, src ? src->work_space : NULL);
  else if (own) /* gray: it keeps a gray profile as GEGL's PNGs do (mend_saved) */
    written = cli_write_png_1bit (tmp, img) && png_gray_profile (tmp, img, space);
  else
    {
      cli_icc_tidy (babl_format_get_space (gegl_buffer_get_format (buffer)));
      cli_capture_begin (name, "could not be written", CLI_FAILED, discard_pending);
      write_buffer (buffer, op, tmp, gray_jpeg (op, img, space));
      cli_capture_end (codec, sizeof codec);
      g_object_unref (buffer);
      tidy = mend_saved (op, tmp, img, space);
    }
  int own_errno = errno;
  struct stat sb;
  bool present = stat (tmp, &sb) == 0 && sb.st_size > 0;
  const char *stopped = write_stopped (present ? sb.st_size : 0, free_before);
  /* A GEGL saver's failure shows only in its words (a warning, or text on stderr), a
   * missing or empty file, or write_stopped. */
  const char *why = stopped                       ? stopped
                    : own && !written             ? strerror (own_errno ? own_errno : EIO)
                    : !own && (said[0] || codec_failed (codec)) ? (said[0] ? said : codec)
                    : !present                    ? "the saver wrote nothing"
                    : !tidy                       ? "the file could not be read back"
                                                  : NULL;
  if (why)
    st = own ? gfx_fail (err, GFX_ERR_IO, "%s: cannot write: %s", name, why)
             : gfx_fail (err, GFX_ERR_IO, "%s: GEGL (%s) could not write the image (%s)",
                         name, op, why);
  else if (to_stdout)
    st = cli_stdout_send (tmp, err);
  else
    {
      gfx_file_keep_mode (tmp, target);
      if (rename (tmp, target) != 0)
        st = gfx_fail (err, GFX_ERR_IO, "%s: cannot write: %s", path, strerror (errno));
    }
  discard_pending ();
  signal (SIGINT, old_int); /* the run's own folder's handler (private_tmp.c) */
  signal (SIGTERM, old_term);
  signal (SIGHUP, old_hup);
  return st;
}

gfx_status
cli_side_by_side (const gfx_image *a, const gfx_image *b, gfx_image *out, gfx_error *err)
{
  int height = a->height > b->height ? a->height : b->height;
  gfx_status st = gfx_image_alloc (out, a->width + b->width, height, a->channels, a->has_alpha,
                                   a->depth, err);
  if (st != GFX_OK)
    return st;
  if (b->channels != a->channels || b->depth != a->depth)
    {
      gfx_image_free (out);
      return gfx_fail (err, GFX_ERR_INTERNAL, "--compare: the result's layout differs");
    }
  size_t px = gfx_depth_bytes (a->depth) * a->channels, row = px * out->width;
  for (int y = 0; y < height; y++)
    {
      char *dst = (char *) out->pixels + y * row;
      if (y < a->height)
        memcpy (dst, (const char *) a->pixels + y * px * a->width, px * a->width);
      if (y < b->height)
        memcpy (dst + px * a->width, (const char *) b->pixels + y * px * b->width,
                px * b->width);
    }
  return GFX_OK;
}

gfx_status
cli_check_output (const char *path, gfx_error *err)
{
  cli_gegl_start ();
  const char *name = cli_stream_name (path);
  char file[GFX_PATH_LEN], target[GFX_PATH_LEN];
  struct stat sb;
  if (cli_is_stdout (path))
    {
      cli_stdout_file (path, file, sizeof file);
      if (!saver_for (file))
        return gfx_fail (err, GFX_ERR_INPUT, "standard output: GEGL has no saver for \"%s\" "
                         "(use - for PNG, or png:-, tif:-, jpg:-, ppm:-, webp:-, exr:-...)", path);
      if (cli_stdout_check (err) != GFX_OK)
        return err->status;
      path = file; /* its folder ($TMPDIR) must be writable */
    }
  else if (stat (path, &sb) == 0 && S_ISDIR (sb.st_mode)) /* via links, before "extension" */
    return gfx_fail (err, GFX_ERR_IO, "%s: cannot write: it is a folder", name);
  else if (!saver_for (path))
    return gfx_fail (err, GFX_ERR_INPUT, "%s: GEGL has no saver for this file name's "
                     "extension (use .png, .tif, .jpg, .ppm, .webp...)", path);
  else if (output_target (path, target, sizeof target, err) != GFX_OK)
    return err->status;
  else
    path = target; /* through symbolic links: where the file is written */
  const char *slash = strrchr (path, '/');
  char dir[GFX_PATH_LEN];
  snprintf (dir, sizeof dir, "%.*s", slash ? (int) (slash - path) + 1 : 1, slash ? path : ".");
  if (access (dir, W_OK) != 0)
    return gfx_fail (err, GFX_ERR_IO, "%s: cannot write in %s: %s", name, dir, strerror (errno));
  return GFX_OK;
}
