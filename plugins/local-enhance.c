/* plug-in-gpufx-local-enhance: local enhancement by histogram statistics (SPEC section 2,
 * Gonzalez & Woods) under Filters > Enhance.  The work, the parameter table and the dialog
 * live in common/enhance*.c, cuda/enhance*.cu and ui/. */
#include "../ui/plugin.h"

#include "../common/enhance.h"

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

MAIN ()
