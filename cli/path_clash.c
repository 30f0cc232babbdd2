/* Outputs that would overwrite one another or an input (see cli.h). */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Where path is or would be: the real path of its folder and its own name. */
static void
where (const char *path, char *out, size_t len)
{
  char dir_copy[GFX_PATH_LEN], base_copy[GFX_PATH_LEN];
  snprintf (dir_copy, sizeof dir_copy, "%s", path);
  snprintf (base_copy, sizeof base_copy, "%s", path);
  const char *given = dirname (dir_copy);
  char *dir = realpath (given, NULL); /* NULL for a missing folder: then as given */
  snprintf (out, len, "%s/%s", dir ? dir : given, basename (base_copy));
  free (dir);
}

/* Whether a and b name the same file, existing (the same inode, through links too) or to
 * be made (the same name in the same folder).  Standard streams are no files. */
static bool
same_file (const char *a, const char *b)
{
  if (!a || !b || !a[0] || !b[0] || cli_is_stdin (a) || cli_is_stdout (a) || cli_is_stdin (b)
      || cli_is_stdout (b))
    return false;
  struct stat sa, sb;
  const bool ea = stat (a, &sa) == 0, eb = stat (b, &sb) == 0;
  if (ea && eb)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char wa[2 * GFX_PATH_LEN], wb[2 * GFX_PATH_LEN];
  where (a, wa, sizeof wa);
  where (b, wb, sizeof wb);
  return !strcmp (wa, wb);
}

gfx_status
cli_outputs_apart (const cli_named_path *outs, int n_outs, const cli_named_path *ins, int n_ins,
                   bool first_may_be_input, gfx_error *err)
{
  for (int i = 0; i < n_outs; i++)
    {
      for (int j = 0; j < i; j++)
        if (same_file (outs[i].path, outs[j].path))
          return gfx_fail (err, GFX_ERR_INPUT, "%s %s is the same file as %s: each output "
                           "needs a name of its own", outs[i].name, outs[i].path, outs[j].name);
      for (int k = 0; k < n_ins; k++)
        if (!(i == 0 && k == 0 && first_may_be_input) && same_file (outs[i].path, ins[k].path))
          return gfx_fail (err, GFX_ERR_INPUT, "%s %s is the same file as %s: writing it "
                           "would replace the input", outs[i].name, outs[i].path, ins[k].name);
    }
  return GFX_OK;
}
