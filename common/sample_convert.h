/* 8/16-bit samples to and from [0, 1] floats: one rule for the core, the CPU paths and
 * the CUDA kernels, so that each stores and reads a sample the same way. */
#ifndef GFX_SAMPLE_CONVERT_H
#define GFX_SAMPLE_CONVERT_H

#include <stdint.h>

#include "hd.h"

GFX_HD float
gfx_unit_from_u8 (uint8_t v)
{
  return v * (1.0f / 255.0f);
}

GFX_HD float
gfx_unit_from_u16 (uint16_t v)
{
  return v * (1.0f / 65535.0f);
}

/* Rounded to nearest and clipped; NaN stores 0 (a cast of NaN would be undefined). */
GFX_HD uint8_t
gfx_unit_to_u8 (float v)
{
  float s = v * 255.0f + 0.5f;
  return !(s > 0.0f) ? 0 : s >= 255.0f ? 255 : (uint8_t) s;
}

GFX_HD uint16_t
gfx_unit_to_u16 (float v)
{
  float s = v * 65535.0f + 0.5f;
  return !(s > 0.0f) ? 0 : s >= 65535.0f ? 65535 : (uint16_t) s;
}

#endif
