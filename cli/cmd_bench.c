/* gpufx bench: in-process timing of our CPU and GPU paths (SPEC section 5).
 *
 *   gpufx bench [--quick]             synthetic images, every filter, a table on stdout
 *   gpufx bench FILTER --input FILE [--repeat N] [--tsv] [FILTER OPTIONS...]
 *                                     one real image (decoded once), as bench/bench.py
 *                                     uses it to time us on the same images as the peers
 *   gpufx bench --gpu-name            the GPU's name, or why none is usable
 *   gpufx bench --copy IN OUT [--threshold]   decode + encode only: the I/O baseline that
 *                                     make bench subtracts from our whole-process times
 *
 * Only the filter's apply() is timed (output allocation included, as the peers allocate
 * theirs); decoding, encoding and process start are not.  The figure is the median of
 * the repeats after one untimed warm-up run (fewer runs for slow cases: BENCH_SLOW_S). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/filter.h"
#include "../common/halftone.h"
#include "../common/pool.h"
#include "cli.h"
#include "cmd_bench.h"

/* The filters, found through their descriptors as cli/main.c lists them.  Weak
 * references: a filter not (yet) in the build reads as NULL and its rows say n/a. */
extern const gfx_filter gfx_enhance_filter __attribute__ ((weak));
extern const gfx_filter gfx_iir_deblur_filter __attribute__ ((weak));

#define BENCH_MAX_REPEAT 1000

typedef struct {
  int repeat;
  int tsv;
} bench_opts;

static double
now_s (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

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
      double t0 = now_s ();
      st = f->apply (in, &out, values, &run, err);
      double dt = now_s () - t0;
      if (st == GFX_OK && (i >= 0 || dt > BENCH_SLOW_S))
        t[n++] = dt;
      if (i < 0 && dt > BENCH_SLOW_S && repeat > 2)
        repeat = dt > BENCH_VERY_SLOW_S ? 0 : 2;
      *used = run.info.used;
      gfx_image_free (&out);
      if (run.mask)
        {
          gfx_image_free (run.mask);
          free (run.mask);
        }
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

/* --- synthetic images and the built-in filter file -------------------------------- */

/* A smooth photo-like gray pattern (gradients and ripples; deterministic). */
static gfx_status
synthetic (gfx_image *img, int w, int h, gfx_depth depth, gfx_error *err)
{
  gfx_status st = gfx_image_alloc (img, w, h, 1, false, depth, err);
  for (int y = 0; st == GFX_OK && y < h; y++)
    for (int x = 0; x < w; x++)
      {
        double u = (double) x / w, v = (double) y / h;
        double s = 0.5 + 0.3 * (u - 0.5) + 0.12 * sin (40.0 * u + 17.0 * v) +
                   0.08 * sin (300.0 * u * v);
        gfx_sample_set (img, (size_t) y * w + x, (float) (s < 0 ? 0 : s > 1 ? 1 : s));
      }
  return st;
}

/* The bench filter of bench/peers.py: separable, outer product of the 1-D 2nd-order
 * a = (0.30, 0.12, 0.06), b = (1, -0.6, 0.08), the same block for every quadrant. */
static gfx_status
write_bench_filter (char *path, size_t len, gfx_error *err)
{
  static const double a1[3] = { 0.30, 0.12, 0.06 }, b1[3] = { 1.0, -0.6, 0.08 };
  const char *dir = getenv ("TMPDIR");
  snprintf (path, len, "%s/gpufx-bench-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp (path);
  FILE *f = fd >= 0 ? fdopen (fd, "w") : NULL;
  if (!f)
    return gfx_fail (err, GFX_ERR_IO, "cannot write a temporary filter file %s", path);
  fprintf (f, "gpufx-iir 1\nmask 3 3\n");
  for (int q = 1; q <= 4; q++)
    for (int ab = 0; ab < 2; ab++)
      {
        const double *c = ab ? b1 : a1;
        fprintf (f, "q%d %c", q, ab ? 'b' : 'a');
        for (int i = 0; i < 9; i++)
          fprintf (f, " %.17g", c[i / 3] * c[i % 3]);
        fputc ('\n', f);
      }
  return fclose (f) == 0 ? GFX_OK : gfx_fail (err, GFX_ERR_IO, "cannot write %s", path);
}

/* --- filters and their options ----------------------------------------------------- */

static const gfx_filter *
find_filter (const char *name)
{
  const gfx_filter *all[] = { &gfx_halftone_filter, &gfx_enhance_filter, &gfx_iir_deblur_filter };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i] && strcmp (all[i]->name, name) == 0)
      return all[i];
  return NULL;
}

/* Sets one option of the filter's parameter set from "--name value" text. */
static gfx_status
set_option (const gfx_filter *f, void *values, const char *name, const char *text,
            gfx_error *err)
{
  const gfx_param_desc *d = gfx_params_find_cli (f->params, name);
  if (!d)
    return gfx_fail (err, GFX_ERR_PARAM, "%s has no option --%s", f->name, name);
  return gfx_param_parse (d, values, text, err);
}

static void
set_backend (const gfx_filter *f, void *values, gfx_backend b)
{
  const gfx_param_desc *d = gfx_params_find (f->params, "backend");
  if (d)
    gfx_param_put (d, values, b);
}

/* --- output ------------------------------------------------------------------------ */

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

/* Times one configuration and prints its row (table or TSV).  Returns 0 or 1. */
static int
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
      fprintf (o->tsv ? stderr : stdout, "%-9s %-32s n/a: %s\n", f->name, what, err.msg);
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
  printf ("%-9s %-32s %-4s %10s %10s %9.1f\n", f->name, what, be, tm, tmin,
          (double) in->width * in->height / med * 1e-6);
  fflush (stdout);
  return 0;
}

/* --- the synthetic suite ------------------------------------------------------------ */

typedef struct {
  const char *filter;
  int w, h;
  gfx_depth depth;
  const char *option, *value; /* value NULL: the built-in filter file */
  int in_quick;
} bench_case;

static const bench_case cases[] = {
  { "halftone", 1024, 1024, GFX_U8, "kernel", "fs", 1 },
  { "halftone", 2048, 2048, GFX_U8, "kernel", "fs", 1 },
  { "halftone", 4096, 4096, GFX_U8, "kernel", "fs", 0 },
  { "halftone", 8192, 8192, GFX_U8, "kernel", "fs", 0 },
  { "enhance", 3241, 3685, GFX_U8, "window", "3", 1 },
  { "enhance", 3241, 3685, GFX_U8, "window", "31", 1 },
  { "deblur", 2048, 2048, GFX_F32, "filter", NULL, 1 },
  { "deblur", 8192, 8192, GFX_F32, "filter", NULL, 0 },
};

static int
run_case (const bench_case *c, const char *filter_file, int gpu, const bench_opts *o)
{
  char what[96];
  snprintf (what, sizeof what, "%dx%d %s %s=%s", c->w, c->h, gfx_depth_name (c->depth),
            c->option, c->value ? c->value : "bench-3x3");
  const gfx_filter *f = find_filter (c->filter);
  if (!f)
    {
      printf ("%-9s %-32s n/a: not in this build\n", c->filter, what);
      return 0;
    }
  gfx_error err = { 0 };
  gfx_image in = { 0 };
  void *values = calloc (1, f->params->size);
  int bad = 0;
  if (!values || synthetic (&in, c->w, c->h, c->depth, &err) != GFX_OK)
    bad = printf ("%-9s %-32s n/a: %s\n", f->name, what, values ? err.msg : "out of memory") > 0;
  else if (gfx_params_defaults (f->params, values),
           set_option (f, values, c->option, c->value ? c->value : filter_file, &err) != GFX_OK)
    bad = printf ("%-9s %-32s n/a: %s\n", f->name, what, err.msg) > 0;
  for (int g = 0; !bad && g <= gpu; g++)
    {
      set_backend (f, values, g ? GFX_BACKEND_GPU : GFX_BACKEND_CPU);
      bad |= bench_one (f, &in, values, what, o);
    }
  gfx_image_free (&in);
  free (values);
  return bad;
}

static int
bench_suite (int quick, const bench_opts *o)
{
  char gpu_name[GFX_MSG_LEN], filter_file[512] = "";
  gfx_error err = { 0 };
  int gpu = gfx_backend_gpu_usable (gpu_name, sizeof gpu_name);
  printf ("gpufx bench: in-process compute time, median of %d runs after a warm-up, synthetic "
          "images\nCPU: %d threads; GPU: %s%s%s\n", o->repeat, gfx_threads (),
          gpu ? "" : "none (", gpu_name, gpu ? "" : ")");
  printf ("%-9s %-32s %-4s %10s %10s %9s\n", "filter", "image", "path", "median", "min",
          "Mpixel/s");
  int fails = 0;
  if (write_bench_filter (filter_file, sizeof filter_file, &err) != GFX_OK)
    printf ("note: %s\n", err.msg);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (!quick || cases[i].in_quick)
      fails += run_case (&cases[i], filter_file, gpu, o);
  if (filter_file[0])
    unlink (filter_file);
  return fails ? 1 : 0;
}

/* --- one real image, for bench/bench.py ---------------------------------------------- */

static int
bench_file (const gfx_filter *f, const char *input, int argc, char **argv, const bench_opts *o)
{
  gfx_error err = { 0 };
  gfx_image in = { 0 };
  void *values = calloc (1, f->params->size);
  int backend = -1, rc = 2;
  if (!values)
    return fprintf (stderr, "gpufx bench: out of memory\n"), 1;
  gfx_params_defaults (f->params, values);
  for (int i = 0; i < argc; i++)
    {
      char name[64];
      const char *arg = argv[i], *eq = strchr (arg, '='), *val;
      if (strncmp (arg, "--", 2) != 0 || (!eq && i + 1 >= argc))
        {
          fprintf (stderr, "gpufx bench: unexpected argument %s\n", arg);
          goto done;
        }
      snprintf (name, sizeof name, "%.*s", (int) (eq ? eq - arg - 2 : (long) strlen (arg) - 2),
                arg + 2);
      val = eq ? eq + 1 : argv[++i];
      if (strcmp (name, "backend") == 0)
        backend = strcmp (val, "gpu") == 0 ? GFX_BACKEND_GPU : GFX_BACKEND_CPU;
      if (set_option (f, values, name, val, &err) != GFX_OK)
        {
          fprintf (stderr, "gpufx bench: %s\n", err.msg);
          goto done;
        }
    }
  if (gfx_params_validate (f->params, values, &err) != GFX_OK)
    {
      fprintf (stderr, "gpufx bench: %s\n", err.msg);
      goto done;
    }
  rc = 1;
  char note[GFX_MSG_LEN] = "";
  if (cli_load (input, &in, note, sizeof note, &err) != GFX_OK)
    {
      rc = cli_fail ("bench", cli_exit_code (err.status), "%s", err.msg);
      goto done;
    }
  char what[96];
  snprintf (what, sizeof what, "%dx%d %s", in.width, in.height, gfx_depth_name (in.depth));
  rc = 0;
  for (int g = 0; g <= 1; g++)
    if (backend < 0 || backend == (g ? GFX_BACKEND_GPU : GFX_BACKEND_CPU))
      {
        if (backend < 0)
          set_backend (f, values, g ? GFX_BACKEND_GPU : GFX_BACKEND_CPU);
        rc |= bench_one (f, &in, values, what, o);
      }
done:
  gfx_image_free (&in);
  free (values);
  return rc;
}

/* The I/O baseline of our whole-process figures: the same process start, GEGL decode and
 * encode as `gpufx FILTER IN OUT`, no filter; --threshold writes black and white (the
 * kind of picture a halftone writes, whose PNG encoding costs differ from a photo's). */
static int
bench_copy (const char *in_path, const char *out_path, int threshold)
{
  gfx_image img = { 0 };
  gfx_error err = { 0 };
  char note[GFX_MSG_LEN];
  gfx_status st = cli_load (in_path, &img, note, sizeof note, &err);
  size_t n = gfx_image_samples (&img);
  for (size_t i = 0; st == GFX_OK && threshold && i < n; i++)
    gfx_sample_set (&img, i, gfx_sample_get (&img, i) >= 0.5f ? 1.0f : 0.0f);
  if (st == GFX_OK)
    st = cli_save (out_path, &img, &err);
  gfx_image_free (&img);
  return st == GFX_OK ? CLI_OK : cli_fail ("bench", cli_exit_code (st), "%s", err.msg);
}

static void
usage (FILE *to)
{
  fprintf (to,
           "usage: gpufx bench [--quick] [--repeat N]\n"
           "       gpufx bench FILTER --input FILE [--repeat N] [--tsv] [FILTER OPTIONS]\n"
           "       gpufx bench --gpu-name\n"
           "       gpufx bench --copy IN OUT [--threshold]   (I/O baseline: decode, encode)\n"
           "Times our CPU and GPU paths in the process (compute only: no decoding, encoding\n"
           "or process start), median of N runs after a warm-up (default 5, --quick 3).\n"
           "Without FILTER: synthetic images, every filter (--quick: the small sizes).\n"
           "With FILTER (halftone, enhance, deblur): one image, decoded once; --tsv prints\n"
           "  filter WxH backend median_s min_s repeats threads, tab-separated.\n"
           "make bench runs this next to the peers (Pillow, ImageMagick, GEGL, OpenCV...).\n");
}

/* Handles one of bench's own options at argv[*i]; returns -1 when argv[*i] is not one,
 * else 0 to go on or an exit status + 1000 to return at once. */
static int
own_option (int argc, char **argv, int *i, bench_opts *o, int *quick, const char **input)
{
  const char *a = argv[*i];
  if (strcmp (a, "--help") == 0 || strcmp (a, "-h") == 0)
    return usage (stdout), 1000 + CLI_OK;
  if (strcmp (a, "--gpu-name") == 0)
    {
      char name[GFX_MSG_LEN];
      int ok = gfx_backend_gpu_usable (name, sizeof name);
      printf ("%s%s%s\n", ok ? "" : "none (", name, ok ? "" : ")");
      return 1000 + CLI_OK;
    }
  if (strcmp (a, "--quick") == 0 || strcmp (a, "--tsv") == 0)
    {
      *(a[2] == 'q' ? quick : &o->tsv) = 1;
      return 0;
    }
  if (strcmp (a, "--input") != 0 && strcmp (a, "--repeat") != 0)
    return -1;
  if (*i + 1 >= argc)
    return 1000 + cli_fail ("bench", CLI_USAGE, "%s needs a value", a);
  const char *v = argv[++*i];
  if (a[2] == 'i')
    *input = v;
  else if ((o->repeat = atoi (v)) < 1 || o->repeat > BENCH_MAX_REPEAT)
    return 1000 + cli_fail ("bench", CLI_USAGE, "--repeat = %s: allowed 1 to %d", v,
                            BENCH_MAX_REPEAT);
  return 0;
}

int
bench_main (int argc, char **argv)
{
  bench_opts o = { 0, 0 };
  int quick = 0, n_rest = 0, i = 1, rc;
  const char *filter = NULL, *input = NULL;
  if (argc >= 4 && strcmp (argv[1], "--copy") == 0)
    return bench_copy (argv[2], argv[3], argc > 4 && strcmp (argv[4], "--threshold") == 0);
  if (argc > 1 && argv[1][0] != '-')
    filter = argv[i++];
  char **rest = calloc ((size_t) argc + 1, sizeof *rest); /* the filter's own options */
  if (!rest)
    return cli_fail ("bench", CLI_FAILED, "out of memory");
  for (; i < argc; i++)
    {
      if ((rc = own_option (argc, argv, &i, &o, &quick, &input)) >= 1000)
        return free (rest), rc - 1000;
      if (rc < 0 && !filter)
        return free (rest), cli_fail ("bench", CLI_USAGE, "unknown option %s (see --help)",
                                      argv[i]);
      if (rc < 0)
        {
          rest[n_rest++] = argv[i];
          if (!strchr (argv[i], '=') && i + 1 < argc)
            rest[n_rest++] = argv[++i];
        }
    }
  if (!o.repeat)
    o.repeat = quick ? 3 : 5;
  const gfx_filter *f = filter ? find_filter (filter) : NULL;
  if (!filter)
    rc = bench_suite (quick, &o);
  else if (!f)
    rc = cli_fail ("bench", CLI_USAGE, "no filter %s in this build", filter);
  else if (!input)
    rc = cli_fail ("bench", CLI_USAGE, "%s: --input FILE is required", filter);
  else
    rc = bench_file (f, input, n_rest, rest, &o);
  free (rest);
  return rc;
}
