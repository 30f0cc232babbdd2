/* The "Identify" part of the deblur dialog (issue 7): sharp reference layer or automatic
 * edges, mask size and method from the identify parameter table; the Identify button reads
 * the drawables, identifies on a worker thread (the dialog's progress bar and Cancel),
 * writes the filter file named in the dialog (a default in the GIMP profile when empty),
 * puts its name into the deblur parameters so the preview shows the result, and shows
 * the report (residual, condition, stability) and the fragments used. */
#include "iir_identify_glue.h"

#include <string.h>

#include "../common/iir.h"
#include "../common/iir_file.h"
#include "../common/iir_identify.h"

#define THUMB 200 /* side of the fragment picture in the dialog */

typedef struct {
  gfx_dialog *dlg;
  GtkWidget *automatic, *sharp, *sharp_label, *rows, *cols, *method, *button, *report, *picture;
  gchar *written; /* the filter file this dialog wrote last, or NULL */
} identify_ui;

typedef struct {
  gfx_image blurred, sharp;
  int use_sharp;
  gfx_identify_params p;
  gfx_iir_filter f;
  gfx_identify_report rep;
} identify_job;

static gfx_status
identify_job_run (void *ctx, gfx_progress *progress, gfx_error *err)
{
  identify_job *job = ctx;
  return gfx_iir_identify (&job->blurred, job->use_sharp ? &job->sharp : NULL, job->p.mask_rows,
                           job->p.mask_cols, job->p.method, &job->f, &job->rep, progress, err);
}

/* The fragments used, scaled into the dialog. */
static void
show_fragments (identify_ui *ui, const identify_job *job)
{
  gfx_image over;
  gfx_error err;
  if (gfx_fragments_overlay (&job->blurred, job->rep.fragments, job->rep.n_fragments, &over,
                             &err) != GFX_OK)
    return;
  GdkPixbuf *full = gdk_pixbuf_new_from_data (over.pixels, GDK_COLORSPACE_RGB, FALSE, 8,
                                              over.width, over.height, over.width * 3, NULL,
                                              NULL);
  double scale = (double) THUMB / MAX (over.width, over.height);
  GdkPixbuf *small = gdk_pixbuf_scale_simple (full, MAX (1, (int) (over.width * scale)),
                                              MAX (1, (int) (over.height * scale)),
                                              GDK_INTERP_BILINEAR);
  gtk_image_set_from_pixbuf (GTK_IMAGE (ui->picture), small);
  gtk_widget_show (ui->picture);
  g_object_unref (small);
  g_object_unref (full);
  gfx_image_free (&over);
}

/* Through the filter-file entry, as if typed: the dialog updates its values, the deblur
 * hooks redraw the stability view and the preview re-renders.  Cleared first, so that a
 * new filter under the same name counts as a change. */
static void
point_dialog_at (identify_ui *ui, const char *path)
{
  GtkWidget *entry = gfx_dialog_widget (ui->dlg, "filter-file");
  if (entry && GTK_IS_ENTRY (entry))
    {
      gtk_entry_set_text (GTK_ENTRY (entry), "");
      gtk_entry_set_text (GTK_ENTRY (entry), path);
    }
  else
    {
      gfx_iir_deblur_params *dp = gfx_dialog_values (ui->dlg);
      g_strlcpy (dp->filter_file, path, sizeof dp->filter_file);
      gfx_dialog_sync (ui->dlg);
    }
}

/* STEM.iir, or STEM-2.iir, STEM-3.iir ... : the first name no file has. */
static gchar *
free_name (const gchar *stem)
{
  gchar *path = g_strconcat (stem, ".iir", NULL);
  for (int k = 2; g_file_test (path, G_FILE_TEST_EXISTS) && k < 100000; k++)
    {
      g_free (path);
      path = g_strdup_printf ("%s-%d.iir", stem, k);
    }
  return path;
}

/* Where Identify writes: the file named in Filter file when there is none by that name
 * yet or this dialog wrote it (Identify again replaces its own result); else a new
 * NAME-identified.iir beside it (-2, -3 ... when taken), and with no name
 * gpufx-identified.iir in GIMP's folder.  A filter file the user had is never replaced. */
static gchar *
identify_target (const identify_ui *ui, const char *named)
{
  if (named[0] && (!g_file_test (named, G_FILE_TEST_EXISTS)
                   || (ui->written && strcmp (named, ui->written) == 0)))
    return g_strdup (named);
  if (!named[0])
    {
      gchar *stem = g_build_filename (gimp_directory (), "gpufx-identified", NULL);
      gchar *path = free_name (stem);
      g_free (stem);
      return path;
    }
  gchar *dir = g_path_get_dirname (named), *base = g_path_get_basename (named);
  gchar *dot = strrchr (base, '.'), *again = NULL;
  if (dot && dot != base)
    *dot = '\0';
  /* not NAME-identified-identified */
  if ((again = g_strrstr (base, "-identified")) && again != base)
    *again = '\0';
  gchar *name = g_strconcat (base, "-identified", NULL);
  gchar *stem = g_build_filename (dir, name, NULL), *path = free_name (stem);
  g_free (dir), g_free (base), g_free (name), g_free (stem);
  return path;
}

/* A report's lines as they are; an error (one long line) wrapped at the width of the
 * Identify button, so that it does not widen the dialog. */
static void
show_report (identify_ui *ui, const char *text, gboolean wrap)
{
  GtkAllocation section;
  gtk_widget_get_allocation (ui->button, &section);
  wrap = wrap && section.width > 1;
  gtk_widget_set_size_request (ui->report, wrap ? section.width : -1, -1);
  gtk_label_set_line_wrap (GTK_LABEL (ui->report), wrap);
  gtk_label_set_line_wrap_mode (GTK_LABEL (ui->report), PANGO_WRAP_WORD_CHAR); /* paths */
  gtk_label_set_text (GTK_LABEL (ui->report), text);
}

/* Writes the filter (identify_target) and points the deblur parameters there. */
static gfx_status
store_filter (identify_ui *ui, identify_job *job, gfx_error *err)
{
  const gfx_iir_deblur_params *dp = gfx_dialog_values (ui->dlg);
  gchar *path = identify_target (ui, dp->filter_file);
  char text[2048], shown[4096]; /* the file's comment in English, the label translated */
  gfx_identify_report_text (&job->rep, job->p.method, NULL, text, sizeof text);
  gfx_identify_report_text (&job->rep, job->p.method, gfx_ui_tr, shown, sizeof shown);
  gfx_status st = gfx_iir_write (path, &job->f, text, err);
  if (st == GFX_OK)
    {
      show_report (ui, shown, FALSE);
      point_dialog_at (ui, path);
      g_free (ui->written);
      ui->written = path;
    }
  else
    g_free (path);
  return st;
}

static void
on_identify (GtkWidget *button, identify_ui *ui)
{
  (void) button;
  identify_job job = { 0 };
  gfx_error err = { 0 };
  gint32 drawable = gfx_dialog_drawable (ui->dlg), sharp = -1;
  gfx_params_defaults (&gfx_identify_param_set, &job.p);
  job.use_sharp = !gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (ui->automatic));
  if (job.use_sharp)
    gimp_int_combo_box_get_active (GIMP_INT_COMBO_BOX (ui->sharp), &sharp);
  job.p.sharp_drawable = job.use_sharp ? sharp : -1;
  job.p.mask_rows = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (ui->rows));
  job.p.mask_cols = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (ui->cols));
  gimp_int_combo_box_get_active (GIMP_INT_COMBO_BOX (ui->method), &job.p.method);
  gfx_status st = GFX_OK;
  if (job.use_sharp && sharp <= 0)
    st = gfx_fail (&err, GFX_ERR_PARAM, "Choose a sharp reference layer, or automatic edges");
  else if (job.use_sharp && sharp == drawable)
    st = gfx_fail (&err, GFX_ERR_PARAM, "The sharp reference is the layer being deblurred: "
                                        "add a sharp copy of it as another layer, or use "
                                        "automatic edges");
  if (st == GFX_OK)
    st = gfx_identify_read (drawable, job.p.sharp_drawable, &job.blurred, &job.sharp, &err);
  if (st == GFX_OK)
    st = gfx_dialog_run_job (ui->dlg, identify_job_run, &job, &err);
  if (st == GFX_OK)
    st = store_filter (ui, &job, &err);
  if (st == GFX_OK)
    show_fragments (ui, &job);
  else /* where the report would have been, not beside an older one */
    {
      show_report (ui, err.msg, TRUE);
      gtk_widget_hide (ui->picture);
      gfx_ui_shrink_window (ui->picture);
    }
  gfx_dialog_set_message (ui->dlg, st == GFX_OK ? NULL : err.msg);
  gfx_image_free (&job.blurred);
  gfx_image_free (&job.sharp);
}

/* The image's first layer other than the one being deblurred, or -1. */
static gint32
other_layer (gint32 drawable)
{
  gint n = 0, *layers = gimp_image_get_layers (gimp_item_get_image (drawable), &n);
  gint32 found = -1;
  for (gint i = 0; i < n && found == -1; i++)
    if (layers[i] != drawable)
      found = layers[i];
  g_free (layers);
  return found;
}

static gboolean
press_cancel (gpointer data)
{
  GtkWidget *window = gtk_widget_get_toplevel (((identify_ui *) data)->picture);
  gtk_dialog_response (GTK_DIALOG (window), GTK_RESPONSE_CANCEL);
  return G_SOURCE_REMOVE;
}

/* Test hook: GPUFX_DIALOG_AUTO_IDENTIFY=SECONDS presses Identify once (dialog tests).  With
 * GPUFX_DIALOG_IDENTIFY_SHARP=1 it first does what a user does for a sharp reference:
 * unticks Automatic and, once the layer list has become usable, picks the image's other
 * layer in it.  GPUFX_DIALOG_IDENTIFY_CANCEL=SECONDS presses Cancel that long after
 * Identify, while the identification runs (the dialog answers only from then on). */
static gboolean
auto_identify (gpointer data)
{
  identify_ui *ui = data;
  const char *cancel = g_getenv ("GPUFX_DIALOG_IDENTIFY_CANCEL");
  if (cancel)
    g_timeout_add ((guint) (g_ascii_strtod (cancel, NULL) * 1000), press_cancel, ui);
  if (g_getenv ("GPUFX_DIALOG_IDENTIFY_SHARP"))
    {
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (ui->automatic), FALSE);
      if (gtk_widget_is_sensitive (ui->sharp))
        gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (ui->sharp),
                                       other_layer (gfx_dialog_drawable (ui->dlg)));
    }
  on_identify (NULL, ui);
  return G_SOURCE_REMOVE;
}

/* The sharp reference, list and label, matters only without automatic edges. */
static void
on_automatic (GtkToggleButton *toggle, identify_ui *ui)
{
  gtk_widget_set_sensitive (ui->sharp, !gtk_toggle_button_get_active (toggle));
  gtk_widget_set_sensitive (ui->sharp_label, !gtk_toggle_button_get_active (toggle));
}

static double
default_of (const char *name)
{
  return gfx_params_find (&gfx_identify_param_set, name)->def;
}

static GtkWidget *
spin (const char *name)
{
  const gfx_param_desc *d = gfx_params_find (&gfx_identify_param_set, name);
  GtkWidget *w = gtk_spin_button_new_with_range (d->min, d->max, 1);
  gtk_widget_set_tooltip_text (w, _(d->help));
  return w;
}

/* The row's label is the parameter's own, as in every other dialog; returns the label. */
static GtkWidget *
attach (GtkWidget *table, int row, const char *name, GtkWidget *w)
{
  const gfx_param_desc *d = gfx_params_find (&gfx_identify_param_set, name);
  return gimp_table_attach_aligned (GTK_TABLE (table), 0, row, _(d->label), 0.0, 0.5, w, 1,
                                    TRUE);
}

/* The defaults of the identify table (automatic edges, its mask and method), and no
 * result on show: as the dialog opens, and after Reset. */
static void
set_defaults (identify_ui *ui)
{
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (ui->automatic), TRUE);
  on_automatic (GTK_TOGGLE_BUTTON (ui->automatic), ui);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (ui->rows), default_of ("mask-rows"));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (ui->cols), default_of ("mask-cols"));
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (ui->method), (gint) default_of ("method"));
  gtk_label_set_text (GTK_LABEL (ui->report), "");
  gtk_widget_hide (ui->picture);
}

#define UI_KEY "gfx-identify-ui" /* the identify_ui on the box it was built into */

void
gfx_identify_dialog_reset (GtkWidget *box)
{
  identify_ui *ui = g_object_get_data (G_OBJECT (box), UI_KEY);
  if (!ui)
    return;
  set_defaults (ui);
  gfx_ui_shrink_window (ui->picture);
}

/* Folding the section gives its height back. */
static void
on_expanded (GtkExpander *expander, GParamSpec *spec, gpointer data)
{
  (void) spec, (void) data;
  if (!gtk_expander_get_expanded (expander))
    gfx_ui_shrink_window (GTK_WIDGET (expander));
}

static void
free_ui (gpointer data, GClosure *closure)
{
  (void) closure;
  g_free (((identify_ui *) data)->written);
  g_free (data);
}

void
gfx_identify_dialog_build (gfx_dialog *dlg, GtkWidget *box)
{
  identify_ui *ui = g_new0 (identify_ui, 1);
  ui->dlg = dlg;
  /* Open by default: beside the preview (deblur_hooks.beside) it fits a 768-line screen
   * even with a report; folding it gives the height back. */
  GtkWidget *frame = gtk_expander_new (_("Identify the filter"));
  gtk_expander_set_expanded (GTK_EXPANDER (frame), TRUE);
  GtkWidget *vbox = gtk_vbox_new (FALSE, 4), *table = gtk_table_new (5, 2, FALSE);
  ui->automatic = gtk_check_button_new_with_mnemonic (_("_Automatic: retouch straight edges"));
  ui->sharp = gimp_drawable_combo_box_new (NULL, NULL);
  ui->rows = spin ("mask-rows");
  ui->cols = spin ("mask-cols");
  ui->method = gimp_int_combo_box_new (_(gfx_identify_method_labels[0]), GFX_IDENTIFY_LS,
                                       _(gfx_identify_method_labels[1]), GFX_IDENTIFY_LAD,
                                       NULL);
  gtk_table_attach_defaults (GTK_TABLE (table), ui->automatic, 0, 2, 0, 1);
  ui->sharp_label = attach (table, 1, "sharp-drawable", ui->sharp);
  attach (table, 2, "mask-rows", ui->rows);
  attach (table, 3, "mask-cols", ui->cols);
  attach (table, 4, "method", ui->method);
  GtkWidget *button = ui->button = gtk_button_new_with_mnemonic (_("_Identify"));
  ui->report = gtk_label_new (NULL);
  ui->picture = gtk_image_new ();
  gtk_misc_set_alignment (GTK_MISC (ui->report), 0.0, 0.0);
  gtk_box_pack_start (GTK_BOX (vbox), table, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (vbox), button, FALSE, FALSE, 0);
  GtkWidget *result = gtk_hbox_new (FALSE, 8); /* report beside the fragments picture */
  gtk_box_pack_start (GTK_BOX (result), ui->report, FALSE, FALSE, 0);
  gtk_box_pack_end (GTK_BOX (result), ui->picture, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (vbox), result, FALSE, FALSE, 0);
  gtk_container_add (GTK_CONTAINER (frame), vbox);
  gtk_box_pack_start (GTK_BOX (box), frame, FALSE, FALSE, 0);
  set_defaults (ui);
  g_object_set_data (G_OBJECT (box), UI_KEY, ui);
  g_signal_connect (ui->automatic, "toggled", G_CALLBACK (on_automatic), ui);
  g_signal_connect (frame, "notify::expanded", G_CALLBACK (on_expanded), NULL);
  g_signal_connect_data (button, "clicked", G_CALLBACK (on_identify), ui, free_ui, 0);
  gtk_widget_show_all (frame);
  gtk_widget_hide (ui->picture);
  gtk_widget_show (box);
  const char *auto_id = g_getenv ("GPUFX_DIALOG_AUTO_IDENTIFY");
  if (auto_id)
    g_timeout_add ((guint) (g_ascii_strtod (auto_id, NULL) * 1000), auto_identify, ui);
}
