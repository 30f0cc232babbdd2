/* libFuzzer harness for the CLI's option parser (cli/options.c: cli_parse over a
 * parameter table, as cli_filter_main and gpufx identify call it), without loading images
 * or running filters.  Input: the first byte picks the command (halftone, enhance, deblur,
 * identify); the rest, split at NUL bytes and newlines, is argv.  Checks: no crash or UB,
 * an exit status of 0 (help) or 2 (usage) or "go on", and after "go on" plus a passing
 * gfx_params_validate every parameter is inside its declared range.  Also compiled into
 * tests/unit/test_fuzz_regress.c (FUZZ_NO_ENTRY) to replay the corpus and kept crashers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/cli.h"
#include "../../common/enhance.h"
#include "../../common/halftone.h"
#include "../../common/iir.h"
#include "../../common/iir_identify.h"

#define FUZZ_MAX_ARGS 40

static void
fuzz_cli_fail (const char *why)
{
  fprintf (stderr, "fuzz_cli_options: %s\n", why);
  abort ();
}

static int
fuzz_cli_options_one (const uint8_t *data, size_t size)
{
  static const struct { const char *cmd; const gfx_param_set *set; int pos; bool proc, mask; }
  cmds[] = {
    { "halftone", &gfx_halftone_param_set, 2, true, false },
    { "enhance", &gfx_enhance_param_set, 2, true, true },
    { "deblur", &gfx_iir_deblur_param_set, 2, true, false },
    { "identify", &gfx_identify_param_set, 0, false, false },
  };
  if (size < 1 || size > 4096)
    return 0;
  int which = data[0] % 4;
  char *text = malloc (size);
  if (!text)
    return 0;
  memcpy (text, data + 1, size - 1);
  text[size - 1] = '\0';
  char *argv[FUZZ_MAX_ARGS + 2] = { (char *) cmds[which].cmd };
  int argc = 1;
  for (char *p = text; argc < FUZZ_MAX_ARGS && p <= text + size - 1;)
    {
      size_t n = strcspn (p, "\n");
      argv[argc++] = p;
      if (p + n >= text + size - 1 || !p[n])
        break;
      p[n] = '\0';
      p += n + 1;
    }
  const gfx_param_set *set = cmds[which].set;
  cli_spec spec = { cmds[which].cmd, "fuzz", set, cmds[which].pos ? "IN OUT" : "",
                    cmds[which].pos, cmds[which].proc, cmds[which].mask };
  void *values = calloc (1, set->size);
  cli_args args;
  gfx_error err;
  if (values)
    {
      gfx_params_defaults (set, values);
      int rc = cli_parse (&spec, argc, argv, values, &args);
      if (rc != -1 && rc != CLI_OK && rc != CLI_USAGE)
        fuzz_cli_fail ("cli_parse returned an undocumented status");
      if (rc == -1 && gfx_params_validate (set, values, &err) == GFX_OK)
        for (int i = 0; i < set->n_params; i++)
          if (gfx_param_check (&set->params[i], values, &err) != GFX_OK)
            fuzz_cli_fail ("a value outside its range passed gfx_params_validate");
    }
  free (values);
  free (text);
  return 0;
}

#ifndef FUZZ_NO_ENTRY
int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc, (void) argv;
  /* --help text and usage messages: not the fuzzer's output. */
  if (!getenv ("FUZZ_VERBOSE"))
    {
      if (!freopen ("/dev/null", "w", stdout))
        return 0;
    }
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return fuzz_cli_options_one (data, size);
}
#endif
