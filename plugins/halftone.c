/* plug-in-gpufx-halftone: error-diffusion halftoning (SPEC section 1) under
 * Filters > Distorts, beside GIMP's own halftone filters.  The work, the parameter table
 * and the dialog live in common/halftone*.c and ui/. */
#include "../ui/help_pages.h"

#include "../common/halftone.h"

static const gfx_ui_proc halftone_proc = {
  .filter = &gfx_halftone_filter,
  .proc_name = "plug-in-gpufx-halftone",
  .menu_label = N_("_Halftone (error diffusion)..."),
  .menu_path = "<Image>/Filters/Distorts",
  .help = N_("Quantises each colour channel to a few evenly spaced levels and diffuses the "
             "quantisation error to unprocessed neighbours (Floyd-Steinberg and seven other "
             "kernels), on the GPU when one is usable.  Alpha is kept; only the selection "
             "changes."),
  .picture = "before-after-halftone.png",
};

static void
query (void)
{
  gfx_ui_query_begin ();
  gfx_ui_install (&halftone_proc, NULL, 0);
}

static void
run (const gchar *name, gint nparams, const GimpParam *param, gint *nreturn_vals,
     GimpParam **return_vals)
{
  (void) name;
  gfx_ui_run (&halftone_proc, nparams, param, nreturn_vals, return_vals);
}

const GimpPlugInInfo PLUG_IN_INFO = { NULL, NULL, query, run };

int
main (int argc, char **argv)
{
  static const gfx_ui_proc *procs[] = { &halftone_proc };
  return gfx_ui_main (&PLUG_IN_INFO, procs, G_N_ELEMENTS (procs), argc, argv);
}
