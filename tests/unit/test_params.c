/* The parameter declarations and their validation messages. */
#include <string.h>

#include "../../common/halftone.h"
#include "check.h"

int
main (void)
{
  const gfx_param_set *set = &gfx_halftone_param_set;
  gfx_halftone_params p;
  gfx_error err;

  gfx_params_defaults (set, &p);
  CHECK (p.kernel == GFX_KERNEL_FS && p.levels == 2 && p.block_size == 0 && p.margin == -1,
         "halftone defaults come from the declaration");
  CHECK (gfx_params_validate (set, &p, &err) == GFX_OK, "defaults are valid");

  p.levels = 257;
  CHECK (gfx_params_validate (set, &p, &err) == GFX_ERR_PARAM && strstr (err.msg, "levels")
           && strstr (err.msg, "2 to 256"),
         "levels 257 refused, message names parameter and range: %s", err.msg);
  p.levels = 2;
  p.block_size = 48;
  CHECK (gfx_params_validate (set, &p, &err) == GFX_ERR_PARAM && strstr (err.msg, "block-size"),
         "block-size 48 refused: %s", err.msg);

  const gfx_param_desc *k = gfx_params_find (set, "kernel");
  CHECK (gfx_param_parse (k, &p, "atkinson", &err) == GFX_OK && p.kernel == GFX_KERNEL_ATKINSON,
         "kernel parses by CLI name");
  CHECK (gfx_param_parse (k, &p, "blue-noise", &err) == GFX_ERR_PARAM && strstr (err.msg, "fs"),
         "unknown kernel lists the choices: %s", err.msg);
  const gfx_param_desc *lv = gfx_params_find (set, "levels");
  CHECK (gfx_param_parse (lv, &p, "4.5", &err) == GFX_ERR_PARAM, "levels 4.5 refused");
  CHECK (gfx_param_parse (lv, &p, "nan", &err) == GFX_ERR_PARAM, "levels nan refused");
  CHECK (gfx_param_parse (lv, &p, "16", &err) == GFX_OK && p.levels == 16, "levels 16 parses");

  for (int i = 0; i < GFX_KERNEL_COUNT; i++)
    {
      const gfx_kernel *kk = &gfx_kernels[i];
      int sum = 0;
      for (int t = 0; t < kk->n_taps; t++)
        sum += kk->taps[t].weight;
      int expect = i == GFX_KERNEL_ATKINSON ? 6 : kk->divisor;
      CHECK (sum == expect, "kernel %s weights sum to %d of %d", gfx_kernel_choices[i], sum,
             kk->divisor);
    }
  return check_exit_status ();
}
