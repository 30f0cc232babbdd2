/* A temporary folder of gpufx's own for each run (see private_tmp.h).
 *
 * GEGL's fallback loader, gegl:magick-load (BMP, TGA and whatever else ImageMagick reads),
 * has ImageMagick convert the file into one fixed name in GLib's temporary folder,
 * /tmp/gegl-magick.png, and then loads that.  Every process and every user shares the
 * name: where convert fails (a damaged file, an unknown one), the loader reads whatever an
 * earlier run left there, and gives it as the picture with no error; two runs at once read
 * each other's pictures; a file left by another user cannot be replaced and is read every
 * time.  A folder of this process's own, as $TMPDIR, gives that name to this run alone. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "private_tmp.h"

/* GEGL's own name for the file convert writes (operations/common/magick-load.c), and
 * gpufx's (magick_convert.c). */
#define MAGICK_FILE "gegl-magick.png"

static char private_dir[GFX_PATH_LEN], magick_file[GFX_PATH_LEN + 32],
  own_magick_file[GFX_PATH_LEN + 32];

bool
cli_private_tmp_magick_file (char *path, size_t len)
{
  return private_dir[0] && (size_t) snprintf (path, len, "%s", own_magick_file) < len;
}

void
cli_private_tmp_remove_now (void)
{
  if (!private_dir[0])
    return;
  unlink (magick_file);
  unlink (own_magick_file);
  rmdir (private_dir);
}

static void
remove_at_exit (void)
{
  if (private_dir[0])
    cli_remove_dir (private_dir); /* and any other file left in it */
  private_dir[0] = '\0';
}

static void
remove_on_signal (int sig)
{
  cli_private_tmp_remove_now ();
  signal (sig, SIG_DFL);
  raise (sig);
}

void
cli_private_tmp_begin (void)
{
  const char *tmp = getenv ("TMPDIR");
  int n = snprintf (private_dir, sizeof private_dir, "%s/gpufx-XXXXXX",
                    tmp && *tmp ? tmp : "/tmp");
  if (n < 0 || (size_t) n >= sizeof private_dir || !mkdtemp (private_dir))
    {
      private_dir[0] = '\0';
      return;
    }
  snprintf (magick_file, sizeof magick_file, "%s/%s", private_dir, MAGICK_FILE);
  snprintf (own_magick_file, sizeof own_magick_file, "%s/%s", private_dir, CLI_MAGICK_FILE);
  setenv ("TMPDIR", private_dir, 1);
  atexit (remove_at_exit);
  signal (SIGINT, remove_on_signal);
  signal (SIGTERM, remove_on_signal);
  signal (SIGHUP, remove_on_signal);
}
