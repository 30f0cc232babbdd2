/* The subset of GEGL's modules the command line loads: the image loaders and savers and
 * GEGL's core, not video or the ~300 filters it never uses, and for a filter command only
 * its files' loader and savers (a faster start). */
#ifndef GFX_CLI_GEGL_MODULES_H
#define GFX_CLI_GEGL_MODULES_H

/* Before gegl_init and before any thread starts (it calls setenv): points GEGL_PATH at a
 * cached directory of the wanted modules, unless GEGL_PATH is set or
 * GPUFX_GEGL_ALL_MODULES=1; on any failure GEGL loads all of them. */
void cli_gegl_modules_select (void);
/* After that, for a command that reads in and writes outs (n_outs names, NULL ones
 * skipped): only GEGL's core and common operations, in's loader (by its first bytes) and
 * the outputs' savers.  The same conditions, and nothing is changed where in is standard
 * input or unreadable, or a loader or saver is unknown or missing. */
void cli_gegl_modules_for_files (const char *in, const char *const *outs, int n_outs);

#endif
