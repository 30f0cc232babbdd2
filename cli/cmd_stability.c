/* gpufx stability FILE [--plot PNG] [--samples N] [--stabilise OUT [--margin M]]
 *
 * One line per quadrant, `q1 stable margin 0.1234` or `q1 unstable margin -0.2000`; exit
 * status 3 if any quadrant is unstable (0 when --stabilise wrote a stable filter).  --plot
 * saves the root-locus picture; --stabilise writes a stabilised copy of the filter and
 * says what it changed (SPEC section 3). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../common/iir_file.h"
#include "../common/iir_stability.h"
#include "cli.h"
#include "cmd_stability.h"

typedef struct {
  char plot[GFX_PATH_LEN];
  char stabilise[GFX_PATH_LEN];
  int samples;
  double margin;
  int size;
} stability_opts;

#define FIELD(f) offsetof (stability_opts, f)

static const gfx_param_desc stability_params[] = {
  { .name = "plot", .type = GFX_PT_STRING, .offset = FIELD (plot), .cli_value = " PNG",
    .help = "save the root loci of the four quadrants as a picture (PNG ...)" },
  { .name = "samples", .type = GFX_PT_INT, .offset = FIELD (samples),
    .def = GFX_IIR_STAB_SAMPLES, .min = 4, .max = 1 << 20,
    .help = "points on the unit circle where the roots are found (720: every half degree)" },
  { .name = "stabilise", .type = GFX_PT_STRING, .offset = FIELD (stabilise),
    .help = "write a stabilised copy of the filter to this file and report the changes" },
  { .name = "margin", .type = GFX_PT_FLOAT, .offset = FIELD (margin), .def = 0.02,
    .min = 0, .max = 0.99, .flags = GFX_PF_MIN_EXCLUSIVE, .used_if = "stabilise",
    .help = "stability margin 1 - max|root| that --stabilise makes every quadrant reach" },
  { .name = "plot-size", .type = GFX_PT_INT, .offset = FIELD (size), .def = 320, .min = 64,
    .max = 2048, .used_if = "plot",
    .help = "side of each quadrant's panel in the picture, in pixels" },
};

static const gfx_param_set stability_set = {
  "stability", stability_params, sizeof stability_params / sizeof stability_params[0],
  sizeof (stability_opts), NULL
};

static void
print_verdict (const gfx_iir_stability *st)
{
  char m[GFX_IIR_MARGIN_TEXT];
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    printf ("q%d %s margin %s\n", q + 1, st->stable[q] ? "stable" : "unstable",
            gfx_iir_margin_text (st->margin[q], m));
}

/* printf into buf after its first *used bytes; what does not fit is cut. */
static void __attribute__ ((format (printf, 4, 5)))
append (char *buf, size_t len, size_t *used, const char *fmt, ...)
{
  if (*used + 1 >= len)
    return;
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (buf + *used, len - *used, fmt, ap);
  va_end (ap);
  if (n > 0)
    *used = *used + (size_t) n < len ? *used + (size_t) n : len - 1;
}

static int
stabilise (const char *cmd, gfx_iir_filter *f, const stability_opts *o, const char *src)
{
  gfx_error err;
  gfx_iir_stabilise_report rep;
  if (gfx_iir_stabilise (f, o->margin, o->samples, &rep, &err) != GFX_OK)
    return cli_fail (cmd, cli_exit_code (err.status), "%s", err.msg);
  /* The source's path may be up to GFX_PATH_LEN long; each quadrant adds a short line. */
  char comment[GFX_PATH_LEN + 512];
  size_t used = 0;
  append (comment, sizeof comment, &used, "stabilised by gpufx from %s (margin %g)", src,
          o->margin);
  char before[GFX_IIR_MARGIN_TEXT], after[GFX_IIR_MARGIN_TEXT];
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    {
      gfx_iir_margin_text (rep.margin_before[q], before);
      if (!rep.changed[q])
        {
          printf ("q%d unchanged (margin %s)\n", q + 1, before);
          continue;
        }
      /* %g: r and the scale are ~1e-300 for a wildly unstable filter, not 0.000000 */
      printf ("q%d stabilised: b(k1,k2) scaled by r^(k1+k2) with r = %.6g, a scaled by %.6g, "
              "margin %s -> %s\n", q + 1, rep.r[q], rep.a_scale[q], before,
              gfx_iir_margin_text (rep.margin_after[q], after));
      append (comment, sizeof comment, &used, "\nq%d: r = %.17g, a scale = %.17g", q + 1,
              rep.r[q], rep.a_scale[q]);
    }
  if (gfx_iir_write (o->stabilise, f, comment, &err) != GFX_OK)
    return cli_fail (cmd, cli_exit_code (err.status), "%s", err.msg);
  return CLI_OK;
}

int
stability_main (int argc, char **argv)
{
  static const cli_spec spec = { "stability", "Stability of an IIR filter file: verdict and "
                                 "margin per quadrant, root-locus picture, stabilisation",
                                 &stability_set, "FILE", 1, false, false };
  stability_opts o;
  cli_args args;
  gfx_params_defaults (&stability_set, &o);
  int rc = cli_parse (&spec, argc, argv, &o, &args);
  if (rc >= 0)
    return rc;
  gfx_error err;
  gfx_iir_filter f;
  gfx_iir_stability st;
  /* --stabilise may rewrite FILE itself (in place); --plot may replace neither. */
  const cli_named_path outs[2] = { { "--stabilise", o.stabilise }, { "--plot", o.plot } };
  const cli_named_path in = { "FILE", args.pos[0] };
  if (cli_stdout_reserved ("--plot", o.plot, &err) != GFX_OK
      || cli_stdout_reserved ("--stabilise", o.stabilise, &err) != GFX_OK
      || cli_outputs_apart (outs, 2, &in, 1, true, &err) != GFX_OK)
    return cli_fail ("stability", CLI_USAGE, "%s", err.msg);
  /* Outputs that cannot be written are refused before the verdict is printed. */
  if ((o.plot[0] && cli_check_output (o.plot, &err) != GFX_OK)
      || (o.stabilise[0] && gfx_iir_check_writable (o.stabilise, &err) != GFX_OK)
      || gfx_iir_read (args.pos[0], &f, &err) != GFX_OK
      || gfx_iir_stability_check (&f, o.samples, &st, &err) != GFX_OK)
    return cli_fail ("stability", cli_exit_code (err.status), "%s", err.msg);
  print_verdict (&st);
  if (o.plot[0])
    {
      gfx_image img;
      if (gfx_iir_plot_loci (&f, o.samples, o.size, &img, &err) != GFX_OK)
        return cli_fail ("stability", cli_exit_code (err.status), "%s", err.msg);
      gfx_status s = cli_save (o.plot, &img, &err);
      gfx_image_free (&img);
      if (s != GFX_OK)
        return cli_fail ("stability", cli_exit_code (s), "%s", err.msg);
    }
  if (o.stabilise[0])
    return stabilise ("stability", &f, &o, args.pos[0]);
  if (st.all_stable)
    return CLI_OK;
  char list[256];
  gfx_iir_unstable_list (&st, list, sizeof list);
  return cli_fail ("stability", CLI_UNSTABLE, "'%s' is unstable in %s; '--stabilise OUT' "
                   "writes a stable copy", args.pos[0], list);
}
