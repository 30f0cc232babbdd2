/* The identification parameters (SPEC section 4, plug-in-gpufx-iir-identify), declared
 * once for the PDB procedure and the "Identify" part of the deblur dialog.  `gpufx
 * identify` takes files and SPEC's --mask M1xM2 instead of drawables and two numbers, so
 * cli/cmd_identify.c has its own table; it shares the method choices declared here. */
#include <limits.h>
#include <stddef.h>

#include "iir_identify.h"

const char *const gfx_identify_method_choices[] = { "ls", "lad", NULL };
const char *const gfx_identify_method_labels[] = { N_("Least squares"),
                                                   N_("Least absolute deviations"), NULL };
GFX_CHOICES_MATCH (gfx_identify_method_choices, GFX_IDENTIFY_LAD + 1);
GFX_CHOICES_MATCH (gfx_identify_method_labels, GFX_IDENTIFY_LAD + 1);

#define FIELD(f) offsetof (gfx_identify_params, f)

static const gfx_param_desc identify_params[] = {
  { .name = "sharp-drawable", .label = N_("_Sharp reference"), .type = GFX_PT_DRAWABLE,
    .offset = FIELD (sharp_drawable), .flags = GFX_PF_NO_CLI,
    .help = N_("Sharp layer of the same size as the blurred one; -1 = find edge fragments "
               "automatically"),
    .def = -1, .min = -1, .max = INT_MAX, .auto_label = N_("automatic") },
  { .name = "mask-rows", .label = N_("Mask ro_ws"), .type = GFX_PT_INT,
    .offset = FIELD (mask_rows), .help = N_("Rows M1 of each quadrant's mask"), .def = 3,
    .min = 1, .max = GFX_IIR_MAX_MASK },
  { .name = "mask-cols", .label = N_("Mask co_lumns"), .type = GFX_PT_INT,
    .offset = FIELD (mask_cols), .help = N_("Columns M2 of each quadrant's mask"), .def = 3,
    .min = 1, .max = GFX_IIR_MAX_MASK },
  { .name = "method", .label = N_("_Method"), .type = GFX_PT_ENUM, .offset = FIELD (method),
    .help = N_("Least squares, or least absolute deviations (robust to gross errors)"),
    .def = GFX_IDENTIFY_LS, .choices = gfx_identify_method_choices,
    .choice_labels = gfx_identify_method_labels },
  { .name = "filter-file", .label = N_("_Filter file"), .type = GFX_PT_STRING,
    .offset = FIELD (filter_file), .flags = GFX_PF_REQUIRED,
    .help = N_("File the identified filter is written to") },
};

static gfx_status
identify_check (const void *values, gfx_error *err)
{
  const gfx_identify_params *p = values;
  if (!p->filter_file[0])
    return gfx_fail (err, GFX_ERR_PARAM, "filter-file is empty: name the file the identified "
                     "filter is written to");
  return GFX_OK;
}

const gfx_param_set gfx_identify_param_set = {
  "identify", identify_params, sizeof identify_params / sizeof identify_params[0],
  sizeof (gfx_identify_params), identify_check
};

/* No apply(): identification writes a file, not pixels; the PDB registration and the
 * dialog only need the table, the title and the blurb. */
const gfx_filter gfx_identify_filter = {
  .name = "identify",
  .title = N_("Identify IIR deblur filter"),
  .blurb = N_("Identifies the four quadrant IIR filters that deblur the drawable, from a "
              "sharp reference layer or from straight edges found automatically, and writes "
              "the filter file; returns the residual"),
  .params = &gfx_identify_param_set,
};
