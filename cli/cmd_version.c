/* gpufx --version: what this build is and what it will run on, for bug reports and for
 * "why did it use the CPU?" (the GPU line gives the CUDA runtime's reason). */
#include <stdio.h>

#include <gegl.h>

#include "../common/backend.h"
#include "../common/pool.h"
#include "cmd_version.h"
#include "version.h" /* GFX_VERSION, made by the Makefile from git describe */

int
version_main (void)
{
  printf ("gpufx %s\n", GFX_VERSION);
  char gpu[256] = "";
  if (!gfx_backend_cuda_built ())
    printf ("GPU: none (a CPU-only build)\n");
  else if (gfx_backend_gpu_usable (gpu, sizeof gpu))
    printf ("GPU: %s\n", gpu);
  else
    printf ("GPU: not usable (%s): backend auto runs on the CPU\n", gpu);
  printf ("CPU threads: %d\n", gfx_threads ());
  int ma, mi, mc, bma, bmi, bmc;
  gegl_get_version (&ma, &mi, &mc);
  babl_get_version (&bma, &bmi, &bmc);
  printf ("GEGL %d.%d.%d, babl %d.%d.%d\n", ma, mi, mc, bma, bmi, bmc);
  return 0;
}
