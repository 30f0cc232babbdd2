/* One binary holding the GPU halftone test and bench, for a GPU lease that carries at most
 * 64 MiB (each of the two alone is about 39 MiB of device code).  Built and used by
 * bench/halftone_gpu_session.sh; `runner` runs the test, `runner bench [--sweep]` the bench. */
#include <string.h>

#define main test_main
#include "../tests/unit/test_halftone_gpu.c"
#undef main
#define main bench_main
#include "halftone_gpu.c"
#undef main

int
main (int argc, char **argv)
{
  if (argc > 1 && !strcmp (argv[1], "bench"))
    return bench_main (argc - 1, argv + 1);
  return test_main ();
}
