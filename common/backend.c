#include "backend.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GFX_HAVE_CUDA
#include "../cuda/cuda_device.h"
#endif

gfx_backend
gfx_backend_effective (int requested)
{
  if (requested != GFX_BACKEND_AUTO)
    return (gfx_backend) requested;
  const int env = gfx_backend_by_name (getenv ("GPUFX_BACKEND")); /* unknown: auto */
  return env < 0 ? GFX_BACKEND_AUTO : (gfx_backend) env;
}

bool
gfx_backend_cuda_built (void)
{
#ifdef GFX_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

bool
gfx_backend_gpu_usable (char *name, size_t len)
{
#ifdef GFX_HAVE_CUDA
  gfx_error err;
  if (gfx_cuda_device_name (name, len, &err) == GFX_OK)
    return true;
  if (name)
    snprintf (name, len, "%s", err.msg);
  return false;
#else
  if (name)
    snprintf (name, len, "%s",
              gfx_tr ("this build has no CUDA support (nvcc was not found when it was built)"));
  return false;
#endif
}

#ifdef GFX_HAVE_CUDA
static pthread_t warm_up_thread;
static atomic_int warm_up_state; /* 0 not started, 1 running or done, 2 joined */

static void *
warm_up_run (void *arg)
{
  (void) arg;
  gfx_cuda_warm_up ();
  return NULL;
}
#endif

void
gfx_backend_warm_up (const gfx_param_set *set, const void *values)
{
#ifdef GFX_HAVE_CUDA
  const gfx_param_desc *backend = gfx_params_find (set, "backend");
  if (!backend || gfx_backend_effective ((int) gfx_param_get (backend, values)) == GFX_BACKEND_CPU
      || atomic_exchange (&warm_up_state, 1) != 0)
    return;
  if (pthread_create (&warm_up_thread, NULL, warm_up_run, NULL) != 0)
    atomic_store (&warm_up_state, 2); /* no thread: the filter call starts the GPU itself */
#else
  (void) set;
  (void) values;
#endif
}

void
gfx_backend_warm_up_wait (void)
{
#ifdef GFX_HAVE_CUDA
  int running = 1;
  if (atomic_compare_exchange_strong (&warm_up_state, &running, 2))
    pthread_join (warm_up_thread, NULL);
#endif
}

static atomic_int fallback_noted;

gfx_status
gfx_dispatch (int requested, gfx_path_fn gpu, gfx_path_fn cpu, void *job, gfx_run_info *info,
              gfx_error *err)
{
  gfx_backend b = gfx_backend_effective (requested);
  info->note[0] = '\0';
  info->note_is_new = false;
  if (b != GFX_BACKEND_CPU)
    {
      gfx_error gerr;
      gfx_error_clear (&gerr);
      char why[GFX_MSG_LEN];
      gfx_status st;
      if (!gfx_backend_gpu_usable (why, sizeof why)) /* first: a CPU-only build says so */
        st = gfx_fail (&gerr, GFX_ERR_GPU, "%s", why);
      else if (!gpu)
        st = gfx_fail (&gerr, GFX_ERR_GPU, "this filter has no GPU path");
      else
        st = gpu (job, &gerr);
      if (st == GFX_OK || st != GFX_ERR_GPU)
        {
          info->used = GFX_BACKEND_GPU;
          if (st != GFX_OK && err)
            *err = gerr;
          return st;
        }
      if (b == GFX_BACKEND_GPU)
        return gfx_fail (err, GFX_ERR_GPU, "backend gpu: %s", gerr.msg);
      snprintf (info->note, sizeof info->note, gfx_tr ("GPU not used (%s); running on the CPU"),
                gerr.msg);
      info->note_is_new = atomic_exchange (&fallback_noted, 1) == 0;
    }
  info->used = GFX_BACKEND_CPU;
  return cpu (job, err);
}
