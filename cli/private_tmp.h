/* A temporary folder of gpufx's own for each run (private_tmp.c). */
#ifndef GFX_CLI_PRIVATE_TMP_H
#define GFX_CLI_PRIVATE_TMP_H

#include <stdbool.h>
#include <stddef.h>

/* First thing in main(), before anything reads $TMPDIR (GLib keeps what it reads first) and
 * before any thread starts (it calls setenv): makes a folder only this process uses in
 * $TMPDIR and names it $TMPDIR, for this process and what it starts (ImageMagick).  It is
 * removed, with what is left in it, at exit and on SIGINT, SIGTERM and SIGHUP.  Where it
 * cannot be made, $TMPDIR stays as it was. */
void cli_private_tmp_begin (void);

/* The name gpufx's own conversions through ImageMagick write (magick_convert.c). */
#define CLI_MAGICK_FILE "gpufx-magick.png"

/* That file's path in the folder, false where there is none ($TMPDIR shared). */
bool cli_private_tmp_magick_file (char *path, size_t len);

/* Removes it now, with async-signal-safe calls only: for a signal handler of another
 * part (image_save.c's) that is about to end the process. */
void cli_private_tmp_remove_now (void);

#endif
