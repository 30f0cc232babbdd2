/* gettext binding: the catalogues travel with the plug-in executable, so the domain is
 * bound to the "locale" folder beside it, wherever the profile is. */
#include "i18n.h"

#include <locale.h>

static gchar *locale_dir;

const char *
gfx_ui_locale_dir (void)
{
  if (!locale_dir)
    {
      /* /proc/self/exe names the real executable whatever argv[0] says. */
      gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
      gchar *dir = exe ? g_path_get_dirname (exe) : g_get_current_dir ();
      locale_dir = g_build_filename (dir, "locale", NULL);
      g_free (dir);
      g_free (exe);
    }
  return locale_dir;
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
