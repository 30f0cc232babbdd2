/* Synthetic test images shared by the unit tests. */
#ifndef GFX_TEST_SUPPORT_IMAGES_H
#define GFX_TEST_SUPPORT_IMAGES_H

#include <stdbool.h>

#include "../../common/image.h"

/* Photo-like content so that local decisions are mixed: a ramp plus 0.15 of noise, with
 * every third cell of cw x ch pixels darkened to a fifth; float images get about 1% of
 * values in [-1, 2) when float_outliers.  Draws from *state (test_rng.h). */
void test_fill_patches (gfx_image *img, unsigned *state, int cw, int ch, int float_outliers);

/* a and b hold pixels of the same size, layout and depth, equal bit for bit. */
bool test_same_image (const gfx_image *a, const gfx_image *b);

#endif
