/* gfx_halftone: validation, allocation, alpha, and the choice between the CUDA path and
 * the CPU path (common/backend.h); plus the filter descriptor the plug-in and CLI use. */
#include <string.h>

#include "filter.h"
#include "halftone.h"
#include "halftone_internal.h"

#ifdef GFX_HAVE_CUDA
#include "../cuda/cuda_halftone.h"
#endif

typedef struct {
  const gfx_image *in;
  gfx_image *out;
  const gfx_halftone_params *p;
  gfx_progress *progress;
} halftone_job;

/* Without CUDA compiled in, gfx_dispatch finds no usable GPU and never calls this. */
static gfx_status
run_gpu (void *ctx, gfx_error *err)
{
#ifdef GFX_HAVE_CUDA
  halftone_job *job = ctx;
  return gfx_cuda_halftone (job->in, job->out, job->p->kernel, job->p->levels,
                            job->p->block_size, job->p->margin, NULL, err);
#else
  (void) ctx;
  return gfx_fail (err, GFX_ERR_GPU, "this build has no CUDA support");
#endif
}

static gfx_status
run_cpu (void *ctx, gfx_error *err)
{
  halftone_job *job = ctx;
  return gfx_halftone_cpu (job->in, job->out, job->p->kernel, job->p->levels, job->progress,
                           err);
}

/* Alpha is passed through: copy the last channel sample by sample. */
static void
copy_alpha (const gfx_image *in, gfx_image *out)
{
  size_t bytes = gfx_depth_bytes (in->depth), pixels = (size_t) in->width * in->height;
  size_t pixel_bytes = bytes * in->channels, alpha = bytes * (in->channels - 1);
  const unsigned char *src = in->pixels;
  unsigned char *dst = out->pixels;
  for (size_t i = 0; i < pixels; i++)
    memcpy (dst + i * pixel_bytes + alpha, src + i * pixel_bytes + alpha, bytes);
}

static gfx_status
check_image (const gfx_image *in, gfx_error *err)
{
  if (!in || !in->pixels || in->width < 1 || in->height < 1)
    return gfx_fail (err, GFX_ERR_INPUT, "halftone: the input image is empty");
  if (in->channels < 1 || in->channels > 4 || (in->has_alpha && in->channels < 2))
    return in->has_alpha
             ? gfx_fail (err, GFX_ERR_INPUT, "halftone: %d channels with alpha: allowed 1 to 4, "
                         "alpha last", in->channels)
             : gfx_fail (err, GFX_ERR_INPUT, "halftone: %d channels: allowed 1 to 4, alpha last",
                         in->channels);
  if (in->depth != GFX_U8 && in->depth != GFX_U16 && in->depth != GFX_F32)
    return gfx_fail (err, GFX_ERR_INPUT, "halftone: unknown sample depth %d", (int) in->depth);
  return gfx_image_check_finite (in, "halftone", err);
}

gfx_status
gfx_halftone (const gfx_image *in, gfx_image *out, const gfx_halftone_params *p,
              gfx_progress *progress, gfx_run_info *info, gfx_error *err)
{
  gfx_run_info scratch;
  if (!info)
    info = &scratch;
  memset (out, 0, sizeof *out);
  gfx_status st = gfx_params_validate (&gfx_halftone_param_set, p, err);
  if (st == GFX_OK)
    st = check_image (in, err);
  if (st == GFX_OK)
    st = gfx_image_alloc (out, in->width, in->height, in->channels, in->has_alpha, in->depth,
                          err);
  if (st != GFX_OK)
    return st;
  if (in->has_alpha)
    copy_alpha (in, out);
  /* Float samples outside [0, 1] (GIMP's float images allow them) are clipped first, as
   * GEGL's dither does: no level lies out there, so their whole excess would be diffused
   * into the neighbours (a 1.5 highlight whitens the dark pixels around it).  Both
   * backends get the clipped copy, so they still agree bit for bit. */
  gfx_image clipped = { 0 };
  if (!gfx_image_within_unit (in))
    {
      st = gfx_image_clamped_copy (&clipped, in, err);
      if (st != GFX_OK)
        {
          gfx_image_free (out);
          return st;
        }
    }
  halftone_job job = { clipped.pixels ? &clipped : in, out, p, progress };
  st = gfx_dispatch (p->backend, run_gpu, run_cpu, &job, info, err);
  gfx_image_free (&clipped);
  if (st == GFX_OK)
    gfx_progress_update (progress, 1.0);
  else
    gfx_image_free (out);
  return st;
}

static gfx_status
halftone_apply (const gfx_image *in, gfx_image *out, const void *values, gfx_filter_run *run,
                gfx_error *err)
{
  return gfx_halftone (in, out, values, run ? run->progress : NULL, run ? &run->info : NULL,
                       err);
}

/* Error diffusion runs in raster order, and a pixel's errors reach only the rows below:
 * the region's rows down to the visible part's last, each whole. */
static gfx_rect
halftone_preview_source (const void *values, gfx_rect region, gfx_rect visible)
{
  (void) values;
  region.height = visible.y + visible.height - region.y;
  return region;
}

const gfx_filter gfx_halftone_filter = {
  .name = "halftone",
  .title = N_("Halftone (error diffusion)"),
  .blurb = N_("Error diffusion to a few levels per channel (Floyd-Steinberg and 7 other kernels)"),
  .params = &gfx_halftone_param_set,
  .apply = halftone_apply,
  .preview_source = halftone_preview_source,
  .rows_causal = true,
};
