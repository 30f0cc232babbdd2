/* The CPU path's last step: the gain on the decided pixels, alpha copied, the mask. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "enhance_internal.h"
#include "pool.h"

typedef struct {
  const gfx_image *in;
  gfx_image *out, *mask;
  const gfx_enhance_params *p;
  const uint8_t *dec;
  uint16_t *lut; /* integer depths: gained value of every sample value */
  gfx_progress *progress;
  atomic_int cancelled;
} apply_job;

static double
sample (const gfx_image *img, size_t i)
{
  switch (img->depth)
    {
    case GFX_U8: return ((const uint8_t *) img->pixels)[i];
    case GFX_U16: return ((const uint16_t *) img->pixels)[i];
    default: return ((const float *) img->pixels)[i];
    }
}

static void
put (gfx_image *img, size_t i, double v)
{
  switch (img->depth)
    {
    case GFX_U8: ((uint8_t *) img->pixels)[i] = (uint8_t) v; break;
    case GFX_U16: ((uint16_t *) img->pixels)[i] = (uint16_t) v; break;
    default: ((float *) img->pixels)[i] = (float) v; break;
    }
}

/* The gained value of one colour sample v of a pixel whose largest colour sample is vmax;
 * hue: one factor for the whole pixel (luminance mode), else the sample alone. */
static double
gained (const apply_job *j, double v, double vmax, int hue)
{
  double e = j->p->gain;
  if (j->in->depth == GFX_F32)
    return hue ? gfx_enh_gain_hue_float ((float) v, (float) vmax, e) : gfx_enh_gain_float ((float) v, e);
  if (!hue)
    return j->lut[(uint32_t) v];
  return gfx_enh_gain_hue_int ((uint32_t) v, (uint32_t) vmax, e, enh_max_value (j->in->depth));
}

static void
apply_pixel (const apply_job *j, size_t i, size_t plane_size, int planes)
{
  const gfx_image *in = j->in;
  int cc = gfx_image_color_channels (in), hue = planes == 1 && cc >= 3;
  size_t s = i * (size_t) in->channels;
  double vmax = sample (in, s);
  for (int c = 1; hue && c < cc; c++)
    vmax = sample (in, s + c) > vmax ? sample (in, s + c) : vmax;
  int any = 0;
  for (int c = 0; c < cc; c++)
    {
      int d = j->dec[(planes == 1 ? 0 : (size_t) c * plane_size) + i];
      any |= d;
      double v = sample (in, s + c);
      put (j->out, s + c, d ? gained (j, v, vmax, hue) : v);
    }
  if (in->has_alpha)
    put (j->out, s + cc, sample (in, s + cc));
  if (j->mask && j->mask->pixels)
    ((uint8_t *) j->mask->pixels)[i] = any ? 255 : 0;
}

static void
apply_rows (void *ctx, int worker, int n_workers)
{
  apply_job *j = ctx;
  const gfx_image *in = j->in;
  int w = in->width, h = in->height, planes = enh_planes (in, j->p);
  int y0 = (int) ((long long) h * worker / n_workers);
  int y1 = (int) ((long long) h * (worker + 1) / n_workers);
  size_t plane_size = (size_t) w * h;
  int fast = in->depth == GFX_U8 && in->channels == 1;
  for (int y = y0; y < y1; y++)
    {
      size_t b = (size_t) y * w;
      if (fast) /* gray 8-bit: the common case, one table look-up */
        {
          const uint8_t *src = (const uint8_t *) in->pixels + b, *d = j->dec + b;
          uint8_t *dst = (uint8_t *) j->out->pixels + b;
          for (int x = 0; x < w; x++)
            dst[x] = d[x] ? (uint8_t) j->lut[src[x]] : src[x];
          if (j->mask && j->mask->pixels)
            for (int x = 0; x < w; x++)
              ((uint8_t *) j->mask->pixels)[b + x] = d[x] ? 255 : 0;
        }
      else
        for (int x = 0; x < w; x++)
          apply_pixel (j, b + x, plane_size, planes);
      if (j->progress && gfx_progress_cancelled (j->progress))
        {
          atomic_store (&j->cancelled, 1);
          return;
        }
      if (worker == 0 && j->progress)
        gfx_progress_update (j->progress, 0.9 + 0.1 * (y + 1 - y0) / (y1 - y0));
    }
}

gfx_status
enh_cpu_apply (const gfx_image *in, gfx_image *out, gfx_image *mask,
               const gfx_enhance_params *p, const uint8_t *dec, gfx_progress *progress,
               gfx_error *err)
{
  apply_job j = { .in = in, .out = out, .mask = mask, .p = p, .dec = dec,
                  .progress = progress };
  if (in->depth != GFX_F32)
    {
      double maxv = enh_max_value (in->depth);
      j.lut = malloc (sizeof *j.lut * ((size_t) maxv + 1));
      if (!j.lut)
        return gfx_fail (err, GFX_ERR_NOMEM, "out of memory");
      for (uint32_t v = 0; v <= (uint32_t) maxv; v++)
        j.lut[v] = (uint16_t) gfx_enh_gain_int (v, p->gain, maxv);
    }
  int n_workers = gfx_threads ();
  if (n_workers > in->height)
    n_workers = in->height;
  gfx_parallel_run (n_workers, apply_rows, &j);
  free (j.lut);
  if (atomic_load (&j.cancelled))
    return gfx_fail (err, GFX_ERR_CANCELLED, "cancelled");
  return GFX_OK;
}
