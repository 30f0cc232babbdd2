/* gpufx bench [--quick]: synthetic photo-like images of the SPEC section 5 sizes, every
 * filter on the CPU (and the GPU when one is usable), one table on stdout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/pool.h"
#include "cmd_bench_internal.h"

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
  const gfx_filter *f = bench_find_filter (c->filter);
  if (!f)
    {
      printf (BENCH_ROW_HEAD "n/a: not in this build\n", c->filter, what);
      return 0;
    }
  gfx_error err = { 0 };
  gfx_image in = { 0 };
  void *values = calloc (1, f->params->size);
  int bad = 0;
  if (!values || synthetic (&in, c->w, c->h, c->depth, &err) != GFX_OK)
    bad = printf (BENCH_ROW_HEAD "n/a: %s\n", f->name, what, values ? err.msg : "out of memory") > 0;
  else if (gfx_params_defaults (f->params, values),
           bench_set_option (f, values, c->option, c->value ? c->value : filter_file, &err) != GFX_OK)
    bad = printf (BENCH_ROW_HEAD "n/a: %s\n", f->name, what, err.msg) > 0;
  for (int g = 0; !bad && g <= gpu; g++)
    {
      bench_set_backend (f, values, g ? GFX_BACKEND_GPU : GFX_BACKEND_CPU);
      bad |= bench_one (f, &in, values, what, o);
    }
  gfx_image_free (&in);
  free (values);
  return bad;
}

int
bench_suite (int quick, const bench_opts *o)
{
  char gpu_name[GFX_MSG_LEN], filter_file[512] = "";
  gfx_error err = { 0 };
  int gpu = gfx_backend_gpu_usable (gpu_name, sizeof gpu_name);
  printf ("gpufx bench: in-process compute time, median of %d runs after a warm-up, synthetic "
          "images\nCPU: %d threads; GPU: %s%s%s\n", o->repeat, gfx_threads (),
          gpu ? "" : "none (", gpu_name, gpu ? "" : ")");
  printf (BENCH_ROW_HEAD "%-4s %10s %10s %9s\n", "filter", "image", "path", "median", "min",
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
