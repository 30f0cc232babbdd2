/* The local-enhance parameters, declared once, and the filter descriptor. */
#include <math.h>
#include <stddef.h>

#include "c_numbers.h"
#include "enhance.h"

const char *const gfx_enhance_rule_choices[] = { "3rd", "4th", NULL };
static const char *const rule_labels[] = {
  N_("3rd edition: m_S <= k0 m_G, k1 s_G <= s_S <= k2 s_G"),
  N_("4th edition: k0 m_G <= m_S <= k1 m_G, k2 s_G <= s_S <= k3 s_G"), NULL
};
GFX_CHOICES_MATCH (gfx_enhance_rule_choices, GFX_RULE_4TH + 1);
GFX_CHOICES_MATCH (rule_labels, GFX_RULE_4TH + 1);

#define FIELD(f) offsetof (gfx_enhance_params, f)
/* SPEC: every k >= 0, with no upper bound (a huge upper bound, k0 or k2 in the 3rd edition,
 * k1 or k3 in the 4th, switches its test off).  The dialog's sliders end at K_SLIDER, ample
 * for both rules (G&W use k <= 1); larger values are typed. */
#define K_MAX HUGE_VAL
#define K_SLIDER 10.0

/* k3 defaults to 0.4, the 3rd edition's upper sigma bound: with the defaults k2 <= k3
 * holds, and --rule 4th --k0 0 --k1 0.4 --k2 0.02 gives exactly the 3rd-edition default. */
static const gfx_param_desc enhance_params[] = {
  { .name = "gain", .label = N_("_Gain E"), .type = GFX_PT_FLOAT, .offset = FIELD (gain),
    .help = N_("Multiplier E applied to the pixels that pass the test"), .def = 4.0,
    .min = 0.0, .max = 64.0, .flags = GFX_PF_MIN_EXCLUSIVE, .step = 0.1 },
  { .name = "k0", .label = N_("k_0"), .type = GFX_PT_FLOAT, .offset = FIELD (k0),
    .help = N_("Mean bound: local mean at most k0 times the global mean (3rd edition); "
               "lower mean bound (4th)"),
    .def = 0.4, .min = 0.0, .max = K_MAX, .slider_max = K_SLIDER, .step = 0.001 },
  { .name = "k1", .label = N_("k_1"), .type = GFX_PT_FLOAT, .offset = FIELD (k1),
    .help = N_("Lower sigma bound, times the global sigma (3rd edition); upper mean bound (4th)"),
    .def = 0.02, .min = 0.0, .max = K_MAX, .slider_max = K_SLIDER, .step = 0.001 },
  { .name = "k2", .label = N_("k_2"), .type = GFX_PT_FLOAT, .offset = FIELD (k2),
    .help = N_("Upper sigma bound, times the global sigma (3rd edition); lower sigma bound (4th)"),
    .def = 0.4, .min = 0.0, .max = K_MAX, .slider_max = K_SLIDER, .step = 0.001 },
  { .name = "k3", .label = N_("k_3"), .type = GFX_PT_FLOAT, .offset = FIELD (k3),
    .help = N_("Upper sigma bound, times the global sigma (4th edition only)"), .def = 0.4,
    .min = 0.0, .max = K_MAX, .slider_max = K_SLIDER, .step = 0.001, .used_if = "rule",
    .used_if_value = GFX_RULE_4TH },
  { .name = "rule", .label = N_("R_ule"), .type = GFX_PT_ENUM, .offset = FIELD (rule),
    .help = N_("Gonzalez & Woods edition: 3rd (upper mean bound, sigma range) or 4th (mean "
               "and sigma ranges)"),
    .def = GFX_RULE_3RD,
    .choices = gfx_enhance_rule_choices, .choice_labels = rule_labels },
  { .name = "window", .label = N_("_Window n"), .type = GFX_PT_INT, .offset = FIELD (window),
    .help = N_("Neighbourhood size n (odd): statistics of the n x n window around each pixel"),
    .def = 3, .min = 3, .max = 255, .step = 2 },
  { .name = "per-channel", .label = N_("P_er channel"), .type = GFX_PT_BOOL,
    .offset = FIELD (per_channel),
    .help = N_("Apply the rule to each colour channel alone instead of to the luminance (Rec. "
               "709 luma); with the luminance, one gain multiplies all channels, lowered where a "
               "channel would clip, so the hue is kept"),
    .def = 0 },
  { .name = "mask-layer", .label = N_("Decision _mask as a new layer"), .type = GFX_PT_BOOL,
    .offset = FIELD (mask_layer), .flags = GFX_PF_NO_CLI,
    .help = N_("Add a layer that is white where pixels were enhanced"), .def = 0 },
  { .name = "backend", .label = N_("_Backend"), .type = GFX_PT_ENUM, .offset = FIELD (backend),
    .help = N_("Where to compute: automatic (GPU if usable), CPU or GPU"),
    .def = GFX_BACKEND_AUTO, .choices = gfx_backend_choices, .choice_labels = gfx_backend_labels },
};

void
gfx_enhance_rule_example (int rule, gfx_enhance_params *p)
{
  const double k[2][4] = { { 0.4, 0.02, 0.4, 0.4 }, { 0.0, 0.4, 0.02, 0.4 } };
  const double *e = k[rule == GFX_RULE_4TH];
  p->k0 = e[0], p->k1 = e[1], p->k2 = e[2], p->k3 = e[3];
}

int
gfx_enhance_rule_switch (int rule, gfx_enhance_params *p)
{
  if (rule == GFX_RULE_4TH && p->rule == GFX_RULE_3RD)
    p->k3 = p->k2, p->k2 = p->k1, p->k1 = p->k0, p->k0 = 0.0;
  else if (rule == GFX_RULE_3RD && p->rule == GFX_RULE_4TH && p->k0 == 0.0)
    p->k0 = p->k1, p->k1 = p->k2, p->k2 = p->k3;
  else if (rule != p->rule)
    return 0;
  p->rule = rule;
  return 1;
}

/* Two bounds in the wrong order: both named with their values as given (%g would round
 * 0.0199999999 to 0.02 and call 0.02 <= 0.02 wrong), neither blamed. */
static gfx_status
bounds_out_of_order (gfx_error *err, const char *lo, double lo_v, const char *hi, double hi_v,
                     gfx_enhance_rule rule, const char *more)
{
  char a[40], b[40];
  gfx_param_value_text (lo_v, a, sizeof a);
  gfx_param_value_text (hi_v, b, sizeof b);
  return rule == GFX_RULE_3RD
           ? gfx_fail (err, GFX_ERR_PARAM, "%s = %s and %s = %s are not allowed together: the "
                       "3rd-edition rule needs %s <= %s%s", lo, a, hi, b, lo, hi, more)
           : gfx_fail (err, GFX_ERR_PARAM, "%s = %s and %s = %s are not allowed together: the "
                       "4th-edition rule needs %s <= %s%s", lo, a, hi, b, lo, hi, more);
}

static gfx_status
enhance_check (const void *values, gfx_error *err)
{
  const gfx_enhance_params *p = values;
  if (p->window % 2 == 0)
    return gfx_fail (err, GFX_ERR_PARAM,
                     "window = %d is not allowed: an odd number from 3 to 255", p->window);
  if (p->rule == GFX_RULE_3RD && p->k1 > p->k2)
    return bounds_out_of_order (err, "k1", p->k1, "k2", p->k2, GFX_RULE_3RD, "");
  if (p->rule == GFX_RULE_4TH && p->k0 > p->k1)
    {
      gfx_enhance_params e, third;
      gfx_enhance_rule_example (GFX_RULE_3RD, &third);
      if (p->k0 != third.k0 || p->k1 != third.k1) /* not the 3rd edition's k kept */
        return bounds_out_of_order (err, "k0", p->k0, "k1", p->k1, GFX_RULE_4TH, "");
      gfx_enhance_rule_example (GFX_RULE_4TH, &e);
      char example[320]; /* a translation may take twice the bytes of the English */
      gfx_snprintf_c (example, sizeof example, gfx_tr ("; with it, k0 = %g, k1 = %g, k2 = %g "
                                                       "and k3 = %g make the 3rd edition's "
                                                       "default test"),
                      e.k0, e.k1, e.k2, e.k3);
      return bounds_out_of_order (err, "k0", p->k0, "k1", p->k1, GFX_RULE_4TH, example);
    }
  if (p->rule == GFX_RULE_4TH && p->k2 > p->k3)
    return bounds_out_of_order (err, "k2", p->k2, "k3", p->k3, GFX_RULE_4TH, "");
  return GFX_OK;
}

const gfx_param_set gfx_enhance_param_set = {
  "enhance", enhance_params, sizeof enhance_params / sizeof enhance_params[0],
  sizeof (gfx_enhance_params), enhance_check
};

static gfx_status
enhance_apply (const gfx_image *in, gfx_image *out, const void *values, gfx_filter_run *run,
               gfx_error *err)
{
  return gfx_enhance (in, out, run->mask, values, run->progress, &run->info, err);
}

/* A pixel's result depends on its n x n window (and on the region's statistics, which a
 * preview is handed: gfx_enhance_params.region): the visible part and (n - 1) / 2 pixels
 * around it, within the region, whose edges the border rule reflects at. */
static gfx_rect
enhance_preview_source (const void *values, gfx_rect region, gfx_rect visible)
{
  const int r = (((const gfx_enhance_params *) values)->window - 1) / 2;
  const gfx_rect windows = { visible.x - r, visible.y - r, visible.width + 2 * r,
                             visible.height + 2 * r };
  return gfx_rect_intersect (windows, region);
}

const gfx_filter gfx_enhance_filter = {
  .name = "enhance",
  .title = N_("Local Enhance (histogram statistics)"),
  .blurb = N_("Brighten dark, textured detail using local mean and deviation (Gonzalez & Woods)"),
  .params = &gfx_enhance_param_set,
  .apply = enhance_apply,
  .preview_source = enhance_preview_source,
};
