/* Inside the local-enhance core only: the pieces the CPU path's files share. */
#ifndef GFX_ENHANCE_INTERNAL_H
#define GFX_ENHANCE_INTERNAL_H

#include <stdint.h>

#include "enhance.h"
#include "enhance_math.h"

/* Key kinds: what the statistics are computed on. */
typedef enum { ENH_KEY_U8, ENH_KEY_U16, ENH_KEY_I32 } enh_key_kind;

static inline enh_key_kind
enh_key_kind_of (gfx_depth depth)
{
  return depth == GFX_U8 ? ENH_KEY_U8 : depth == GFX_U16 ? ENH_KEY_U16 : ENH_KEY_I32;
}

static inline double
enh_max_value (gfx_depth depth)
{
  return depth == GFX_U8 ? 255.0 : depth == GFX_U16 ? 65535.0 : 1.0;
}

/* Number of decision planes: one per colour channel in per-channel mode, else one. */
static inline int
enh_planes (const gfx_image *in, const gfx_enhance_params *p)
{
  return p->per_channel ? gfx_image_color_channels (in) : 1;
}

/* The CPU path into images the caller has allocated (out like in; mask 1-channel u8 with
 * pixels, or NULL / no pixels when not wanted). */
gfx_status enh_cpu_into (const gfx_image *in, gfx_image *out, gfx_image *mask,
                         const gfx_enhance_params *p, gfx_progress *progress, gfx_error *err);

/* Writes out (and mask, if pixels are wanted) from in and the decision planes
 * dec[plane * w * h + i] (0/1), on all cores.  Returns GFX_ERR_CANCELLED or GFX_OK. */
gfx_status enh_cpu_apply (const gfx_image *in, gfx_image *out, gfx_image *mask,
                          const gfx_enhance_params *p, const uint8_t *dec,
                          gfx_progress *progress, gfx_error *err);

#endif
