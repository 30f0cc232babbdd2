/* gpufx identify --blurred IN (--sharp REF | --auto) [--mask M1xM2] [--method ls|lad]
 *                --output FILE [--fragments PNG]
 *
 * Identifies the quadrant filters (SPEC section 3), writes the filter file (the report as
 * its leading comment) and prints the report: fragments, equations and condition number,
 * residual, regularisation, one `qN stable margin M` line per quadrant.  Exit status 2 for
 * bad usage or input (singular equations included), 3 for an unstable filter, 1 otherwise.
 * --fragments saves a picture of the fragments used (automatic mode: the edges found). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../common/iir_file.h"
#include "../common/iir_identify.h"
#include "cli.h"
#include "cmd_identify.h"

typedef struct {
  char blurred[GFX_PATH_LEN], sharp[GFX_PATH_LEN], mask[GFX_PATH_LEN];
  char output[GFX_PATH_LEN], fragments[GFX_PATH_LEN];
  int automatic, method;
} identify_opts;

#define FIELD(f) offsetof (identify_opts, f)

static const gfx_param_desc identify_cli_params[] = {
  { .name = "blurred", .type = GFX_PT_STRING, .offset = FIELD (blurred),
    .flags = GFX_PF_REQUIRED, .help = "the blurred image" },
  { .name = "sharp", .type = GFX_PT_STRING, .offset = FIELD (sharp),
    .help = "a sharp image of the same scene and size (else give --auto)" },
  { .name = "auto", .type = GFX_PT_BOOL, .offset = FIELD (automatic),
    .help = "find straight edges in the blurred image and retouch them into ideal steps" },
  { .name = "mask", .type = GFX_PT_STRING, .offset = FIELD (mask), .cli_value = " M1xM2",
    .flags = GFX_PF_NOT_FILE,
    .help = "mask M1xM2 of each quadrant, 1 to 7 each (default 3x3)" },
  { .name = "method", .type = GFX_PT_ENUM, .offset = FIELD (method), .def = GFX_IDENTIFY_LS,
    .choices = gfx_identify_method_choices,
    .help = "ls (least squares) or lad (least absolute deviations)" },
  { .name = "output", .type = GFX_PT_STRING, .offset = FIELD (output),
    .flags = GFX_PF_REQUIRED, .help = "the filter file to write" },
  { .name = "fragments", .type = GFX_PT_STRING, .offset = FIELD (fragments),
    .help = "save a picture of the fragments used (PNG ...)" },
};

static gfx_status
identify_check_opts (const void *values, gfx_error *err)
{
  const identify_opts *o = values;
  if (!o->sharp[0] == !o->automatic)
    return gfx_fail (err, GFX_ERR_PARAM, "give exactly one of --sharp REF and --auto");
  return GFX_OK;
}

static const gfx_param_set identify_cli_set = {
  "identify", identify_cli_params, sizeof identify_cli_params / sizeof identify_cli_params[0],
  sizeof (identify_opts), identify_check_opts
};

/* Digits only (no sign or space), saturating far above any allowed size. */
static bool
mask_side (const char **text, int *side)
{
  const char *c = *text;
  long n = 0;
  for (; *c >= '0' && *c <= '9'; c++)
    n = n < 100000 ? n * 10 + (*c - '0') : n;
  *side = (int) n;
  bool digits = c != *text;
  *text = c;
  return digits;
}

/* --mask M1xM2 (x or X), each side in mask-rows' and mask-cols' declared range. */
static gfx_status
parse_mask (const char *text, gfx_identify_params *p, gfx_error *err)
{
  if (!text[0])
    return GFX_OK;
  const char *c = text;
  const gfx_param_desc *rows = gfx_params_find (&gfx_identify_param_set, "mask-rows");
  const gfx_param_desc *cols = gfx_params_find (&gfx_identify_param_set, "mask-cols");
  char range[64];
  gfx_param_describe_range (rows, range, sizeof range);
  bool read = mask_side (&c, &p->mask_rows) && (*c == 'x' || *c == 'X');
  if (read)
    c++;
  read = read && mask_side (&c, &p->mask_cols) && !*c;
  if (!read)
    return gfx_fail (err, GFX_ERR_PARAM, "--mask %s: expected M1xM2, %s each, e.g. 3x3", text,
                     range);
  if (gfx_param_check (rows, p, err) != GFX_OK || gfx_param_check (cols, p, err) != GFX_OK)
    return gfx_fail (err, GFX_ERR_PARAM, "--mask %s: M1 and M2 must be %s each", text, range);
  return GFX_OK;
}

static gfx_status
write_fragments (const char *path, const gfx_image *blurred, const cli_source *src,
                 const gfx_identify_report *rep, gfx_error *err)
{
  gfx_image over;
  gfx_status st = gfx_fragments_overlay (blurred, rep->fragments, rep->n_fragments, &over, err);
  if (st == GFX_OK)
    {
      st = cli_save_result (path, NULL, &over, src, err);
      gfx_image_free (&over);
    }
  return st;
}

/* The filter file and the fragments picture replace neither each other nor an input. */
static gfx_status
outputs_apart (const identify_opts *o, gfx_error *err)
{
  const cli_named_path outs[2] = { { "--output", o->output }, { "--fragments", o->fragments } };
  const cli_named_path ins[2] = { { "--blurred", o->blurred }, { "--sharp", o->sharp } };
  return cli_outputs_apart (outs, 2, ins, 2, false, err);
}

/* What a load did to an input (an indexed image converted, the first page of several, an
 * EXIF turn), on stderr as the filters say it. */
static void
say_load_note (const char *note)
{
  if (note[0])
    fprintf (stderr, "gpufx identify: note: %s\n", note);
}

static int
run (const identify_opts *o, const gfx_identify_params *p)
{
  gfx_error err;
  gfx_image blurred = { 0 }, sharp = { 0 };
  cli_source blurred_src = { NULL, NULL, NULL };
  gfx_iir_filter f;
  gfx_identify_report rep;
  char note[GFX_MSG_LEN] = "", text[2048];
  /* Both outputs are checked before the work (seconds to minutes on a large image). */
  gfx_status st = gfx_iir_check_writable (o->output, &err);
  if (st == GFX_OK && o->fragments[0])
    st = cli_check_output (o->fragments, &err);
  if (st == GFX_OK)
    st = cli_load_source (o->blurred, &blurred, &blurred_src, note, sizeof note, &err);
  if (st == GFX_OK)
    say_load_note (note);
  if (st == GFX_OK && o->sharp[0])
    {
      st = cli_load (o->sharp, &sharp, note, sizeof note, &err);
      if (st == GFX_OK)
        say_load_note (note);
    }
  if (st == GFX_OK)
    st = gfx_iir_identify (&blurred, o->sharp[0] ? &sharp : NULL, p->mask_rows, p->mask_cols,
                           p->method, &f, &rep, NULL, &err);
  if (st == GFX_OK)
    {
      gfx_identify_report_text (&rep, p->method, NULL, text, sizeof text);
      st = gfx_iir_write (o->output, &f, text, &err);
    }
  if (st == GFX_OK && o->fragments[0])
    st = write_fragments (o->fragments, &blurred, &blurred_src, &rep, &err);
  if (st == GFX_OK)
    printf ("%s\n", text);
  cli_source_free (&blurred_src);
  gfx_image_free (&blurred);
  gfx_image_free (&sharp);
  return st == GFX_OK ? CLI_OK : cli_fail ("identify", cli_exit_code (st), "%s", err.msg);
}

int
identify_main (int argc, char **argv)
{
  static const cli_spec spec = { "identify", "Identify the four quadrant IIR filters that "
                                 "deblur an image, from a sharp reference or from edges "
                                 "found automatically", &identify_cli_set, "", 0, false, false };
  identify_opts o;
  cli_args args;
  gfx_params_defaults (&identify_cli_set, &o);
  int rc = cli_parse (&spec, argc, argv, &o, &args);
  if (rc >= 0)
    return rc;
  gfx_identify_params p;
  gfx_error err;
  gfx_params_defaults (&gfx_identify_param_set, &p);
  p.method = o.method;
  if (identify_check_opts (&o, &err) != GFX_OK || parse_mask (o.mask, &p, &err) != GFX_OK
      || cli_stdout_reserved ("--fragments", o.fragments, &err) != GFX_OK
      || cli_stdout_reserved ("--output", o.output, &err) != GFX_OK
      || outputs_apart (&o, &err) != GFX_OK)
    return cli_fail ("identify", CLI_USAGE, "%s", err.msg);
  return run (&o, &p);
}
