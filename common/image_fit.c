/* Whether an image's samples fit a narrower encoding, or hold finite values (see image.h). */
#include <math.h>
#include <string.h>

#include "image.h"
#include "env_check.h"
#include "pool.h"

bool
gfx_image_opaque (const gfx_image *img)
{
  if (!img->has_alpha)
    return true;
  const size_t n = gfx_image_samples (img);
  for (size_t s = (size_t) img->channels - 1; s < n; s += (size_t) img->channels)
    if (gfx_sample_get (img, s) != 1.0f)
      return false;
  return true;
}

/* Whether sample s is one of the levels of bits (fewer than the image's own). */
static bool
on_level (const gfx_image *img, size_t s, int bits)
{
  if (img->depth == GFX_U16) /* to 8 bits: the multiples of 65535 / 255 */
    return ((const uint16_t *) img->pixels)[s] % 257u == 0;
  const float v = ((const float *) img->pixels)[s];
  const double level = v * (double) ((1u << bits) - 1u);
  return v >= 0.0f && v <= 1.0f && fabs (level - nearbyint (level)) <= 1e-3;
}

bool
gfx_image_fits_bits (const gfx_image *img, int bits, bool with_alpha)
{
  const int own = img->depth == GFX_U8 ? 8 : img->depth == GFX_U16 ? 16 : 32;
  if (bits >= own)
    return true;
  const int checked = with_alpha ? img->channels : gfx_image_color_channels (img);
  const size_t pixels = (size_t) img->width * img->height;
  for (size_t p = 0; p < pixels; p++)
    for (int c = 0; c < checked; c++)
      if (!on_level (img, p * img->channels + c, bits))
        return false;
  return true;
}

/* The largest bit pattern of (sample & keep) over the colour channels of pixels [p0, p1).
 * keep 0x7fffffff gives |sample|: for non-negative floats the patterns order as the
 * values do, and every NaN's lies above +inf's (0x7f800000).  keep 0xffffffff keeps the
 * sign, so every negative sample's pattern lies above every positive one's.  Integer
 * maxima over contiguous words, so the compiler vectorises the common layout. */
static uint32_t
max_bits (const gfx_image *img, size_t p0, size_t p1, uint32_t keep)
{
  const int ch = img->channels, cc = gfx_image_color_channels (img);
  const unsigned char *b = (const unsigned char *) img->pixels + 4 * p0 * (size_t) ch;
  const size_t n = p1 - p0;
  uint32_t top = 0;
  if (cc == ch)
    {
      const size_t all = n * (size_t) ch, blocks = all / 16;
      uint32_t lane[16] = { 0 }; /* 16 running maxima: fixed-length inner loops vectorise */
      for (size_t k = 0; k < blocks; k++)
        {
          uint32_t a[16];
          memcpy (a, b + 64 * k, sizeof a); /* the floats' bits */
          for (int j = 0; j < 16; j++)
            {
              a[j] &= keep;
              lane[j] = a[j] > lane[j] ? a[j] : lane[j];
            }
        }
      for (int j = 0; j < 16; j++)
        top = lane[j] > top ? lane[j] : top;
      for (size_t i = blocks * 16; i < all; i++)
        {
          uint32_t a;
          memcpy (&a, b + 4 * i, 4);
          a &= keep;
          top = a > top ? a : top;
        }
    }
  else
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < cc; c++)
        {
          uint32_t a;
          memcpy (&a, b + 4 * (i * (size_t) ch + c), 4);
          a &= keep;
          top = a > top ? a : top;
        }
  return top;
}

typedef struct {
  const gfx_image *img;
  uint32_t keep;
  uint32_t top[GFX_MAX_THREADS];
} max_bits_job;

static void
max_bits_part (void *ctx, int worker, int n_workers)
{
  max_bits_job *j = ctx;
  const size_t n = (size_t) j->img->width * j->img->height;
  j->top[worker] = max_bits (j->img, n * worker / n_workers, n * (worker + 1) / n_workers,
                             j->keep);
}

/* One pass over every float image a filter gets (its finite check, the enhance keys'
 * scale), on all cores: single-threaded it was a tenth of a second for a 24-megapixel
 * RGB image, as long as the GPU's whole filter.  Max is order-free, so any split gives
 * the same answer. */
static uint32_t
parallel_max_bits (const gfx_image *img, uint32_t keep)
{
  max_bits_job j = { .img = img, .keep = keep };
  int workers = gfx_threads_for ((double) gfx_image_samples (img), 1 << 20, false);
  gfx_parallel_run (workers, max_bits_part, &j);
  uint32_t top = 0;
  for (int i = 0; i < workers; i++)
    top = j.top[i] > top ? j.top[i] : top;
  return top;
}

bool
gfx_image_within_unit (const gfx_image *img)
{
  /* 1.0f's pattern: above it lie the values over 1, every negative one (-0 too, which
   * only costs a needless clamp) and NaN. */
  return img->depth != GFX_F32 || parallel_max_bits (img, 0xffffffffu) <= 0x3f800000u;
}

typedef struct {
  const gfx_image *src;
  gfx_image *dst;
} clamp_job;

static inline float
clamp_unit (float v)
{
  return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

static void
clamp_part (void *ctx, int worker, int n_workers)
{
  const clamp_job *j = ctx;
  const size_t ch = (size_t) j->src->channels, n = (size_t) j->src->width * j->src->height;
  const size_t first = n * worker / n_workers * ch, end = n * (worker + 1) / n_workers * ch;
  const float *restrict in = j->src->pixels;
  float *restrict out = j->dst->pixels;
  if (!j->src->has_alpha) /* one flat loop, which the compiler vectorises */
    for (size_t i = first; i < end; i++)
      out[i] = clamp_unit (in[i]);
  else
    for (size_t i = first; i < end; i += ch)
      {
        for (size_t c = 0; c + 1 < ch; c++)
          out[i + c] = clamp_unit (in[i + c]);
        out[i + ch - 1] = in[i + ch - 1];
      }
}

gfx_status
gfx_image_clamped_copy (gfx_image *dst, const gfx_image *src, gfx_error *err)
{
  if (src->depth != GFX_F32)
    return gfx_image_clone (dst, src, err);
  gfx_status st = gfx_image_alloc (dst, src->width, src->height, src->channels, src->has_alpha,
                                   src->depth, err);
  if (st != GFX_OK)
    return st;
  clamp_job j = { src, dst };
  gfx_parallel_run (gfx_threads_for ((double) gfx_image_samples (src), 1 << 20, false),
                    clamp_part, &j);
  return GFX_OK;
}

float
gfx_image_max_abs (const gfx_image *img)
{
  if (img->depth != GFX_F32)
    return 1.0f;
  uint32_t top = parallel_max_bits (img, 0x7fffffffu);
  if (top >= 0x7f800000u)
    return INFINITY;
  float v;
  memcpy (&v, &top, sizeof v);
  return v;
}

gfx_status
gfx_image_check_finite (const gfx_image *img, const char *what, gfx_error *err)
{
  if (img->depth != GFX_F32 || isfinite (gfx_image_max_abs (img))) /* one fast pass */
    return GFX_OK;
  const int cc = gfx_image_color_channels (img); /* else the first one, for the message */
  const size_t n = (size_t) img->width * img->height;
  const float *px = img->pixels;
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < cc; c++)
      if (!isfinite (px[i * img->channels + c]))
        return gfx_fail (err, GFX_ERR_INPUT, "pixel (%lld, %lld) channel %d = %g: float "
                         "images must hold finite values for %s",
                         img->origin_x + (long long) (i % img->width),
                         img->origin_y + (long long) (i / img->width), c,
                         px[i * img->channels + c], what);
  return GFX_OK;
}
