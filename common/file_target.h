/* Replacing a file by renaming a finished temporary over it, as every writer here does
 * (images in the CLI, filter files): which file that replaces, and what of it is kept.
 * Renaming over a symbolic link would replace the link and leave the file it names as it
 * was; a new file gets the umask's permissions, which would make a private (0600) file
 * world-readable. */
#ifndef GFX_FILE_TARGET_H
#define GFX_FILE_TARGET_H

#include <stddef.h>

/* The file that writing path replaces: path, or the end of its chain of symbolic links
 * (which need not exist yet; a relative link is relative to its own folder).  0, or
 * ELOOP / ENAMETOOLONG / readlink's errno, or access's (EACCES) where that file exists and
 * this user may not write it: renaming over a read-only file would get round that; or
 * GFX_FILE_NOT_REGULAR where it is a device, fifo or socket, which renaming would replace
 * by a plain file (as root, /dev/null itself). */
int gfx_file_target (const char *path, char *target, size_t len);

#define GFX_FILE_NOT_REGULAR (-1)

/* What gfx_file_target's answer e (not 0) means, for a message. */
const char *gfx_file_target_error (int e);

/* Gives file (the finished temporary) the permission bits and group of target when target
 * exists; where the group cannot be given, the group's bits are dropped rather than given
 * to another group. */
void gfx_file_keep_mode (const char *file, const char *target);

#endif
