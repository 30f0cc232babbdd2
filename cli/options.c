/* Command-line options generated from a parameter table (see cli.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Parameters a set may have for the options-given checks (each of ours has far fewer). */
#define CLI_MAX_PARAMS 64

static const char *command_running;

void
cli_set_command (const char *name)
{
  command_running = name;
}

const char *
cli_command_running (void)
{
  return command_running;
}

int
cli_fail (const char *cmd, int code, const char *fmt, ...)
{
  char msg[GFX_MSG_LEN];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  for (char *c = msg; *c; c++) /* the message stays one line */
    if (*c == '\n')
      *c = ' ';
  fprintf (stderr, "gpufx%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", msg);
  return code;
}

int
cli_exit_code (gfx_status st)
{
  switch (st)
    {
    case GFX_OK: return CLI_OK;
    case GFX_ERR_PARAM:
    case GFX_ERR_INPUT: return CLI_USAGE;
    case GFX_ERR_UNSTABLE: return CLI_UNSTABLE;
    default: return CLI_FAILED;
    }
}

/* Parameters that are options: not hidden from the CLI, not GIMP drawables. */
static bool
is_option (const gfx_param_desc *d)
{
  return !(d->flags & GFX_PF_NO_CLI) && d->type != GFX_PT_DRAWABLE;
}

static const char *
metavar (const gfx_param_desc *d)
{
  if (d->cli_value)
    return d->cli_value;
  switch (d->type)
    {
    case GFX_PT_ENUM: return " NAME";
    case GFX_PT_BOOL: return "";
    case GFX_PT_STRING: return " FILE";
    case GFX_PT_FLOAT: return " V";
    default: return " N";
    }
}

static void
describe (const gfx_param_desc *d, const void *defaults, char *buf, size_t len)
{
  char range[256];
  double def = gfx_param_get (d, defaults);
  if (d->type == GFX_PT_ENUM)
    {
      size_t used = (size_t) snprintf (buf, len, "one of");
      for (int i = 0; d->choices[i] && used < len; i++)
        used += (size_t) snprintf (buf + used, len - used, "%s %s", i ? "," : "", d->choices[i]);
      if (used < len)
        snprintf (buf + used, len - used, "; default %s", d->choices[(int) def]);
      return;
    }
  if (d->type == GFX_PT_BOOL)
    {
      snprintf (buf, len, "a flag; default %s", def ? "on" : "off");
      return;
    }
  if (d->type == GFX_PT_STRING)
    {
      snprintf (buf, len, "%s", (d->flags & GFX_PF_REQUIRED) ? "required" : "optional");
      return;
    }
  gfx_param_describe_range (d, range, sizeof range);
  if (d->auto_label && def == d->min)
    snprintf (buf, len, "%s; default %s", range, d->auto_label);
  else
    snprintf (buf, len, "%s; default %g", range, def);
}

/* Every option a spec accepts, in --help's order: the table's (d set), then --mask-out,
 * --compare, --quiet and --help (d NULL); meta is " FILE", " N"... or "" for a flag. */
typedef void (*option_fn) (void *ctx, const char *name, const char *meta, const char *help,
                           const gfx_param_desc *d);

static void
each_option (const cli_spec *spec, option_fn fn, void *ctx)
{
  for (int i = 0; spec->set && i < spec->set->n_params; i++)
    {
      const gfx_param_desc *d = &spec->set->params[i];
      if (is_option (d))
        fn (ctx, gfx_param_cli_name (d), metavar (d), d->help, d);
    }
  if (spec->mask)
    fn (ctx, "mask-out", " FILE", "Also write the decision mask to FILE", NULL);
  if (spec->processing)
    {
      fn (ctx, "compare", " FILE", "Also write input and result side by side to FILE", NULL);
      fn (ctx, "quiet", "", "No progress line and no notes (errors still show)", NULL);
    }
  fn (ctx, "help", "", "Show this help", NULL);
}

typedef struct {
  FILE *out;
  void *defaults; /* the table's defaults; NULL: its options are left out (no memory) */
} help_ctx;

static void
help_line (void *ctx, const char *name, const char *meta, const char *help,
           const gfx_param_desc *d)
{
  const help_ctx *h = ctx;
  char extra[600] = "";
  if (d && !h->defaults)
    return;
  if (d)
    {
      describe (d, h->defaults, extra + 1, sizeof extra - 2);
      extra[0] = '(';
      strcat (extra, ")");
    }
  fprintf (h->out, "  --%s%s\n      %s%s%s\n", name, meta, help, *extra ? " " : "", extra);
}

void
cli_help (const cli_spec *spec, FILE *out)
{
  fprintf (out, "Usage: gpufx %s%s%s [options]\n", spec->cmd, spec->usage[0] ? " " : "",
           spec->usage);
  if (spec->blurb)
    fprintf (out, "%s\n", spec->blurb);
  fprintf (out, "\nOptions:\n");
  help_ctx h = { out, spec->set ? calloc (1, spec->set->size) : NULL };
  if (h.defaults)
    gfx_params_defaults (spec->set, h.defaults);
  each_option (spec, help_line, &h);
  free (h.defaults);
  if (spec->processing)
    fprintf (out, "\nIN is any image GEGL can load; OUT's extension picks the format (.png, "
             ".tif, .jpg, .ppm, ...).\nIN - reads standard input; OUT - writes PNG to standard "
             "output (tif:-, jpg:-, exr:-, ...\nanother format). The input's precision and alpha "
             "are kept where the format can hold them;\na note says what it cannot (.tif "
             "holds both).\n");
  /* Every sub-command that reads or writes files ends the same way. */
  if (spec->processing || spec->set)
    fprintf (out, "Exit status: 0 ok, 2 bad usage or input, 3 unstable filter, 1 other "
             "failures.\n");
}

/* "--kernel fs jjn ...", "--filter :file", "--levels :value", "--quiet": one line an
 * option, for the shell's completion (cli/gpufx.bash). */
static void
words_line (void *ctx, const char *name, const char *meta, const char *help,
            const gfx_param_desc *d)
{
  (void) help;
  FILE *out = ctx;
  fprintf (out, "--%s", name);
  if (d && d->type == GFX_PT_ENUM)
    for (int i = 0; d->choices[i]; i++)
      fprintf (out, " %s", d->choices[i]);
  else if (d ? d->type == GFX_PT_STRING && !(d->flags & GFX_PF_NOT_FILE) : !strcmp (meta, " FILE"))
    fprintf (out, " :file"); /* FILE, PNG (stability --plot)... */
  else if (*meta)
    fprintf (out, " :value");
  fputc ('\n', out);
}

void
cli_complete_words (const cli_spec *spec, FILE *out)
{
  each_option (spec, words_line, out);
}

/* Handles one "--name[=value]" at argv[*i]; returns -1 to go on or an exit status. */
static int
parse_option (const cli_spec *spec, int argc, char **argv, int *i, void *values, cli_args *args)
{
  char name[128];
  const char *arg = argv[*i] + 2, *eq = strchr (arg, '='), *value = eq ? eq + 1 : NULL;
  snprintf (name, sizeof name, "%.*s", eq ? (int) (eq - arg) : (int) strlen (arg), arg);
  if (!strcmp (name, "help"))
    {
      cli_help (spec, stdout);
      return CLI_OK;
    }
  if (spec->processing && !strcmp (name, "quiet"))
    {
      if (value)
        return cli_fail (spec->cmd, CLI_USAGE, "--quiet takes no value (give --quiet alone)");
      args->quiet = true;
      return -1;
    }
  const gfx_param_desc *d = spec->set ? gfx_params_find_cli (spec->set, name) : NULL;
  bool known = (d && is_option (d)) || (spec->processing && !strcmp (name, "compare"))
               || (spec->mask && !strcmp (name, "mask-out"));
  if (!known)
    return cli_fail (spec->cmd, CLI_USAGE, "unknown option --%s (see gpufx %s --help)", name,
                     spec->cmd);
  if (d && d->type == GFX_PT_BOOL && !value)
    value = "1";
  if (!value && *i + 1 >= argc)
    return cli_fail (spec->cmd, CLI_USAGE, "--%s needs a value (see gpufx %s --help)", name,
                     spec->cmd);
  if (!value)
    value = argv[++*i];
  if (!d && !strcmp (name, "compare"))
    args->compare = value;
  else if (!d)
    args->mask_out = value;
  else
    {
      gfx_error err;
      if (gfx_param_parse (d, values, value, &err) != GFX_OK)
        return cli_fail (spec->cmd, CLI_USAGE, "%s", err.msg);
    }
  return -1;
}

/* An empty word where a file or value goes ("", --plot=) is a slip, not "not given": it
 * is named here, before it reaches a message as ": cannot read". */
static int
refuse_empty (const cli_spec *spec, const void *values, const cli_args *args,
              const bool *given)
{
  const char *word = spec->usage;
  for (int k = 0; k < spec->n_positionals; k++, word += strcspn (word, " "), word += *word == ' ')
    if (!args->pos[k][0])
      return cli_fail (spec->cmd, CLI_USAGE, "%.*s is empty (usage: gpufx %s %s [options])",
                       (int) strcspn (word, " "), word, spec->cmd, spec->usage);
  const char *extra[2][2] = { { "compare", args->compare }, { "mask-out", args->mask_out } };
  for (int k = 0; k < 2; k++)
    if (extra[k][1] && !extra[k][1][0])
      return cli_fail (spec->cmd, CLI_USAGE, "--%s is empty (--%s FILE; see gpufx %s --help)",
                       extra[k][0], extra[k][0], spec->cmd);
  for (int i = 0; spec->set && i < spec->set->n_params && i < CLI_MAX_PARAMS; i++)
    {
      const gfx_param_desc *d = &spec->set->params[i];
      if (given[i] && d->type == GFX_PT_STRING && !gfx_param_get_string (d, values)[0])
        return cli_fail (spec->cmd, CLI_USAGE, "--%s is empty (--%s%s; see gpufx %s --help)",
                         gfx_param_cli_name (d), gfx_param_cli_name (d), metavar (d), spec->cmd);
    }
  return -1;
}

/* An option that only matters with a file option (--margin with --stabilise) is refused
 * without it: silently ignored, it would look as if it had been applied. */
static int
refuse_unused (const cli_spec *spec, const void *values, const bool given[CLI_MAX_PARAMS])
{
  for (int i = 0; spec->set && i < spec->set->n_params && i < CLI_MAX_PARAMS; i++)
    {
      const gfx_param_desc *d = &spec->set->params[i];
      const gfx_param_desc *key = d->used_if ? gfx_params_find (spec->set, d->used_if) : NULL;
      if (given[i] && key && key->type == GFX_PT_STRING && !gfx_param_used (spec->set, d, values))
        return cli_fail (spec->cmd, CLI_USAGE, "--%s is used only with --%s%s (see gpufx %s "
                         "--help)", gfx_param_cli_name (d), gfx_param_cli_name (key),
                         metavar (key), spec->cmd);
    }
  return -1;
}

int
cli_parse (const cli_spec *spec, int argc, char **argv, void *values, cli_args *args)
{
  memset (args, 0, sizeof *args);
  if (argc == 2 && !strcmp (argv[1], "--complete-words"))
    {
      cli_complete_words (spec, stdout);
      return CLI_OK;
    }
  int n_pos = 0, rc = -1;
  bool only_positionals = false;
  bool given[CLI_MAX_PARAMS] = { false };
  for (int i = 1; i < argc && rc < 0; i++)
    {
      const char *a = argv[i];
      if (!only_positionals && !strcmp (a, "--"))
        only_positionals = true;
      else if (!only_positionals && !strcmp (a, "-h"))
        {
          cli_help (spec, stdout);
          rc = CLI_OK;
        }
      else if (!only_positionals && a[0] == '-' && a[1] == '-')
        {
          const gfx_param_desc *d = NULL;
          char name[128];
          snprintf (name, sizeof name, "%.*s", (int) strcspn (a + 2, "="), a + 2);
          if (spec->set && (d = gfx_params_find_cli (spec->set, name))
              && d - spec->set->params < CLI_MAX_PARAMS)
            given[d - spec->set->params] = true;
          args->backend_given = args->backend_given || (d && !strcmp (d->name, "backend"));
          rc = parse_option (spec, argc, argv, &i, values, args);
        }
      else if (!only_positionals && a[0] == '-' && a[1] != '\0') /* "-o", a typo: no file */
        rc = cli_fail (spec->cmd, CLI_USAGE, "unknown option '%s': gpufx's options are long "
                       "ones, --name (see gpufx %s --help); a file whose name starts with - "
                       "goes after --", a, spec->cmd);
      else if (n_pos < spec->n_positionals)
        args->pos[n_pos++] = a;
      else
        rc = cli_fail (spec->cmd, CLI_USAGE, "unexpected argument '%s' (usage: gpufx %s%s%s "
                       "[options])", a, spec->cmd, spec->usage[0] ? " " : "", spec->usage);
    }
  if (rc >= 0)
    return rc;
  if (n_pos == spec->n_positionals)
    rc = refuse_empty (spec, values, args, given);
  if (rc >= 0)
    return rc;
  if (n_pos < spec->n_positionals)
    return cli_fail (spec->cmd, CLI_USAGE, "missing arguments: usage: gpufx %s %s [options] "
                     "(see --help)", spec->cmd, spec->usage);
  for (int i = 0; spec->set && i < spec->set->n_params && i < CLI_MAX_PARAMS; i++)
    if ((spec->set->params[i].flags & GFX_PF_REQUIRED) && !given[i])
      return cli_fail (spec->cmd, CLI_USAGE, "--%s is required (see gpufx %s --help)",
                       gfx_param_cli_name (&spec->set->params[i]), spec->cmd);
  return refuse_unused (spec, values, given);
}
