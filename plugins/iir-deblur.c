/* plug-in-gpufx-iir-deblur: deblurring with four single-quadrant IIR filters read from a
 * filter file (SPEC section 3) under Filters > Enhance.  The dialog adds the filter's
 * stability verdict and root-locus picture below the parameters.  The same executable
 * holds plug-in-gpufx-iir-identify (plugins/iir_identify_glue.c), which writes the
 * filter files this one reads. */
#include <string.h>

#include "../ui/dialog.h"
#include "../ui/help_pages.h"

#include "../common/iir.h"
#include "../common/iir_file.h"
#include "../common/iir_stability.h"
#include "iir_identify_glue.h"

#define PLOT_PANEL 110 /* pixels per quadrant panel in the dialog */

typedef struct {
  GtkWidget *frame;   /* the Stability section */
  GtkWidget *verdict; /* label: one line per quadrant, or why there is no verdict */
  GtkWidget *picture; /* the root loci */
  char shown[GFX_PATH_LEN];
} stability_view;

static stability_view view;

static void
free_pixels (guchar *pixels, gpointer data)
{
  (void) data;
  g_free (pixels);
}

/* The core's RGB u8 picture as a pixbuf that owns a copy of the pixels. */
static GdkPixbuf *
pixbuf_from (const gfx_image *img)
{
  guchar *copy = g_memdup2 (img->pixels, gfx_image_bytes (img));
  return gdk_pixbuf_new_from_data (copy, GDK_COLORSPACE_RGB, FALSE, 8, img->width, img->height,
                                   img->width * 3, free_pixels, NULL);
}

static void
show_stability (const char *path)
{
  gfx_iir_filter f;
  gfx_iir_stability st;
  gfx_error err;
  gfx_image plot = { 0 };
  GString *text = g_string_new (NULL);
  if (!path[0])
    g_string_append (text, _("Choose a filter file to see its stability."));
  else if (gfx_iir_read (path, &f, &err) != GFX_OK
           || gfx_iir_stability_check (&f, 0, &st, &err) != GFX_OK
           || gfx_iir_plot_loci (&f, 0, PLOT_PANEL, &plot, &err) != GFX_OK)
    g_string_append (text, err.msg);
  else
    for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
      {
        char margin[GFX_IIR_MARGIN_TEXT];
        g_string_append_printf (text, "%sq%d: %s, %s %s", q ? "\n" : "", q + 1,
                                st.stable[q] ? _("stable") : _("UNSTABLE"), _("margin"),
                                gfx_iir_margin_text (st.margin[q], margin));
      }
  /* Without a picture the text is a message (a path, a parse error): wrapped at the
   * section's width, which the label's own wrap (48 characters) did not keep it within
   * once the dialog was up (it ran past the dialog's edge, cut mid-word). */
  GtkAllocation section;
  gtk_widget_get_allocation (view.frame, &section);
  gtk_widget_set_size_request (view.verdict, !plot.pixels && section.width > 40
                                               ? section.width - 24 : -1, -1);
  gtk_label_set_text (GTK_LABEL (view.verdict), text->str);
  g_string_free (text, TRUE);
  if (plot.pixels)
    {
      GdkPixbuf *pb = pixbuf_from (&plot);
      gtk_image_set_from_pixbuf (GTK_IMAGE (view.picture), pb);
      g_object_unref (pb);
      gtk_widget_show (view.picture);
      gfx_image_free (&plot);
    }
  else if (gtk_widget_get_visible (view.picture))
    {
      gtk_widget_hide (view.picture);
      gfx_ui_shrink_window (view.picture);
    }
  g_strlcpy (view.shown, path, sizeof view.shown);
}

static void
build (gfx_dialog *dlg, GtkWidget *box, void *user)
{
  (void) user;
  GtkWidget *frame = view.frame = gimp_frame_new (_("Stability (roots of B: blue in z1, "
                                                     "orange in z2)"));
  GtkWidget *hbox = gtk_hbox_new (FALSE, 12);
  view.verdict = gtk_label_new (NULL);
  gtk_misc_set_alignment (GTK_MISC (view.verdict), 0.0, 0.0);
  /* A message naming a long path (no spaces to wrap at) must not widen the dialog past
   * the screen: it wraps anywhere, at most about as wide as the root-locus picture. */
  gtk_label_set_line_wrap (GTK_LABEL (view.verdict), TRUE);
  gtk_label_set_line_wrap_mode (GTK_LABEL (view.verdict), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (view.verdict), 48);
  view.picture = gtk_image_new ();
  gtk_box_pack_start (GTK_BOX (hbox), view.picture, FALSE, FALSE, 0);
  gtk_box_pack_start (GTK_BOX (hbox), view.verdict, TRUE, TRUE, 0);
  gtk_container_add (GTK_CONTAINER (frame), hbox);
  gtk_box_pack_start (GTK_BOX (box), frame, FALSE, FALSE, 0);
  gtk_widget_show_all (frame);
  view.shown[0] = '\1'; /* differs from every path: the first call draws */
  show_stability (((const gfx_iir_deblur_params *) gfx_dialog_values (dlg))->filter_file);
  gfx_identify_dialog_build (dlg, box);
}

static void
changed (gfx_dialog *dlg, void *user)
{
  (void) user;
  const char *path = ((const gfx_iir_deblur_params *) gfx_dialog_values (dlg))->filter_file;
  if (strcmp (path, view.shown) != 0)
    show_stability (path);
}

/* Stability and Identify beside the preview: below it the dialog grew to ~1210 px once
 * Identify had run, past the bottom of a 1080-line screen. */
static void
reset (gfx_dialog *dlg, GtkWidget *box, void *user)
{
  (void) dlg, (void) user;
  gfx_identify_dialog_reset (box);
}

static const gfx_dialog_hooks deblur_hooks = { .build = build, .reset = reset,
                                               .changed = changed, .beside = TRUE };

static const gfx_ui_proc deblur_proc = {
  .filter = &gfx_iir_deblur_filter,
  .proc_name = "plug-in-gpufx-iir-deblur",
  .menu_label = N_("_IIR Deblur (quadrant filters)..."),
  .menu_path = "<Image>/Filters/Enhance",
  .help = N_("Sharpens a blurred image with four single-quadrant IIR filters (down-right, "
             "down-left, up-left, up-right) read from a gpufx-iir filter file, averaging "
             "their outputs; an unstable filter is refused.  Runs on the GPU when one is "
             "usable.  Alpha is kept; only the selection changes."),
  .hooks = &deblur_hooks,
  .picture = "before-after-deblur.png",
};

static void
query (void)
{
  gfx_ui_query_begin ();
  gfx_ui_install (&deblur_proc, NULL, 0);
  gfx_identify_pdb_install ();
}

static void
run (const gchar *name, gint nparams, const GimpParam *param, gint *nreturn_vals,
     GimpParam **return_vals)
{
  if (strcmp (name, GFX_IDENTIFY_PROC) == 0)
    gfx_identify_pdb_run (nparams, param, nreturn_vals, return_vals);
  else
    gfx_ui_run (&deblur_proc, nparams, param, nreturn_vals, return_vals);
}

const GimpPlugInInfo PLUG_IN_INFO = { NULL, NULL, query, run };

int
main (int argc, char **argv)
{
  static const gfx_ui_proc *procs[] = { &deblur_proc, &gfx_identify_proc };
  return gfx_ui_main (&PLUG_IN_INFO, procs, G_N_ELEMENTS (procs), argc, argv);
}
