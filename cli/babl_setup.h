/* Where babl keeps its fish cache when gpufx runs (babl_cache.c). */
#ifndef GFX_CLI_BABL_CACHE_H
#define GFX_CLI_BABL_CACHE_H

/* Before gegl_init and before any thread starts (it calls setenv): babl skips reading its
 * fish cache, and writes what it would have written there into gpufx's own cache folder
 * instead of the user's. */
void cli_babl_cache_private (void);

/* gpufx's own cache folder, the user's cache folder's "gpufx" (~/.cache/gpufx): babl's
 * writes and the GEGL module links (gegl_modules.c) live there.  GLib reads the user's
 * folder once, so this stays the same after cli_babl_cache_private.  g_free the result. */
char *cli_own_cache_dir (void);

#endif
