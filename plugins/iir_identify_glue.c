/* plug-in-gpufx-iir-identify: the GIMP side of identification (iir_identify_glue.h). */
#include "iir_identify_glue.h"

#include "../common/iir_file.h"
#include "../common/iir_identify.h"

const gfx_ui_proc gfx_identify_proc = {
  .filter = &gfx_identify_filter,
  .proc_name = GFX_IDENTIFY_PROC,
  .help = N_("Identifies the four quadrant IIR filters that deblur the drawable (least "
             "squares or least absolute deviations, seed 004 eq. 2-3) from a sharp "
             "reference drawable of the same size, or with sharp-drawable -1 from straight "
             "edges found in the drawable and retouched into ideal steps; checks the "
             "filter's stability and writes it to filter-file.  Returns the residual."),
};

static const GimpParamDef identify_return[] = {
  { GIMP_PDB_FLOAT, "residual",
    "Equation error of the identified filter: RMS (LS) or mean absolute (LAD), mean over "
    "the quadrants" },
};

gfx_status
gfx_identify_read (gint32 drawable, gint32 sharp, gfx_image *blurred, gfx_image *ref,
                   gfx_error *err)
{
  gfx_ui_rect rect;
  gfx_status st = gfx_ui_drawable_region (drawable, &rect, err);
  /* is_valid first: asking is_drawable about a deleted item (a stored last value) makes
   * GIMP print a calling error of its own before ours. */
  if (st == GFX_OK && sharp != -1 && !(gimp_item_is_valid (sharp)
                                       && gimp_item_is_drawable (sharp)))
    st = gfx_fail (err, GFX_ERR_PARAM, "sharp-drawable %d is not a drawable: give a layer "
                   "of the same size, or -1 for automatic fragments", (int) sharp);
  if (st == GFX_OK && sharp != -1
      && (gimp_drawable_width (sharp) != gimp_drawable_width (drawable)
          || gimp_drawable_height (sharp) != gimp_drawable_height (drawable)))
    st = gfx_fail (err, GFX_ERR_INPUT, "the sharp reference is %d x %d but the blurred "
                   "drawable is %d x %d: they must cover the same area",
                   gimp_drawable_width (sharp), gimp_drawable_height (sharp),
                   gimp_drawable_width (drawable), gimp_drawable_height (drawable));
  gint bx = 0, by = 0, sx = 0, sy = 0;
  if (st == GFX_OK && sharp != -1)
    {
      gimp_drawable_offsets (drawable, &bx, &by);
      gimp_drawable_offsets (sharp, &sx, &sy);
    }
  /* The pairs are read pixel for pixel from the two layers: moved against each other,
   * they pair different places of the scene. */
  if (st == GFX_OK && (sx != bx || sy != by))
    st = gfx_fail (err, GFX_ERR_INPUT, "the sharp reference is at (%d, %d) on the canvas but "
                   "the blurred drawable at (%d, %d): they must cover the same area (move "
                   "one onto the other)", sx, sy, bx, by);
  if (st == GFX_OK)
    st = gfx_ui_drawable_read (drawable, &rect, blurred, err);
  if (st == GFX_OK && sharp != -1)
    st = gfx_ui_drawable_read (sharp, &rect, ref, err);
  return st;
}

static gfx_status
identify_work (gint32 drawable, const gfx_identify_params *p, double *residual,
               gfx_error *err)
{
  gfx_image blurred = { 0 }, ref = { 0 };
  gfx_iir_filter f;
  gfx_identify_report rep;
  char text[2048];
  gfx_status st = gfx_identify_read (drawable, p->sharp_drawable, &blurred, &ref, err);
  if (st == GFX_OK)
    st = gfx_iir_identify (&blurred, p->sharp_drawable != -1 ? &ref : NULL, p->mask_rows,
                           p->mask_cols, p->method, &f, &rep, NULL, err);
  if (st == GFX_OK)
    {
      gfx_identify_report_text (&rep, p->method, NULL, text, sizeof text);
      st = gfx_iir_write (p->filter_file, &f, text, err);
      *residual = rep.residual;
    }
  gfx_image_free (&blurred);
  gfx_image_free (&ref);
  return st;
}

void
gfx_identify_pdb_install (void)
{
  gfx_ui_install (&gfx_identify_proc, identify_return,
                  (int) (sizeof identify_return / sizeof identify_return[0]));
}

void
gfx_identify_pdb_run (gint nparams, const GimpParam *param, gint *nreturn_vals,
                      GimpParam **return_vals)
{
  gfx_identify_params p;
  gfx_error err = { 0 };
  double residual = 0.0;
  gfx_ui_run_begin (nparams, param);
  GimpPDBStatusType ps = gfx_ui_run_check (nparams, param, &err);
  if (ps == GIMP_PDB_SUCCESS && param[0].data.d_int32 == GIMP_RUN_NONINTERACTIVE)
    ps = gfx_ui_read_args (&gfx_identify_param_set, nparams, param, &p, &err);
  else if (ps == GIMP_PDB_SUCCESS)
    gfx_ui_load_values (gfx_identify_proc.proc_name, &gfx_identify_param_set, &p);
  if (ps == GIMP_PDB_SUCCESS)
    {
      gfx_status st = identify_work (param[2].data.d_drawable, &p, &residual, &err);
      ps = st == GFX_OK ? GIMP_PDB_SUCCESS : gfx_ui_pdb_status (st);
    }
  if (ps != GIMP_PDB_SUCCESS)
    {
      gfx_ui_return (ps, err.msg, nreturn_vals, return_vals);
      return;
    }
  gfx_ui_save_values (gfx_identify_proc.proc_name, &gfx_identify_param_set, &p);
  GimpParam extra = { .type = GIMP_PDB_FLOAT, .data.d_float = residual };
  gfx_ui_return_values (&extra, 1, nreturn_vals, return_vals);
}
