/* Inside the shared dialog: the state that ui/dialog.c (life cycle, OK), ui/dialog_widgets.c
 * (one widget per parameter), ui/dialog_preview.c (the live preview) and
 * ui/dialog_preview_hooks.c (its test hooks) share.  Not for plug-ins. */
#ifndef GFX_UI_DIALOG_PRIVATE_H
#define GFX_UI_DIALOG_PRIVATE_H

#include "dialog.h"

#define GFX_RESPONSE_RESET 1

typedef struct preview_render preview_render;
typedef struct kept_source kept_source;

struct gfx_dialog {
  const gfx_ui_proc *proc;
  const gfx_param_set *set;
  gint32 drawable;
  void *values;
  GtkWidget *window;
  GtkWidget *preview;     /* GimpDrawablePreview */
  GtkWidget *status;      /* backend and render time line */
  GtkWidget *controls;    /* everything that goes insensitive while busy */
  GtkWidget *progress;    /* GtkProgressBar, shown while busy */
  GtkWidget *extra;       /* hooks->build box */
  GtkWidget *expander;    /* "Advanced", or NULL */
  GtkWidget **widgets;    /* per parameter: combo, spin, toggle, entry or NULL */
  GtkObject **scales;     /* per parameter: scale-entry adjustment or NULL */
  gboolean syncing;       /* widgets are being set from values: ignore their signals */
  gboolean busy;          /* the final run or a hook's job is running */
  gfx_ui_monitor *job;    /* the running job's monitor, for Cancel */
  char *message;          /* gfx_dialog_set_message text or NULL */
  char last_render[256];  /* "GPU: ... · preview 12 ms" */
  preview_render *render; /* in-flight preview render or NULL */
  gboolean render_again;  /* values changed during that render */
  kept_source *kept;      /* the last filtered source, or NULL (dialog_preview.c) */
  guint generation;       /* counts the changes made in the dialog */
};

/* dialog_widgets.c */
GtkWidget *gfx_dialog_build_params (gfx_dialog *dlg);
void gfx_dialog_update_sensitivity (gfx_dialog *dlg);
/* Called by every parameter widget after it changed dlg->values. */
void gfx_dialog_param_changed (gfx_dialog *dlg);

/* dialog.c */
void gfx_dialog_show_status (gfx_dialog *dlg);
/* The backend the current values would use, for the status line. */
void gfx_dialog_describe_backend (gfx_dialog *dlg, char *buf, size_t len);

/* dialog_preview.c */
GtkWidget *gfx_dialog_preview_new (gfx_dialog *dlg); /* sets dlg->preview */
/* Cancels an in-flight render and waits for it (before OK, a job, or closing). */
void gfx_dialog_render_stop (gfx_dialog *dlg);
/* That, and drops the kept filtered source (before a job, or closing). */
void gfx_dialog_preview_forget (gfx_dialog *dlg);

/* dialog_preview_hooks.c: the preview's test hooks */
gboolean gfx_preview_held_for_tests (gfx_progress *p);
void gfx_preview_dump_for_tests (gfx_dialog *dlg, const guchar *buf, int width, int height,
                                 int channels, gboolean reused);
void gfx_preview_dump_failure_for_tests (const char *text);
void gfx_preview_dump_original_for_tests (gfx_dialog *dlg);
void gfx_status_dump_for_tests (const char *text);
void gfx_preview_then_for_tests (gfx_dialog *dlg);

#endif
