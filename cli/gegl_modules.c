/* Which of GEGL's modules gpufx loads (see gegl_modules.h).
 *
 * gegl_init loads every module in GEGL's directory, and on Debian 12 that is most of a
 * small command's time: ~0.1 s of ~0.15 s for a 64x64 PNG, half of it ff-load and ff-save
 * (video through libav).  gpufx needs only GEGL's core and common operations (buffer
 * source and sink), the image loaders and savers, and gegl:text (gegl:load renders
 * its errors with it).  GEGL has no switch for a subset, but it loads what GEGL_PATH
 * names, so gpufx keeps a directory of links to those modules in the user's cache
 * (GEGL and babl keep theirs there too) and points GEGL_PATH at it.  The directory's
 * name carries the module directory's change time, so a GEGL upgrade that adds or
 * removes modules gets a new one.  Whatever goes wrong here, GEGL loads everything as
 * before; GEGL_PATH set by the user, or GPUFX_GEGL_ALL_MODULES=1, is left alone. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "babl_setup.h"
#include "cli.h"
#include "gegl_modules.h"

#ifndef GFX_GEGL_MODULE_DIR
#define GFX_GEGL_MODULE_DIR ""
#endif

static void
debug_note (const char *what, const char *path)
{
  if (getenv ("GPUFX_DEBUG"))
    fprintf (stderr, "gpufx: GEGL modules: %s %s\n", what, path);
}

static bool
ends_with (const char *s, const char *suffix)
{
  size_t n = strlen (s), k = strlen (suffix);
  return n >= k && !strcmp (s + n - k, suffix);
}

/* Whether the module file name (e.g. "png-load.so") is one gpufx loads. */
static bool
module_wanted (const char *file)
{
  if (!ends_with (file, ".so"))
    return false;
  char base[256];
  snprintf (base, sizeof base, "%.*s", (int) (strlen (file) - 3), file);
  /* GEGL picks among gegl-common.so, gegl-common-x86_64-v2.so and -v3.so itself. */
  char *variant = strstr (base, "-x86_64-v");
  if (variant)
    *variant = '\0';
  if (!strcmp (base, "gegl-core") || !strcmp (base, "gegl-common") || !strcmp (base, "text"))
    return true;
  if (!strncmp (base, "ff-", 3))  /* video */
    return false;
  return ends_with (base, "-load") || ends_with (base, "-save");
}

/* Links the wanted modules of src into a new directory dest; false if dest is not whole. */
static bool
link_modules (const char *src, const char *dest)
{
  DIR *d = opendir (src);
  if (!d)
    return false;
  bool ok = true;
  int core = 0, png = 0;
  for (struct dirent *e; ok && (e = readdir (d));)
    if (module_wanted (e->d_name))
      {
        char *from = g_build_filename (src, e->d_name, NULL);
        char *to = g_build_filename (dest, e->d_name, NULL);
        ok = symlink (from, to) == 0;
        core += !strcmp (e->d_name, "gegl-core.so");
        png += !strcmp (e->d_name, "png-load.so");
        g_free (from);
        g_free (to);
      }
  closedir (d);
  return ok && core && png;  /* a directory laid out otherwise: load everything */
}

/* The cached directory for src's current contents, made if missing; NULL on failure. */
static char *
module_dir (const char *src)
{
  struct stat st;
  if (stat (src, &st) != 0 || !S_ISDIR (st.st_mode))
    return NULL;
  char name[96];
  snprintf (name, sizeof name, "gegl-modules-%llx-%lld.%09ld", (unsigned long long) st.st_ino,
            (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  char *parent = cli_own_cache_dir ();
  char *dir = g_build_filename (parent, name, NULL);
  bool ready = stat (dir, &st) == 0 && S_ISDIR (st.st_mode);
  if (!ready && g_mkdir_with_parents (parent, 0700) == 0)
    {
      /* Made under a private name and renamed, so no run sees it half made; a run that
       * loses the race to another uses the winner's (same contents). */
      char *tmp = g_strconcat (dir, ".XXXXXX", NULL);
      if (mkdtemp (tmp))
        {
          if (link_modules (src, tmp) && rename (tmp, dir) == 0)
            ready = true;
          else
            {
              ready = stat (dir, &st) == 0 && S_ISDIR (st.st_mode);
              cli_remove_dir (tmp);
            }
        }
      g_free (tmp);
    }
  g_free (parent);
  if (!ready)
    {
      debug_note ("could not make a directory in the cache, loading all of", src);
      g_free (dir);
      return NULL;
    }
  return dir;
}

void
cli_gegl_modules_select (void)
{
  const char *all = getenv ("GPUFX_GEGL_ALL_MODULES");
  if (getenv ("GEGL_PATH") || (all && strcmp (all, "0")) || !GFX_GEGL_MODULE_DIR[0])
    return;
  char *dir = module_dir (GFX_GEGL_MODULE_DIR);
  if (!dir)
    return;
  /* Without GEGL_PATH GEGL would also load the user's own plug-ins: keep them. */
  char *user = g_build_filename (g_get_user_data_dir (), "gegl-0.4", "plug-ins", NULL);
  char *path = g_file_test (user, G_FILE_TEST_IS_DIR)
                 ? g_strconcat (dir, G_SEARCHPATH_SEPARATOR_S, user, NULL)
                 : g_strdup (dir);
  debug_note ("GEGL_PATH =", path);
  setenv ("GEGL_PATH", path, 1);
  g_free (path);
  g_free (user);
  g_free (dir);
}
