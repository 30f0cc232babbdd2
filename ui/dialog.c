/* The shared dialog: life cycle, OK with progress and Cancel, Reset, the backend/time
 * line.  Widgets per parameter: dialog_widgets.c; the live preview: dialog_preview.c. */
#include "dialog_private.h"

#include <gdk/gdkkeysyms.h>
#include <stdlib.h>

void
gfx_dialog_show_status (gfx_dialog *dlg)
{
  GtkLabel *label = GTK_LABEL (dlg->status);
  /* The backend/time line is one line, cut at the dialog's edge; a message (why a preview
   * or a run failed) is wrapped at that width instead, to be read whole. */
  gboolean wrap = dlg->message != NULL;
  GtkAllocation line;
  gtk_widget_get_allocation (dlg->status, &line);
  gtk_widget_set_size_request (dlg->status, wrap && line.width > 1 ? line.width : -1, -1);
  gtk_label_set_ellipsize (label, wrap ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
  gtk_label_set_line_wrap (label, wrap);
  gtk_label_set_line_wrap_mode (label, PANGO_WRAP_WORD_CHAR); /* a long path has no space */
  gtk_label_set_text (label, dlg->message ? dlg->message : dlg->last_render);
  gfx_status_dump_for_tests (gtk_label_get_text (label));
}

void
gfx_dialog_set_message (gfx_dialog *dlg, const char *text)
{
  const gboolean gone = dlg->message && !text;
  g_free (dlg->message);
  dlg->message = text ? g_strdup (text) : NULL;
  gfx_dialog_show_status (dlg);
  if (gone) /* the lines a wrapped message took are given back, not left blank */
    gfx_ui_shrink_window (dlg->status);
}

void
gfx_dialog_describe_backend (gfx_dialog *dlg, char *buf, size_t len)
{
  const gfx_param_desc *b = gfx_params_find (dlg->set, "backend");
  gfx_ui_backend_describe (b ? (int) gfx_param_get (b, dlg->values) : GFX_BACKEND_AUTO, buf,
                           len);
}

void
gfx_dialog_param_changed (gfx_dialog *dlg)
{
  gfx_dialog_update_sensitivity (dlg);
  if (dlg->proc->hooks && dlg->proc->hooks->changed)
    dlg->proc->hooks->changed (dlg, dlg->proc->hooks->user);
  char backend[256];
  gfx_dialog_describe_backend (dlg, backend, sizeof backend);
  g_strlcpy (dlg->last_render, backend, sizeof dlg->last_render);
  gfx_dialog_invalidate (dlg);
}

/* While busy only the progress bar and Cancel stay usable. */
static void
set_busy (gfx_dialog *dlg, gboolean busy)
{
  dlg->busy = busy;
  gtk_widget_set_sensitive (dlg->controls, !busy);
  gtk_dialog_set_response_sensitive (GTK_DIALOG (dlg->window), GTK_RESPONSE_OK, !busy);
  gtk_dialog_set_response_sensitive (GTK_DIALOG (dlg->window), GFX_RESPONSE_RESET, !busy);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (dlg->progress), 0.0);
  gtk_widget_set_visible (dlg->progress, busy);
}

static void
job_poll (void *ctx, double fraction)
{
  gfx_dialog *dlg = ctx;
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (dlg->progress), CLAMP (fraction, 0, 1));
}

gfx_status
gfx_dialog_run_job (gfx_dialog *dlg, gfx_ui_job_fn fn, void *job, gfx_error *err)
{
  gfx_dialog_preview_forget (dlg); /* a job may rewrite what the filter reads */
  gfx_ui_monitor mon = { .poll = job_poll, .ctx = dlg };
  dlg->job = &mon;
  set_busy (dlg, TRUE);
  gfx_status st = gfx_ui_run_job (fn, job, &mon, err);
  set_busy (dlg, FALSE);
  dlg->job = NULL;
  return st;
}

/* Cancel (or closing the window) during a job stops the job; the dialog loop sees the
 * response afterwards only when idle. */
static void
on_response (GtkDialog *window, gint response, gfx_dialog *dlg)
{
  (void) window;
  if (dlg->busy && response != GTK_RESPONSE_OK)
    gfx_ui_monitor_cancel (dlg->job);
}

static GimpPDBStatusType
process_from_dialog (gfx_dialog *dlg, gfx_error *err)
{
  gfx_dialog_render_stop (dlg);
  gfx_ui_monitor mon = { .poll = job_poll, .ctx = dlg,
                         .progress_text = _(dlg->proc->filter->title) };
  dlg->job = &mon;
  set_busy (dlg, TRUE);
  GimpPDBStatusType status = gfx_ui_process (dlg->proc, dlg->drawable, dlg->values, &mon, err);
  set_busy (dlg, FALSE);
  dlg->job = NULL;
  return status;
}

/* A button pressed by a test hook: the dialog's own response, as a click sends it. */
typedef struct {
  gfx_dialog *dlg;
  gint response;
} press_job;

static gboolean
press (gpointer data)
{
  press_job *p = data;
  gtk_dialog_response (GTK_DIALOG (p->dlg->window), p->response);
  return G_SOURCE_REMOVE;
}

static press_job *
press_job_new (gfx_dialog *dlg, gint response)
{
  press_job *p = g_new (press_job, 1);
  *p = (press_job) { dlg, response };
  return p;
}

/* Presses the button after the seconds that the variable env holds, if it is set. */
static void
schedule (gfx_dialog *dlg, const char *env, gint response)
{
  const char *secs = g_getenv (env);
  if (secs)
    g_timeout_add_full (G_PRIORITY_DEFAULT, (guint) (g_ascii_strtod (secs, NULL) * 1000),
                        press, press_job_new (dlg, response), g_free);
}

/* Adds "KEY<tab>LABEL" to the GString data for each label shown in w with a mnemonic
 * (buttons, check boxes and expanders hold labels too). */
static void
list_mnemonics (GtkWidget *w, gpointer data)
{
  if (GTK_IS_LABEL (w) && gtk_widget_get_mapped (w))
    {
      guint key = gtk_label_get_mnemonic_keyval (GTK_LABEL (w));
      if (key != GDK_VoidSymbol)
        g_string_append_printf (data, "%s\t%s\n", gdk_keyval_name (gdk_keyval_to_lower (key)),
                                gtk_label_get_label (GTK_LABEL (w)));
    }
  if (GTK_IS_CONTAINER (w))
    gtk_container_forall (GTK_CONTAINER (w), list_mnemonics, data);
}

static gboolean
dump_mnemonics (gpointer data)
{
  gfx_dialog *dlg = data;
  GString *s = g_string_new (NULL);
  list_mnemonics (dlg->window, s);
  g_file_set_contents (g_getenv ("GPUFX_DIALOG_MNEMONICS"), s->str, -1, NULL);
  g_string_free (s, TRUE);
  return G_SOURCE_REMOVE;
}

/* Test hooks so that dialog tests and screenshots run unattended:
 * GPUFX_DIALOG_EXPAND=1 opens "Advanced"; GPUFX_DIALOG_AUTO_RESET=1 presses Reset as
 * soon as the dialog runs; GPUFX_DIALOG_AUTO_OK=S / GPUFX_DIALOG_AUTO_CANCEL=S press OK /
 * Cancel after S s; GPUFX_DIALOG_MNEMONICS=FILE lists the Alt+key of every label shown,
 * a second after the dialog opens (list_mnemonics), for a test to find two on one key. */
static void
install_test_hooks (gfx_dialog *dlg)
{
  if (g_getenv ("GPUFX_DIALOG_MNEMONICS"))
    g_timeout_add (1000, dump_mnemonics, dlg);
  if (g_getenv ("GPUFX_DIALOG_EXPAND") && dlg->expander)
    gtk_expander_set_expanded (GTK_EXPANDER (dlg->expander), TRUE);
  if (g_getenv ("GPUFX_DIALOG_AUTO_RESET"))
    g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, press, press_job_new (dlg, GFX_RESPONSE_RESET),
                     g_free);
  schedule (dlg, "GPUFX_DIALOG_AUTO_CANCEL", GTK_RESPONSE_CANCEL);
  schedule (dlg, "GPUFX_DIALOG_AUTO_OK", GTK_RESPONSE_OK);
}

static void
build_window (gfx_dialog *dlg)
{
  const gfx_filter *f = dlg->proc->filter;
  dlg->window = gimp_dialog_new (_(f->title), dlg->proc->proc_name, NULL, 0,
                                 gimp_standard_help_func, dlg->proc->proc_name,
                                 _("_Reset"), GFX_RESPONSE_RESET, _("_Cancel"),
                                 GTK_RESPONSE_CANCEL, _("_OK"), GTK_RESPONSE_OK, NULL);
  gtk_dialog_set_alternative_button_order (GTK_DIALOG (dlg->window), GFX_RESPONSE_RESET,
                                           GTK_RESPONSE_OK, GTK_RESPONSE_CANCEL, -1);
  gimp_window_set_transient (GTK_WINDOW (dlg->window));
  g_signal_connect (dlg->window, "response", G_CALLBACK (on_response), dlg);

  GtkWidget *main_vbox = gtk_vbox_new (FALSE, 8);
  gtk_container_set_border_width (GTK_CONTAINER (main_vbox), 12);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area (GTK_DIALOG (dlg->window))),
                      main_vbox, TRUE, TRUE, 0);
  /* controls: the main column (preview, status line, parameters), and the hooks' box
   * either at its foot or, for a dialog that would grow too tall, in a column beside it. */
  const gfx_dialog_hooks *hooks = dlg->proc->hooks;
  dlg->controls = gtk_hbox_new (FALSE, 18);
  gtk_box_pack_start (GTK_BOX (main_vbox), dlg->controls, TRUE, TRUE, 0);
  GtkWidget *column = gtk_vbox_new (FALSE, 8);
  gtk_box_pack_start (GTK_BOX (dlg->controls), column, TRUE, TRUE, 0);

  /* Centred: long parameter labels can make the dialog much wider than the preview. */
  GtkWidget *centre = gtk_alignment_new (0.5, 0.0, 0.0, 1.0);
  gtk_container_add (GTK_CONTAINER (centre), gfx_dialog_preview_new (dlg));
  /* With a column beside, the status line and parameters stay right under the preview. */
  gboolean beside = hooks && hooks->beside;
  gtk_box_pack_start (GTK_BOX (column), centre, !beside, !beside, 0);

  dlg->status = gtk_label_new (NULL);
  gtk_misc_set_alignment (GTK_MISC (dlg->status), 0.0, 0.5);
  gtk_label_set_ellipsize (GTK_LABEL (dlg->status), PANGO_ELLIPSIZE_END);
  gimp_label_set_attributes (GTK_LABEL (dlg->status), PANGO_ATTR_SCALE, PANGO_SCALE_SMALL, -1);
  gtk_box_pack_start (GTK_BOX (column), dlg->status, FALSE, FALSE, 0);

  gtk_box_pack_start (GTK_BOX (column), gfx_dialog_build_params (dlg), FALSE, FALSE, 0);
  dlg->extra = gtk_vbox_new (FALSE, 6);
  gtk_box_pack_start (GTK_BOX (beside ? dlg->controls : column), dlg->extra, FALSE, FALSE, 0);

  dlg->progress = gtk_progress_bar_new ();
  gtk_widget_set_no_show_all (dlg->progress, TRUE);
  gtk_box_pack_end (GTK_BOX (main_vbox), dlg->progress, FALSE, FALSE, 0);
  gtk_widget_show_all (main_vbox);

  if (hooks && hooks->build)
    hooks->build (dlg, dlg->extra, hooks->user);
  GList *extra = gtk_container_get_children (GTK_CONTAINER (dlg->extra));
  if (!extra)
    gtk_widget_hide (dlg->extra);
  g_list_free (extra);
}

/* Closes the dialog once its drawable is gone (the user closed the image or deleted the
 * layer): there is nothing left to filter, and GIMP's preview widget would show the user
 * an error each time it drew the original from a drawable that no longer exists. */
static gboolean
watch_drawable (gpointer data)
{
  gfx_dialog *dlg = data;
  if (gimp_item_is_valid (dlg->drawable))
    return G_SOURCE_CONTINUE;
  gtk_widget_hide (dlg->window);
  gtk_dialog_response (GTK_DIALOG (dlg->window), GTK_RESPONSE_CANCEL);
  return G_SOURCE_REMOVE;
}

/* Runs the dialog until OK succeeds, Cancel or close; Reset and refused OKs loop. */
static GimpPDBStatusType
dialog_loop (gfx_dialog *dlg, gfx_error *err)
{
  const gfx_dialog_hooks *hooks = dlg->proc->hooks;
  for (;;)
    {
      gint response = gimp_dialog_run (GIMP_DIALOG (dlg->window));
      if (response == GFX_RESPONSE_RESET)
        {
          gfx_params_defaults (dlg->set, dlg->values);
          gfx_dialog_sync (dlg);
          if (hooks && hooks->reset)
            hooks->reset (dlg, dlg->extra, hooks->user);
          continue;
        }
      if (response != GTK_RESPONSE_OK)
        return GIMP_PDB_CANCEL;
      gfx_error refusal;
      gfx_error_clear (&refusal);
      if (gfx_params_validate (dlg->set, dlg->values, &refusal) != GFX_OK
          || (hooks && hooks->accept && !hooks->accept (dlg, &refusal, hooks->user)))
        {
          gfx_dialog_set_message (dlg, refusal.msg);
          continue;
        }
      GimpPDBStatusType status = process_from_dialog (dlg, err);
      if ((status == GIMP_PDB_EXECUTION_ERROR || status == GIMP_PDB_CALLING_ERROR)
          && gimp_item_is_valid (dlg->drawable))
        {
          /* Keep the dialog: the user may change a parameter and try again, with the
           * preview's values back where accept changed them for the run. */
          if (hooks && hooks->accept && hooks->changed)
            hooks->changed (dlg, hooks->user);
          gfx_dialog_set_message (dlg, err->msg);
          if (!g_getenv ("GPUFX_DIALOG_AUTO_OK"))
            continue;
        }
      return status;
    }
}

/* Opens GTK's display as gimp_ui_init would (GIMP's display and the user's interaction
 * time first), but with gtk_init_check: gimp_ui_init's gtk_init exits the process when no
 * display opens (gimp-console without DISPLAY), which GIMP reports as a crash.  Once GTK
 * is up, gimp_ui_init's own gtk_init does nothing more. */
static gboolean
display_opens (const char *prog_name)
{
  const gchar *display = gimp_display_name ();
  if (display)
    g_setenv ("DISPLAY", display, TRUE);
  if (gimp_user_time ())
    {
      gchar *startup_id = g_strdup_printf ("_TIME%u", gimp_user_time ());
      g_setenv ("DESKTOP_STARTUP_ID", startup_id, TRUE);
      g_free (startup_id);
    }
  gchar *arg0 = g_strdup (prog_name);
  gchar **argv = &arg0;
  int argc = 1;
  gboolean opened = gtk_init_check (&argc, &argv);
  g_free (arg0);
  return opened;
}

GimpPDBStatusType
gfx_dialog_run (const gfx_ui_proc *proc, gint32 drawable, void *values, gfx_error *err)
{
  gfx_backend_warm_up (proc->filter->params, values); /* the GPU starts while GTK does */
  if (!display_opens (proc->proc_name))
    {
      gfx_fail (err, GFX_ERR_INPUT, "The dialog cannot open a display (is DISPLAY set?): in "
                                    "batch mode, call the procedure with RUN-NONINTERACTIVE.");
      return GIMP_PDB_EXECUTION_ERROR;
    }
  gimp_ui_init (proc->proc_name, TRUE);
  gfx_dialog dlg = { .proc = proc, .set = proc->filter->params, .drawable = drawable,
                     .values = values };
  gfx_dialog_describe_backend (&dlg, dlg.last_render, sizeof dlg.last_render);
  build_window (&dlg);
  gfx_dialog_update_sensitivity (&dlg);
  gfx_dialog_show_status (&dlg);
  gtk_widget_show (dlg.window);

  install_test_hooks (&dlg);
  g_timeout_add (250, watch_drawable, &dlg);
  GimpPDBStatusType status = dialog_loop (&dlg, err);
  while (g_source_remove_by_user_data (&dlg))
    ;
  gfx_dialog_preview_forget (&dlg);
  gtk_widget_destroy (dlg.window);
  g_free (dlg.widgets);
  g_free (dlg.scales);
  g_free (dlg.message);
  return status;
}

void *gfx_dialog_values (gfx_dialog *dlg) { return dlg->values; }
gint32 gfx_dialog_drawable (gfx_dialog *dlg) { return dlg->drawable; }

void
gfx_ui_shrink_window (GtkWidget *inside)
{
  GtkWidget *top = gtk_widget_get_toplevel (inside);
  if (GTK_IS_WINDOW (top))
    gtk_window_resize (GTK_WINDOW (top), 1, 1);
}
