/* Long work on a worker thread while the main thread keeps GLib's main loop turning:
 * GTK dialogs stay responsive, GIMP's progress bar (a PDB call, main thread only) moves,
 * and a Cancel button can stop the core through its cancel flag. */
#include "plugin.h"

typedef struct {
  gfx_ui_job_fn fn;
  void *job;
  gfx_progress progress;
  gfx_error err;
  gfx_status status;
  atomic_int permille;  /* last reported fraction, written by the worker */
  int shown;            /* last permille forwarded, main thread only */
  gfx_ui_monitor *mon;
  GMainLoop *loop;
} job_ctx;

void
gfx_ui_monitor_cancel (gfx_ui_monitor *mon)
{
  if (mon)
    atomic_store (&mon->cancel, 1);
}

static void
report_fraction (void *ctx, double fraction)
{
  job_ctx *c = ctx;
  atomic_store (&c->permille, (int) (fraction * 1000.0 + 0.5));
}

static gboolean
job_finished (gpointer data)
{
  g_main_loop_quit (((job_ctx *) data)->loop);
  return G_SOURCE_REMOVE;
}

static gpointer
job_thread (gpointer data)
{
  job_ctx *c = data;
  /* The core only reports from the thread that owns the progress: this one. */
  c->progress.owner = pthread_self ();
  c->status = c->fn (c->job, &c->progress, &c->err);
  g_idle_add (job_finished, c);
  return NULL;
}

static gboolean
job_poll (gpointer data)
{
  job_ctx *c = data;
  if (c->mon && atomic_load (&c->mon->cancel))
    gfx_progress_cancel (&c->progress);
  int pm = atomic_load (&c->permille);
  if (pm != c->shown)
    {
      c->shown = pm;
      if (c->mon && c->mon->progress_text)
        gimp_progress_update (pm / 1000.0);
    }
  if (c->mon && c->mon->poll)
    c->mon->poll (c->mon->ctx, pm / 1000.0);
  return G_SOURCE_CONTINUE;
}

gfx_status
gfx_ui_run_job (gfx_ui_job_fn fn, void *job, gfx_ui_monitor *mon, gfx_error *err)
{
  job_ctx c = { .fn = fn, .job = job, .mon = mon, .shown = -1 };
  gfx_error_clear (&c.err);
  atomic_init (&c.permille, 0);
  gfx_progress_init (&c.progress, report_fraction, &c);
  if (mon && atomic_load (&mon->cancel))
    gfx_progress_cancel (&c.progress);
  if (mon && mon->progress_text)
    gimp_progress_init (mon->progress_text);
  c.loop = g_main_loop_new (NULL, FALSE);
  guint poll_id = g_timeout_add (40, job_poll, &c);
  GThread *thread = g_thread_new ("gpufx-job", job_thread, &c);
  g_main_loop_run (c.loop);
  g_thread_join (thread);
  g_source_remove (poll_id);
  g_main_loop_unref (c.loop);
  if (mon && mon->progress_text && c.status == GFX_OK)
    gimp_progress_update (1.0);
  if (c.status != GFX_OK && err)
    *err = c.err;
  return c.status;
}

typedef struct {
  const gfx_filter *filter;
  const gfx_image *in;
  gfx_image *out;
  const void *values;
  gfx_filter_run *run;
} apply_job;

static gfx_status
apply_job_fn (void *data, gfx_progress *progress, gfx_error *err)
{
  apply_job *j = data;
  j->run->progress = progress;
  gfx_status st = j->filter->apply (j->in, j->out, j->values, j->run, err);
  j->run->progress = NULL;
  /* A core that noticed the cancel flag late may still finish: honour the cancel. */
  if (st == GFX_OK && gfx_progress_cancelled (progress))
    {
      gfx_image_free (j->out);
      if (j->run->mask)
        gfx_image_free (j->run->mask);
      st = gfx_fail (err, GFX_ERR_CANCELLED, "cancelled");
    }
  return st;
}

gfx_status
gfx_ui_apply (const gfx_filter *filter, const gfx_image *in, gfx_image *out, const void *values,
              gfx_filter_run *run, gfx_ui_monitor *mon, gfx_error *err)
{
  apply_job j = { filter, in, out, values, run };
  return gfx_ui_run_job (apply_job_fn, &j, mon, err);
}
