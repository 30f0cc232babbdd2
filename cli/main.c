/* gpufx: the command line over the same core as the GIMP plug-ins (SPEC section 4).
 *
 * To add a sub-command, add one line to a table below:
 *   - a filter (a gfx_filter from common/): FILTERS gets { &gfx_NAME_filter } (with
 *     .has_mask = true if it fills gfx_filter_run.mask: it then takes --mask-out FILE);
 *     its options, --help, image I/O, --backend, --compare and --quiet come for free;
 *   - anything else: COMMANDS gets { "name", "summary", name_main } where
 *     int name_main (int argc, char **argv) lives in cli/NAME.c (cli.h has helpers:
 *     cli_parse/cli_help over a parameter table, cli_load/cli_save, cli_fail). */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../common/enhance.h"
#include "../common/env_check.h"
#include "../common/halftone.h"
#include "../common/iir.h"
#include "babl_setup.h"
#include "cli.h"
#include "cmd_bench.h"
#include "cmd_identify.h"
#include "cmd_stability.h"
#include "cmd_version.h"
#include "gegl_modules.h"
#include "private_tmp.h"

static const cli_filter FILTERS[] = {
  { &gfx_halftone_filter, false },
  { &gfx_enhance_filter, true },
  { &gfx_iir_deblur_filter, false },
};

static const cli_command COMMANDS[] = {
  { NULL, NULL, NULL }, /* placeholder so the table may be empty; skipped */
  { "bench", "[--quick]: in-process timing of the CPU and GPU paths", bench_main },
  { "identify", "--blurred IN (--sharp REF | --auto) --output FILE: identify a deblur filter",
    identify_main },
  { "stability", "FILE [--plot PNG] [--stabilise OUT]: IIR filter stability per quadrant",
    stability_main },
};

#define N_FILTERS ((int) (sizeof FILTERS / sizeof FILTERS[0]))
#define N_COMMANDS ((int) (sizeof COMMANDS / sizeof COMMANDS[0]))

static void
usage (FILE *out)
{
  fprintf (out, "Usage: gpufx COMMAND [arguments] (gpufx COMMAND --help for details)\n\n"
                "Commands:\n");
  for (int i = 0; i < N_FILTERS; i++)
    fprintf (out, "  %-10s %s IN OUT [options]: %s\n", FILTERS[i].filter->name,
             FILTERS[i].filter->name, FILTERS[i].filter->blurb);
  for (int i = 0; i < N_COMMANDS; i++)
    if (COMMANDS[i].name)
      fprintf (out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
  fprintf (out, "  %-10s help COMMAND: the same as gpufx COMMAND --help\n", "help");
  fprintf (out, "  %-10s version, GPU, CPU threads, GEGL and babl\n", "--version");
  fprintf (out, "\nGPUFX_BACKEND=auto|cpu|gpu sets the default backend; GPUFX_THREADS the "
                "number of CPU threads.\n");
}

static bool
is_help (const char *word)
{
  return !strcmp (word, "--help") || !strcmp (word, "-h") || !strcmp (word, "help");
}

static bool
is_version (const char *word)
{
  return !strcmp (word, "--version") || !strcmp (word, "version");
}

static int
dispatch (int argc, char **argv)
{
  if (argc < 2)
    {
      usage (stderr);
      return CLI_USAGE;
    }
  const char *name = argv[1];
  if (is_help (name) || is_version (name))
    {
      /* gpufx help CMD is gpufx CMD --help (as git's); an unknown CMD is refused there.
       * Anything else after help (an option, a second word) or after --version is refused. */
      const int words = is_help (name) ? 3 : 2;
      const int extra = argc > words ? words : argc == 3 && argv[2][0] == '-' ? 2 : 0;
      if (extra)
        return cli_fail (NULL, CLI_USAGE, "unexpected argument '%s' after %s (usage: gpufx "
                         "%s%s)", argv[extra], name, name, is_help (name) ? " [COMMAND]" : "");
      if (is_version (name))
        return version_main ();
      if (argc == 3 && !is_help (argv[2]) && !is_version (argv[2]))
        {
          char *sub[] = { argv[0], argv[2], "--help", NULL };
          return dispatch (3, sub);
        }
      usage (stdout);
      return CLI_OK;
    }
  if (!strcmp (name, "--complete-words")) /* the commands, for cli/gpufx.bash */
    {
      for (int i = 0; i < N_FILTERS; i++)
        printf ("%s\n", FILTERS[i].filter->name);
      for (int i = 0; i < N_COMMANDS; i++)
        if (COMMANDS[i].name)
          printf ("%s\n", COMMANDS[i].name);
      printf ("help\n--help\n--version\n");
      return CLI_OK;
    }
  for (int i = 0; i < N_FILTERS; i++)
    if (!strcmp (name, FILTERS[i].filter->name))
      {
        cli_set_command (name);
        return cli_filter_main (&FILTERS[i], argc - 1, argv + 1);
      }
  for (int i = 0; i < N_COMMANDS; i++)
    if (COMMANDS[i].name && !strcmp (name, COMMANDS[i].name))
      {
        cli_set_command (name);
        return COMMANDS[i].main (argc - 1, argv + 1);
      }
  return cli_fail (NULL, CLI_USAGE, "unknown command '%s' (gpufx --help lists them)", name);
}

/* GPUFX_BACKEND or GPUFX_THREADS set to a value that means nothing: a note, unless the
 * command line asks for quiet. */
static void
say_env_note (int argc, char **argv)
{
  char note[GFX_MSG_LEN];
  gfx_env_check (note, sizeof note);
  for (int i = 1; i < argc && note[0]; i++)
    if (!strcmp (argv[i], "--quiet"))
      return;
  if (note[0])
    fprintf (stderr, "gpufx: note: %s\n", note);
}

int
main (int argc, char **argv)
{
  /* Past the file size limit (ulimit -f) a write fails with EFBIG, which the savers report
   * in one line (image_save.c), instead of the kernel killing the process mid-file. */
  signal (SIGXFSZ, SIG_IGN);
  /* All three set environment variables: before any thread (the GPU's warm-up) starts. */
  cli_private_tmp_begin ();
  cli_gegl_modules_select ();
  cli_babl_setup ();
  say_env_note (argc, argv);
  int rc = dispatch (argc, argv);
  cli_io_shutdown ();
  /* A report on standard output (stability's verdict, identify's) that could not be
   * written is a failure, not a silent success. */
  if ((fflush (stdout) != 0 || ferror (stdout)) && rc == CLI_OK)
    rc = cli_fail (cli_command_running (), CLI_FAILED,
                   "standard output: cannot write: %s",
                   strerror (errno ? errno : EIO));
  return rc;
}
