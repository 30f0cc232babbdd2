/* `gpufx FILTER IN OUT [options]`, written once over gfx_filter (see cli.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/pool.h"
#include "cli.h"
#include "gegl_modules.h"

/* A progress line on stderr once the run has taken about a second. */
typedef struct {
  const char *cmd;
  bool quiet, tty, shown;
  double start, last_line, after; /* after: seconds before the line appears */
} progress_line;

static void
report (void *ctx, double fraction)
{
  progress_line *p = ctx;
  double t = gfx_seconds ();
  if (p->quiet || t - p->start < p->after)
    return;
  if (p->tty)
    fprintf (stderr, "\r\033[Kgpufx %s: %3d%%", p->cmd, (int) (fraction * 100.0));
  else if (t - p->last_line >= 1.0 || fraction >= 1.0) /* a log: a line a second at most */
    {
      fprintf (stderr, "gpufx %s: %d%%\n", p->cmd, (int) (fraction * 100.0));
      p->last_line = t;
    }
  p->shown = true;
}

/* What the run does now, once it has taken about a second ("writing OUT": a large file's
 * encoding can take longer than the filter); on a terminal it replaces the line. */
static void
progress_stage (progress_line *p, const char *what, const char *path)
{
  if (p->quiet || gfx_seconds () - p->start < p->after)
    return;
  const char *name = cli_stream_name (path);
  if (p->tty)
    fprintf (stderr, "\r\033[Kgpufx %s: %s %s", p->cmd, what, name);
  else
    fprintf (stderr, "gpufx %s: %s %s\n", p->cmd, what, name);
  p->shown = true;
}

/* Ends a terminal's progress line: with the time taken once everything is written
 * (done), else where it stands, so that a message can follow on a line of its own. */
static void
progress_end (progress_line *p, bool done)
{
  if (p->shown && p->tty && done)
    fprintf (stderr, "\r\033[Kgpufx %s: done in %.1f s\n", p->cmd, gfx_seconds () - p->start);
  else if (p->shown && p->tty)
    fputc ('\n', stderr);
  p->shown = false;
}

/* A note on stderr ("gpufx halftone: note: ..."), unless it is empty or --quiet; on a line
 * of its own after a terminal's progress line. */
static void
say_note (progress_line *p, const cli_args *args, const char *note)
{
  if (!note[0] || args->quiet)
    return;
  progress_end (p, false);
  fprintf (stderr, "gpufx %s: note: %s\n", p->cmd, note);
}

/* Says, once path is written, what its format could not hold of img. */
static void
note_losses (progress_line *p, const cli_args *args, const char *path, const gfx_image *img)
{
  char note[GFX_MSG_LEN];
  cli_output_losses (path, img, note, sizeof note);
  say_note (p, args, note);
}

/* Writes the result, and the comparison and mask when asked for. */
static int
write_outputs (const cli_filter *f, const cli_args *args, progress_line *p,
               const gfx_image *in, const cli_source *src, const gfx_image *out,
               const gfx_image *mask)
{
  gfx_error err;
  progress_stage (p, "writing", args->pos[1]);
  gfx_status st = cli_save_result (args->pos[1], in, out, src, &err);
  if (st == GFX_OK)
    note_losses (p, args, args->pos[1], out);
  if (st == GFX_OK && args->compare)
    {
      gfx_image both;
      st = cli_side_by_side (in, out, &both, &err);
      progress_stage (p, "writing", args->compare);
      if (st == GFX_OK)
        {
          st = cli_save_result (args->compare, NULL, &both, src, &err);
          if (st == GFX_OK)
            note_losses (p, args, args->compare, &both);
          gfx_image_free (&both);
        }
    }
  if (st == GFX_OK && args->mask_out)
    {
      progress_stage (p, "writing", args->mask_out);
      if (mask->pixels)
        st = cli_save (args->mask_out, mask, &err);
      else
        st = gfx_fail (&err, GFX_ERR_INTERNAL, "--mask-out: the filter made no mask");
    }
  progress_end (p, st == GFX_OK);
  return st == GFX_OK ? CLI_OK : cli_fail (f->filter->name, cli_exit_code (st), "%s", err.msg);
}

#define FILE_OPTIONS_MAX 4 /* a filter's string parameters, all files it reads */

/* Checks everything that can be checked before loading and computing. */
static int
check_before_work (const cli_filter *f, const cli_args *args, const void *values)
{
  const char *paths[3] = { args->pos[1], args->compare, args->mask_out };
  cli_gegl_modules_for_files (args->pos[0], paths, 3); /* before GEGL starts */
  gfx_error err;
  if (gfx_params_validate (f->filter->params, values, &err) != GFX_OK)
    return cli_fail (f->filter->name, CLI_USAGE, "%s", err.msg);
  int to_stdout = 0;
  for (int i = 0; i < 3; i++)
    to_stdout += cli_is_stdout (paths[i]);
  if (to_stdout > 1)
    return cli_fail (f->filter->name, CLI_USAGE, "only one output can go to standard output "
                     "(-); give the others file names");
  const cli_named_path outs[3] = { { "OUT", paths[0] }, { "--compare", paths[1] },
                                   { "--mask-out", paths[2] } };
  /* IN, then the filter's file options (deblur's --filter): files it reads. */
  cli_named_path ins[1 + FILE_OPTIONS_MAX] = { { "IN", args->pos[0] } };
  char names[FILE_OPTIONS_MAX][64];
  int n_ins = 1;
  const gfx_param_set *set = f->filter->params;
  for (int i = 0; i < set->n_params && n_ins <= FILE_OPTIONS_MAX; i++)
    if (set->params[i].type == GFX_PT_STRING)
      {
        snprintf (names[n_ins - 1], sizeof names[0], "--%s",
                  gfx_param_cli_name (&set->params[i]));
        ins[n_ins] = (cli_named_path) { names[n_ins - 1],
                                        (const char *) values + set->params[i].offset };
        n_ins++;
      }
  if (cli_outputs_apart (outs, 3, ins, n_ins, true, &err) != GFX_OK)
    return cli_fail (f->filter->name, CLI_USAGE, "%s", err.msg);
  for (int i = 0; i < 3; i++)
    if (paths[i] && cli_check_output (paths[i], &err) != GFX_OK)
      return cli_fail (f->filter->name, cli_exit_code (err.status), "%s", err.msg);
  return -1;
}

static int
run (const cli_filter *f, const cli_args *args, const void *values)
{
  const char *cmd = f->filter->name;
  const char *after = getenv ("GPUFX_PROGRESS_AFTER"); /* tests set 0 */
  progress_line line = { cmd, args->quiet, isatty (2), false, gfx_seconds (), 0.0,
                         after ? atof (after) : 1.0 };
  gfx_image in, out = { 0 }, mask = { 0 };
  cli_source src;
  gfx_error err;
  char note[GFX_MSG_LEN];
  gfx_backend_warm_up (f->filter->params, values); /* the GPU starts while the image loads */
  gfx_status st = cli_load_source (args->pos[0], &in, &src, note, sizeof note, &err);
  if (st != GFX_OK)
    return cli_fail (cmd, cli_exit_code (st), "%s", err.msg);
  say_note (&line, args, note);
  gfx_progress progress;
  gfx_progress_init (&progress, report, &line);
  gfx_filter_run fr = { .progress = &progress, .mask = args->mask_out ? &mask : NULL };
  st = f->filter->apply (&in, &out, values, &fr, &err);
  say_note (&line, args, fr.info.note_is_new ? fr.info.note : "");
  if (st != GFX_OK)
    progress_end (&line, false);
  int rc = st == GFX_OK ? write_outputs (f, args, &line, &in, &src, &out, &mask)
                        : cli_fail (cmd, cli_exit_code (st), "%s", err.msg);
  cli_source_free (&src);
  gfx_image_free (&in);
  gfx_image_free (&out);
  gfx_image_free (&mask);
  return rc;
}

int
cli_filter_main (const cli_filter *f, int argc, char **argv)
{
  const gfx_param_set *set = f->filter->params;
  char blurb[512];
  snprintf (blurb, sizeof blurb, "%s: %s", f->filter->title, f->filter->blurb);
  cli_spec spec = { f->filter->name, blurb, set, "IN OUT", 2, true, f->has_mask };
  void *values = calloc (1, set->size);
  if (!values)
    return cli_fail (f->filter->name, CLI_FAILED, "out of memory");
  gfx_params_defaults (set, values);
  cli_args args;
  int rc = cli_parse (&spec, argc, argv, values, &args);
  if (rc < 0 && args.backend_given) /* GPUFX_BACKEND sets the default, not a choice made here */
    unsetenv ("GPUFX_BACKEND");
  if (rc < 0)
    rc = check_before_work (f, &args, values);
  if (rc < 0)
    rc = run (f, &args, values);
  gfx_backend_warm_up_wait ();
  free (values);
  return rc;
}
