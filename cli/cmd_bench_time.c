/* gpufx bench: timing filter->apply (median and minimum of the repeats after a warm-up)
 * and printing one result row, as a table line or as TSV for bench/bench.py. */
#include <stdio.h>
#include <stdlib.h>

#include "../common/pool.h"
#include "cmd_bench_internal.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* A warm-up run slower than BENCH_SLOW_S is kept as a sample and at most 3 runs are
 * made; one slower than BENCH_VERY_SLOW_S is the only run (the big CPU cases would
 * otherwise take minutes). */
#define BENCH_SLOW_S 2.0
#define BENCH_VERY_SLOW_S 10.0

/* Times filter->apply on `in` with `values`; fills median and min seconds, the number of
 * samples and the backend actually used.  Returns the status of the first failing run. */
static gfx_status
time_apply (const gfx_filter *f, const gfx_image *in, const void *values, int repeat,
            double *median, double *min, int *runs, gfx_backend *used, gfx_error *err)
{
  double *t = calloc ((size_t) repeat + 1, sizeof *t);
  if (!t)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory");
  gfx_status st = GFX_OK;
  int n = 0;
  for (int i = -1; i < repeat && st == GFX_OK; i++) /* i = -1: the warm-up */
    {
      gfx_image out = { 0 };
      gfx_filter_run run = { 0 };
      double t0 = gfx_seconds ();
      st = f->apply (in, &out, values, &run, err);
      double dt = gfx_seconds () - t0;
      if (st == GFX_OK && (i >= 0 || dt > BENCH_SLOW_S))
        t[n++] = dt;
      if (i < 0 && dt > BENCH_SLOW_S && repeat > 2)
        repeat = dt > BENCH_VERY_SLOW_S ? 0 : 2;
      *used = run.info.used;
      gfx_image_free (&out); /* run.mask stays NULL: no mask asked for */
    }
  if (st == GFX_OK)
    {
      qsort (t, (size_t) n, sizeof *t, cmp_double);
      *median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
      *min = t[0];
      *runs = n;
    }
  free (t);
  return st;
}

static void
print_time (char *buf, size_t len, double s)
{
  if (s < 1e-3)
    snprintf (buf, len, "%.1f us", s * 1e6);
  else if (s < 1.0)
    snprintf (buf, len, "%.2f ms", s * 1e3);
  else
    snprintf (buf, len, "%.3f s", s);
}

int
bench_one (const gfx_filter *f, const gfx_image *in, void *values, const char *what,
           const bench_opts *o)
{
  gfx_error err = { 0 };
  double med = 0, min = 0;
  int runs = 0;
  gfx_backend used = GFX_BACKEND_CPU;
  gfx_status st = time_apply (f, in, values, o->repeat, &med, &min, &runs, &used, &err);
  const char *be = gfx_backend_choices[used];
  if (st != GFX_OK)
    {
      fprintf (o->tsv ? stderr : stdout, BENCH_ROW_HEAD "n/a: %s\n", f->name, what, err.msg);
      return 1;
    }
  if (o->tsv)
    {
      printf ("%s\t%dx%d\t%s\t%.9f\t%.9f\t%d\t%d\n", f->name, in->width, in->height, be, med,
              min, runs, used == GFX_BACKEND_CPU ? gfx_threads () : 1);
      return 0;
    }
  char tm[32], tmin[32];
  print_time (tm, sizeof tm, med);
  print_time (tmin, sizeof tmin, min);
  printf (BENCH_ROW_HEAD "%-4s %10s %10s %9.1f\n", f->name, what, be, tm, tmin,
          (double) in->width * in->height / med * 1e-6);
  fflush (stdout);
  return 0;
}
