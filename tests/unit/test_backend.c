/* The backend rules of SPEC section 0 (GPUFX_BACKEND against an explicit request) and the
 * GPU warm-up: started only where the request may mean the GPU, once, joined however often
 * it is waited for, and a filter run after it gives what a run without it gives.  On a
 * machine with a GPU the warm-up really runs on its thread; without one (or in a CPU-only
 * build) the same calls must still return at once. */
#include <stdlib.h>
#include <string.h>

#include "../../common/backend.h"
#include "../../common/halftone.h"
#include "check.h"
#include "support_images.h"

static void
effective_rules (void)
{
  unsetenv ("GPUFX_BACKEND");
  CHECK (gfx_backend_effective (GFX_BACKEND_AUTO) == GFX_BACKEND_AUTO, "auto stays auto");
  setenv ("GPUFX_BACKEND", "CPU", 1);
  CHECK (gfx_backend_effective (GFX_BACKEND_AUTO) == GFX_BACKEND_CPU,
         "GPUFX_BACKEND=CPU turns auto into cpu (any case)");
  CHECK (gfx_backend_effective (GFX_BACKEND_GPU) == GFX_BACKEND_GPU,
         "an explicit gpu request wins over GPUFX_BACKEND");
  setenv ("GPUFX_BACKEND", "gpu", 1);
  CHECK (gfx_backend_effective (GFX_BACKEND_AUTO) == GFX_BACKEND_GPU, "GPUFX_BACKEND=gpu");
  CHECK (gfx_backend_effective (GFX_BACKEND_CPU) == GFX_BACKEND_CPU,
         "an explicit cpu request wins over GPUFX_BACKEND");
  setenv ("GPUFX_BACKEND", "nonsense", 1);
  CHECK (gfx_backend_effective (GFX_BACKEND_AUTO) == GFX_BACKEND_AUTO,
         "an unknown GPUFX_BACKEND leaves auto alone");
  unsetenv ("GPUFX_BACKEND");
}

static gfx_status
halftone (const gfx_image *in, gfx_image *out, int backend, gfx_run_info *info)
{
  gfx_halftone_params p;
  gfx_params_defaults (&gfx_halftone_param_set, &p);
  p.backend = backend;
  gfx_error err;
  return gfx_halftone (in, out, &p, NULL, info, &err);
}

static void
warm_up (void)
{
  gfx_backend_warm_up_wait (); /* nothing started: returns at once */
  gfx_halftone_params p;
  gfx_params_defaults (&gfx_halftone_param_set, &p);
  p.backend = GFX_BACKEND_CPU;
  gfx_backend_warm_up (&gfx_halftone_param_set, &p); /* cpu: starts nothing */
  p.backend = GFX_BACKEND_AUTO;
  gfx_backend_warm_up (&gfx_halftone_param_set, &p);
  gfx_backend_warm_up (&gfx_halftone_param_set, &p); /* a second call starts no second thread */

  /* a run while the warm-up may still be going, then the waits */
  gfx_image in, ref, out;
  unsigned state = 5;
  if (gfx_image_alloc (&in, 301, 77, 3, false, GFX_U8, NULL) != GFX_OK)
    {
      CHECK (0, "allocate the input");
      return;
    }
  test_fill_patches (&in, &state, 16, 9, 0);
  gfx_run_info ri, ai;
  gfx_status sc = halftone (&in, &ref, GFX_BACKEND_CPU, &ri);
  gfx_status sa = halftone (&in, &out, GFX_BACKEND_AUTO, &ai);
  gfx_backend_warm_up_wait ();
  gfx_backend_warm_up_wait ();
  CHECK (sc == GFX_OK && sa == GFX_OK, "runs during and after the warm-up succeed");
  if (sc == GFX_OK && sa == GFX_OK)
    CHECK (memcmp (ref.pixels, out.pixels, gfx_image_bytes (&ref)) == 0,
           "auto after the warm-up (%s) equals the CPU", ai.used == GFX_BACKEND_GPU ? "gpu" : "cpu");
  char why[GFX_MSG_LEN];
  bool usable = gfx_backend_gpu_usable (why, sizeof why);
  CHECK ((ai.used == GFX_BACKEND_GPU) == usable, "auto used the GPU exactly when one is usable (%s)",
         why);
  gfx_image_free (&in);
  gfx_image_free (&ref);
  gfx_image_free (&out);
}

static gfx_status
cpu_path (void *job, gfx_error *err)
{
  (void) job, (void) err;
  return GFX_OK;
}

/* The fallback note gives the reason a user can act on: with no usable GPU (a CPU-only
 * build, no driver) that one, not "this filter has no GPU path" (which a CPU-only build,
 * passing no GPU path, said for the deblur filter). */
static void
fallback_note (void)
{
  char why[GFX_MSG_LEN];
  bool usable = gfx_backend_gpu_usable (why, sizeof why);
  gfx_run_info info;
  gfx_error err;
  gfx_status st = gfx_dispatch (GFX_BACKEND_AUTO, NULL, cpu_path, NULL, &info, &err);
  CHECK (st == GFX_OK && info.used == GFX_BACKEND_CPU
           && strstr (info.note, usable ? "this filter has no GPU path" : why),
         "fallback note without a GPU path: %s", info.note);
}

int
main (void)
{
  effective_rules ();
  warm_up ();
  fallback_note ();
  return check_exit_status ();
}
