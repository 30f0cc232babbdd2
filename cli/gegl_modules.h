/* The subset of GEGL's modules the command line loads: the image loaders and savers and
 * GEGL's core, not video or the ~300 filters it never uses (a faster start). */
#ifndef GFX_CLI_GEGL_MODULES_H
#define GFX_CLI_GEGL_MODULES_H

/* Before gegl_init and before any thread starts (it calls setenv): points GEGL_PATH at a
 * cached directory of the wanted modules, unless GEGL_PATH is set or
 * GPUFX_GEGL_ALL_MODULES=1; on any failure GEGL loads all of them. */
void cli_gegl_modules_select (void);

#endif
