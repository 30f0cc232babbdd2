/* plug-in-gpufx-iir-identify (SPEC section 4, issue 7): its GIMP side, linked into the
 * deblur executable (the Makefile links the plugins/NAME_glue.c files there).  The deblur
 * plug-in wires it with:
 *   query(): gfx_identify_pdb_install ();
 *   run():   if (strcmp (name, GFX_IDENTIFY_PROC) == 0)
 *              return gfx_identify_pdb_run (nparams, param, nreturn_vals, return_vals);
 *   its dialog hooks' build(): gfx_identify_dialog_build (dlg, box);
 *   and reset(): gfx_identify_dialog_reset (box); */
#ifndef GFX_IIR_IDENTIFY_GLUE_H
#define GFX_IIR_IDENTIFY_GLUE_H

#include "../ui/dialog.h"

#define GFX_IDENTIFY_PROC "plug-in-gpufx-iir-identify"

/* The procedure as gfx_ui_install and the help pages see it. */
extern const gfx_ui_proc gfx_identify_proc;

/* Registers the procedure: run-mode, image, drawable (the blurred one), then sharp-drawable
 * (-1 = automatic fragments), mask-rows, mask-cols, method, filter-file; returns the
 * residual (FLOAT).  No menu entry: the deblur dialog's "Identify" part calls it. */
void gfx_identify_pdb_install (void);

/* Reads the blurred drawable's selection box (and the same box of the sharp drawable),
 * identifies, writes filter-file and returns the residual; errors (singular equations,
 * sizes that differ, a parameter out of range) are the procedure's error message.
 * Interactive runs use the last values. */
void gfx_identify_pdb_run (gint nparams, const GimpParam *param, gint *nreturn_vals,
                           GimpParam **return_vals);

/* Reads the blurred drawable's selection box into blurred and, unless sharp is -1, the
 * same box of the sharp drawable into ref, once the sharp one is a drawable of the same
 * size at the same place on the canvas (pixel pairs must show the same spot of the scene):
 * the one reading of both the procedure and the dialog. */
gfx_status gfx_identify_read (gint32 drawable, gint32 sharp, gfx_image *blurred,
                              gfx_image *ref, gfx_error *err);

/* Adds the "Identify" frame to the deblur dialog (a gfx_dialog_hooks build() box): sharp
 * layer or automatic edges, mask, method, an Identify button; the identified filter is
 * written to the dialog's filter-file (a default in the GIMP profile when empty), which
 * the preview then uses; the report and the fragments picture are shown below. */
void gfx_identify_dialog_build (gfx_dialog *dlg, GtkWidget *box);
/* Reset: automatic edges, the table's mask and method, no report or picture. */
void gfx_identify_dialog_reset (GtkWidget *box);

#endif
