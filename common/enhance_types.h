/* The local-enhance parameter values, apart from the filter machinery so that the CUDA
 * layer (C++) can include them. */
#ifndef GFX_ENHANCE_TYPES_H
#define GFX_ENHANCE_TYPES_H

#include <stdint.h>

/* Not a parameter: a dialog preview renders only part of the region, yet m_G and sigma_G
 * belong to the whole region.  The plug-in puts the whole region's key totals here
 * (gfx_enhance_region_totals) for the preview; n = 0 (the default, and always for a final
 * run) means the statistics come from the image itself.  Per decision plane, the 128-bit
 * totals of k and k^2 as halves. */
typedef struct {
  uint64_t n; /* pixels of the whole region */
  int64_t t1_hi[3];
  uint64_t t1_lo[3], t2_hi[3], t2_lo[3];
  float fix_scale; /* float images: the whole region's key scale (gfx_enh_fix_scale) */
} gfx_enhance_region;

typedef enum { GFX_RULE_3RD = 0, GFX_RULE_4TH } gfx_enhance_rule;

typedef struct {
  double gain;     /* E, 0 < E <= 64 */
  double k0, k1, k2, k3;
  int rule;        /* gfx_enhance_rule */
  int window;      /* n, odd, 3..255 */
  int per_channel; /* 0: statistics on luma, the gain scales all colour channels */
  int mask_layer;  /* PDB: add the decision mask as a new layer (CLI: --mask-out) */
  int backend;     /* gfx_backend */
  gfx_enhance_region region; /* preview only, see above; not in the parameter table */
} gfx_enhance_params;

#endif
