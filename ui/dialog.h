/* The dialog shared by every gimp-gpufx plug-in, built from the filter's parameter table:
 *
 *   +-------------------------------------------+
 *   | GimpDrawablePreview (Preview toggle =     |
 *   |   before/after)                           |
 *   | "GPU: NVIDIA H100 · preview 12 ms"        |  backend in use, last render time
 *   | [parameters: combo/spin/scale/check/file] |  tooltips = help, labels translated
 *   | > Advanced [GFX_PF_ADVANCED parameters]   |  GFX_PF_GPU ones greyed without GPU
 *   | [hooks->build() widgets]                  |  e.g. deblur's stability picture
 *   |   (or in a column right of all the above: hooks->beside)
 *   | [progress bar]                            |
 *   |              [Reset] [Cancel] [OK]        |
 *   +-------------------------------------------+
 *
 * The preview renders through the same filter->apply() on a worker thread what its
 * visible pixels depend on (filter->preview_source), so that it shows what OK will do to
 * the pixel; a newer change cancels an older render.  Moving the preview reuses what was
 * filtered where it can (dialog_preview.c).  On OK the drawable is processed while the
 * dialog stays open with its progress bar, and Cancel stops the work (the drawable is
 * left untouched).  Reset restores the declared defaults.
 *
 * Test hooks, so screenshot and dialog tests finish by themselves:
 * GPUFX_DIALOG_AUTO_OK=SECONDS presses OK after that many seconds,
 * GPUFX_DIALOG_AUTO_CANCEL=SECONDS presses Cancel, GPUFX_DIALOG_AUTO_RESET=1 presses
 * Reset when the dialog opens, GPUFX_DIALOG_EXPAND=1 opens the "Advanced" expander,
 * GPUFX_DIALOG_MNEMONICS=FILE lists the Alt+key of every label shown; the preview's own
 * are in dialog_preview_hooks.c, the deblur dialog's Identify ones in
 * plugins/iir_identify_dialog_glue.c. */
#ifndef GFX_UI_DIALOG_H
#define GFX_UI_DIALOG_H

#include "plugin.h"

#include <libgimp/gimpui.h>

typedef struct gfx_dialog gfx_dialog;

/* Per-plug-in additions to the dialog.  All callbacks run on the main thread. */
struct gfx_dialog_hooks {
  /* Once, after the parameter widgets exist: add widgets to `box` (a vertical GtkBox
   * below the parameters, empty and hidden until something is packed into it). */
  void (*build) (gfx_dialog *dlg, GtkWidget *box, void *user);
  /* After Reset put the parameters back to their defaults: the same for build's widgets
   * (box is build's).  NULL: nothing of build's to reset. */
  void (*reset) (gfx_dialog *dlg, GtkWidget *box, void *user);
  /* After any parameter changed through a widget (gfx_dialog_values is up to date). */
  void (*changed) (gfx_dialog *dlg, void *user);
  /* Before OK processes the drawable: return FALSE (and fill err) to refuse and keep
   * the dialog open, showing err's message.  NULL: accept.  It may change the values
   * for the run (local enhance drops the preview's statistics); if the run then fails and
   * the dialog stays open, changed is called to put the dialog's own values back. */
  gboolean (*accept) (gfx_dialog *dlg, gfx_error *err, void *user);
  /* TRUE: build's box is a column right of the preview and parameters, not below them
   * (a dialog whose extra widgets would make it taller than a laptop's screen). */
  gboolean beside;
  void *user;
};

/* Shows the dialog for proc on drawable, starting from `values` (last values).  Returns
 * GIMP_PDB_SUCCESS after OK and a successful run (values then hold what was used),
 * GIMP_PDB_CANCEL when closed or cancelled (drawable untouched), or an error status with
 * err filled. */
GimpPDBStatusType gfx_dialog_run (const gfx_ui_proc *proc, gint32 drawable,
                                  void *values, gfx_error *err);

/* ---- for hooks ------------------------------------------------------------------ */
void *gfx_dialog_values (gfx_dialog *dlg);           /* the live values struct */
gint32 gfx_dialog_drawable (gfx_dialog *dlg);
/* The widget made for a parameter (GtkComboBox, GtkSpinButton/GimpScaleEntry adjustment
 * owner, GtkToggleButton, GtkEntry for STRING), or NULL. */
GtkWidget *gfx_dialog_widget (gfx_dialog *dlg, const char *param_name);

/* Shrinks the window holding `inside` to what its contents now need: GTK 2 grows a
 * window when a part appears but keeps the size when it goes (a plot hidden, a section
 * folded). */
void gfx_ui_shrink_window (GtkWidget *inside);
/* After a hook changed values directly: update the widgets, then re-render. */
void gfx_dialog_sync (gfx_dialog *dlg);
void gfx_dialog_invalidate (gfx_dialog *dlg);         /* re-render the preview */
/* Shows a line under the preview (an error, a note); NULL restores the backend line. */
void gfx_dialog_set_message (gfx_dialog *dlg, const char *text);
/* Runs a long job (e.g. identification) with the dialog's progress bar and Cancel
 * button, widgets insensitive meanwhile. */
gfx_status gfx_dialog_run_job (gfx_dialog *dlg, gfx_ui_job_fn fn, void *job, gfx_error *err);

#endif
