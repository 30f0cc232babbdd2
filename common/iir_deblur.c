/* The IIR deblur filter as the plug-in and the CLI see it: its parameters (declared once),
 * the backend choice, and apply() = read the file, refuse an unstable filter, filter. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "iir.h"
#include "iir_file.h"
#include "iir_stability.h"

#ifdef GFX_HAVE_CUDA
#include "../cuda/cuda_iir.h"
#endif

#define FIELD(f) offsetof (gfx_iir_deblur_params, f)

static const gfx_param_desc iir_deblur_params[] = {
  { .name = "filter-file", .cli_name = "filter", .label = N_("_Filter file"),
    .type = GFX_PT_STRING,
    .offset = FIELD (filter_file), .flags = GFX_PF_REQUIRED,
    .help = N_("IIR filter file (gpufx-iir format, written by identification)") },
  { .name = "backend", .label = N_("_Backend"), .type = GFX_PT_ENUM, .offset = FIELD (backend),
    .help = N_("Where to compute: automatic (GPU if usable), CPU or GPU"),
    .def = GFX_BACKEND_AUTO, .choices = gfx_backend_choices, .choice_labels = gfx_backend_labels },
};

static gfx_status
iir_deblur_check (const void *values, gfx_error *err)
{
  const gfx_iir_deblur_params *p = values;
  if (!p->filter_file[0])
    return gfx_fail (err, GFX_ERR_PARAM, "filter-file is empty: give the path of a gpufx-iir "
                     "filter file");
  return GFX_OK;
}

const gfx_param_set gfx_iir_deblur_param_set = {
  "deblur", iir_deblur_params, sizeof iir_deblur_params / sizeof iir_deblur_params[0],
  sizeof (gfx_iir_deblur_params), iir_deblur_check
};

typedef struct {
  const gfx_iir_filter *f;
  const gfx_image *in;
  gfx_image *out;
  gfx_progress *progress;
} iir_job;

#ifdef GFX_HAVE_CUDA
static gfx_status
run_gpu (void *ctx, gfx_error *err)
{
  iir_job *job = ctx;
  gfx_status st = gfx_image_clone (job->out, job->in, err); /* alpha passes through */
  if (st == GFX_OK)
    st = gfx_cuda_iir (job->f, job->in, job->out, NULL, NULL, err);
  if (st != GFX_OK)
    gfx_image_free (job->out);
  return st;
}
#endif

static gfx_status
run_cpu (void *ctx, gfx_error *err)
{
  iir_job *job = ctx;
  return gfx_iir_filter_cpu (job->f, job->in, job->out, job->progress, err);
}

gfx_status
gfx_iir_filter_image (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out,
                      int backend, gfx_filter_run *run, gfx_error *err)
{
  memset (out, 0, sizeof *out);
  gfx_status st = gfx_iir_validate (f, err);
  if (st != GFX_OK)
    return st;
  if (!in || !in->pixels || in->width < 1 || in->height < 1 || in->channels < 1
      || in->channels > 4 || (in->has_alpha && in->channels < 2))
    return gfx_fail (err, GFX_ERR_INPUT, "IIR deblur: the input image is empty or has a bad "
                     "channel layout (1 to 4 channels, alpha last)");
  iir_job job = { f, in, out, run ? run->progress : NULL };
  gfx_run_info scratch;
#ifdef GFX_HAVE_CUDA
  gfx_path_fn gpu = run_gpu;
#else
  gfx_path_fn gpu = NULL;
#endif
  return gfx_dispatch (backend, gpu, run_cpu, &job, run ? &run->info : &scratch, err);
}

/* Names the unstable quadrants and their margins in the message. */
static gfx_status
refuse_unstable (const char *path, const gfx_iir_stability *st, gfx_error *err)
{
  char list[256];
  gfx_iir_unstable_list (st, list, sizeof list);
  return gfx_fail (err, GFX_ERR_UNSTABLE, "filter file '%s' is unstable in %s: a root of "
                   "B(z1,z2) lies on or outside the unit circle; stabilise it with "
                   "'gpufx stability FILE --stabilise OUT' or identify it again", path, list);
}

/* The verdict on the last filter checked, keyed by its coefficients (not its file name):
 * the dialog's preview and batch scripts apply one filter again and again, and the root
 * maps cost milliseconds each time. */
static struct {
  pthread_mutex_t lock;
  bool valid;
  gfx_iir_filter filter;
  gfx_iir_stability verdict;
} memo = { .lock = PTHREAD_MUTEX_INITIALIZER };

static gfx_status
check_stability (const gfx_iir_filter *f, gfx_iir_stability *stab, gfx_error *err)
{
  pthread_mutex_lock (&memo.lock);
  bool hit = memo.valid && memcmp (&memo.filter, f, sizeof *f) == 0;
  if (hit)
    *stab = memo.verdict;
  pthread_mutex_unlock (&memo.lock);
  if (hit)
    return GFX_OK;
  gfx_status st = gfx_iir_stability_check (f, 0, stab, err);
  if (st == GFX_OK)
    {
      pthread_mutex_lock (&memo.lock);
      memo.filter = *f;
      memo.verdict = *stab;
      memo.valid = true;
      pthread_mutex_unlock (&memo.lock);
    }
  return st;
}

static gfx_status
iir_deblur_apply (const gfx_image *in, gfx_image *out, const void *values,
                  gfx_filter_run *run, gfx_error *err)
{
  const gfx_iir_deblur_params *p = values;
  memset (out, 0, sizeof *out);
  gfx_status st = gfx_params_validate (&gfx_iir_deblur_param_set, p, err);
  if (st == GFX_OK)
    st = gfx_image_check_finite (in, "IIR deblur", err);
  gfx_iir_filter f;
  if (st == GFX_OK)
    st = gfx_iir_read (p->filter_file, &f, err);
  gfx_iir_stability stab;
  if (st == GFX_OK)
    st = check_stability (&f, &stab, err);
  if (st == GFX_OK && !stab.all_stable)
    return refuse_unstable (p->filter_file, &stab, err);
  if (st == GFX_OK)
    st = gfx_iir_filter_image (&f, in, out, p->backend, run, err);
  /* A stable filter still multiplies: float samples near the largest float (finite, so
   * taken) can overflow to inf, and inf - inf gives NaN.  Refused rather than written. */
  if (st == GFX_OK && !isfinite (gfx_image_max_abs (out)))
    {
      gfx_image_free (out);
      st = gfx_fail (err, GFX_ERR_INPUT, "IIR deblur: the filter '%s' takes the image (its "
                     "largest |sample| is %g) past the largest 32-bit float: a filter of "
                     "smaller gain, or the image scaled down, keeps the result in range",
                     p->filter_file, (double) gfx_image_max_abs (in));
    }
  return st;
}

const gfx_filter gfx_iir_deblur_filter = {
  .name = "deblur",
  .title = N_("IIR Deblur (quadrant filters)"),
  .blurb = N_("Sharpen with four single-quadrant IIR filters read from a filter file"),
  .params = &gfx_iir_deblur_param_set,
  .apply = iir_deblur_apply,
};
