/* The pages GIMP opens when the user presses Help (F1) in a dialog, written from the same
 * declarations as the PDB arguments and the dialog (the gfx_ui_proc and its parameter
 * table), in the language gettext is set to.
 *
 * Each plug-in executable documents its own procedures and registers its own help domain
 * (gfx_ui_query_begin), rooted at the "help" folder beside it:
 *   plug-ins/NAME/help/<lang>/gimp-help.xml      help id (= procedure name) -> page
 *   plug-ins/NAME/help/<lang>/PROCEDURE.html     one page per procedure
 *   plug-ins/NAME/help/PICTURE                   its example (gfx_ui_proc.picture)
 * GIMP's help plug-in looks the dialog's help id up in the user's languages, then English.
 * The build writes them by running each plug-in as `gpufx-NAME --help-pages DIR` once per
 * language (LANGUAGE=xx); the plug-in's main() (gfx_ui_main) answers that without GIMP.
 * The Makefile then copies from docs/ the pictures the pages show. */
#ifndef GFX_UI_HELP_PAGES_H
#define GFX_UI_HELP_PAGES_H

#include "plugin.h"

/* Writes gimp-help.xml and the procedures' pages into dir (created if missing), which is
 * named after the language gettext is set to (".../help/ru"): the pages say so to the
 * browser.  The first procedure's page also answers help ids the file does not list.
 * Returns 0, or -1 with a message on stderr. */
int gfx_ui_help_pages_write (const gfx_ui_proc *const *procs, int n_procs, const char *dir);

/* main() of a plug-in executable: `--help-pages DIR` writes the pages of procs into DIR;
 * anything else is GIMP starting the plug-in (gimp_main). */
int gfx_ui_main (const GimpPlugInInfo *info, const gfx_ui_proc *const *procs, int n_procs,
                 int argc, char **argv);

#endif
