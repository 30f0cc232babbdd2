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
      if (!S_ISLNK (sb.st_mode)) /* a file, or a folder (the caller refuses it) */
        return S_ISREG (sb.st_mode) && access (target, W_OK) != 0 ? errno : 0;
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
