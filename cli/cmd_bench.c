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
 * the repeats after one untimed warm-up run (fewer runs for slow cases: BENCH_SLOW_S in
 * cmd_bench_time.c).  The parts: cmd_bench_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/backend.h"
#include "cli.h"
#include "cmd_bench.h"
#include "cmd_bench_internal.h"

static void
usage (FILE *to)
{
  fprintf (to,
           "Usage: gpufx bench [--quick] [--repeat N]\n"
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

/* bench's own options for bash completion (cli/gpufx.bash): lines "--name [:file | :value]". */
static void
complete_words (void)
{
  printf ("--quick\n--repeat :value\n--input :file\n--tsv\n--gpu-name\n--copy :file\n"
          "--threshold\n--help\n");
}

/* Handles one of bench's own options at argv[*i] ("--name value" or "--name=value");
 * returns -1 when argv[*i] is not one, else 0 to go on or an exit status + 1000 to return
 * at once. */
static int
own_option (int argc, char **argv, int *i, bench_opts *o, int *quick, const char **input)
{
  const char *a = argv[*i], *eq = strchr (a, '='), *v = eq ? eq + 1 : NULL;
  char name[32];
  snprintf (name, sizeof name, "%.*s", (int) (eq ? eq - a : (long) strlen (a)), a);
  const bool flag = !strcmp (name, "--help") || !strcmp (name, "-h")
                    || !strcmp (name, "--gpu-name") || !strcmp (name, "--quick")
                    || !strcmp (name, "--tsv") || !strcmp (name, "--complete-words");
  if (flag && v)
    return 1000 + cli_fail ("bench", CLI_USAGE, "%s takes no value (give %s alone)", name, name);
  if (!strcmp (name, "--help") || !strcmp (name, "-h"))
    return usage (stdout), 1000 + CLI_OK;
  if (!strcmp (name, "--complete-words"))
    return complete_words (), 1000 + CLI_OK;
  if (!strcmp (name, "--gpu-name"))
    {
      char gpu[GFX_MSG_LEN];
      int ok = gfx_backend_gpu_usable (gpu, sizeof gpu);
      printf ("%s%s%s\n", ok ? "" : "none (", gpu, ok ? "" : ")");
      return 1000 + CLI_OK;
    }
  if (!strcmp (name, "--quick") || !strcmp (name, "--tsv"))
    {
      *(name[2] == 'q' ? quick : &o->tsv) = 1;
      return 0;
    }
  if (strcmp (name, "--input") != 0 && strcmp (name, "--repeat") != 0)
    return -1;
  if (!v && *i + 1 >= argc)
    return 1000 + cli_fail ("bench", CLI_USAGE, "%s needs a value", name);
  if (!v)
    v = argv[++*i];
  if (!v[0])
    return 1000 + cli_fail ("bench", CLI_USAGE, "%s is empty (see gpufx bench --help)", name);
  if (name[2] == 'i')
    {
      *input = v;
      return 0;
    }
  char *end;
  const long n = strtol (v, &end, 10);
  if (*end || n < 1 || n > BENCH_MAX_REPEAT) /* "1e3" and "5x" are no whole numbers */
    return 1000 + cli_fail ("bench", CLI_USAGE, "--repeat = %s is not allowed: a whole number "
                            "from 1 to %d", v, BENCH_MAX_REPEAT);
  o->repeat = (int) n;
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
  const gfx_filter *f = filter ? bench_find_filter (filter) : NULL;
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
