/* gettext binding: the catalogues travel with the plug-in executable, so the domain is
 * bound to the "locale" folder beside it, wherever the profile is. */
#include "i18n.h"

#include <locale.h>

/* A folder beside the executable, made once. */
static const char *
beside_exe (gchar **cached, const char *name)
{
  if (!*cached)
    {
      /* /proc/self/exe names the real executable whatever argv[0] says. */
      gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
      gchar *dir = exe ? g_path_get_dirname (exe) : g_get_current_dir ();
      *cached = g_build_filename (dir, name, NULL);
      g_free (dir);
      g_free (exe);
    }
  return *cached;
}

const char *
gfx_ui_locale_dir (void)
{
  static gchar *dir;
  return beside_exe (&dir, "locale");
}

const char *
gfx_ui_help_dir (void)
{
  static gchar *dir;
  return beside_exe (&dir, "help");
}

void
gfx_ui_i18n_init (void)
{
  static gboolean done;
  if (done)
    return;
  done = TRUE;
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, gfx_ui_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
}

const char *
gfx_ui_tr (const char *msgid)
{
  return (msgid && *msgid) ? g_dgettext (GETTEXT_PACKAGE, msgid) : msgid;
}

gchar *
gfx_ui_plain_label (const char *label)
{
  GString *s = g_string_new (NULL);
  for (const char *p = label; *p; p++)
    {
      if (*p == '_' && p[1] != '_')
        continue; /* the mnemonic's mark */
      if (*p == '_')
        p++; /* "__" is a literal underscore */
      g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}
