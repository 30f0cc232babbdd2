/* The halftone parameters, declared once. */
#include <stddef.h>

#include "halftone.h"
#include "halftone_check.h"

const char *const gfx_kernel_choices[] = { "fs", "jjn", "stucki", "burkes", "sierra",
                                           "sierra2", "sierra-lite", "atkinson", NULL };
const char *const gfx_kernel_labels[] = { N_("Floyd-Steinberg"), N_("Jarvis-Judice-Ninke"),
                                          N_("Stucki"), N_("Burkes"), N_("Sierra"),
                                          N_("Two-row Sierra"), N_("Sierra Lite"),
                                          N_("Atkinson"), NULL };
GFX_CHOICES_MATCH (gfx_kernel_choices, GFX_KERNEL_COUNT);
GFX_CHOICES_MATCH (gfx_kernel_labels, GFX_KERNEL_COUNT);

#define FIELD(f) offsetof (gfx_halftone_params, f)

static const gfx_param_desc halftone_params[] = {
  { .name = "kernel", .label = N_("_Kernel"), .type = GFX_PT_ENUM, .offset = FIELD (kernel),
    .help = N_("Error-diffusion kernel, applied in raster order (Atkinson spreads only 3/4 of "
               "the error: light tones come out lighter, dark tones darker)"), .def = GFX_KERNEL_FS,
    .choices = gfx_kernel_choices, .choice_labels = gfx_kernel_labels },
  { .name = "levels", .label = N_("_Levels"), .type = GFX_PT_INT, .offset = FIELD (levels),
    .help = N_("Output levels per channel (2 = black and white)"), .def = 2, .min = 2,
    .max = 256 },
  { .name = "backend", .label = N_("_Backend"), .type = GFX_PT_ENUM, .offset = FIELD (backend),
    .help = N_("Where to compute: automatic (GPU if usable), CPU or GPU"),
    .def = GFX_BACKEND_AUTO, .choices = gfx_backend_choices, .choice_labels = gfx_backend_labels },
  { .name = "block-size", .label = N_("Block si_ze"), .type = GFX_PT_INT,
    .offset = FIELD (block_size), .flags = GFX_PF_ADVANCED | GFX_PF_GPU,
    .help = N_("GPU threads per block, a multiple of 32 (a warp of 32 for each strip of rows, "
               "at most 4 warps); 0 = automatic"), .def = 0,
    .min = 0, .max = 1024, .auto_label = N_("auto"), .step = 32 },
  { .name = "margin", .label = N_("_Margin"), .type = GFX_PT_INT, .offset = FIELD (margin),
    .flags = GFX_PF_ADVANCED | GFX_PF_GPU,
    .help = N_("GPU hand-off margin in columns between strips; -1 = automatic"), .def = -1,
    .min = -1, .max = 1 << 20, .auto_label = N_("auto") },
};

static gfx_status
halftone_check (const void *values, gfx_error *err)
{
  const gfx_halftone_params *p = values;
  if (p->block_size % 32 != 0)
    return gfx_fail (err, GFX_ERR_PARAM,
                     "block-size = %d is not allowed: 0 (auto) or a multiple of 32 from 32 to 1024",
                     p->block_size);
  return GFX_OK;
}

const gfx_param_set gfx_halftone_param_set = {
  "halftone", halftone_params, sizeof halftone_params / sizeof halftone_params[0],
  sizeof (gfx_halftone_params), halftone_check
};

gfx_status
gfx_halftone_check_values (int kernel, int levels, int block_size, int margin, gfx_error *err)
{
  const gfx_halftone_params p = { .kernel = kernel, .levels = levels,
                                  .backend = GFX_BACKEND_GPU, .block_size = block_size,
                                  .margin = margin };
  return gfx_params_validate (&gfx_halftone_param_set, &p, err);
}
