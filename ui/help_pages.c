/* Help pages from the declarations (help_pages.h): what the procedure does, where its menu
 * entry is, every setting of the dialog with its values and default, and the Script-Fu
 * call with its arguments in PDB order. */
#include "help_pages.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

/* GIMP's own menu names in the menu paths we use, as GIMP's catalogue spells them (with
 * their mnemonics, in the "filters-action" context), so a Russian page says "Фильтры". */
static const struct { const char *name, *msgid; } gimp_menus[] = {
  { "Filters", "Filte_rs" }, { "Distorts", "_Distorts" }, { "Enhance", "En_hance" },
};

/* Appends the format's result, escaped for HTML. */
static void G_GNUC_PRINTF (2, 3)
put (GString *page, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  gchar *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  gchar *escaped = g_markup_escape_text (text, -1);
  g_string_append (page, escaped);
  g_free (escaped);
  g_free (text);
}

/* A translated label, plain and escaped. */
static void
put_label (GString *page, const char *msgid)
{
  gchar *label = gfx_ui_plain_label (gfx_ui_tr (msgid));
  put (page, "%s", label);
  g_free (label);
}

/* A translated choice as its list shows it: a combo box has no mnemonics, so an
 * underscore is the text's own ("m_S", "s_G": subscripts). */
static void
put_choice (GString *page, const char *msgid)
{
  put (page, "%s", gfx_ui_tr (msgid));
}

/* <tag>text</tag> and a line break, the text escaped. */
static void
put_element (GString *page, const char *tag, const char *text)
{
  g_string_append_printf (page, "<%s>", tag);
  put (page, "%s", text);
  g_string_append_printf (page, "</%s>\n", tag);
}

/* A table's start and its header row: the NULL-terminated cells, translated. */
static void G_GNUC_NULL_TERMINATED
put_table_head (GString *page, ...)
{
  va_list ap;
  va_start (ap, page);
  g_string_append (page, "<table>\n<tr>");
  for (const char *cell; (cell = va_arg (ap, const char *));)
    {
      g_string_append (page, "<th>");
      put (page, "%s", cell);
      g_string_append (page, "</th>");
    }
  va_end (ap);
  g_string_append (page, "</tr>\n");
}

/* "Filters › Distorts › Halftone (error diffusion)" in the page's language. */
static void
put_menu_path (GString *page, const gfx_ui_proc *proc)
{
  gchar **parts = g_strsplit (proc->menu_path, "/", -1);
  for (int i = 1; parts[i]; i++) /* parts[0] is "<Image>" */
    {
      const char *name = parts[i];
      for (size_t k = 0; k < G_N_ELEMENTS (gimp_menus); k++)
        if (strcmp (name, gimp_menus[k].name) == 0)
          name = g_dpgettext2 ("gimp20", "filters-action", gimp_menus[k].msgid);
      put_label (page, name);
      g_string_append (page, " › ");
    }
  gchar *label = gfx_ui_plain_label (_(proc->menu_label));
  if (g_str_has_suffix (label, "...")) /* the dialog's ellipsis */
    label[strlen (label) - 3] = '\0';
  put (page, "%s", label);
  g_free (label);
  g_strfreev (parts);
}

/* A number as the dialog shows it: the auto_label for an integer's `min`. */
static void
put_number (GString *page, const gfx_param_desc *d, double v)
{
  if (d->auto_label && v == d->min && d->type != GFX_PT_FLOAT)
    put (page, "%s", gfx_ui_tr (d->auto_label));
  else
    put (page, "%.10g", v);
}

/* The values a parameter takes: in the dialog's words, or (pdb) as the numbers a Script-Fu
 * call passes, each with what it means. */
static void
put_values (GString *page, const gfx_param_desc *d, gboolean pdb)
{
  switch (d->type)
    {
    case GFX_PT_ENUM:
      for (int i = 0; d->choice_labels[i]; i++)
        {
          g_string_append (page, i ? "<br>" : "");
          if (pdb)
            put (page, "%d = ", i);
          put_choice (page, d->choice_labels[i]);
        }
      break;
    case GFX_PT_BOOL:
      if (pdb)
        {
          put (page, "0 = %s", _("off"));
          g_string_append (page, "<br>");
          put (page, "1 = %s", _("on"));
        }
      else
        put (page, "%s", _("on or off"));
      break;
    case GFX_PT_STRING: put (page, "%s", _("a file name")); break;
    case GFX_PT_DRAWABLE:
      if (pdb)
        put (page, _("a drawable ID, or -1 = %s"), gfx_ui_tr (d->auto_label));
      else
        put (page, _("a layer, or %s"), gfx_ui_tr (d->auto_label));
      break;
    case GFX_PT_INT:
      {
        const double step = d->step > 1 ? d->step : 1;
        if (d->auto_label && pdb)
          {
            put (page, "%.10g = %s", d->min, gfx_ui_tr (d->auto_label));
            g_string_append (page, "<br>");
          }
        else if (d->auto_label)
          put (page, _("%s, or "), gfx_ui_tr (d->auto_label));
        put (page, "%.10g – %.10g", d->auto_label ? d->min + step : d->min, d->max);
        if (step > 1)
          put (page, _(", in steps of %g"), step);
        break;
      }
    case GFX_PT_FLOAT:
      if (isinf (d->max))
        put (page, (d->flags & GFX_PF_MIN_EXCLUSIVE) ? "> %.10g" : "≥ %.10g", d->min);
      else if (d->flags & GFX_PF_MIN_EXCLUSIVE)
        put (page, "> %.10g, ≤ %.10g", d->min, d->max);
      else
        put (page, "%.10g – %.10g", d->min, d->max);
      break;
    }
}

static void
put_default (GString *page, const gfx_param_desc *d, const void *defaults)
{
  const double v = d->type == GFX_PT_STRING ? 0 : gfx_param_get (d, defaults);
  switch (d->type)
    {
    case GFX_PT_ENUM: put_choice (page, d->choice_labels[(int) v]); break;
    case GFX_PT_BOOL: put (page, "%s", v ? _("on") : _("off")); break;
    case GFX_PT_STRING:
      put (page, "%s", *gfx_param_get_string (d, defaults) ? gfx_param_get_string (d, defaults)
                                                           : _("none"));
      break;
    default: put_number (page, d, v);
    }
}

static void
put_settings (GString *page, const gfx_param_set *set, const void *defaults)
{
  put_element (page, "h2", _("Settings"));
  put_table_head (page, _("Setting"), _("Values"), _("Default"), _("What it does"), NULL);
  for (int i = 0; i < set->n_params; i++)
    {
      const gfx_param_desc *d = &set->params[i];
      if (d->flags & GFX_PF_NO_DIALOG)
        continue;
      g_string_append_printf (page, "<tr id=\"%s\"><td>", d->name);
      put_label (page, d->label);
      g_string_append (page, "</td><td>");
      put_values (page, d, FALSE);
      g_string_append (page, "</td><td>");
      put_default (page, d, defaults);
      g_string_append (page, "</td><td>");
      put (page, "%s", gfx_ui_tr (d->help));
      if (d->flags & GFX_PF_ADVANCED)
        put (page, " (%s)", _("under Advanced"));
      if (d->flags & GFX_PF_GPU)
        put (page, " %s", _("Used only on the GPU (greyed out without one)."));
      g_string_append (page, "</td></tr>\n");
    }
  g_string_append (page, "</table>\n");
}

/* The Script-Fu call with the defaults (a file the user must name as /path/to/NAME), and its
 * arguments with the PDB's numbers. */
static void
put_batch (GString *page, const gfx_ui_proc *proc, const void *defaults)
{
  const gfx_param_set *set = proc->filter->params;
  put_element (page, "h2", _("Batch mode (Script-Fu)"));
  put_element (page, "p", _("With the default settings:"));
  g_string_append (page, "<pre>");
  put (page, "(%s RUN-NONINTERACTIVE image drawable", proc->proc_name);
  for (int i = 0; i < set->n_params; i++)
    {
      const gfx_param_desc *d = &set->params[i];
      if (d->type == GFX_PT_STRING && *gfx_param_get_string (d, defaults))
        put (page, " \"%s\"", gfx_param_get_string (d, defaults));
      else if (d->type == GFX_PT_STRING) /* one the user must give: "" would be refused */
        put (page, " \"/path/to/%s\"", d->name);
      else
        put (page, " %.10g", gfx_param_get (d, defaults));
    }
  g_string_append (page, ")</pre>\n");
  put_table_head (page, _("Argument"), _("Values"), NULL);
  for (int i = 0; i < set->n_params; i++)
    {
      const gfx_param_desc *d = &set->params[i];
      g_string_append (page, "<tr><td><code>");
      put (page, "%s", d->name);
      g_string_append (page, "</code></td><td>");
      put_values (page, d, TRUE);
      g_string_append (page, "</td></tr>\n");
    }
  g_string_append (page, "</table>\n");
}

/* lang: the page's language, as its folder is named ("zh_CN"). */
static gchar *
page_text (const gfx_ui_proc *proc, const gfx_ui_proc *const *procs, int n_procs,
           const char *lang)
{
  const gfx_filter *f = proc->filter;
  void *defaults = g_malloc0 (f->params->size);
  gfx_params_defaults (f->params, defaults);
  GString *page = g_string_new ("<!DOCTYPE html>\n<html lang=\"");
  gchar *tag = g_strdelimit (g_strdup (lang), "_", '-'); /* HTML's "zh-CN" */
  put (page, "%s", tag);
  g_free (tag);
  g_string_append (page, "\">\n<head>\n<meta charset=\"utf-8\">\n");
  put_element (page, "title", gfx_ui_tr (f->title));
  g_string_append (page,
                   "<style>body { font-family: sans-serif; max-width: 50em; }"
                   " table { border-collapse: collapse; }"
                   " td, th { border: 1px solid #aaa; padding: 0.3em; text-align: left;"
                   " vertical-align: top; }</style>\n</head>\n<body>\n");
  put_element (page, "h1", gfx_ui_tr (f->title));
  if (proc->menu_path)
    {
      g_string_append (page, "<p class=\"menu\">");
      put_menu_path (page, proc);
      g_string_append (page, "</p>\n");
    }
  put_element (page, "p", gfx_ui_tr (proc->help ? proc->help : f->blurb));
  if (proc->picture)
    {
      g_string_append_printf (page, "<figure><img src=\"../%s\" alt=\"\">\n", proc->picture);
      put_element (page, "figcaption", _("An example: the original on the left, the result "
                                         "on the right."));
      g_string_append (page, "</figure>\n");
    }
  put_settings (page, f->params, defaults);
  put_batch (page, proc, defaults);
  put_element (page, "h2", _("Command line"));
  put_element (page, "p", _("Outside GIMP the gpufx command does the same; this lists its options:"));
  gchar *command = g_strdup_printf ("gpufx %s --help", f->name);
  put_element (page, "pre", command);
  g_free (command);
  for (int i = 0; i < n_procs; i++)
    if (procs[i] != proc)
      {
        g_string_append (page, "<p>");
        put (page, "%s ", _("See also:"));
        g_string_append_printf (page, "<a href=\"%s.html\">", procs[i]->proc_name);
        put (page, "%s", gfx_ui_tr (procs[i]->filter->title));
        g_string_append (page, "</a></p>\n");
      }
  g_string_append (page, "</body>\n</html>\n");
  g_free (defaults);
  return g_string_free (page, FALSE);
}

static int
write_file (const char *dir, const char *name, const char *text)
{
  gchar *path = g_build_filename (dir, name, NULL);
  GError *error = NULL;
  gboolean ok = g_file_set_contents (path, text, -1, &error);
  if (!ok)
    {
      fprintf (stderr, "gimp-gpufx: cannot write help page %s: %s\n", path, error->message);
      g_error_free (error);
    }
  g_free (path);
  return ok ? 0 : -1;
}

int
gfx_ui_help_pages_write (const gfx_ui_proc *const *procs, int n_procs, const char *dir)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      fprintf (stderr, "gimp-gpufx: cannot create %s: %s\n", dir, g_strerror (errno));
      return -1;
    }
  GString *map = g_string_new ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gimp-help>\n");
  gchar *lang = g_path_get_basename (dir);
  int rc = 0;
  for (int i = 0; i < n_procs && rc == 0; i++)
    {
      gchar *name = g_strdup_printf ("%s.html", procs[i]->proc_name);
      gchar *text = page_text (procs[i], procs, n_procs, lang);
      rc = write_file (dir, name, text);
      g_string_append_printf (map, "  <help-item id=\"%s\" ref=\"%s\"/>\n",
                              procs[i]->proc_name, name);
      g_free (text);
      g_free (name);
    }
  g_string_append_printf (map, "  <help-missing ref=\"%s.html\"/>\n</gimp-help>\n",
                          procs[0]->proc_name);
  if (rc == 0)
    rc = write_file (dir, "gimp-help.xml", map->str);
  g_string_free (map, TRUE);
  g_free (lang);
  return rc;
}

int
gfx_ui_main (const GimpPlugInInfo *info, const gfx_ui_proc *const *procs, int n_procs,
             int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--help-pages") == 0)
    {
      gfx_ui_i18n_init ();
      bindtextdomain ("gimp20", gimp_locale_directory ());
      bind_textdomain_codeset ("gimp20", "UTF-8");
      return gfx_ui_help_pages_write (procs, n_procs, argv[2]) == 0 ? 0 : 1;
    }
  return gimp_main (info, argc, argv);
}
