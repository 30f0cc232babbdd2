/* The parameter declarations and their validation messages. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../../common/enhance.h"
#include "../../common/halftone.h"
#include "../../common/iir.h"
#include "../../common/iir_identify.h"
#include "check.h"

/* A parameter without an upper bound says where the dialog's slider ends. */
static void
check_slider_ends (const gfx_param_set *set)
{
  for (int i = 0; i < set->n_params; i++)
    {
      const gfx_param_desc *d = &set->params[i];
      if (isinf (d->max))
        CHECK (d->type == GFX_PT_FLOAT && d->slider_max > d->min && isfinite (d->slider_max),
               "%s: %s has no upper bound and its slider ends at %g, above its minimum %g",
               set->name, d->name, d->slider_max, d->min);
    }
}

/* Every "used only if" names a parameter of the same set and a value that one can take. */
static void
check_used_if (const gfx_param_set *set)
{
  for (int i = 0; i < set->n_params; i++)
    {
      const gfx_param_desc *d = &set->params[i];
      if (!d->used_if)
        continue;
      const gfx_param_desc *key = gfx_params_find (set, d->used_if);
      double max = key ? key->max : 0;
      if (key && key->type == GFX_PT_ENUM)
        for (max = -1; key->choices[(int) max + 1];)
          max++;
      CHECK (key && key != d && d->used_if_value >= (key->type == GFX_PT_ENUM ? 0 : key->min)
               && d->used_if_value <= max,
             "%s: %s is used only if %s = %g, a value %s can take", set->name, d->name,
             d->used_if, d->used_if_value, d->used_if);
    }
}

/* gfx_param_used: an ENUM key at its value (k3 under the 4th-edition rule), a STRING key
 * naming a file (--margin with --stabilise), no key. */
typedef struct { char file[GFX_PATH_LEN]; double margin; } file_opts;

static void
check_param_used (void)
{
  static const gfx_param_desc opts[] = {
    { .name = "file", .type = GFX_PT_STRING, .offset = offsetof (file_opts, file) },
    { .name = "margin", .type = GFX_PT_FLOAT, .offset = offsetof (file_opts, margin),
      .max = 1, .used_if = "file" },
  };
  static const gfx_param_set set = { "file-test", opts, 2, sizeof (file_opts), NULL };
  file_opts o = { "", 0.5 };
  CHECK (!gfx_param_used (&set, &opts[1], &o) && gfx_param_used (&set, &opts[0], &o),
         "a parameter whose key is a file option is unused without the file");
  strcpy (o.file, "out.iir");
  CHECK (gfx_param_used (&set, &opts[1], &o), "... and used with it");
  gfx_enhance_params e;
  gfx_params_defaults (&gfx_enhance_param_set, &e);
  const gfx_param_desc *k3 = gfx_params_find (&gfx_enhance_param_set, "k3");
  int third = gfx_param_used (&gfx_enhance_param_set, k3, &e);
  e.rule = GFX_RULE_4TH;
  CHECK (!third && gfx_param_used (&gfx_enhance_param_set, k3, &e),
         "k3 is used under the 4th-edition rule only");
}

int
main (void)
{
  check_param_used ();
  const gfx_param_set *sets[] = { &gfx_halftone_param_set, &gfx_enhance_param_set,
                                  &gfx_iir_deblur_param_set, &gfx_identify_param_set };
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
    {
      check_used_if (sets[i]);
      check_slider_ends (sets[i]);
    }
  /* An out-of-range value is named with the digits that put it out of range. */
  gfx_enhance_params e;
  gfx_error range_err, *errp = &range_err;
  gfx_params_defaults (&gfx_enhance_param_set, &e);
  e.gain = 64.0000000001;
  CHECK (gfx_params_validate (&gfx_enhance_param_set, &e, errp) == GFX_ERR_PARAM
           && strstr (errp->msg, "gain = 64.0000000001 is out of range"),
         "gain 64.0000000001 is named as given: %s", errp->msg);
  e.gain = 4.0;
  e.k0 = -0.1;
  CHECK (gfx_params_validate (&gfx_enhance_param_set, &e, errp) == GFX_ERR_PARAM
           && strstr (errp->msg, "k0 = -0.1 is out of range"),
         "k0 -0.1 is named as -0.1, not -0.10000000000000001: %s", errp->msg);
  CHECK (gfx_param_parse (gfx_params_find (&gfx_enhance_param_set, "gain"), &e, "4,5", errp)
             == GFX_ERR_PARAM
           && strstr (errp->msg, "not a number (numbers take a decimal point, not a comma)"),
         "gain 4,5 (a locale's decimal comma) is refused saying why: %s", errp->msg);
  /* SPEC: every k >= 0, no upper bound (a huge upper bound switches its test off); still
   * finite. */
  e.k0 = 0.4;
  e.k2 = 1e300;
  CHECK (gfx_params_validate (&gfx_enhance_param_set, &e, errp) == GFX_OK,
         "k2 = 1e300 is allowed (every k >= 0)");
  const gfx_param_desc *k2 = gfx_params_find (&gfx_enhance_param_set, "k2");
  CHECK (gfx_param_parse (k2, &e, "inf", errp) == GFX_ERR_PARAM
           && strstr (errp->msg, "k2 = inf is not a finite number: allowed 0 or more"),
         "k2 = inf is refused, naming the range '0 or more': %s", errp->msg);
  e.k2 = 0.4;
  /* A number beyond a double is quoted as typed, not as strtod's 0 or inf. */
  const gfx_param_desc *gain = gfx_params_find (&gfx_enhance_param_set, "gain");
  CHECK (gfx_param_parse (gain, &e, "1e-400", errp) == GFX_ERR_PARAM
           && strstr (errp->msg, "gain: '1e-400' is too close to 0 for a double"),
         "gain 1e-400 is named as typed: %s", errp->msg);
  CHECK (gfx_param_parse (k2, &e, "1e400", errp) == GFX_ERR_PARAM
           && strstr (errp->msg, "k2: '1e400' is beyond the range of a double: allowed 0 or "
                                 "more"),
         "k2 1e400 is named as typed: %s", errp->msg);
  CHECK (gfx_param_parse (k2, &e, "-1e400", errp) == GFX_ERR_PARAM
           && strstr (errp->msg, "k2: '-1e400' is beyond the range of a double"),
         "k2 -1e400 is named as typed: %s", errp->msg);
  CHECK (gfx_param_parse (gfx_params_find (&gfx_enhance_param_set, "window"), &e, "1e-400",
                          errp) == GFX_ERR_PARAM
           && strstr (errp->msg, "not a whole number"),
         "window 1e-400 is not a whole number: %s", errp->msg);
  CHECK (gfx_param_parse (gain, &e, "1e-310", errp) == GFX_OK && e.gain > 0,
         "gain 1e-310 (a subnormal double) is a number above 0");
  e.gain = 4.0;
  const gfx_param_desc *k3 = gfx_params_find (&gfx_enhance_param_set, "k3");
  CHECK (k3 && k3->used_if && !strcmp (k3->used_if, "rule") && k3->used_if_value == GFX_RULE_4TH,
         "enhance: k3 is greyed in the dialog unless the rule is the 4th edition's");

  const gfx_param_set *set = &gfx_halftone_param_set;
  gfx_halftone_params p;
  gfx_error err;

  gfx_params_defaults (set, &p);
  CHECK (p.kernel == GFX_KERNEL_FS && p.levels == 2 && p.block_size == 0 && p.margin == -1,
         "halftone defaults come from the declaration");
  CHECK (gfx_params_validate (set, &p, &err) == GFX_OK, "defaults are valid");

  p.levels = 257;
  CHECK (gfx_params_validate (set, &p, &err) == GFX_ERR_PARAM && strstr (err.msg, "levels")
           && strstr (err.msg, "2 to 256"),
         "levels 257 refused, message names parameter and range: %s", err.msg);
  p.levels = 2;
  p.block_size = 48;
  CHECK (gfx_params_validate (set, &p, &err) == GFX_ERR_PARAM && strstr (err.msg, "block-size"),
         "block-size 48 refused: %s", err.msg);

  /* The range texts (PDB descriptions, --help, messages) say exactly what is allowed. */
  struct { const gfx_param_set *set; const char *name, *range; } ranges[] = {
    { &gfx_halftone_param_set, "block-size", "0 (auto) or 32 to 1024 in steps of 32" },
    { &gfx_halftone_param_set, "margin", "-1 (auto) or 0 to 1048576" },
    { &gfx_halftone_param_set, "levels", "2 to 256" },
    { &gfx_enhance_param_set, "window", "3 to 255 in steps of 2" },
    { &gfx_enhance_param_set, "k1", "0 or more" },
    { &gfx_enhance_param_set, "gain", "more than 0, up to 64" },
  };
  for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
    {
      char text[256] = "";
      const gfx_param_desc *d = gfx_params_find (ranges[i].set, ranges[i].name);
      if (d)
        gfx_param_describe_range (d, text, sizeof text);
      CHECK (d && !strcmp (text, ranges[i].range), "%s's range reads '%s' (got '%s')",
             ranges[i].name, ranges[i].range, text);
    }

  const gfx_param_desc *k = gfx_params_find (set, "kernel");
  CHECK (gfx_param_parse (k, &p, "atkinson", &err) == GFX_OK && p.kernel == GFX_KERNEL_ATKINSON,
         "kernel parses by CLI name");
  CHECK (gfx_param_parse (k, &p, "blue-noise", &err) == GFX_ERR_PARAM && strstr (err.msg, "fs"),
         "unknown kernel lists the choices: %s", err.msg);
  const gfx_param_desc *lv = gfx_params_find (set, "levels");
  CHECK (gfx_param_parse (lv, &p, "4.5", &err) == GFX_ERR_PARAM, "levels 4.5 refused");
  CHECK (gfx_param_parse (lv, &p, "nan", &err) == GFX_ERR_PARAM, "levels nan refused");
  CHECK (gfx_param_parse (lv, &p, "16", &err) == GFX_OK && p.levels == 16, "levels 16 parses");

  for (int i = 0; i < GFX_KERNEL_COUNT; i++)
    {
      const gfx_kernel *kk = &gfx_kernels[i];
      int sum = 0;
      for (int t = 0; t < kk->n_taps; t++)
        sum += kk->taps[t].weight;
      int expect = i == GFX_KERNEL_ATKINSON ? 6 : kk->divisor;
      CHECK (sum == expect, "kernel %s weights sum to %d of %d", gfx_kernel_choices[i], sum,
             kk->divisor);
    }
  return check_exit_status ();
}
