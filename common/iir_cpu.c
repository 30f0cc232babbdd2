/* The CPU path of the quadrant IIR filter (iir.h), one colour channel at a time: its four
 * quadrants are tasks shared out over the threads; when there are more threads than
 * tasks, each task is a row wavefront of P threads (row n on thread n mod P, each row at
 * most CHUNK columns behind the row above, through per-row progress counters).  Per pixel
 * it calls the same gfx_iir_point as the CUDA kernel, on windows built from a ring of
 * double rows. */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "iir.h"
#include "iir_kernels.h"
#include "pool.h"

#define CHUNK 64 /* columns between progress publications in a wavefront */

typedef struct {
  double *x, *y;    /* ring of `ring` rows of x and y, width + M2 - 1 each (left pad) */
  atomic_int *done; /* per row: columns computed so far */
} task_rows;

typedef struct {
  const gfx_iir_filter *f;
  const gfx_image *in;
  gfx_image *out;
  int ch;              /* the colour channel being filtered */
  float *planes;       /* 4 planes of width * height: quadrant outputs (image frame) */
  task_rows rows[GFX_IIR_QUADRANTS];
  int per_task, teams; /* threads per quadrant (wavefront), quadrants at once */
  int ring;            /* rows in each ring: per_task + M1 keeps every row needed */
  atomic_long rows_done;
  long rows_total;
  gfx_progress *progress;
  atomic_int stop;     /* cancelled: waiting threads give up */
} cpu_job;

static double
sample_at (const gfx_image *in, int row, int col, int ch)
{
  size_t i = ((size_t) row * in->width + col) * in->channels + ch;
  switch (in->depth)
    {
    case GFX_U8: return gfx_iir_from_u8 (((const uint8_t *) in->pixels)[i]);
    case GFX_U16: return gfx_iir_from_u16 (((const uint16_t *) in->pixels)[i]);
    default: return ((const float *) in->pixels)[i];
    }
}

/* Row n of the quadrant's frame into dst[pad ..], replicated into dst[0 .. pad - 1]. */
static void
load_row (const gfx_image *in, int q, int ch, int n, int pad, double *dst)
{
  int W = in->width, H = in->height;
  int row = (q == 2 || q == 3) ? H - 1 - n : n;  /* q3, q4 recurse upwards */
  bool flip_h = q == 1 || q == 2;                /* q2, q3 recurse leftwards */
  for (int c = 0; c < W; c++)
    dst[pad + c] = sample_at (in, row, flip_h ? W - 1 - c : c, ch);
  for (int k = 0; k < pad; k++)
    dst[k] = dst[pad];
}

static int
ring (int row, int m)
{
  return ((row % m) + m) % m;
}

/* Waits until row n - 1 has `cols` columns (or the job stops); false when stopped. */
static bool
wait_row_above (cpu_job *job, const task_rows *tr, int n, int cols)
{
  for (int spins = 0; n > 0 && atomic_load_explicit (&tr->done[n - 1], memory_order_acquire) < cols;
       spins++)
    {
      if (atomic_load_explicit (&job->stop, memory_order_relaxed))
        return false;
      if (spins > 64)
        sched_yield (); /* threads may outnumber cores */
    }
  return true;
}

/* Columns [c0, c1) of row n of quadrant q. */
static void
row_span (const cpu_job *job, int q, const task_rows *tr, int n, int c0, int c1, float *out_row)
{
  const gfx_iir_filter *f = job->f;
  int W = job->in->width, m1 = f->m1, m2 = f->m2, pad = m2 - 1, stride = W + pad;
  bool flip_h = q == 1 || q == 2;
  double xw[GFX_IIR_W * GFX_IIR_W], yw[GFX_IIR_W * GFX_IIR_W];
  double *yn = tr->y + (size_t) ring (n, job->ring) * stride;
  for (int c = c0; c < c1; c++)
    {
      for (int k1 = 0; k1 < m1; k1++)
        {
          size_t at = (size_t) ring (n - k1, job->ring) * stride + pad + c;
          for (int k2 = 0; k2 < m2; k2++)
            {
              xw[k1 * GFX_IIR_W + k2] = tr->x[at - k2];
              yw[k1 * GFX_IIR_W + k2] = tr->y[at - k2];
            }
        }
      double y = gfx_iir_point (f->a[q], f->b[q], m1, m2, xw, yw, m1, m2); /* same sums */
      yn[pad + c] = y;
      out_row[flip_h ? W - 1 - c : c] = (float) y;
    }
}

/* The rows member, member + P, ... of quadrant q; false if stopped. */
static bool
run_rows (cpu_job *job, int q, int member)
{
  const task_rows *tr = &job->rows[q];
  int W = job->in->width, H = job->in->height, m1 = job->f->m1, pad = job->f->m2 - 1;
  size_t stride = (size_t) W + pad, row_bytes = sizeof (double) * stride;
  float *plane = job->planes + (size_t) q * W * H;
  if (member == 0) /* rows above the image: x replicated from row 0, and y = x there */
    for (int j = 1; j < m1; j++)
      {
        double *xs = tr->x + ring (-j, job->ring) * stride;
        load_row (job->in, q, job->ch, 0, pad, xs);
        memcpy (tr->y + ring (-j, job->ring) * stride, xs, row_bytes);
      }
  for (int n = member; n < H; n += job->per_task)
    {
      if (gfx_progress_cancelled (job->progress))
        {
          atomic_store (&job->stop, 1);
          return false;
        }
      double *xn = tr->x + ring (n, job->ring) * stride, *yn = tr->y + ring (n, job->ring) * stride;
      load_row (job->in, q, job->ch, n, pad, xn);
      for (int k = 0; k < pad; k++)
        yn[k] = xn[pad]; /* y = x left of the image */
      float *out_row = plane + (size_t) ((q == 2 || q == 3) ? H - 1 - n : n) * W;
      for (int c0 = 0; c0 < W; c0 += CHUNK)
        {
          int c1 = c0 + CHUNK < W ? c0 + CHUNK : W;
          if (!wait_row_above (job, tr, n, c1))
            return false;
          row_span (job, q, tr, n, c0, c1, out_row);
          atomic_store_explicit (&tr->done[n], c1, memory_order_release);
        }
      long done = atomic_fetch_add (&job->rows_done, 1) + 1;
      gfx_progress_update (job->progress, (double) done / (double) job->rows_total);
    }
  return true;
}

static void
quadrant_worker (void *ctx, int worker, int n_workers)
{
  cpu_job *job = ctx;
  if (n_workers == 1) /* threads could not be created: this one runs everything */
    job->per_task = job->teams = 1;
  int team = worker / job->per_task, member = worker % job->per_task;
  for (int q = team; q < GFX_IIR_QUADRANTS && team < job->teams; q += job->teams)
    if (!run_rows (job, q, member))
      return;
}

static void
store (gfx_image *out, size_t i, float v)
{
  switch (out->depth)
    {
    case GFX_U8: ((uint8_t *) out->pixels)[i] = gfx_iir_to_u8 (v); break;
    case GFX_U16: ((uint16_t *) out->pixels)[i] = gfx_iir_to_u16 (v); break;
    default: ((float *) out->pixels)[i] = v; break;
    }
}

static void
mean_worker (void *ctx, int worker, int n_workers)
{
  cpu_job *job = ctx;
  size_t plane = (size_t) job->in->width * job->in->height;
  size_t lo = plane * worker / n_workers, hi = plane * (worker + 1) / n_workers;
  const float *p = job->planes;
  for (size_t i = lo; i < hi; i++)
    store (job->out, i * job->out->channels + job->ch,
           gfx_iir_mean (p[i], p[plane + i], p[2 * plane + i], p[3 * plane + i]));
}

/* The planes, rings and progress counters of one channel, allocated once for all. */
static gfx_status
alloc_job (cpu_job *job, gfx_error *err)
{
  size_t W = (size_t) job->in->width, H = (size_t) job->in->height;
  size_t ring_doubles = (size_t) job->ring * (W + job->f->m2 - 1);
  job->planes = malloc (sizeof (float) * W * H * GFX_IIR_QUADRANTS);
  bool ok = job->planes != NULL;
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    {
      job->rows[q].x = calloc (2 * ring_doubles, sizeof (double));
      job->rows[q].y = job->rows[q].x ? job->rows[q].x + ring_doubles : NULL;
      job->rows[q].done = calloc (H, sizeof (atomic_int));
      ok = ok && job->rows[q].x && job->rows[q].done;
    }
  if (!ok)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the IIR quadrant planes (%zu MiB)",
                     sizeof (float) * W * H * GFX_IIR_QUADRANTS >> 20);
  return GFX_OK;
}

static void
free_job (cpu_job *job)
{
  free (job->planes);
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    {
      free (job->rows[q].x);
      free (job->rows[q].done);
    }
}

gfx_status
gfx_iir_filter_cpu (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out,
                    gfx_progress *progress, gfx_error *err)
{
  gfx_status st = gfx_image_clone (out, in, err); /* alpha passes through */
  if (st != GFX_OK)
    return st;
  int colours = gfx_image_color_channels (in), threads = gfx_threads ();
  cpu_job job = { .f = f, .in = in, .out = out, .progress = progress,
                  .rows_total = 4L * colours * in->height };
  job.per_task = threads / GFX_IIR_QUADRANTS > 1 ? threads / GFX_IIR_QUADRANTS : 1;
  job.teams = threads < GFX_IIR_QUADRANTS ? threads : GFX_IIR_QUADRANTS;
  job.ring = job.per_task + f->m1;
  int per_task = job.per_task, teams = job.teams;
  st = alloc_job (&job, err);
  for (int ch = 0; ch < colours && st == GFX_OK; ch++)
    {
      job.ch = ch;
      job.per_task = per_task, job.teams = teams; /* a one-worker fallback changes them */
      for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
        memset (job.rows[q].done, 0, sizeof (atomic_int) * (size_t) in->height);
      gfx_parallel_run (per_task * teams, quadrant_worker, &job);
      if (gfx_progress_cancelled (progress) || atomic_load (&job.stop))
        st = gfx_fail (err, GFX_ERR_CANCELLED, "IIR deblur cancelled");
      else
        gfx_parallel_run (threads, mean_worker, &job);
    }
  free_job (&job);
  if (st != GFX_OK)
    gfx_image_free (out);
  return st;
}
