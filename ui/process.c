/* One whole run of a filter procedure: the three run modes, and the processing shared by
 * batch mode and the dialog's OK. */
#include "dialog.h"

#include <stdlib.h>
#include <string.h>

static gboolean
wants_mask (const gfx_ui_proc *proc, const void *values)
{
  const gfx_param_desc *d = proc->mask_param
                              ? gfx_params_find (proc->filter->params, proc->mask_param)
                              : NULL;
  return d && gfx_param_get (d, values) != 0;
}

static gfx_status
store_result (const gfx_ui_proc *proc, gint32 drawable, const gfx_ui_rect *rect,
              const gfx_image *in, const gfx_image *out, gfx_image *mask, gfx_error *err)
{
  gint32 layer = -1;
  if (mask && mask->pixels)
    {
      gfx_status st = gfx_ui_mask_times_selection (drawable, rect, mask, err);
      if (st != GFX_OK)
        return st;
      gchar *name = proc->mask_layer ? g_strdup (_(proc->mask_layer))
                                     : g_strdup_printf (_("%s mask"), _(proc->filter->title));
      layer = gfx_ui_mask_layer_new (drawable, rect, mask, name, err);
      g_free (name);
      if (layer < 0)
        return GFX_ERR_INTERNAL; /* gfx_ui_mask_layer_new said why */
    }
  /* The merge and the mask layer are one undo step together, in the drawable's image. */
  gint32 image = gimp_item_get_image (drawable);
  gimp_image_undo_group_start (image);
  gfx_status st = gfx_ui_drawable_write (drawable, rect, in, out, err);
  if (layer >= 0 && st == GFX_OK)
    st = gfx_ui_mask_layer_insert (drawable, layer, rect, mask, err);
  else if (layer >= 0)
    gimp_item_delete (layer); /* never added: GIMP would keep it */
  gimp_image_undo_group_end (image);
  return st;
}

/* The fall-back note is said once per GIMP session (SPEC section 0), by whichever of the
 * project's plug-ins falls back first: each PDB call is a process of its own, so the
 * core's once-per-process flag would say it on every call.  GIMP's per-session data
 * remembers it instead (it is not kept after GIMP quits). */
#define NOTE_SHOWN_KEY "gimp-gpufx-cpu-fallback-noted"

static gboolean
first_note_of_session (void)
{
  if (gimp_get_data_size (NOTE_SHOWN_KEY) > 0)
    return FALSE;
  const guint8 shown = 1;
  gimp_set_data (NOTE_SHOWN_KEY, &shown, sizeof shown);
  return TRUE;
}

GimpPDBStatusType
gfx_ui_process (const gfx_ui_proc *proc, gint32 drawable, const void *values,
                gfx_ui_monitor *mon, gfx_error *err)
{
  gfx_ui_rect rect;
  gfx_image in = { 0 }, out = { 0 }, mask = { 0 };
  gfx_backend_warm_up (proc->filter->params, values); /* the GPU starts while GIMP's tiles come */
  gfx_status st = gfx_ui_drawable_target (drawable, &rect, err);
  if (st == GFX_OK)
    st = gfx_ui_drawable_read (drawable, &rect, &in, err);
  if (st != GFX_OK)
    return gfx_ui_pdb_status (st);

  /* Test hook: a cancel before the work starts must leave the drawable untouched.
   * GPUFX_TEST_CANCEL=dialog cancels only runs started from a dialog (they bring a
   * monitor), so a batch call in the same session can still store the last values. */
  const char *test_cancel = g_getenv ("GPUFX_TEST_CANCEL");
  gboolean cancel_now = test_cancel && (strcmp (test_cancel, "dialog") != 0 || mon);
  gfx_ui_monitor local = { 0 };
  if (!mon)
    mon = &local;
  if (!mon->progress_text)
    mon->progress_text = _(proc->filter->title);
  if (cancel_now)
    gfx_ui_monitor_cancel (mon);
  gfx_filter_run run = { 0 };
  run.mask = wants_mask (proc, values) ? &mask : NULL;
  st = gfx_ui_apply (proc->filter, &in, &out, values, &run, mon, err);
  if (st == GFX_OK && run.info.note[0] && first_note_of_session ())
    g_message ("%s: %s", _(proc->filter->title), run.info.note); /* "GPU not used (why);
                                                                     running on the CPU" */
  if (st == GFX_OK)
    st = store_result (proc, drawable, &rect, &in, &out, run.mask, err);
  gfx_image_free (&in);
  gfx_image_free (&out);
  gfx_image_free (&mask);
  return gfx_ui_pdb_status (st);
}

static GimpPDBStatusType
run_with_values (const gfx_ui_proc *proc, GimpRunMode mode, gint32 drawable,
                 int nparams, const GimpParam *param, void *values, gfx_error *err)
{
  const gfx_param_set *set = proc->filter->params;
  gfx_ui_rect rect;
  switch (mode)
    {
    case GIMP_RUN_INTERACTIVE:
      gfx_ui_load_values (proc->proc_name, set, values);
      /* Refuse unusable drawables before showing a dialog for them. */
      if (gfx_ui_drawable_target (drawable, &rect, err) != GFX_OK)
        return GIMP_PDB_EXECUTION_ERROR;
      return gfx_dialog_run (proc, drawable, values, err);
    case GIMP_RUN_NONINTERACTIVE:
      {
        GimpPDBStatusType status = gfx_ui_read_args (set, nparams, param, values, err);
        if (status != GIMP_PDB_SUCCESS)
          return status;
        return gfx_ui_process (proc, drawable, values, NULL, err);
      }
    case GIMP_RUN_WITH_LAST_VALS:
      gfx_ui_load_values (proc->proc_name, set, values);
      return gfx_ui_process (proc, drawable, values, NULL, err);
    default: /* refused by gfx_ui_run_check */
      return GIMP_PDB_CALLING_ERROR;
    }
}

GimpPDBStatusType
gfx_ui_run_check (int nparams, const GimpParam *param, gfx_error *err)
{
  if (nparams < 3)
    {
      gfx_fail (err, GFX_ERR_PARAM, "run-mode, image and drawable are required");
      return GIMP_PDB_CALLING_ERROR;
    }
  int mode = param[0].data.d_int32;
  if (mode == GIMP_RUN_INTERACTIVE || mode == GIMP_RUN_NONINTERACTIVE
      || mode == GIMP_RUN_WITH_LAST_VALS)
    return GIMP_PDB_SUCCESS;
  gfx_fail (err, GFX_ERR_PARAM, "run-mode %d: 0 (RUN-INTERACTIVE), 1 (RUN-NONINTERACTIVE) "
                                "or 2 (RUN-WITH-LAST-VALS)", mode);
  return GIMP_PDB_CALLING_ERROR;
}

void
gfx_ui_run (const gfx_ui_proc *proc, int nparams, const GimpParam *param, int *nreturn_vals,
            GimpParam **return_vals)
{
  gfx_ui_run_begin (nparams, param);
  gfx_error err;
  gfx_error_clear (&err);
  GimpPDBStatusType checked = gfx_ui_run_check (nparams, param, &err);
  if (checked != GIMP_PDB_SUCCESS)
    {
      gfx_ui_return (checked, err.msg, nreturn_vals, return_vals);
      return;
    }
  GimpRunMode mode = (GimpRunMode) param[0].data.d_int32;
  gint32 drawable = param[2].data.d_drawable; /* its own image counts, not param[1] */
  const gfx_param_set *set = proc->filter->params;
  void *values = g_malloc0 (set->size);

  GimpPDBStatusType status = run_with_values (proc, mode, drawable, nparams, param, values,
                                              &err);
  if (status == GIMP_PDB_SUCCESS)
    {
      gfx_ui_save_values (proc->proc_name, set, values);
      if (mode != GIMP_RUN_NONINTERACTIVE)
        gimp_displays_flush ();
    }
  g_free (values);
  gfx_backend_warm_up_wait ();
  gfx_ui_return (status, err.msg, nreturn_vals, return_vals);
}
