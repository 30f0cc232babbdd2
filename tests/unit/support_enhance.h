/* Local-enhance parameter sets shared by the enhance tests. */
#ifndef GFX_TEST_SUPPORT_ENHANCE_H
#define GFX_TEST_SUPPORT_ENHANCE_H

#include "../../common/enhance.h"

/* The declared defaults, on the CPU. */
gfx_enhance_params test_enhance_defaults (void);

/* A case whose decisions are mixed on test_fill_patches images: gain 2.5 and bounds
 * chosen per rule. */
gfx_enhance_params test_enhance_case (int window, int per_channel, int rule);

#endif
