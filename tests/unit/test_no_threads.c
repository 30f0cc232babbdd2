/* Where worker threads cannot be created (a cgroup's pids.max, systemd's TasksMax,
 * ulimit -u), gfx_parallel_run runs the job as its single worker (pool.h): every CPU
 * filter must then give the same pixels as with its threads.  Local enhance once summed
 * per-worker totals it had not written (uninitialised memory) and enhanced nothing.
 *
 * pthread_create is replaced here: it fails with EAGAIN while `refuse` is set, as the
 * kernel does at the limit, and otherwise is the next one (libc's, or the sanitizers'). */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/enhance.h"
#include "../../common/halftone.h"
#include "../../common/iir.h"
#include "../../common/params.h"
#include "check.h"
#include "support_images.h"
#include "test_iir_util.h"

static atomic_int refuse, refused;

int
pthread_create (pthread_t *thread, const pthread_attr_t *attr, void *(*start) (void *),
                void *arg)
{
  if (atomic_load (&refuse))
    {
      atomic_fetch_add (&refused, 1);
      return EAGAIN;
    }
  static int (*next) (pthread_t *, const pthread_attr_t *, void *(*) (void *), void *);
  if (!next)
    *(void **) &next = dlsym (RTLD_NEXT, "pthread_create");
  return next (thread, attr, start, arg);
}

typedef gfx_status (*filter_fn) (const gfx_image *in, gfx_image *out, const void *how);

static gfx_status
run_enhance (const gfx_image *in, gfx_image *out, const void *how)
{
  gfx_error err;
  return gfx_enhance_cpu (in, out, NULL, how, NULL, &err);
}

static gfx_status
run_halftone (const gfx_image *in, gfx_image *out, const void *how)
{
  gfx_error err;
  return gfx_halftone (in, out, how, NULL, NULL, &err);
}

static gfx_status
run_iir (const gfx_image *in, gfx_image *out, const void *how)
{
  gfx_error err;
  return gfx_iir_filter_cpu (how, in, out, NULL, &err);
}

/* The filter with 4 threads, then with none to be had: the same pixels. */
static void
same_without_threads (const char *what, filter_fn fn, const gfx_image *in, const void *how)
{
  gfx_image with = { 0 }, without = { 0 };
  setenv ("GPUFX_THREADS", "4", 1);
  gfx_status a = fn (in, &with, how);
  atomic_store (&refused, 0);
  atomic_store (&refuse, 1);
  gfx_status b = fn (in, &without, how);
  atomic_store (&refuse, 0);
  unsetenv ("GPUFX_THREADS");
  CHECK (a == GFX_OK && b == GFX_OK && atomic_load (&refused) > 0
           && test_same_image (&with, &without),
         "%s: without threads (%d refused) the same pixels as with 4", what,
         atomic_load (&refused));
  gfx_image_free (&with);
  gfx_image_free (&without);
}

static void
image (gfx_image *img, int w, int h, int channels, gfx_depth depth)
{
  static unsigned state = 12345;
  gfx_error err;
  gfx_image_alloc (img, w, h, channels, false, depth, &err);
  test_fill_patches (img, &state, 23, 17, 0);
}

int
main (void)
{
  gfx_enhance_params luma, per_channel;
  gfx_params_defaults (&gfx_enhance_param_set, &luma);
  luma.k0 = 1.0; /* most pixels in play */
  per_channel = luma;
  per_channel.per_channel = 1;
  gfx_image gray8, rgb16, rgbf;
  image (&gray8, 301, 203, 1, GFX_U8);
  image (&rgb16, 157, 111, 3, GFX_U16);
  image (&rgbf, 157, 111, 3, GFX_F32);
  same_without_threads ("enhance, 8-bit gray", run_enhance, &gray8, &luma);
  same_without_threads ("enhance, 16-bit RGB per channel", run_enhance, &rgb16, &per_channel);
  same_without_threads ("enhance, float RGB luminance", run_enhance, &rgbf, &luma);
  gfx_halftone_params fs; /* the defaults: Floyd-Steinberg, 2 levels */
  gfx_params_defaults (&gfx_halftone_param_set, &fs);
  fs.backend = GFX_BACKEND_CPU;
  same_without_threads ("halftone, 16-bit RGB", run_halftone, &rgb16, &fs);
  gfx_iir_filter f;
  iir_random_filter (&f, 3, 3, 0.8);
  same_without_threads ("IIR deblur, float RGB", run_iir, &rgbf, &f);

  /* The dialog's preview statistics come from the same totals. */
  gfx_enhance_region with, without;
  gfx_error err;
  setenv ("GPUFX_THREADS", "4", 1);
  gfx_status a = gfx_enhance_region_totals (&rgb16, &per_channel, &with, &err);
  atomic_store (&refuse, 1);
  gfx_status b = gfx_enhance_region_totals (&rgb16, &per_channel, &without, &err);
  atomic_store (&refuse, 0);
  unsetenv ("GPUFX_THREADS");
  CHECK (a == GFX_OK && b == GFX_OK && !memcmp (&with, &without, sizeof with),
         "enhance region totals: without threads the same as with 4");
  gfx_image_free (&gray8);
  gfx_image_free (&rgb16);
  gfx_image_free (&rgbf);
  return check_exit_status ();
}
