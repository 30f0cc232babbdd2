/* The preview's test hooks, so that dialog tests see what it drew and said and can move
 * it: GPUFX_DIALOG_PREVIEW_HOLD, GPUFX_DIALOG_PREVIEW_DUMP, GPUFX_DIALOG_AREA_DUMP,
 * GPUFX_DIALOG_STATUS_DUMP and GPUFX_DIALOG_PREVIEW_THEN. */
#include <stdio.h>
#include <string.h>

#include "dialog_private.h"

/* GPUFX_DIALOG_PREVIEW_HOLD=1 keeps every render from starting its work until it is
 * cancelled (at most a minute), so a test can press OK or change a parameter while a
 * render is in flight, whatever the machine's speed. */
gboolean
gfx_preview_held_for_tests (gfx_progress *p)
{
  if (!g_getenv ("GPUFX_DIALOG_PREVIEW_HOLD"))
    return FALSE;
  for (int i = 0; i < 6000 && !gfx_progress_cancelled (p); i++)
    g_usleep (10000);
  return gfx_progress_cancelled (p);
}

/* One 8-bit PNM (P5 gray, P6 RGB, P7 otherwise) of width x height samples of `channels`,
 * rows `stride` bytes apart, with the comment "# at X Y source WHAT"; nothing without a
 * path. */
static void
write_pnm (const char *path, int x, int y, const char *source, const guchar *buf, int stride,
           int width, int height, int channels)
{
  FILE *f = path ? fopen (path, "wb") : NULL;
  if (!f)
    return;
  if (channels == 1 || channels == 3)
    fprintf (f, "P%d\n# at %d %d source %s\n%d %d\n255\n", channels == 1 ? 5 : 6, x, y,
             source, width, height);
  else
    fprintf (f, "P7\n# at %d %d source %s\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL 255\nENDHDR\n",
             x, y, source, width, height, channels);
  for (int row = 0; row < height; row++)
    fwrite (buf + (size_t) row * stride, 1, (size_t) width * channels, f);
  fclose (f);
}

/* GPUFX_DIALOG_AREA_DUMP=FILE: what the preview widget shows of width x height at x, y
 * (RGB, alpha over its checks), so a test sees the drawing itself. */
static void
dump_area (gfx_dialog *dlg, int x, int y, const char *source, int width, int height)
{
  GimpPreviewArea *area = GIMP_PREVIEW_AREA (gimp_preview_get_area (GIMP_PREVIEW (dlg->preview)));
  if (area->buf && area->width >= width && area->height >= height)
    write_pnm (g_getenv ("GPUFX_DIALOG_AREA_DUMP"), x, y, source, area->buf, area->rowstride,
               width, height, 3);
}

/* GPUFX_DIALOG_PREVIEW_DUMP=FILE writes each drawn preview as 8-bit PNM (P5 gray, P6 RGB,
 * P7 otherwise) with a comment "# at X Y source filtered" (or "source reused": the
 * filtered source was kept from an earlier render) giving its place in the drawable, so a
 * test can compare it with the filter's result on the whole drawable. */
void
gfx_preview_dump_for_tests (gfx_dialog *dlg, const guchar *buf, int width, int height,
                            int channels, gboolean reused)
{
  gint x, y;
  gimp_preview_get_position (GIMP_PREVIEW (dlg->preview), &x, &y);
  const char *source = reused ? "reused" : "filtered";
  write_pnm (g_getenv ("GPUFX_DIALOG_PREVIEW_DUMP"), x, y, source, buf, width * channels,
             width, height, channels);
  dump_area (dlg, x, y, source, width, height);
}

/* The preview drawn unfiltered (values OK would refuse, a failed render): the area dump,
 * as "source original". */
void
gfx_preview_dump_original_for_tests (gfx_dialog *dlg)
{
  gint x, y, width, height;
  gimp_preview_get_position (GIMP_PREVIEW (dlg->preview), &x, &y);
  gimp_preview_get_size (GIMP_PREVIEW (dlg->preview), &width, &height);
  dump_area (dlg, x, y, "original", width, height);
}

/* A render that failed writes the status line's message to the dump instead, as a line
 * of text. */
void
gfx_preview_dump_failure_for_tests (const char *text)
{
  const char *path = g_getenv ("GPUFX_DIALOG_PREVIEW_DUMP");
  if (path)
    g_file_set_contents (path, text, -1, NULL);
}

/* GPUFX_DIALOG_STATUS_DUMP=FILE: each text the status line shows, a line each. */
void
gfx_status_dump_for_tests (const char *text)
{
  const char *path = g_getenv ("GPUFX_DIALOG_STATUS_DUMP");
  FILE *f = path ? fopen (path, "a") : NULL;
  if (f)
    {
      fprintf (f, "%s\n", text);
      fclose (f);
    }
}

static void
take_action (gfx_dialog *dlg, const char *action)
{
  int dx, dy;
  GimpPreview *preview = GIMP_PREVIEW (dlg->preview);
  if (sscanf (action, "pan %d %d", &dx, &dy) == 2)
    {
      gint x, y;
      gimp_preview_get_position (preview, &x, &y);
      gimp_scrolled_preview_set_position (GIMP_SCROLLED_PREVIEW (preview), x + dx, y + dy);
    }
  else if (strcmp (action, "reset") == 0)
    gtk_dialog_response (GTK_DIALOG (dlg->window), GFX_RESPONSE_RESET);
  else if (strcmp (action, "toggle") == 0)
    {
      gimp_preview_set_update (preview, FALSE);
      gimp_preview_set_update (preview, TRUE);
    }
  else
    g_warning ("GPUFX_DIALOG_PREVIEW_THEN: unknown action '%s'", action);
}

/* GPUFX_DIALOG_PREVIEW_THEN="ACTION[;ACTION...]", one action after each preview drawn:
 * "pan DX DY" scrolls the preview by DX, DY pixels (as a drag would), "reset" presses
 * Reset, "toggle" turns the Preview check box off and on. */
void
gfx_preview_then_for_tests (gfx_dialog *dlg)
{
  static guint done; /* actions taken: one dialog a plug-in process */
  const char *actions = g_getenv ("GPUFX_DIALOG_PREVIEW_THEN");
  if (!actions)
    return;
  gchar **list = g_strsplit (actions, ";", -1);
  if (done < g_strv_length (list))
    take_action (dlg, g_strstrip (list[done]));
  done++;
  g_strfreev (list);
}
