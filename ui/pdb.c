/* PDB side of the glue: procedure arguments from the parameter table, argument reading,
 * last values and return values. */
#include "plugin.h"

#include <string.h>

void
gfx_ui_query_begin (void)
{
  gfx_ui_i18n_init ();
  gimp_plugin_domain_register (GETTEXT_PACKAGE, gfx_ui_locale_dir ());
  /* Help (F1) in this executable's dialogs opens the pages beside it (ui/help_pages.h):
   * a domain of its own, as each executable lists only its own procedures. */
  gchar *domain = g_strconcat (GETTEXT_PACKAGE "/", g_get_prgname (), NULL);
  gchar *uri = g_filename_to_uri (gfx_ui_help_dir (), NULL, NULL);
  gimp_plugin_help_register (domain, uri);
  g_free (uri);
  g_free (domain);
}

static GimpPDBArgType
pdb_type (gfx_param_type t)
{
  switch (t)
    {
    case GFX_PT_FLOAT: return GIMP_PDB_FLOAT;
    case GFX_PT_STRING: return GIMP_PDB_STRING;
    case GFX_PT_DRAWABLE: return GIMP_PDB_DRAWABLE;
    default: return GIMP_PDB_INT32;
    }
}

GimpParamDef *
gfx_ui_pdb_args (const gfx_param_set *set, int *n_args)
{
  static const GimpParamDef fixed[3] = {
    { GIMP_PDB_INT32, "run-mode",
      "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1), RUN-WITH-LAST-VALS (2) }" },
    { GIMP_PDB_IMAGE, "image", "Input image" },
    { GIMP_PDB_DRAWABLE, "drawable", "Input drawable" },
  };
  GimpParamDef *args = g_new0 (GimpParamDef, 3 + set->n_params);
  for (int i = 0; i < 3; i++)
    {
      args[i].type = fixed[i].type;
      args[i].name = g_strdup (fixed[i].name);
      args[i].description = g_strdup (fixed[i].description);
    }
  for (int i = 0; i < set->n_params; i++)
    {
      const gfx_param_desc *d = &set->params[i];
      char range[256];
      gfx_param_describe_range (d, range, sizeof range);
      args[3 + i].type = pdb_type (d->type);
      args[3 + i].name = g_strdup (d->name);
      /* The PDB browser shows the description untranslated: keep the English help and
       * the range together so Script-Fu authors see both. */
      args[3 + i].description = g_strdup_printf ("%s: %s", d->help, range);
    }
  *n_args = 3 + set->n_params;
  return args;
}

void
gfx_ui_pdb_args_free (GimpParamDef *args, int n_args)
{
  for (int i = 0; i < n_args; i++)
    {
      g_free (args[i].name);
      g_free (args[i].description);
    }
  g_free (args);
}

void
gfx_ui_install (const gfx_ui_proc *proc, const GimpParamDef *return_vals, int n_return_vals)
{
  int n_args;
  GimpParamDef *args = gfx_ui_pdb_args (proc->filter->params, &n_args);
  gimp_install_procedure (proc->proc_name, proc->filter->blurb,
                          proc->help ? proc->help : proc->filter->blurb,
                          "gimp-gpufx authors", "gimp-gpufx authors", "2026",
                          proc->menu_label, "RGB*, GRAY*" /* indexed is refused */,
                          GIMP_PLUGIN, n_args, n_return_vals, args, return_vals);
  if (proc->menu_path)
    gimp_plugin_menu_register (proc->proc_name, proc->menu_path);
  gfx_ui_pdb_args_free (args, n_args);
}

void
gfx_ui_run_begin (int nparams, const GimpParam *param)
{
  gfx_ui_i18n_init ();
  /* The core's messages in the interface's language (the PDB's texts, made by query, stay
   * English). */
  gfx_set_translator (gfx_ui_tr);
  /* The plug-ins use GEGL's buffers, none of its operations: an empty GEGL_PATH spares
   * loading its ~50 modules (~0.1 s a run).  A GEGL_PATH the user set is kept. */
  g_setenv ("GEGL_PATH", "", FALSE);
  /* babl 0.1.98 fills 256 MB at start to time lookup tables whenever its fish cache holds
   * an 8-bit conversion (GIMP's always does): ~0.2 s a run.  Without a dialog nothing
   * calls babl_exit (libgimpwidgets does, at exit, once gimp_ui_init ran; GEGL's exit is
   * never called here), so the cache can go unread without being overwritten.  Unread,
   * babl times its conversion chains afresh each run: GFX_BABL_TOLERANCE keeps a linear or
   * float layer's result the same from run to run.  (With a dialog, GIMP's cache chooses;
   * a tolerance of our own there would make babl drop that cache and write it anew.) */
  if (nparams < 1 || param[0].data.d_int32 != GIMP_RUN_INTERACTIVE)
    {
      g_setenv ("BABL_INHIBIT_CACHE", "1", FALSE);
      g_setenv ("BABL_TOLERANCE", GFX_BABL_TOLERANCE, FALSE);
    }
  gegl_init (NULL, NULL);
}

static gboolean
arg_matches (const gfx_param_desc *d, const GimpParam *p)
{
  return p->type == pdb_type (d->type);
}

GimpPDBStatusType
gfx_ui_read_args (const gfx_param_set *set, int nparams, const GimpParam *param, void *values,
                  gfx_error *err)
{
  if (nparams != 3 + set->n_params)
    {
      gfx_fail (err, GFX_ERR_PARAM, "%s takes %d arguments after run-mode, image, drawable; "
                "got %d", set->name, set->n_params, nparams - 3);
      return GIMP_PDB_CALLING_ERROR;
    }
  gfx_params_defaults (set, values);
  for (int i = 0; i < set->n_params; i++)
    {
      const gfx_param_desc *d = &set->params[i];
      const GimpParam *p = &param[3 + i];
      if (!arg_matches (d, p))
        {
          gfx_fail (err, GFX_ERR_PARAM, "%s: argument %d has the wrong type", d->name, 4 + i);
          return GIMP_PDB_CALLING_ERROR;
        }
      switch (d->type)
        {
        case GFX_PT_FLOAT: gfx_param_put (d, values, p->data.d_float); break;
        case GFX_PT_DRAWABLE: gfx_param_put (d, values, p->data.d_drawable); break;
        case GFX_PT_STRING: /* the CLI's rule (its length) */
          if (gfx_param_parse (d, values, p->data.d_string ? p->data.d_string : "", err)
              != GFX_OK)
            return GIMP_PDB_CALLING_ERROR;
          break;
        default: gfx_param_put (d, values, p->data.d_int32); break;
        }
    }
  if (gfx_params_validate (set, values, err) != GFX_OK)
    return GIMP_PDB_CALLING_ERROR;
  return GIMP_PDB_SUCCESS;
}

/* gimp_set_data keeps values for one GIMP session; a persistent global parasite of this
 * name (saved in the profile's parasiterc) keeps them across restarts, as GIMP keeps its
 * own filters' settings: the deblur dialog no longer forgets its filter file. */
static gchar *
saved_values_name (const char *proc_name)
{
  return g_strconcat (proc_name, "-last-values", NULL);
}

gboolean
gfx_ui_load_values (const char *proc_name, const gfx_param_set *set, void *values)
{
  gfx_params_defaults (set, values);
  void *stored = NULL;
  if (gimp_get_data_size (proc_name) == (gint) set->size)
    {
      stored = g_malloc (set->size);
      gimp_get_data (proc_name, stored);
    }
  else /* the first run of this GIMP session: what the last session kept */
    {
      gchar *name = saved_values_name (proc_name);
      GimpParasite *kept = gimp_get_parasite (name);
      if (kept && gimp_parasite_data_size (kept) == (glong) set->size)
        stored = g_memdup2 (gimp_parasite_data (kept), set->size);
      gimp_parasite_free (kept);
      g_free (name);
    }
  if (!stored)
    return FALSE;
  gfx_error err;
  /* Values stored by another build may no longer be valid: then start from defaults. */
  gboolean ok = gfx_params_validate (set, stored, &err) == GFX_OK;
  if (ok)
    memcpy (values, stored, set->size);
  g_free (stored);
  return ok;
}

void
gfx_ui_save_values (const char *proc_name, const gfx_param_set *set, const void *values)
{
  gimp_set_data (proc_name, values, set->size);
  gchar *name = saved_values_name (proc_name);
  GimpParasite *kept = gimp_parasite_new (name, GIMP_PARASITE_PERSISTENT, set->size, values);
  gimp_attach_parasite (kept);
  gimp_parasite_free (kept);
  g_free (name);
}

#define MAX_RETURN 16
static GimpParam return_buf[MAX_RETURN];
static gchar *return_msg;

void
gfx_ui_return (GimpPDBStatusType status, const char *message, int *nreturn_vals,
               GimpParam **return_vals)
{
  return_buf[0].type = GIMP_PDB_STATUS;
  return_buf[0].data.d_status = status;
  *nreturn_vals = 1;
  *return_vals = return_buf;
  if (status != GIMP_PDB_SUCCESS && status != GIMP_PDB_CANCEL && message && *message)
    {
      g_free (return_msg);
      return_msg = g_strdup (message);
      return_buf[1].type = GIMP_PDB_STRING;
      return_buf[1].data.d_string = return_msg;
      *nreturn_vals = 2;
    }
}

void
gfx_ui_return_values (const GimpParam *extra, int n_extra, int *nreturn_vals,
                      GimpParam **return_vals)
{
  gfx_ui_return (GIMP_PDB_SUCCESS, NULL, nreturn_vals, return_vals);
  if (n_extra > MAX_RETURN - 1)
    n_extra = MAX_RETURN - 1;
  memcpy (&return_buf[1], extra, (size_t) n_extra * sizeof *extra);
  *nreturn_vals = 1 + n_extra;
}

GimpPDBStatusType
gfx_ui_pdb_status (gfx_status st)
{
  switch (st)
    {
    case GFX_OK: return GIMP_PDB_SUCCESS;
    case GFX_ERR_PARAM: return GIMP_PDB_CALLING_ERROR;
    case GFX_ERR_CANCELLED: return GIMP_PDB_CANCEL;
    default: return GIMP_PDB_EXECUTION_ERROR;
    }
}
