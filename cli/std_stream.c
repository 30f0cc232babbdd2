/* Standard input and output as image files (see cli.h).  GEGL's loaders and savers take
 * paths, so standard input is copied into an anonymous memory file that they open by its
 * /proc/self/fd name (it goes away with the process, whatever ends it), and an output
 * for standard output is written as a file in $TMPDIR first (image_save.c), then copied
 * out whole: a failed run writes nothing there. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "cli.h"

static bool stdin_taken;

bool
cli_is_stdin (const char *path)
{
  return path && !strcmp (path, "-");
}

bool
cli_is_stdout (const char *path)
{
  if (!path)
    return false;
  size_t n = strlen (path);
  return !strcmp (path, "-") || (n > 2 && !strcmp (path + n - 2, ":-") && !strchr (path, '/'));
}

const char *
cli_stream_name (const char *path)
{
  return cli_is_stdin (path) ? "standard input"
         : cli_is_stdout (path) ? "standard output" : path;
}

void
cli_stdout_file (const char *path, char *file, size_t len)
{
  size_t n = strlen (path);
  snprintf (file, len, "%s/stdout.%.*s", g_get_tmp_dir (),
            !strcmp (path, "-") ? 3 : (int) (n - 2), !strcmp (path, "-") ? "png" : path);
}

/* Copies from fd in to fd out until in ends; 0, or the errno of the call that failed
 * (reading: negative). */
static int
copy_fd (int in, int out)
{
  char buf[1 << 16];
  for (;;)
    {
      ssize_t got = read (in, buf, sizeof buf);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return got < 0 ? -errno : 0;
      for (ssize_t done = 0; done < got;)
        {
          ssize_t put = write (out, buf + done, (size_t) (got - done));
          if (put < 0 && errno != EINTR)
            return errno;
          done += put > 0 ? put : 0;
        }
    }
}

gfx_status
cli_stdin_open (char *file, size_t len, int *fd, gfx_error *err)
{
  *fd = -1;
  if (stdin_taken)
    return gfx_fail (err, GFX_ERR_INPUT, "standard input: already read for an earlier "
                     "argument (only one input can come from \"-\")");
  stdin_taken = true;
  if (isatty (0))
    return gfx_fail (err, GFX_ERR_INPUT, "standard input: it is a terminal (pipe or "
                     "redirect an image into it, as in gpufx ... - OUT < photo.png)");
  int mem = memfd_create ("gpufx-stdin", MFD_CLOEXEC);
  if (mem < 0)
    return gfx_fail (err, GFX_ERR_IO, "standard input: cannot keep it in memory: %s",
                     strerror (errno));
  int e = copy_fd (0, mem);
  if (e)
    {
      close (mem);
      return gfx_fail (err, e < 0 ? GFX_ERR_INPUT : GFX_ERR_IO, "standard input: cannot %s: %s",
                       e < 0 ? "read it" : "keep it in memory", strerror (e < 0 ? -e : e));
    }
  *fd = mem;
  snprintf (file, len, "/proc/self/fd/%d", mem);
  return GFX_OK;
}

gfx_status
cli_stdout_check (gfx_error *err)
{
  if (isatty (1))
    return gfx_fail (err, GFX_ERR_INPUT, "standard output: it is a terminal (redirect it to "
                     "a file or a pipe, or name an output file)");
  return GFX_OK;
}

gfx_status
cli_stdout_send (const char *file, gfx_error *err)
{
  FILE *f = fopen (file, "rb");
  if (!f)
    return gfx_fail (err, GFX_ERR_IO, "standard output: cannot read back %s: %s", file,
                     strerror (errno));
  /* A closed pipe is an error to report, not a signal that kills before the cleanup. */
  void (*old) (int) = signal (SIGPIPE, SIG_IGN);
  fflush (stdout);
  int e = copy_fd (fileno (f), 1);
  fclose (f);
  signal (SIGPIPE, old);
  if (e)
    return gfx_fail (err, GFX_ERR_IO, "standard output: cannot write: %s",
                     strerror (e < 0 ? -e : e));
  return GFX_OK;
}

gfx_status
cli_stdout_reserved (const char *option, const char *path, gfx_error *err)
{
  if (!cli_is_stdout (path))
    return GFX_OK;
  return gfx_fail (err, GFX_ERR_INPUT, "%s %s: standard output carries this command's report; "
                   "give a file name", option, path);
}
