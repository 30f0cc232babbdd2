/* How babl runs inside gpufx: its fish cache and its tolerance (babl_setup.c). */
#ifndef GFX_CLI_BABL_SETUP_H
#define GFX_CLI_BABL_SETUP_H

/* Before gegl_init and before any thread starts (it calls setenv): babl skips reading its
 * fish cache, writes what it would have written there into gpufx's own cache folder
 * instead of the user's, and converts exactly (GFX_BABL_TOLERANCE, unless the user set
 * BABL_TOLERANCE), so that a file gives the same result on every run. */
void cli_babl_setup (void);

/* gpufx's own cache folder, the user's cache folder's "gpufx" (~/.cache/gpufx): babl's
 * writes and the GEGL module links (gegl_modules.c) live there.  GLib reads the user's
 * folder once, so this stays the same after cli_babl_setup.  g_free the result. */
char *cli_own_cache_dir (void);

#endif
