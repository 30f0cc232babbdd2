/* Where babl keeps its fish cache when gpufx runs (babl_cache.c). */
#ifndef GFX_CLI_BABL_CACHE_H
#define GFX_CLI_BABL_CACHE_H

/* Before gegl_init and before any thread starts (it calls setenv): babl skips reading its
 * fish cache, and writes what it would have written there into gpufx's own cache folder
 * instead of the user's. */
void cli_babl_cache_private (void);

#endif
