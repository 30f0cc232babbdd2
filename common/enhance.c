/* Local enhance: checks, output allocation and the choice between the GPU and the CPU. */
#include <math.h>

#include "enhance_internal.h"

#ifdef GFX_HAVE_CUDA
#include "../cuda/enhance_cuda.h"
#endif

gfx_status
gfx_enhance_check_input (const gfx_image *in, const gfx_enhance_params *p, gfx_error *err)
{
  gfx_status st = gfx_params_validate (&gfx_enhance_param_set, p, err);
  if (st != GFX_OK)
    return st;
  if (!in || !in->pixels || in->width < 1 || in->height < 1)
    return gfx_fail (err, GFX_ERR_INPUT, "the image is empty");
  return gfx_image_check_finite (in, "local enhance", err);
}

static gfx_status
alloc_outputs (const gfx_image *in, gfx_image *out, gfx_image *mask, gfx_error *err)
{
  gfx_status st = gfx_image_alloc (out, in->width, in->height, in->channels, in->has_alpha,
                                   in->depth, err);
  if (st == GFX_OK && mask)
    {
      st = gfx_image_alloc (mask, in->width, in->height, 1, false, GFX_U8, err);
      if (st != GFX_OK)
        gfx_image_free (out);
    }
  return st;
}

static void
free_outputs (gfx_image *out, gfx_image *mask)
{
  gfx_image_free (out);
  if (mask)
    gfx_image_free (mask);
}

gfx_status
gfx_enhance_cpu (const gfx_image *in, gfx_image *out, gfx_image *mask,
                 const gfx_enhance_params *p, gfx_progress *progress, gfx_error *err)
{
  gfx_status st = gfx_enhance_check_input (in, p, err);
  if (st == GFX_OK)
    st = alloc_outputs (in, out, mask, err);
  if (st != GFX_OK)
    return st;
  st = enh_cpu_into (in, out, mask, p, progress, err);
  if (st != GFX_OK)
    free_outputs (out, mask);
  return st;
}

typedef struct {
  const gfx_image *in;
  gfx_image *out, *mask;
  const gfx_enhance_params *p;
  gfx_progress *progress;
} enh_dispatch_job;

static gfx_status
cpu_path (void *job, gfx_error *err)
{
  enh_dispatch_job *j = job;
  return enh_cpu_into (j->in, j->out, j->mask, j->p, j->progress, err);
}

#ifdef GFX_HAVE_CUDA
static gfx_status
gpu_path (void *job, gfx_error *err)
{
  enh_dispatch_job *j = job;
  if (j->progress && gfx_progress_cancelled (j->progress))
    return gfx_fail (err, GFX_ERR_CANCELLED, "cancelled");
  gfx_status st = gfx_cuda_enhance (j->in, j->out, j->mask, j->p, NULL, err);
  if (st == GFX_OK && j->progress)
    gfx_progress_update (j->progress, 1.0);
  return st;
}
#define GPU_PATH gpu_path
#else
#define GPU_PATH NULL
#endif

gfx_status
gfx_enhance (const gfx_image *in, gfx_image *out, gfx_image *mask, const gfx_enhance_params *p,
             gfx_progress *progress, gfx_run_info *info, gfx_error *err)
{
  gfx_status st = gfx_enhance_check_input (in, p, err);
  if (st == GFX_OK)
    st = alloc_outputs (in, out, mask, err);
  if (st != GFX_OK)
    return st;
  enh_dispatch_job job = { in, out, mask, p, progress };
  gfx_run_info local;
  info = info ? info : &local;
  if (p->region.n) /* a preview with the whole region's statistics: the CPU path has them */
    {
      *info = (gfx_run_info) { .used = GFX_BACKEND_CPU };
      st = cpu_path (&job, err);
    }
  else
    st = gfx_dispatch (p->backend, GPU_PATH, cpu_path, &job, info, err);
  if (st != GFX_OK)
    free_outputs (out, mask);
  return st;
}
