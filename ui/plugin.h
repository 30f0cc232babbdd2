/* GIMP glue shared by every gimp-gpufx plug-in, written once over gfx_filter and
 * gfx_param_set (common/filter.h, common/params.h).  Three levels, use the highest that fits:
 *
 *   1. One call each from query(), run() and main() for a plain filter procedure:
 *        static const gfx_ui_proc proc = { &gfx_halftone_filter, "plug-in-gpufx-halftone",
 *                                          N_("_Halftone (error diffusion)..."),
 *                                          "<Image>/Filters/Distorts" };
 *        query(): gfx_ui_query_begin (); gfx_ui_install (&proc, NULL, 0);
 *        run():   gfx_ui_run (&proc, nparams, param, nreturn_vals, return_vals);
 *        main():  gfx_ui_main (&PLUG_IN_INFO, procs, n_procs, argc, argv), procs listing
 *                 the executable's procedures for its help pages (ui/help_pages.h).
 *      gfx_ui_run does the three run modes, the dialog (ui/dialog.h), validation, the
 *      work with progress and cancel, the shadow merge (one undo step), the optional mask
 *      layer and gimp_set_data.
 *   2. Building blocks for a procedure with its own run() (e.g. plug-in-gpufx-iir-identify,
 *      which returns extra values): gfx_ui_run_begin, gfx_ui_read_args, gfx_ui_load_values /
 *      gfx_ui_save_values, gfx_ui_process, gfx_ui_return / gfx_ui_return_values.  Sketch:
 *        static const GimpParamDef ret[] = { { GIMP_PDB_FLOAT, "residual", "RMS residual" } };
 *        query(): gfx_ui_install (&identify_proc, ret, 1);   // args still from the table
 *        run():   gfx_ui_run_begin (nparams, param);
 *                 st = gfx_ui_read_args (set, nparams, param, &values, &err);  // batch
 *                 ... gfx_ui_drawable_region/read, gfx_ui_run_job (my_fn, &job, &mon, &err)
 *                 GimpParam r = { .type = GIMP_PDB_FLOAT, .data.d_float = residual };
 *                 gfx_ui_return_values (&r, 1, nreturn_vals, return_vals);
 *                 // on failure: gfx_ui_return (gfx_ui_pdb_status (st), err.msg, ...)
 *      run() dispatches on `name` when one executable installs several procedures.
 *   3. Pieces: drawable I/O (gfx_ui_drawable_*), the worker-thread runner (gfx_ui_run_job).
 *
 * Messages in gfx_error are shown as the procedure's error (2nd return value, a STRING),
 * so `gimp -i -b` prints them.  Include ui/i18n.h (or this header) before common/ headers.
 * All functions must be called from the plug-in's main thread. */
#ifndef GFX_UI_PLUGIN_H
#define GFX_UI_PLUGIN_H

#include "i18n.h"

#include <stdatomic.h>

#include <libgimp/gimp.h>

#include "../common/filter.h"

typedef struct gfx_dialog_hooks gfx_dialog_hooks; /* ui/dialog.h */

/* One PDB procedure over one filter.  Fields after the first four may be left out. */
typedef struct gfx_ui_proc {
  const gfx_filter *filter;   /* parameter table, title, blurb, apply() */
  const char *proc_name;      /* "plug-in-gpufx-halftone" */
  const char *menu_label;     /* N_("_Halftone (error diffusion)...") */
  const char *menu_path;      /* "<Image>/Filters/Distorts"; NULL: no menu entry */
  const char *help;           /* N_() PDB help text; NULL: the filter's blurb */
  const char *mask_param;     /* name of a BOOL parameter asking for run.mask, or NULL */
  const char *mask_layer;     /* N_() name of the mask layer; NULL: "<title> mask" */
  const gfx_dialog_hooks *hooks; /* extra widgets in the dialog, or NULL */
  const char *picture;        /* its help page's example: a file of docs/ (before | after),
                                 installed with the pages; NULL: none */
} gfx_ui_proc;

/* ---- query() -------------------------------------------------------------------- */

/* Binds gettext and registers the "gimp-gpufx" domain with GIMP (menu labels, blurbs),
 * and this executable's help pages (ui/help_pages.h). */
void gfx_ui_query_begin (void);

/* run-mode, image, drawable, then the table's parameters in order (ENUM/BOOL/INT ->
 * INT32, FLOAT -> FLOAT, STRING -> STRING, DRAWABLE -> DRAWABLE; description = help plus
 * the allowed range).  Free with gfx_ui_pdb_args_free. */
GimpParamDef *gfx_ui_pdb_args (const gfx_param_set *set, int *n_args);
void gfx_ui_pdb_args_free (GimpParamDef *args, int n_args);

/* gimp_install_procedure for proc (args from gfx_ui_pdb_args, the given return values, a
 * GIMP_PLUGIN procedure) and gimp_plugin_menu_register when proc->menu_path is set. */
void gfx_ui_install (const gfx_ui_proc *proc, const GimpParamDef *return_vals,
                     int n_return_vals);

/* ---- run() --------------------------------------------------------------------------- */

/* Complete run() for a gfx_ui_proc (level 1 above). */
void gfx_ui_run (const gfx_ui_proc *proc, int nparams, const GimpParam *param,
                 int *nreturn_vals, GimpParam **return_vals);

/* First call of any run(), with run()'s arguments: gettext binding, gegl_init. */
void gfx_ui_run_begin (int nparams, const GimpParam *param);

/* GIMP_PDB_SUCCESS when run() has run-mode, image and drawable and the run-mode is one of
 * the three, else GIMP_PDB_CALLING_ERROR with err saying which is wrong (a run-mode of 7
 * or -1 had run with the last values). */
GimpPDBStatusType gfx_ui_run_check (int nparams, const GimpParam *param, gfx_error *err);

/* Reads param[3..] (after run-mode, image, drawable) into values and validates them with
 * gfx_params_validate.  Returns GIMP_PDB_SUCCESS, or GIMP_PDB_CALLING_ERROR with err
 * saying what is wrong: the argument count or a type, or a value out of range (the
 * message names the parameter and its allowed range). */
GimpPDBStatusType gfx_ui_read_args (const gfx_param_set *set, int nparams,
                                    const GimpParam *param, void *values, gfx_error *err);

/* Last values of proc_name if stored and valid (this GIMP session's, else those an
 * earlier session kept in the profile), else the declared defaults.  Returns TRUE when
 * stored values were used.  Saving stores them for both. */
gboolean gfx_ui_load_values (const char *proc_name, const gfx_param_set *set, void *values);
void gfx_ui_save_values (const char *proc_name, const gfx_param_set *set, const void *values);

/* Fills a static {status, message} array: the message becomes the PDB error (only for a
 * status other than SUCCESS/CANCEL; NULL or "" adds nothing). */
void gfx_ui_return (GimpPDBStatusType status, const char *message, int *nreturn_vals,
                    GimpParam **return_vals);
/* The same with extra return values after the status (success of a procedure that
 * returns values); extra is copied, at most 15 values. */
void gfx_ui_return_values (const GimpParam *extra, int n_extra, int *nreturn_vals,
                           GimpParam **return_vals);

/* gfx_status -> PDB status: PARAM -> CALLING_ERROR, CANCELLED -> CANCEL, else
 * EXECUTION_ERROR. */
GimpPDBStatusType gfx_ui_pdb_status (gfx_status st);

/* ---- the work ---------------------------------------------------------------------- */

/* How a long job is watched.  Zero-initialise, set what you need. */
typedef struct gfx_ui_monitor {
  const char *progress_text; /* non-NULL: drive GIMP's progress bar with this text */
  void (*poll) (void *ctx, double fraction); /* called on the main thread about every
                                                40 ms while the job runs; may be NULL */
  void *ctx;
  atomic_int cancel; /* set with gfx_ui_monitor_cancel (e.g. from a Cancel button) */
} gfx_ui_monitor;

void gfx_ui_monitor_cancel (gfx_ui_monitor *mon); /* safe to call with NULL */

/* Runs fn(job, progress, err) on a worker thread; the calling (main) thread iterates the
 * GLib main loop (so dialogs stay alive), forwards progress and cancel.  fn reports
 * progress with gfx_progress_update(progress, f) and should poll
 * gfx_progress_cancelled(progress).  mon may be NULL. */
typedef gfx_status (*gfx_ui_job_fn) (void *job, gfx_progress *progress, gfx_error *err);
gfx_status gfx_ui_run_job (gfx_ui_job_fn fn, void *job, gfx_ui_monitor *mon, gfx_error *err);

/* filter->apply(in, out, values, run) through gfx_ui_run_job. */
gfx_status gfx_ui_apply (const gfx_filter *filter, const gfx_image *in, gfx_image *out,
                         const void *values, gfx_filter_run *run, gfx_ui_monitor *mon,
                         gfx_error *err);

/* The whole processing of one run once the values are valid: region, read, apply with
 * progress and cancel, write (one undo step, together with the mask layer when
 * proc->mask_param is set in values), the backend fall-back note as a GIMP message once a
 * GIMP session.  The drawable's own image is the one changed (the PDB does not check
 * that a call's drawable is in its image argument).
 * On failure or cancel the image is untouched. */
GimpPDBStatusType gfx_ui_process (const gfx_ui_proc *proc, gint32 drawable,
                                  const void *values, gfx_ui_monitor *mon, gfx_error *err);

/* ---- drawable I/O ------------------------------------------------------------------- */

typedef gfx_rect gfx_ui_rect; /* in drawable coordinates */

/* The selection's bounding box within the drawable (the whole drawable without a
 * selection).  GFX_ERR_INPUT for a drawable that no longer exists, an indexed one or an
 * empty intersection. */
gfx_status gfx_ui_drawable_region (gint32 drawable, gfx_ui_rect *rect, gfx_error *err);

/* gfx_ui_drawable_region of a drawable a filter will write: also GFX_ERR_INPUT for a layer
 * group and for pixels locked on the drawable, on a mask's layer or on a group that holds
 * it (checked before any work: GIMP would refuse the merge only at the end). */
gfx_status gfx_ui_drawable_target (gint32 drawable, gfx_ui_rect *rect, gfx_error *err);

/* The babl format matching the drawable: u8 for 8-bit integer, u16 for 16-bit integer,
 * float for everything else; Y', Y'A, R'G'B' or R'G'B'A in the drawable's colour space,
 * except a linear layer mask or channel, read as the linear Y it holds (coverage). 
 * NULL and GFX_ERR_INPUT for a drawable that no longer exists or is indexed. */
const Babl *gfx_ui_drawable_format (gint32 drawable, gfx_depth *depth, int *channels,
                                    gboolean *has_alpha, gfx_error *err);

/* Reads rect into a newly allocated private image (free with gfx_image_free). */
gfx_status gfx_ui_drawable_read (gint32 drawable, const gfx_ui_rect *rect, gfx_image *img,
                                 gfx_error *err);

/* Writes out (the filter's result for in, both as gfx_ui_drawable_read gives them) at
 * rect into the shadow buffer, merges it (undoable, selection applied) and updates the
 * display.  Samples out has as in keep their exact stored value, whatever the drawable's
 * precision.  GFX_ERR_INPUT with GIMP's reason when GIMP refuses the merge. */
gfx_status gfx_ui_drawable_write (gint32 drawable, const gfx_ui_rect *rect,
                                  const gfx_image *in, const gfx_image *out, gfx_error *err);

/* Scales the 1-channel u8 mask over rect by the selection's coverage there (linear, 0 to
 * 255), so that it shows which pixels GIMP's merge changed and by how much: black outside
 * the selection.  Nothing changes without a selection. */
gfx_status gfx_ui_mask_times_selection (gint32 drawable, const gfx_ui_rect *rect,
                                        gfx_image *mask, gfx_error *err);

/* A layer named `name` for a 1-channel u8 mask image of rect's size, in the drawable's own
 * image (not necessarily the procedure's `image` argument), not yet in its layer stack:
 * made before the result is merged, so that what can fail fails while the image is as it
 * was.  -1 and err when it cannot be made.  gfx_ui_mask_layer_insert then puts it directly
 * above the drawable in its group (above a layer mask's layer; a channel's at the top of
 * the image) over rect, and fills it with the mask. */
gint32 gfx_ui_mask_layer_new (gint32 drawable, const gfx_ui_rect *rect, const gfx_image *mask,
                              const char *name, gfx_error *err);
gfx_status gfx_ui_mask_layer_insert (gint32 drawable, gint32 layer, const gfx_ui_rect *rect,
                                     const gfx_image *mask, gfx_error *err);

/* Whether the GPU can run the filters; *what (may be NULL): its name, or why not.  Probed
 * once per process.  Main thread only. */
gboolean gfx_ui_gpu_usable (const char **what);

/* "GPU: NVIDIA H100 80GB HBM3" or "CPU, 16 threads": the backend a request would use
 * (the GPU is probed once per process).  Main thread only. */
void gfx_ui_backend_describe (int requested, char *buf, size_t len);

#endif
