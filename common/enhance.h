/* Local enhancement by histogram statistics (SPEC section 2, Gonzalez & Woods): a pixel
 * whose n x n neighbourhood is dark (local mean against the global mean) and moderately
 * textured (local sigma against the global sigma) is multiplied by the gain E.
 *
 * Statistics are exact: window sums of the key values (the pixel, its luma, or for float
 * images a fixed-point copy) are integers computed with running sums, so every path (CPU,
 * GPU, any tiling) finds the same sums; the decision compares them with integer
 * thresholds derived once from the global statistics (enhance_math.h). */
#ifndef GFX_ENHANCE_H
#define GFX_ENHANCE_H

#include "filter.h"

#include "enhance_types.h"

extern const gfx_param_set gfx_enhance_param_set;
extern const gfx_filter gfx_enhance_filter;
extern const char *const gfx_enhance_rule_choices[]; /* "3rd", "4th" */

/* Sets k0..k3 to the rule's example values, which make the same test in both editions:
 * 3rd 0.4, 0.02, 0.4 (k3 unused, 0.4); 4th 0, 0.4, 0.02, 0.4. */
void gfx_enhance_rule_example (int rule, gfx_enhance_params *p);
/* Sets p->rule to `rule` with k0..k3 rewritten to make the same test where the other
 * edition can: the 3rd's k0, k1, k2 are the 4th's 0, k0, k1, k2, and back where the 4th's
 * k0 is 0 (the same test for samples >= 0; a float image's negative local means pass the
 * 3rd edition's mean bound only).  Returns 1 then; 0 (p unchanged) where there is none. */
int gfx_enhance_rule_switch (int rule, gfx_enhance_params *p);

/* Enhances `in` into `out` (allocated here, same layout, alpha copied).  mask, if not
 * NULL, receives a 1-channel u8 image: 255 where the pixel was enhanced (in per-channel
 * mode: any of its channels), 0 elsewhere.  On error or cancel nothing is allocated. */
gfx_status gfx_enhance (const gfx_image *in, gfx_image *out, gfx_image *mask,
                        const gfx_enhance_params *p, gfx_progress *progress,
                        gfx_run_info *info, gfx_error *err);

/* The CPU path alone (tests and benchmarks call it directly); same contract. */
gfx_status gfx_enhance_cpu (const gfx_image *in, gfx_image *out, gfx_image *mask,
                            const gfx_enhance_params *p, gfx_progress *progress,
                            gfx_error *err);

/* The whole region's totals for a preview of part of it (see gfx_enhance_region), for
 * the mode p->per_channel. */
gfx_status gfx_enhance_region_totals (const gfx_image *in, const gfx_enhance_params *p,
                                      gfx_enhance_region *region, gfx_error *err);

/* Input checks shared by both paths: the parameters, a non-empty image, and float samples
 * finite (any finite range: the fixed-point scale follows the image, gfx_enh_fix_scale). */
gfx_status gfx_enhance_check_input (const gfx_image *in, const gfx_enhance_params *p,
                                    gfx_error *err);

#endif
