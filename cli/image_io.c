/* Reading images with GEGL for the CLI, and starting GEGL (see cli.h; image_save.c
 * writes them). */
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gegl.h>

#include "cli.h"
#include "image_io.h"
#include "rgbe_read.h"
#include "exif_orientation.h"
#include "tiff_pages.h"
#include "private_tmp.h"

static bool gegl_started;

/* GEGL's and GLib's warnings (a broken file gives several) are kept, not printed: the CLI
 * says one line, which quotes the first of them.  GPUFX_DEBUG=1 prints them as well. */
static char gegl_said[CLI_GEGL_SAID_LEN];

static void fatal (const gchar *domain, const gchar *message);

static void
keep_warning (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
  (void) data;
  if (level & (G_LOG_FLAG_FATAL | G_LOG_LEVEL_ERROR))
    fatal (domain, message);
  bool warning = level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  if (warning && !gegl_said[0])
    snprintf (gegl_said, sizeof gegl_said, "%s", message);
  for (char *c = gegl_said; *c; c++)
    if (*c == '\n')
      *c = ' ';
  if (getenv ("GPUFX_DEBUG"))
    g_log_default_handler (domain, level, message, NULL);
}

char *
cli_gegl_said (void)
{
  return gegl_said;
}

void
cli_gegl_start (void)
{
  if (!gegl_started)
    {
      g_log_set_default_handler (keep_warning, NULL);
      gegl_init (NULL, NULL);
      gegl_started = true;
    }
}

void
cli_io_shutdown (void)
{
  if (gegl_started)
    gegl_exit ();
  gegl_started = false;
}

/* The babl format naming a core layout, perceptual ("Y'", "R'G'B'") as the core works. */
const Babl *
cli_layout_format (int colors, bool alpha, gfx_depth depth, const Babl *space)
{
  char name[64];
  snprintf (name, sizeof name, "%s%s %s", colors == 1 ? "Y'" : "R'G'B'", alpha ? "A" : "",
            depth == GFX_U8 ? "u8" : depth == GFX_U16 ? "u16" : "float");
  return babl_format_with_space (name, space);
}

/* PNG colour type 3 and GIF are palette images; GEGL hands them over as RGB(A). */
static bool
file_is_indexed (const char *path)
{
  unsigned char head[26] = { 0 };
  FILE *f = fopen (path, "rb");
  size_t n = f ? fread (head, 1, sizeof head, f) : 0;
  if (f)
    fclose (f);
  if (n >= 26 && !memcmp (head, "\x89PNG\r\n\x1a\n", 8))
    return head[25] == 3;
  return n >= 6 && !memcmp (head, "GIF8", 4);
}

/* Chooses the core layout nearest to what the file holds. */
static void
pick_layout (const Babl *fmt, int *colors, bool *alpha, gfx_depth *depth)
{
  bool palette = babl_format_is_palette (fmt);
  int n = babl_format_get_n_components (fmt);
  *alpha = babl_format_has_alpha (fmt);
  *colors = !palette && n - (*alpha ? 1 : 0) == 1 ? 1 : 3;
  const Babl *type = babl_format_get_type (fmt, 0);
  *depth = palette || type == babl_type ("u8") ? GFX_U8
           : type == babl_type ("u16")         ? GFX_U16
                                               : GFX_F32;
}

/* Codecs print straight to stderr (libpng's "LIBPNG ERROR: ...", its warnings; GEGL's
 * PNG saver its write errors) and libjpeg even exit()s on a broken file or a failed write.
 * While GEGL reads or writes, fd 2 goes to a temporary file: its words decide whether the
 * image is refused (instead of processing a half-decoded one) or the output failed, and an
 * exit from inside a codec still ends with one line naming the file. */
static int saved_stderr = -1;
static FILE *captured;
static const char *capture_path, *capture_what;
static int capture_status;
static void (*capture_cleanup) (void);

static void
captured_text (char *buf, size_t len)
{
  buf[0] = '\0';
  if (!captured)
    return;
  fflush (stderr);
  rewind (captured);
  size_t n = fread (buf, 1, len - 1, captured);
  buf[n] = '\0';
  if (getenv ("GPUFX_DEBUG") && saved_stderr >= 0)
    (void) !write (saved_stderr, buf, n);
  for (char *c = buf; *c; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  while (n > 0 && buf[n - 1] == ' ')
    buf[--n] = '\0';
}

void
cli_capture_end (char *said, size_t len)
{
  captured_text (said, len);
  if (saved_stderr >= 0)
    {
      fflush (stderr);
      dup2 (saved_stderr, 2);
      close (saved_stderr);
    }
  if (captured)
    fclose (captured);
  saved_stderr = -1;
  captured = NULL;
}

static void
exit_while_capturing (void)
{
  if (!captured)
    return;
  char said[256];
  cli_capture_end (said, sizeof said);
  if (capture_cleanup)
    capture_cleanup ();
  const char *cmd = cli_command_running ();
  fprintf (stderr, "gpufx%s%s: %s: %s (%s)\n", cmd ? " " : "", cmd ? cmd : "", capture_path,
           capture_what, said);
  _exit (capture_status);
}

/* GLib's fatal errors end the process (g_malloc's "failed to allocate N bytes" when a
 * loader or saver runs out of memory: GLib then traps, with nothing said).  Says so in one
 * line, removes what the run was writing and its own folder, and exits with status 1;
 * without allocating, as memory may be what ran out. */
static void
fatal (const gchar *domain, const gchar *message)
{
  const char *said = message;
  for (const char *c = message; *c && *c != ' '; c++) /* "../glib/gmem.c:136: failed ..." */
    if (c[0] == ':' && c[1] == ' ')
      said = c + 2;
  bool memory = strstr (said, "failed to allocate") != NULL;
  char line[512];
  const char *cmd = cli_command_running ();
  int n = snprintf (line, sizeof line, "gpufx%s%s: %s%s%s(%s%s%s); nothing was written\n",
                    cmd ? " " : "", cmd ? cmd : "", captured ? capture_path : "",
                    captured ? ": " : "", memory ? "out of memory " : "", domain ? domain : "",
                    domain ? ": " : "", said);
  int to = saved_stderr >= 0 ? saved_stderr : 2; /* the user's stderr, not a codec capture */
  if (n > 0)
    (void) !write (to, line, (size_t) n < sizeof line ? (size_t) n : sizeof line - 1);
  cli_save_abandon_now ();
  cli_private_tmp_remove_now ();
  _exit (CLI_FAILED);
}

void
cli_capture_begin (const char *path, const char *what, int status, void (*cleanup) (void))
{
  static bool registered;
  fflush (stderr);
  captured = tmpfile ();
  saved_stderr = captured ? dup (2) : -1;
  if (saved_stderr < 0 || dup2 (fileno (captured), 2) < 0)
    {
      if (captured)
        fclose (captured);
      captured = NULL;
      return;
    }
  capture_path = path;
  capture_what = what;
  capture_status = status;
  capture_cleanup = cleanup;
  if (!registered)
    registered = atexit (exit_while_capturing) == 0;
}

/* Whether a decoder's words say it failed (warnings alone do not refuse the image): those
 * on stderr (said), or GEGL's TIFF loader's through GLib (gegl_said) about the rows a cut
 * file lacks, where it hands over the image with the last row read repeated. */
static bool
decoder_failed (const char *said)
{
  return strstr (said, "ERROR") || strstr (said, "libpng error") || strstr (said, "Premature end")
         || strstr (gegl_said, "Read error at scanline");
}

/* Refuses sizes that cannot work before GEGL allocates: above the core's limit, or when
 * even one byte a pixel for GEGL's copy and ours exceeds the machine's memory. */
static gfx_status
check_size (const char *name, const GeglRectangle *box, gfx_error *err)
{
  size_t pixels = (size_t) box->width * (size_t) box->height;
  size_t memory = (size_t) sysconf (_SC_PHYS_PAGES) * (size_t) sysconf (_SC_PAGESIZE);
  if (box->width > GFX_MAX_SIDE || box->height > GFX_MAX_SIDE)
    return gfx_fail (err, GFX_ERR_INPUT, "%s: %d x %d pixels: a side may be at most %d pixels",
                     name, box->width, box->height, GFX_MAX_SIDE);
  if (pixels > GFX_MAX_SAMPLES / 4)
    return gfx_fail (err, GFX_ERR_INPUT, "%s: %d x %d pixels is too large (gpufx accepts at "
                     "most %zu pixels)", name, box->width, box->height, GFX_MAX_SAMPLES / 4);
  if (memory > 0 && pixels > memory / 2)
    return gfx_fail (err, GFX_ERR_INPUT, "%s: %d x %d pixels is too large for this machine's "
                     "%zu MiB of memory", name, box->width, box->height, memory >> 20);
  return GFX_OK;
}

/* Radiance HDR, read by gpufx itself (rgbe_read.h says why): linear RGB floats, as GEGL's
 * loader gives them where it can. */
static GeglBuffer *
load_rgbe (const char *path, const char *name, gfx_error *err)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    {
      gfx_fail (err, GFX_ERR_INPUT, "%s: cannot read: %s", name, strerror (errno));
      return NULL;
    }
  cli_rgbe_header head;
  gfx_image img = { 0 };
  gfx_status st = cli_rgbe_read_header (f, name, &head, err);
  const GeglRectangle box = { 0, 0, head.width, head.height };
  if (st == GFX_OK)
    st = check_size (name, &box, err);
  if (st == GFX_OK)
    st = cli_rgbe_read_pixels (f, name, &head, &img, err);
  fclose (f);
  if (st != GFX_OK)
    return NULL;
  return gegl_buffer_linear_new_from_data (img.pixels, babl_format ("RGB float"), &box,
                                           GEGL_AUTO_ROWSTRIDE, free, NULL);
}

static GeglBuffer *
load_buffer (const char *path, const char *name, int *frames, gfx_error *err)
{
  GeglBuffer *buffer = NULL;
  char said[256], converted[GFX_PATH_LEN] = "";
  *frames = 1;
  const char *named = cli_loader_by_signature (path); /* the file's head, read once */
  if (named && !strcmp (named, "gegl:rgbe-load"))
    return load_rgbe (path, name, err);
  const char *loader = named && gegl_has_operation (named) ? named : NULL;
  if (!loader && (cli_magick_only (path) || cli_load_falls_to_magick (path))
      && cli_magick_to_png (path, name, converted, sizeof converted, err))
    {
      if (!converted[0])
        return NULL;
      path = converted;
      loader = "gegl:png-load";
    }
  if (cli_file_cut_short (path, loader))
    {
      gfx_fail (err, GFX_ERR_INPUT, "%s: the file is cut short (it ends before its image "
                "data does)", name);
      return NULL;
    }
  cli_capture_begin (name, "cannot read this file as an image", CLI_USAGE, NULL);
  GeglNode *graph = gegl_node_new ();
  GeglNode *load = gegl_node_new_child (graph, "operation", loader ? loader : "gegl:load",
                                        "path", path, NULL);
  GeglNode *sink = gegl_node_new_child (graph, "operation", "gegl:buffer-sink", "buffer",
                                        &buffer, NULL);
  gegl_node_link (load, sink);
  /* An unreadable file has an empty extent or, through the magick fallback loader, at
   * times an infinite one; processing either can take for ever. */
  GeglRectangle box = gegl_node_get_bounding_box (load);
  bool sized = box.width > 0 && box.height > 0 && !gegl_rectangle_is_infinite_plane (&box);
  if (!loader && cli_load_found_no_loader (load))
    gfx_fail (err, GFX_ERR_INPUT, "%s: not an image format gpufx can tell (neither its first "
              "bytes nor its file name's extension name one GEGL reads here: PNG, JPEG, TIFF, "
              "OpenEXR, WebP, GIF, PNM, Radiance HDR...)", name);
  else if (sized && check_size (name, &box, err) == GFX_OK)
    gegl_node_process (sink);
  *frames = 1;
  if (loader && gegl_operation_find_property (loader, "frames")) /* an animated GIF's */
    gegl_node_get (load, "frames", frames, NULL);
  cli_capture_end (said, sizeof said);
  g_object_unref (graph);
  if (converted[0]) /* the buffer holds the pixels now */
    unlink (converted);
  if (buffer && decoder_failed (said))
    {
      g_object_unref (buffer);
      buffer = NULL;
    }
  if (said[0] && !gegl_said[0])
    snprintf (gegl_said, sizeof gegl_said, "%s", said);
  return buffer;
}

/* The space the core works in for a file in space: space itself, but for a profile whose
 * TRC is linear (GIMP's export of a linear-light image) its twin with sRGB's TRC, as GIMP
 * 2.10 encodes such an image perceptually (R'G'B' in the linear space itself would be the
 * linear samples unchanged: a halftone's middle level at 0.5 linear, not GIMP's 0.214). */
static const Babl *
perceptual_twin (const Babl *format, const Babl *space)
{
  const Babl *r = NULL, *g = NULL, *b = NULL, *linear = babl_trc ("linear");
  babl_space_get (space, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &r, &g, &b);
  bool is_linear = r == linear && (!g || g == linear) && (!b || b == linear);
  return is_linear && !strchr (babl_format_get_encoding (format), '~') /* sRGB's own TRC */
           ? babl_space_with_trc (space, babl_trc ("sRGB"))
           : space;
}

/* Labels buffer's samples, which are linear (R'G'B' in a linear space is RGB), as the same
 * linear samples in twin: "R'G'B'A u16" becomes "RGBA u16", "Y' float" "Y float". */
static void
relabel_linear (GeglBuffer *buffer, const Babl *twin)
{
  char linear[64];
  size_t n = 0;
  for (const char *c = babl_format_get_encoding (gegl_buffer_get_format (buffer));
       *c && n + 1 < sizeof linear; c++)
    if (*c != '\'')
      linear[n++] = *c;
  linear[n] = '\0';
  gegl_buffer_set_format (buffer, babl_format_with_space (linear, twin));
}

/* Whether own holds the same samples as work in another encoding or type: babl's model
 * flags equal but for the transfer curve (Y/Y', RGB/R'G'B', alpha alike), no palette. */
static bool
same_samples_other_encoding (const Babl *own, const Babl *work)
{
  const BablModelFlag curve = BABL_MODEL_FLAG_LINEAR | BABL_MODEL_FLAG_NONLINEAR
                              | BABL_MODEL_FLAG_PERCEPTUAL;
  return own != work && !babl_format_is_palette (own)
         && (babl_get_model_flags (babl_format_get_model (own)) & ~curve)
              == (babl_get_model_flags (babl_format_get_model (work)) & ~curve);
}

void
cli_source_free (cli_source *src)
{
  g_clear_object (&src->buffer);
}

gfx_status
cli_load (const char *path, gfx_image *img, char *note, size_t note_len, gfx_error *err)
{
  cli_source src;
  gfx_status st = cli_load_source (path, img, &src, note, note_len, err);
  cli_source_free (&src);
  return st;
}

/* Adds a clause to the load's note, after "; " where it has one already. */
static void G_GNUC_PRINTF (3, 4)
add_note (char *note, size_t len, const char *fmt, ...)
{
  size_t used = strlen (note);
  if (used && used + 2 < len)
    used += (size_t) snprintf (note + used, len - used, "; ");
  if (used + 1 >= len)
    return;
  va_list args;
  va_start (args, fmt);
  vsnprintf (note + used, len - used, fmt, args);
  va_end (args);
}

/* cli_load_source of the file at path, called name in messages. */
static gfx_status
load_source (const char *path, const char *name, gfx_image *img, cli_source *src, char *note,
             size_t note_len, gfx_error *err)
{
  struct stat sb;
  bool known = stat (path, &sb) == 0; /* else fopen below says why */
  if (known && !S_ISREG (sb.st_mode)) /* a fifo would block for ever */
    return gfx_fail (err, GFX_ERR_INPUT, "%s: not a regular file (%s)", name,
                     S_ISDIR (sb.st_mode) ? "a folder"
                                          : "a device, fifo or socket: - reads standard input");
  if (known && sb.st_size == 0) /* GEGL's JPEG loader quotes stray bytes */
    return gfx_fail (err, GFX_ERR_INPUT, "%s: %s is empty", name,
                     name == path ? "the file" : "it");
  FILE *f = fopen (path, "rb");
  if (!f)
    return gfx_fail (err, GFX_ERR_INPUT, "%s: cannot read: %s", name, strerror (errno));
  fclose (f);
  /* GEGL's TIFF loader reads signed and complex samples as unsigned integers. */
  int sample_format;
  const int pages = cli_tiff_pages (path, &sample_format);
  if (pages > 0 && (sample_format == 2 || sample_format == 5 || sample_format == 6))
    return gfx_fail (err, GFX_ERR_INPUT, "%s: a TIFF of %s samples, which gpufx cannot read "
                     "(GEGL would take them for unsigned integers): store unsigned integers "
                     "or floats", name, sample_format == 2 ? "signed integer" : "complex");
  cli_gegl_start ();
  gegl_said[0] = '\0';
  gfx_error_clear (err);
  int frames;
  GeglBuffer *buffer = load_buffer (path, name, &frames, err);
  const GeglRectangle *r = buffer ? gegl_buffer_get_extent (buffer) : NULL;
  if (!r || r->width < 1 || r->height < 1)
    {
      if (buffer)
        g_object_unref (buffer);
      if (err->msg[0]) /* refused for its size */
        return err->status;
      return gfx_fail (err, GFX_ERR_INPUT, "%s: GEGL cannot read this file as an image%s%s%s",
                       name, gegl_said[0] ? " (" : "", gegl_said, gegl_said[0] ? ")" : "");
    }
  int colors;
  bool alpha;
  gfx_depth depth;
  pick_layout (gegl_buffer_get_format (buffer), &colors, &alpha, &depth);
  bool indexed = babl_format_is_palette (gegl_buffer_get_format (buffer)) || file_is_indexed (path);
  if (indexed)
    add_note (note, note_len, "%s is an indexed image: converted to %s", name,
              alpha ? "RGBA" : "RGB");
  if (frames > 1 || pages > 1) /* GEGL reads the first */
    add_note (note, note_len, "%s has %d %s: the first is used", note[0] ? "it" : name,
              frames > 1 ? frames : pages, frames > 1 ? "frames" : "pages");
  gfx_status st = gfx_image_alloc (img, r->width, r->height, colors + (alpha ? 1 : 0), alpha,
                                   depth, err);
  /* The file's own colour space: only the encoding changes, never the primaries (an
   * Adobe RGB or Display P3 photograph keeps its gamut; an EXR its exact values).  CMYK
   * has no R'G'B' of its own: such files become sRGB, as GIMP 2.10 loads them. */
  src->space = babl_format_get_space (gegl_buffer_get_format (buffer));
  if (babl_space_is_cmyk (src->space))
    src->space = babl_space ("sRGB");
  src->work_space = perceptual_twin (gegl_buffer_get_format (buffer), src->space);
  if (src->work_space != src->space)
    relabel_linear (buffer, src->work_space);
  const Babl *work = cli_layout_format (colors, alpha, depth, src->work_space);
  if (st == GFX_OK)
    gegl_buffer_get (buffer, r, 1.0, work, img->pixels, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  if (st == GFX_OK)
    st = cli_cmyk_jpeg_as_gimp (path, buffer, img, err);
  /* A photograph is turned as its EXIF orientation asks, as viewers show it and GIMP
   * offers on import; GEGL's loaders leave it as stored.  The file's own pixels, kept
   * for writing unchanged samples back exactly, would no longer line up: not kept then. */
  const int orientation = st == GFX_OK ? cli_file_orientation (path) : 1;
  if (orientation > 1)
    {
      st = gfx_image_orient (img, orientation, err);
      static const char *const turned[] = { "", "", "mirrored", "turned half round",
                                            "flipped upside down", "transposed",
                                            "turned a quarter clockwise", "transversed",
                                            "turned a quarter anticlockwise" };
      if (st == GFX_OK)
        add_note (note, note_len, "%s %s, as its EXIF orientation (%d) asks",
                  note[0] ? "it is" : name, turned[orientation], orientation);
    }
  if (st == GFX_OK && orientation == 1
      && same_samples_other_encoding (gegl_buffer_get_format (buffer), work))
    src->buffer = buffer;
  else
    g_object_unref (buffer);
  return st;
}

gfx_status
cli_load_source (const char *path, gfx_image *img, cli_source *src, char *note,
                 size_t note_len, gfx_error *err)
{
  memset (img, 0, sizeof *img);
  *src = (cli_source) { NULL, NULL, NULL };
  note[0] = '\0';
  if (!cli_is_stdin (path))
    return load_source (path, path, img, src, note, note_len, err);
  char file[64];
  int fd;
  gfx_status st = cli_stdin_open (file, sizeof file, &fd, err);
  if (st == GFX_OK)
    st = load_source (file, cli_stream_name (path), img, src, note, note_len, err);
  if (fd >= 0)
    close (fd);
  return st;
}
