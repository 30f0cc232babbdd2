/* Images of the core: GRAY, GRAYA, RGB or RGBA, 8-bit, 16-bit or 32-bit float, stored
 * interleaved and tightly packed, row-major.  Values are as the caller encodes them: the
 * plug-ins hand over layers in the perceptual (gamma-encoded) space GIMP calls Y' / R'G'B',
 * and a linear layer mask or channel as the coverage it stores.  Alpha, when present, is
 * the last channel and the algorithms pass it through untouched. */
#ifndef GFX_IMAGE_H
#define GFX_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample_convert.h"
#include "status.h"

#ifdef __cplusplus /* the CUDA layer (C++) calls these */
extern "C" {
#endif

typedef enum { GFX_U8 = 0, GFX_U16, GFX_F32 } gfx_depth;

typedef struct {
  int width, height;
  int channels;   /* 1..4, alpha included */
  bool has_alpha; /* the last channel is alpha */
  gfx_depth depth;
  void *pixels;   /* width * height * channels samples */
  int origin_x, origin_y; /* where pixel (0, 0) lies in the picture the user sees (a GIMP
                             image's canvas; 0, 0 for a file): messages name pixels there */
} gfx_image;

/* Largest image the core accepts, in samples, and its longest side (2^28: the filters
 * and kernels count rows and columns in int, with room for margins, 2 n mirrors and
 * n channels; GIMP's own limit is 524288); larger requests fail before allocating. */
#define GFX_MAX_SAMPLES ((size_t) 1 << 34)
#define GFX_MAX_SIDE (1 << 28)

size_t gfx_depth_bytes (gfx_depth depth);
const char *gfx_depth_name (gfx_depth depth);

/* Number of colour channels (alpha excluded). */
static inline int
gfx_image_color_channels (const gfx_image *img)
{
  return img->channels - (img->has_alpha ? 1 : 0);
}

static inline size_t
gfx_image_samples (const gfx_image *img)
{
  return (size_t) img->width * (size_t) img->height * (size_t) img->channels;
}

static inline size_t
gfx_image_bytes (const gfx_image *img)
{
  return gfx_image_samples (img) * gfx_depth_bytes (img->depth);
}

/* Allocates a zeroed image; checks the size before allocating. */
gfx_status gfx_image_alloc (gfx_image *img, int width, int height, int channels,
                            bool has_alpha, gfx_depth depth, gfx_error *err);
gfx_status gfx_image_clone (gfx_image *dst, const gfx_image *src, gfx_error *err);
void gfx_image_free (gfx_image *img);

/* Sample access as a float in [0, 1] (8/16-bit) or as stored (float). */
static inline float
gfx_sample_get (const gfx_image *img, size_t index)
{
  switch (img->depth)
    {
    case GFX_U8: return gfx_unit_from_u8 (((const uint8_t *) img->pixels)[index]);
    case GFX_U16: return gfx_unit_from_u16 (((const uint16_t *) img->pixels)[index]);
    default: return ((const float *) img->pixels)[index];
    }
}

/* Stores v, rounded to nearest and clipped for the integer depths (NaN stores 0). */
void gfx_sample_set (gfx_image *img, size_t index, float v);

/* Whether every alpha sample is fully opaque (true without alpha): dropping the alpha
 * channel loses nothing. */
bool gfx_image_opaque (const gfx_image *img);
/* Whether every colour sample (and alpha sample, with_alpha) is one of the levels of an
 * integer encoding of bits (8 or 16; 32: float, which holds them all), so storing it in
 * that encoding loses nothing.  A float sample within 1e-3 of a level counts as one. */
bool gfx_image_fits_bits (const gfx_image *img, int bits, bool with_alpha);

/* GFX_OK when every colour sample of a float image is finite (integer images always
 * are); else GFX_ERR_INPUT naming the first one that is not, its channel and value, and
 * `what` (the filter).  A NaN or an infinity would otherwise spread through an error
 * diffusion or a recursion. */
gfx_status gfx_image_check_finite (const gfx_image *img, const char *what, gfx_error *err);
/* The largest |colour sample| of a float image (+inf if one is not finite; 1 for integer
 * images), in one pass over the samples' bit patterns. */
float gfx_image_max_abs (const gfx_image *img);

/* Whether every colour sample lies in [0, 1] (always, for integer images), in one pass
 * on all cores; gfx_image_clamped_copy allocates dst as a copy of src with a float
 * image's colour samples clipped to [0, 1] (alpha as it is), in one pass on all cores. */
bool gfx_image_within_unit (const gfx_image *img);
gfx_status gfx_image_clamped_copy (gfx_image *dst, const gfx_image *src, gfx_error *err);

/* Turns img upright as EXIF orientation 1-8 asks (2-8 move pixels; 5-8 swap width and
 * height; anything else leaves it as it is), into a new buffer. */
gfx_status gfx_image_orient (gfx_image *img, int orientation, gfx_error *err);

/* Copies one channel into a float plane of width*height values (gfx_sample_get scale). */
void gfx_image_get_plane (const gfx_image *img, int channel, float *plane);

/* The tolerance gpufx gives babl (BABL_TOLERANCE) wherever it reads no fish cache (the
 * command line; a plug-in without a dialog).  babl picks among the conversion chains
 * within its tolerance by timing each one at first use, and the chains differ in the last
 * bits of float samples: with its default (4.7e-6) the same file could give different
 * results from run to run (error diffusion carries any such bit far).  At this value, its
 * own "exact", only chains as good as its double-precision reference qualify. */
#define GFX_BABL_TOLERANCE "0.0000000001"

/* For a filter's result out of in (same layout), written back in a caller's own encoding
 * (result, and stored: the same samples as they were, sample_bytes each): every sample
 * that out has bit for bit as in has it takes its stored value, so what the filter left
 * alone survives a round trip through the core's encoding exactly. */
void gfx_image_keep_unchanged (const gfx_image *in, const gfx_image *out, const void *stored,
                               void *result, size_t sample_bytes);

#ifdef __cplusplus
}
#endif

#endif
