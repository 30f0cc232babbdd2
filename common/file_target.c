/* Which file a write replaces, and what of it is kept (file_target.h). */
#include "file_target.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
gfx_file_target (const char *path, char *target, size_t len)
{
  if (snprintf (target, len, "%s", path) >= (int) len)
    return ENAMETOOLONG;
  for (int hops = 0;; hops++)
    {
      struct stat sb;
      if (lstat (target, &sb) != 0)
        return 0; /* nothing yet */
      if (S_ISDIR (sb.st_mode)) /* the caller refuses it, naming it a folder */
        return 0;
      if (!S_ISLNK (sb.st_mode) && !S_ISREG (sb.st_mode))
        return GFX_FILE_NOT_REGULAR;
      if (!S_ISLNK (sb.st_mode))
        return access (target, W_OK) != 0 ? errno : 0;
      if (hops == 40)
        return ELOOP;
      char link[PATH_MAX], next[2 * PATH_MAX];
      ssize_t n = readlink (target, link, sizeof link - 1);
      if (n < 0)
        return errno;
      link[n] = '\0';
      const char *slash = strrchr (target, '/');
      int dir_len = link[0] != '/' && slash ? (int) (slash - target) + 1 : 0;
      snprintf (next, sizeof next, "%.*s%s", dir_len, target, link);
      if (snprintf (target, len, "%s", next) >= (int) len)
        return ENAMETOOLONG;
    }
}

const char *
gfx_file_target_error (int e)
{
  return e == GFX_FILE_NOT_REGULAR ? "not a regular file (a device, fifo or socket)"
                                   : strerror (e);
}

void
gfx_file_keep_mode (const char *file, const char *target)
{
  struct stat sb;
  if (stat (target, &sb) != 0)
    return;
  if (chown (file, (uid_t) -1, sb.st_gid) != 0) /* not a group of ours */
    sb.st_mode &= ~(mode_t) S_IRWXG;
  if (chown (file, sb.st_uid, (gid_t) -1) != 0)
    {
      /* only root gives a file away: it stays ours, as if we had made it */
    }
  chmod (file, sb.st_mode & 0777);
}
