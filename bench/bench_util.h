/* Small helpers shared by the stand-alone GPU benches (bench/NAME_gpu.c). */
#ifndef GFX_BENCH_UTIL_H
#define GFX_BENCH_UTIL_H

#include <stdlib.h>

/* qsort comparator for doubles, ascending. */
static inline int
gfx_bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Sorts v[0..n) in place and returns its median (the upper middle one for an even n;
 * 0 when n <= 0).  After the call v[0] is the minimum. */
static inline double
gfx_bench_median (double *v, int n)
{
  if (n <= 0)
    return 0.0;
  qsort (v, (size_t) n, sizeof *v, gfx_bench_cmp_double);
  return v[n / 2];
}

#endif
