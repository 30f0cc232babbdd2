/* Local-enhance parameter sets shared by the enhance tests (support_enhance.h). */
#include "support_enhance.h"

gfx_enhance_params
test_enhance_defaults (void)
{
  gfx_enhance_params p;
  gfx_params_defaults (&gfx_enhance_param_set, &p);
  p.backend = GFX_BACKEND_CPU;
  return p;
}

gfx_enhance_params
test_enhance_case (int window, int per_channel, int rule)
{
  gfx_enhance_params p = test_enhance_defaults ();
  p.window = window, p.per_channel = per_channel, p.rule = rule, p.gain = 2.5;
  if (rule == GFX_RULE_3RD)
    p.k0 = 0.8, p.k1 = 0.05, p.k2 = 1.0;
  else
    p.k0 = 0.1, p.k1 = 0.8, p.k2 = 0.05, p.k3 = 1.0;
  return p;
}
