/* gettext for the plug-ins: domain "gimp-gpufx", catalogues in a "locale" folder beside
 * the plug-in executable (plug-ins/NAME/locale/<lang>/LC_MESSAGES/gimp-gpufx.mo).
 * Include this header FIRST in ui/ and plugins/ sources (before any common/ header): it
 * defines _() and N_(), and common/params.h then keeps that N_(). */
#ifndef GFX_UI_I18N_H
#define GFX_UI_I18N_H

#define GETTEXT_PACKAGE "gimp-gpufx"
/* GTK 2 headers use GLib API deprecated after 2.32 (GTimeVal, GTypeDebugFlags); -Werror must not trip on
 * the toolkit's own headers. */
#ifndef GLIB_VERSION_MIN_REQUIRED
#define GLIB_VERSION_MIN_REQUIRED GLIB_VERSION_2_32
#endif
#include <glib/gi18n-lib.h>

/* The folder holding this executable's catalogues (".../plug-ins/NAME/locale"); owned by
 * the library, never NULL. */
const char *gfx_ui_locale_dir (void);
/* The folder holding its help pages (".../plug-ins/NAME/help", ui/help_pages.h). */
const char *gfx_ui_help_dir (void);

/* Binds the domain to gfx_ui_locale_dir() with UTF-8 output.  Called by
 * gfx_ui_query_begin() and gfx_ui_run_begin(); harmless to call twice. */
void gfx_ui_i18n_init (void);

/* Translates a string of a core table (labels marked N_() in common/); NULL stays NULL,
 * "" stays "". */
const char *gfx_ui_tr (const char *msgid);

/* A label without its mnemonic underscore ("Block si_ze" -> "Block size"), newly
 * allocated. */
gchar *gfx_ui_plain_label (const char *label);

#endif
