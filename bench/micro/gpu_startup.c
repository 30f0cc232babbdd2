/* Where a GPU call's first-time cost goes in a fresh process (the CLI and a GIMP plug-in
 * run pay it once a process): the probe (driver and device), the context, then each
 * filter's first call (its kernels' module loads, device and pinned buffers, streams) and
 * its second.  Built here with the static runtime and run as it is on the GPU machine:
 *   cc -O2 -std=c11 -D_GNU_SOURCE -DGFX_HAVE_CUDA -I/usr/local/cuda/include \
 *      bench/micro/gpu_startup.c BUILD/libgfxcore.a -o gpu_startup $GPU_RUNNER_LIBS
 * (GPU_RUNNER_LIBS: bench/gpu_session_lib.sh).  H200, 512^2: probe ~0.1 s, context ~0.11 s,
 * first halftone call 32-40 ms (14-18 ms with an uncompressed fatbin), enhance 8-14 ms,
 * second calls 0.1-0.3 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "../../common/enhance_types.h"
#include "../../common/image.h"
#include "../../cuda/cuda_device.h"
#include "../../cuda/cuda_halftone.h"
#include "../../cuda/enhance_cuda.h"

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int
main (int argc, char **argv)
{
  const int size = argc > 1 ? atoi (argv[1]) : 512;
  gfx_error err = { 0 };
  gfx_image in, out;
  char name[256];
  if (gfx_image_alloc (&in, size, size, 1, false, GFX_U8, &err)
      || gfx_image_alloc (&out, size, size, 1, false, GFX_U8, &err))
    return 1;
  double t = now_ms ();
  if (gfx_cuda_device_name (name, sizeof name, &err))
    return printf ("%s\n", err.msg), 1;
  printf ("%s, %dx%d gray u8, ms of wall time:\n  probe %.1f\n", name, size, size, now_ms () - t);
  t = now_ms ();
  cudaFree (0); /* the context alone */
  printf ("  context %.1f\n", now_ms () - t);
  for (int i = 0; i < 2; i++)
    {
      t = now_ms ();
      if (gfx_cuda_halftone (&in, &out, 0, 2, 0, -1, NULL, &err))
        return printf ("%s\n", err.msg), 1;
      printf ("  halftone call %d %.1f\n", i + 1, now_ms () - t);
    }
  const gfx_enhance_params p = { .gain = 4, .k0 = 0.4, .k1 = 0.02, .k2 = 0.4, .k3 = 0.4,
                                 .window = 3 };
  for (int i = 0; i < 2; i++)
    {
      t = now_ms ();
      if (gfx_cuda_enhance (&in, &out, NULL, &p, NULL, &err))
        return printf ("%s\n", err.msg), 1;
      printf ("  enhance call %d %.1f\n", i + 1, now_ms () - t);
    }
  gfx_image_free (&in);
  gfx_image_free (&out);
  return 0;
}
