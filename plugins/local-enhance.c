/* plug-in-gpufx-local-enhance: local enhancement by histogram statistics (SPEC section 2,
 * Gonzalez & Woods) under Filters > Enhance.  The work, the parameter table and the dialog
 * live in common/enhance*.c, cuda/enhance*.cu and ui/. */
#include <string.h>

#include "../ui/dialog.h"
#include "../ui/help_pages.h"

#include "../common/enhance.h"

/* The preview filters only the visible part and the windows around it, but m_G and
 * sigma_G belong to the whole region: the dialog computes the region's totals for the
 * mode shown (luminance or per channel), the first time that mode is shown, and hands
 * them to the preview through values->region; OK clears them, so the final run (and the
 * stored last values) compute their own, and a failed OK puts them back (changed).  Each
 * mode's totals read the whole region (for a 24-megapixel float image, about a second on
 * two cores), so the dialog does not pay up front for the mode the user may never pick. */
typedef struct {
  gboolean tried, ready;
  gfx_enhance_region totals;
} region_stats;

static region_stats stats[2]; /* [0] luminance, [1] per channel */
static int shown_rule;        /* the rule the dialog showed last */

/* The totals do not depend on the k values, E or n, so they are computed with the
 * defaults: values the user is still typing cannot stop them. */
static void
compute_region (gint32 drawable, int per_channel, region_stats *s)
{
  gfx_ui_rect rect;
  gfx_image img = { 0 };
  gfx_error err;
  gfx_enhance_params p;
  gfx_params_defaults (&gfx_enhance_param_set, &p);
  p.per_channel = per_channel;
  s->tried = TRUE;
  s->ready = gfx_ui_drawable_region (drawable, &rect, &err) == GFX_OK
             && gfx_ui_drawable_read (drawable, &rect, &img, &err) == GFX_OK
             && gfx_enhance_region_totals (&img, &p, &s->totals, &err) == GFX_OK;
  gfx_image_free (&img);
}

static void
put_region (gfx_dialog *dlg)
{
  gfx_enhance_params *v = gfx_dialog_values (dlg);
  region_stats *s = &stats[v->per_channel ? 1 : 0];
  memset (&v->region, 0, sizeof v->region);
  if (!s->tried)
    compute_region (gfx_dialog_drawable (dlg), v->per_channel, s);
  if (s->ready)
    v->region = s->totals;
}

static void
build (gfx_dialog *dlg, GtkWidget *box, void *user)
{
  (void) box, (void) user;
  shown_rule = ((const gfx_enhance_params *) gfx_dialog_values (dlg))->rule;
  put_region (dlg);
}

/* Switching the rule keeps the test: the k values are rewritten in the new edition's
 * terms (3rd k0, k1, k2 = 4th 0, k0, k1, k2), so k2 = 25 survives a round trip.  Where
 * that cannot be done (4th to 3rd with k0 above 0) and the values break the new rule's
 * order, the new edition's example values go in instead of stopping the preview until
 * four numbers are retyped. */
static void
changed (gfx_dialog *dlg, void *user)
{
  (void) user;
  gfx_enhance_params *v = gfx_dialog_values (dlg);
  if (v->rule != shown_rule)
    {
      gfx_enhance_params moved = *v, example = *v;
      moved.rule = shown_rule;
      shown_rule = v->rule;
      gfx_enhance_rule_example (v->rule, &example);
      gfx_error err;
      if (gfx_enhance_rule_switch (v->rule, &moved))
        *v = moved;
      else if (gfx_params_validate (&gfx_enhance_param_set, v, &err) != GFX_OK
               && gfx_params_validate (&gfx_enhance_param_set, &example, &err) == GFX_OK)
        *v = example;
      gfx_dialog_sync (dlg);
    }
  put_region (dlg);
}

static gboolean
accept (gfx_dialog *dlg, gfx_error *err, void *user)
{
  (void) err, (void) user;
  gfx_enhance_params *v = gfx_dialog_values (dlg);
  memset (&v->region, 0, sizeof v->region);
  return TRUE;
}

static const gfx_dialog_hooks enhance_hooks = { .build = build, .changed = changed,
                                                .accept = accept };

static const gfx_ui_proc enhance_proc = {
  .filter = &gfx_enhance_filter,
  .proc_name = "plug-in-gpufx-local-enhance",
  .menu_label = N_("_Local Enhance (histogram statistics)..."),
  .menu_path = "<Image>/Filters/Enhance",
  .help = N_("Multiplies by the gain E the pixels whose n x n neighbourhood is dark "
             "(local mean against the image mean) and moderately textured (local standard "
             "deviation between bounds set by the image's), as in Gonzalez & Woods; "
             "statistics on the luminance (hue kept) or on each channel, on the GPU when "
             "one is usable.  Optionally adds the decision mask as a new layer.  Alpha is "
             "kept; only the selection changes."),
  .mask_param = "mask-layer",
  .mask_layer = N_("Local enhance mask"),
  .hooks = &enhance_hooks,
  .picture = "before-after-enhance.png",
};

static void
query (void)
{
  gfx_ui_query_begin ();
  gfx_ui_install (&enhance_proc, NULL, 0);
}

static void
run (const gchar *name, gint nparams, const GimpParam *param, gint *nreturn_vals,
     GimpParam **return_vals)
{
  (void) name;
  gfx_ui_run (&enhance_proc, nparams, param, nreturn_vals, return_vals);
}

const GimpPlugInInfo PLUG_IN_INFO = { NULL, NULL, query, run };

int
main (int argc, char **argv)
{
  static const gfx_ui_proc *procs[] = { &enhance_proc };
  return gfx_ui_main (&PLUG_IN_INFO, procs, G_N_ELEMENTS (procs), argc, argv);
}
