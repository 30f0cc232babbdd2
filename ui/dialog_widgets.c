/* One widget per parameter of the table: combo (ENUM), scale or spin (INT/FLOAT), check
 * (BOOL), entry with a file chooser (STRING), drawable combo (DRAWABLE).  Labels and
 * tooltips are the table's N_() strings translated here. */
#include "dialog_private.h"

#include <math.h>

#define SCALE_MAX_SPAN 1000.0 /* wider ranges get a plain spin button */

static int
param_index (GtkWidget *widget)
{
  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (widget), "gfx-param"));
}

static void
changed_value (GtkWidget *widget, gfx_dialog *dlg, double v)
{
  if (dlg->syncing)
    return;
  gfx_param_put (&dlg->set->params[param_index (widget)], dlg->values, v);
  gfx_dialog_param_changed (dlg);
}

static void
on_combo (GtkWidget *combo, gfx_dialog *dlg)
{
  gint v;
  if (gimp_int_combo_box_get_active (GIMP_INT_COMBO_BOX (combo), &v))
    changed_value (combo, dlg, v);
}

/* An integer's step is the grid of its allowed values from its minimum (the window n:
 * 3, 5, 7 ...; the block size: auto, 32, 64 ...): a value typed or dragged between two
 * is moved to the nearer (up at the middle), so the arrows keep to the grid too. */
static void
on_adjustment (GtkAdjustment *adj, gfx_dialog *dlg)
{
  GtkWidget *owner = GTK_WIDGET (g_object_get_data (G_OBJECT (adj), "gfx-owner"));
  const gfx_param_desc *d = &dlg->set->params[param_index (owner)];
  const double v = gtk_adjustment_get_value (adj);
  if (d->type == GFX_PT_INT && d->step > 1)
    {
      double on_grid = d->min + floor ((v - d->min) / d->step + 0.5) * d->step;
      if (on_grid > d->max)
        on_grid -= d->step;
      if (on_grid != v)
        {
          gtk_adjustment_set_value (adj, on_grid); /* comes back here */
          return;
        }
    }
  changed_value (owner, dlg, v);
}

static void
on_toggle (GtkToggleButton *button, gfx_dialog *dlg)
{
  changed_value (GTK_WIDGET (button), dlg, gtk_toggle_button_get_active (button));
}

static void
on_entry (GtkEntry *entry, gfx_dialog *dlg)
{
  if (dlg->syncing)
    return;
  const gfx_param_desc *d = &dlg->set->params[param_index (GTK_WIDGET (entry))];
  gfx_param_put_string (d, dlg->values, gtk_entry_get_text (entry));
  gfx_dialog_param_changed (dlg);
}

/* The chooser of a file parameter: titled by its label, showing filter files (*.iir, the
 * only kind of file a parameter names) or all files, and opening at the file named or
 * else in GIMP's folder, where Identify writes (not at "Recently used"). */
static void
on_browse (GtkWidget *button, GtkWidget *entry)
{
  const gfx_param_desc *d = g_object_get_data (G_OBJECT (button), "gfx-desc");
  gchar *title = gfx_ui_plain_label (gfx_ui_tr (d->label));
  GtkWidget *chooser = gtk_file_chooser_dialog_new (
    title, GTK_WINDOW (gtk_widget_get_toplevel (button)), GTK_FILE_CHOOSER_ACTION_OPEN,
    _("_Cancel"), GTK_RESPONSE_CANCEL, _("_Open"), GTK_RESPONSE_ACCEPT, NULL);
  g_free (title);
  GtkFileFilter *iir = gtk_file_filter_new (), *all = gtk_file_filter_new ();
  gtk_file_filter_set_name (iir, "*.iir");
  gtk_file_filter_add_pattern (iir, "*.iir");
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), iir);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), all);
  const char *current = gtk_entry_get_text (GTK_ENTRY (entry));
  if (current && *current)
    gtk_file_chooser_set_filename (GTK_FILE_CHOOSER (chooser), current);
  else
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), gimp_directory ());
  if (gtk_dialog_run (GTK_DIALOG (chooser)) == GTK_RESPONSE_ACCEPT)
    {
      gchar *name = gtk_file_chooser_get_filename (GTK_FILE_CHOOSER (chooser));
      gtk_entry_set_text (GTK_ENTRY (entry), name ? name : "");
      g_free (name);
    }
  gtk_widget_destroy (chooser);
}

/* Spin buttons show the table's auto_label for the value `min`, and accept it typed in
 * (translated or in English). */
static gboolean
on_spin_output (GtkSpinButton *spin, const gfx_param_desc *d)
{
  GtkAdjustment *adj = gtk_spin_button_get_adjustment (spin);
  if (gtk_adjustment_get_value (adj) != d->min)
    return FALSE;
  gtk_entry_set_text (GTK_ENTRY (spin), gfx_ui_tr (d->auto_label));
  return TRUE;
}

/* What was typed: a number with a decimal point or comma whatever the locale (the help
 * pages and Script-Fu write "0.5"; GTK's numeric spin buttons dropped the sign that is not
 * the locale's, so "0.55" became 55 under de_DE), or the auto_label for `min`. */
static gint
on_spin_input (GtkSpinButton *spin, gdouble *value, const gfx_param_desc *d)
{
  const char *text = gtk_entry_get_text (GTK_ENTRY (spin));
  if (d->auto_label && (!g_strcmp0 (text, gfx_ui_tr (d->auto_label))
                        || !g_ascii_strcasecmp (text, d->auto_label)))
    {
      *value = d->min;
      return TRUE;
    }
  gchar *number = g_strdelimit (g_strstrip (g_strdup (text)), ",", '.'), *end;
  double v = g_ascii_strtod (number, &end);
  gboolean ok = *number && !*end && isfinite (v);
  g_free (number);
  /* Not a number: the value stays as it was (GTK applies *value, clamped, even then). */
  *value = ok ? v : gtk_adjustment_get_value (gtk_spin_button_get_adjustment (spin));
  return ok ? TRUE : GTK_INPUT_ERROR;
}

static void
accept_typed_numbers (GtkWidget *spin, const gfx_param_desc *d)
{
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), FALSE);
  /* After the class handler: "input" keeps the last handler's answer, and GimpSpinButton
   * (the scale entries') has one that answers "not handled", so GTK's own parse ("2,5"
   * is 2 in a locale with a decimal point) overrode this one. */
  g_signal_connect_after (spin, "input", G_CALLBACK (on_spin_input), (gpointer) d);
}

static double
param_step (const gfx_param_desc *d)
{
  return d->step > 0 ? d->step : d->type == GFX_PT_FLOAT ? 0.01 : 1.0;
}

static int
param_digits (const gfx_param_desc *d)
{
  return d->type == GFX_PT_FLOAT ? CLAMP ((int) ceil (-log10 (param_step (d))), 0, 6) : 0;
}

/* Where the slider ends: the upper bound, or slider_max where there is none. */
static double
slider_end (const gfx_param_desc *d)
{
  return isinf (d->max) ? d->slider_max : d->max;
}

/* The spin button's upper end: the bound, or G_MAXDOUBLE where there is none (GTK sizes a
 * spin button from its upper end, and an infinite one breaks that arithmetic). */
static double
spin_end (const gfx_param_desc *d)
{
  return isinf (d->max) ? G_MAXDOUBLE : d->max;
}

static GtkWidget *
make_spin (gfx_dialog *dlg, const gfx_param_desc *d, double v)
{
  double step = param_step (d);
  GtkObject *adj = gtk_adjustment_new (v, d->min, spin_end (d), step, step * 10, 0);
  GtkWidget *spin = gtk_spin_button_new (GTK_ADJUSTMENT (adj), step, param_digits (d));
  gtk_entry_set_width_chars (GTK_ENTRY (spin), 8);
  accept_typed_numbers (spin, d);
  if (d->auto_label)
    g_signal_connect (spin, "output", G_CALLBACK (on_spin_output), (gpointer) d);
  g_object_set_data (G_OBJECT (adj), "gfx-owner", spin);
  g_signal_connect (adj, "value-changed", G_CALLBACK (on_adjustment), dlg);
  return spin;
}

static GtkWidget *
make_enum (gfx_dialog *dlg, const gfx_param_desc *d, double v)
{
  int n = 0;
  while (d->choices[n])
    n++;
  const gchar **labels = g_new0 (const gchar *, n + 1);
  for (int i = 0; i < n; i++)
    labels[i] = gfx_ui_tr (d->choice_labels ? d->choice_labels[i] : d->choices[i]);
  GtkWidget *combo = gimp_int_combo_box_new_array (n, labels);
  g_free (labels);
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (combo), (gint) v);
  g_signal_connect (combo, "changed", G_CALLBACK (on_combo), dlg);
  return combo;
}

static GtkWidget *
make_file (gfx_dialog *dlg, const gfx_param_desc *d, GtkWidget **entry_out)
{
  GtkWidget *hbox = gtk_hbox_new (FALSE, 4);
  GtkWidget *entry = gtk_entry_new ();
  gtk_entry_set_text (GTK_ENTRY (entry), gfx_param_get_string (d, dlg->values));
  gtk_entry_set_width_chars (GTK_ENTRY (entry), 28);
  gtk_box_pack_start (GTK_BOX (hbox), entry, TRUE, TRUE, 0);
  GtkWidget *browse = gtk_button_new_with_label ("…");
  gimp_help_set_help_data (browse, _("Choose a file"), NULL);
  g_object_set_data (G_OBJECT (browse), "gfx-desc", (gpointer) d);
  g_signal_connect (browse, "clicked", G_CALLBACK (on_browse), entry);
  gtk_box_pack_start (GTK_BOX (hbox), browse, FALSE, FALSE, 0);
  g_signal_connect (entry, "changed", G_CALLBACK (on_entry), dlg);
  *entry_out = entry;
  return hbox;
}

static void
on_drawable (GtkWidget *combo, gfx_dialog *dlg)
{
  on_combo (combo, dlg);
}

static GtkWidget *
make_drawable (gfx_dialog *dlg, const gfx_param_desc *d)
{
  GtkWidget *combo = gimp_drawable_combo_box_new (NULL, NULL);
  gimp_int_combo_box_prepend (GIMP_INT_COMBO_BOX (combo), GIMP_INT_STORE_VALUE, -1,
                              GIMP_INT_STORE_LABEL, _("(none)"), -1);
  gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (combo),
                                 (gint) gfx_param_get (d, dlg->values));
  g_signal_connect (combo, "changed", G_CALLBACK (on_drawable), dlg);
  return combo;
}

/* Adds parameter i as row `row` of table. */
static void
add_row (gfx_dialog *dlg, GtkWidget *table, int row, int i)
{
  const gfx_param_desc *d = &dlg->set->params[i];
  const char *label = gfx_ui_tr (d->label);
  const char *help = gfx_ui_tr (d->help);
  double v = gfx_param_get (d, dlg->values);
  GtkWidget *w = NULL, *shown = NULL;
  switch (d->type)
    {
    case GFX_PT_FLOAT:
    case GFX_PT_INT:
      if (!d->auto_label && slider_end (d) - d->min <= SCALE_MAX_SPAN)
        {
          /* Without an upper bound the slider ends at slider_max and the spin button
           * takes any larger value. */
          double step = param_step (d);
          gboolean bounded = !isinf (d->max);
          GtkObject *adj = gimp_scale_entry_new (GTK_TABLE (table), 0, row, label, 160, 8, v,
                                                 d->min, slider_end (d), step, step * 10,
                                                 param_digits (d), bounded, d->min,
                                                 spin_end (d), help, NULL);
          w = GIMP_SCALE_ENTRY_SPINBUTTON (adj);
          accept_typed_numbers (w, d);
          dlg->scales[i] = adj;
          g_object_set_data (G_OBJECT (adj), "gfx-owner", w);
          g_signal_connect (adj, "value-changed", G_CALLBACK (on_adjustment), dlg);
          break;
        }
      shown = w = make_spin (dlg, d, v);
      break;
    case GFX_PT_ENUM: shown = w = make_enum (dlg, d, v); break;
    case GFX_PT_BOOL:
      w = gtk_check_button_new_with_mnemonic (label);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w), v != 0);
      g_signal_connect (w, "toggled", G_CALLBACK (on_toggle), dlg);
      gtk_table_attach (GTK_TABLE (table), w, 0, 3, row, row + 1, GTK_FILL, GTK_FILL, 0, 0);
      gtk_widget_show (w);
      break;
    case GFX_PT_STRING: shown = make_file (dlg, d, &w); break;
    case GFX_PT_DRAWABLE: shown = w = make_drawable (dlg, d); break;
    }
  g_object_set_data (G_OBJECT (w), "gfx-param", GINT_TO_POINTER (i));
  gimp_help_set_help_data (w, help, NULL);
  if (shown)
    {
      /* Spin buttons and combos stay at their natural width, like GIMP's own dialogs. */
      gimp_table_attach_aligned (GTK_TABLE (table), 0, row, label, 0.0, 0.5, shown,
                                 d->type == GFX_PT_STRING ? 2 : 1, d->type != GFX_PT_STRING);
      gtk_widget_show_all (shown);
    }
  dlg->widgets[i] = w;
}

static GtkWidget *
new_table (int rows)
{
  GtkWidget *table = gtk_table_new (rows > 0 ? rows : 1, 3, FALSE);
  gtk_table_set_col_spacings (GTK_TABLE (table), 6);
  gtk_table_set_row_spacings (GTK_TABLE (table), 4);
  return table;
}

GtkWidget *
gfx_dialog_build_params (gfx_dialog *dlg)
{
  const gfx_param_set *set = dlg->set;
  GtkWidget *vbox = gtk_vbox_new (FALSE, 6);
  GtkWidget *basic = new_table (set->n_params), *advanced = new_table (set->n_params);
  int n_basic = 0, n_adv = 0;
  dlg->widgets = g_new0 (GtkWidget *, set->n_params);
  dlg->scales = g_new0 (GtkObject *, set->n_params);
  for (int i = 0; i < set->n_params; i++)
    {
      unsigned flags = set->params[i].flags;
      if (flags & GFX_PF_NO_DIALOG)
        continue;
      if (flags & GFX_PF_ADVANCED)
        add_row (dlg, advanced, n_adv++, i);
      else
        add_row (dlg, basic, n_basic++, i);
    }
  gtk_box_pack_start (GTK_BOX (vbox), basic, FALSE, FALSE, 0);
  gtk_widget_show (basic);
  if (n_adv > 0)
    {
      GtkWidget *expander = gtk_expander_new_with_mnemonic (_("_Advanced"));
      dlg->expander = expander;
      GtkWidget *align = gtk_alignment_new (0, 0, 1, 1);
      gtk_alignment_set_padding (GTK_ALIGNMENT (align), 4, 0, 12, 0);
      gtk_container_add (GTK_CONTAINER (align), advanced);
      gtk_container_add (GTK_CONTAINER (expander), align);
      gtk_box_pack_start (GTK_BOX (vbox), expander, FALSE, FALSE, 0);
      gtk_widget_show_all (expander);
    }
  else
    gtk_widget_destroy (advanced);
  return vbox;
}

void
gfx_dialog_update_sensitivity (gfx_dialog *dlg)
{
  const gfx_param_desc *backend = gfx_params_find (dlg->set, "backend");
  gboolean gpu = gfx_ui_gpu_usable (NULL)
                 && (!backend || gfx_backend_effective ((int) gfx_param_get (backend, dlg->values))
                                   != GFX_BACKEND_CPU);
  for (int i = 0; i < dlg->set->n_params; i++)
    {
      const gfx_param_desc *d = &dlg->set->params[i];
      if (!dlg->widgets[i] || (!(d->flags & GFX_PF_GPU) && !d->used_if))
        continue;
      gboolean on = (!(d->flags & GFX_PF_GPU) || gpu)
                    && gfx_param_used (dlg->set, d, dlg->values);
      if (dlg->scales[i])
        gimp_scale_entry_set_sensitive (dlg->scales[i], on);
      else
        {
          gtk_widget_set_sensitive (dlg->widgets[i], on);
          GList *labels = gtk_widget_list_mnemonic_labels (dlg->widgets[i]);
          for (GList *l = labels; l; l = l->next)
            gtk_widget_set_sensitive (GTK_WIDGET (l->data), on);
          g_list_free (labels);
        }
    }
}

void
gfx_dialog_sync (gfx_dialog *dlg)
{
  dlg->syncing = TRUE;
  for (int i = 0; i < dlg->set->n_params; i++)
    {
      const gfx_param_desc *d = &dlg->set->params[i];
      GtkWidget *w = dlg->widgets[i];
      double v = gfx_param_get (d, dlg->values);
      if (!w)
        continue;
      if (dlg->scales[i])
        gtk_adjustment_set_value (GTK_ADJUSTMENT (dlg->scales[i]), v);
      else if (GTK_IS_SPIN_BUTTON (w))
        gtk_spin_button_set_value (GTK_SPIN_BUTTON (w), v);
      else if (GIMP_IS_INT_COMBO_BOX (w))
        gimp_int_combo_box_set_active (GIMP_INT_COMBO_BOX (w), (gint) v);
      else if (GTK_IS_TOGGLE_BUTTON (w))
        gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (w), v != 0);
      else if (GTK_IS_ENTRY (w))
        gtk_entry_set_text (GTK_ENTRY (w), gfx_param_get_string (d, dlg->values));
    }
  dlg->syncing = FALSE;
  /* As for a change by hand: the widgets' signals were ignored while syncing, so the
   * hooks (enhance's whole-drawable statistics, deblur's stability view) and the backend
   * line would otherwise keep the values from before a Reset. */
  gfx_dialog_param_changed (dlg);
}

GtkWidget *
gfx_dialog_widget (gfx_dialog *dlg, const char *param_name)
{
  const gfx_param_desc *d = gfx_params_find (dlg->set, param_name);
  return d ? dlg->widgets[d - dlg->set->params] : NULL;
}
