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
 * before; GEGL_PATH set by the user, or GPUFX_GEGL_ALL_MODULES=1, is left alone.
 *
 * A filter command that knows its files before GEGL starts narrows that further to the
 * input's loader and the outputs' savers (cli_gegl_modules_for_files), in a directory of
 * its own per set: the other loaders bring in librsvg, pango, libraw and poppler, ~30 ms
 * of a 1024x1024 PNG halftone's ~95 ms.  gegl:text is not needed there: the loader is
 * named by the file's first bytes, so gegl:load, which falls back to it, is not used. */
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
#include "image_io.h"

#ifndef GFX_GEGL_MODULE_DIR
#define GFX_GEGL_MODULE_DIR ""
#endif

static bool selected; /* GEGL_PATH is ours */

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

/* The module a file name (e.g. "png-load.so") holds, without its x86-64 level: "png-load";
 * false if it is not a module. */
static bool
module_base (const char *file, char *base, size_t len)
{
  if (!ends_with (file, ".so"))
    return false;
  snprintf (base, len, "%.*s", (int) (strlen (file) - 3), file);
  /* GEGL picks among gegl-common.so, gegl-common-x86_64-v2.so and -v3.so itself. */
  char *variant = strstr (base, "-x86_64-v");
  if (variant)
    *variant = '\0';
  return true;
}

/* Whether gpufx loads the module base: with only (a NULL-ended list), GEGL's core and
 * common operations and those; without, every image loader and saver and gegl:text. */
static bool
module_wanted (const char *base, const char *const *only)
{
  if (!strcmp (base, "gegl-core") || !strcmp (base, "gegl-common"))
    return true;
  if (only)
    {
      for (; *only; only++)
        if (!strcmp (base, *only))
          return true;
      return false;
    }
  if (!strcmp (base, "text"))
    return true;
  if (!strncmp (base, "ff-", 3))  /* video */
    return false;
  return ends_with (base, "-load") || ends_with (base, "-save");
}

/* Links the wanted modules of src into a new directory dest; false if dest is not whole:
 * a module of only missing, or a directory laid out otherwise (GEGL then loads all). */
static bool
link_modules (const char *src, const char *dest, const char *const *only)
{
  DIR *d = opendir (src);
  if (!d)
    return false;
  bool ok = true, core = false, png = false;
  unsigned seen = 0, all = 0; /* bit i: only[i] */
  char base[256];
  for (struct dirent *e; ok && (e = readdir (d));)
    if (module_base (e->d_name, base, sizeof base) && module_wanted (base, only))
      {
        char *from = g_build_filename (src, e->d_name, NULL);
        char *to = g_build_filename (dest, e->d_name, NULL);
        ok = symlink (from, to) == 0;
        core = core || !strcmp (base, "gegl-core");
        png = png || !strcmp (base, "png-load");
        for (int i = 0; only && only[i]; i++)
          seen |= !strcmp (base, only[i]) ? 1u << i : 0;
        g_free (from);
        g_free (to);
      }
  closedir (d);
  for (int i = 0; only && only[i]; i++)
    all |= 1u << i;
  return ok && core && (only ? seen == all : png);
}

/* The cached directory for src's current contents (with only: of those modules), made if
 * missing; NULL on failure. */
static char *
module_dir (const char *src, const char *const *only)
{
  struct stat st;
  if (stat (src, &st) != 0 || !S_ISDIR (st.st_mode))
    return NULL;
  GString *name = g_string_new (NULL);
  g_string_printf (name, "gegl-modules-%llx-%lld.%09ld", (unsigned long long) st.st_ino,
                   (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  for (const char *const *m = only; m && *m; m++)
    g_string_append_printf (name, "+%s", *m);
  char *parent = cli_own_cache_dir ();
  char *dir = g_build_filename (parent, name->str, NULL);
  g_string_free (name, TRUE);
  bool ready = stat (dir, &st) == 0 && S_ISDIR (st.st_mode);
  if (!ready && g_mkdir_with_parents (parent, 0700) == 0)
    {
      /* Made under a private name and renamed, so no run sees it half made; a run that
       * loses the race to another uses the winner's (same contents). */
      char *tmp = g_strconcat (dir, ".XXXXXX", NULL);
      if (mkdtemp (tmp))
        {
          if (link_modules (src, tmp, only) && rename (tmp, dir) == 0)
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

/* Points GEGL at the directory of the wanted modules (NULL-ended only, or all). */
static void
select_modules (const char *const *only)
{
  char *dir = module_dir (GFX_GEGL_MODULE_DIR, only);
  if (!dir)
    return;
  /* Without GEGL_PATH GEGL would also load the user's own plug-ins: keep them. */
  char *user = g_build_filename (g_get_user_data_dir (), "gegl-0.4", "plug-ins", NULL);
  char *path = g_file_test (user, G_FILE_TEST_IS_DIR)
                 ? g_strconcat (dir, G_SEARCHPATH_SEPARATOR_S, user, NULL)
                 : g_strdup (dir);
  debug_note ("GEGL_PATH =", path);
  setenv ("GEGL_PATH", path, 1);
  selected = true;
  g_free (path);
  g_free (user);
  g_free (dir);
}

void
cli_gegl_modules_select (void)
{
  const char *all = getenv ("GPUFX_GEGL_ALL_MODULES");
  if (getenv ("GEGL_PATH") || (all && strcmp (all, "0")) || !GFX_GEGL_MODULE_DIR[0])
    return;
  select_modules (NULL);
}

void
cli_gegl_modules_for_files (const char *in, const char *const *outs, int n_outs)
{
  const char *only[8] = { 0 };
  int n = 0;
  struct stat st; /* a FIFO would block here; standard input is read later */
  if (!selected || n_outs > 6 || stat (in, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  const char *load = cli_loader_by_signature (in);
  if (!load)
    return;
  only[n++] = load + strlen ("gegl:");
  for (int i = 0; i < n_outs; i++)
    {
      const char *save = outs[i] ? cli_saver_for_output (outs[i]) : NULL;
      if (outs[i] && !save)
        return; /* cli_check_output says why, with every saver there */
      bool listed = false;
      for (int k = 0; save && k < n; k++)
        listed = listed || !strcmp (only[k], save + strlen ("gegl:"));
      if (save && !listed)
        only[n++] = save + strlen ("gegl:");
    }
  select_modules (only);
}
