/* gpufx bench: finding a filter and setting its options; one real image for
 * bench/bench.py (gpufx bench FILTER --input FILE ...); the I/O baseline (--copy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/backend.h"
#include "../common/halftone.h"
#include "cli.h"
#include "cmd_bench_internal.h"
#include "gegl_modules.h"

/* The filters, found through their descriptors as cli/main.c lists them.  Weak
 * references: a filter not (yet) in the build reads as NULL and its rows say n/a. */
extern const gfx_filter gfx_enhance_filter __attribute__ ((weak));
extern const gfx_filter gfx_iir_deblur_filter __attribute__ ((weak));

const gfx_filter *
bench_find_filter (const char *name)
{
  const gfx_filter *all[] = { &gfx_halftone_filter, &gfx_enhance_filter, &gfx_iir_deblur_filter };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i] && strcmp (all[i]->name, name) == 0)
      return all[i];
  return NULL;
}

gfx_status
bench_set_option (const gfx_filter *f, void *values, const char *name, const char *text,
            gfx_error *err)
{
  const gfx_param_desc *d = gfx_params_find_cli (f->params, name);
  if (!d)
    return gfx_fail (err, GFX_ERR_PARAM, "%s has no option --%s", f->name, name);
  return gfx_param_parse (d, values, text, err);
}

void
bench_set_backend (const gfx_filter *f, void *values, gfx_backend b)
{
  const gfx_param_desc *d = gfx_params_find (f->params, "backend");
  if (d)
    gfx_param_put (d, values, b);
}

int
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
      const int named = strcmp (name, "backend") == 0 ? gfx_backend_by_name (val) : -1;
      if (named != -1) /* cpu or gpu: that row only; auto: both */
        backend = named == GFX_BACKEND_AUTO ? -1 : named;
      if (bench_set_option (f, values, name, val, &err) != GFX_OK)
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
  const gfx_backend from_env = gfx_backend_effective (GFX_BACKEND_AUTO); /* GPUFX_BACKEND */
  if (backend < 0 && from_env != GFX_BACKEND_AUTO)
    backend = from_env; /* as for the filters */
  char why[GFX_MSG_LEN];
  for (int g = 0; g <= 1; g++)
    if (backend < 0 && g && !gfx_backend_gpu_usable (why, sizeof why))
      fprintf (o->tsv ? stderr : stdout, BENCH_ROW_HEAD "gpu  n/a: %s\n", f->name, what, why);
    else if (backend < 0 || backend == (g ? GFX_BACKEND_GPU : GFX_BACKEND_CPU))
      {
        if (backend < 0)
          bench_set_backend (f, values, g ? GFX_BACKEND_GPU : GFX_BACKEND_CPU);
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
int
bench_copy (const char *in_path, const char *out_path, int threshold)
{
  gfx_image img = { 0 };
  gfx_error err = { 0 };
  char note[GFX_MSG_LEN];
  cli_source src; /* as the filters write: a plain copy then keeps every sample exactly */
  cli_gegl_modules_for_files (in_path, &out_path, 1); /* and the same GEGL modules */
  gfx_status st = cli_load_source (in_path, &img, &src, note, sizeof note, &err);
  size_t n = gfx_image_samples (&img);
  for (size_t i = 0; st == GFX_OK && threshold && i < n; i++)
    gfx_sample_set (&img, i, gfx_sample_get (&img, i) >= 0.5f ? 1.0f : 0.0f);
  if (st == GFX_OK)
    st = cli_save_result (out_path, &img, &img, threshold ? NULL : &src, &err);
  cli_source_free (&src);
  gfx_image_free (&img);
  return st == GFX_OK ? CLI_OK : cli_fail ("bench", cli_exit_code (st), "%s", err.msg);
}
