/* babl's fish cache and tolerance in gpufx (see babl_setup.h).
 *
 * babl 0.1.98 times its lookup tables at start, allocating and filling 256 MB, whenever
 * the fish cache it reads holds an 8-bit conversion a table could serve.  GIMP's cache
 * always does, and photographs through gpufx add such entries too; on a 2-core machine
 * that is ~0.2 s added to a job of ~0.1 s.  So gpufx has babl skip the cache
 * (BABL_INHIBIT_CACHE).  babl still writes its own few entries as it exits, which would
 * replace the user's cache, so XDG_CACHE_HOME, where babl looks, names a folder of
 * gpufx's own.  GLib keeps the user's cache folder for everything else (GEGL's swap):
 * it reads XDG_CACHE_HOME once, at its first call, which this makes before the change.
 *
 * Without a cache babl times its conversion chains afresh in every run, and picks the
 * fastest within its tolerance: on a busy machine the same EXR came out different from
 * one run to the next.  GFX_BABL_TOLERANCE (common/image.h) leaves only exact chains. */
#include <stdlib.h>

#include <glib.h>

#include "../common/image.h"
#include "babl_setup.h"

char *
cli_own_cache_dir (void)
{
  return g_build_filename (g_get_user_cache_dir (), "gpufx", NULL);
}

void
cli_babl_setup (void)
{
  char *own = cli_own_cache_dir ();
  setenv ("XDG_CACHE_HOME", own, 1);
  setenv ("BABL_INHIBIT_CACHE", "1", 0);
  setenv ("BABL_TOLERANCE", GFX_BABL_TOLERANCE, 0);
  g_free (own);
}
