/* The CPU path of the quadrant IIR filter (iir.h): one task per (channel, quadrant), all
 * cores, then the mean of the four quadrant planes.  Per pixel it calls the same
 * gfx_iir_point as the CUDA kernel, on windows built from rings of double rows. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "iir.h"
#include "iir_kernels.h"
#include "pool.h"

typedef struct {
  const gfx_iir_filter *f;
  const gfx_image *in;
  gfx_image *out;
  int ch0, nch;    /* colour channels [ch0, ch0 + nch) in this batch */
  float *planes;   /* nch * 4 planes of width * height: quadrant outputs */
  atomic_int next_task;
  atomic_long rows_done;
  long rows_total;
  gfx_progress *progress;
  atomic_int nomem;
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
ring (int row, int m1)
{
  return ((row % m1) + m1) % m1;
}

/* One quadrant of one channel; false if cancelled. */
static bool
run_quadrant (cpu_job *job, int ch, int q, float *plane, double *xr, double *yr)
{
  const gfx_iir_filter *f = job->f;
  int W = job->in->width, H = job->in->height, m1 = f->m1, m2 = f->m2;
  int pad = m2 - 1, stride = W + pad;
  bool flip_v = q == 2 || q == 3, flip_h = q == 1 || q == 2;
  /* Rows above the image: x replicated from row 0, and y = x there. */
  load_row (job->in, q, ch, 0, pad, xr);
  for (int j = 1; j < m1; j++)
    {
      memcpy (xr + (size_t) ring (-j, m1) * stride, xr, sizeof *xr * (size_t) stride);
      memcpy (yr + (size_t) ring (-j, m1) * stride, xr, sizeof *xr * (size_t) stride);
    }
  double xw[GFX_IIR_W * GFX_IIR_W] = { 0 }, yw[GFX_IIR_W * GFX_IIR_W] = { 0 };
  for (int n = 0; n < H; n++)
    {
      if (gfx_progress_cancelled (job->progress))
        return false;
      double *xn = xr + (size_t) ring (n, m1) * stride, *yn = yr + (size_t) ring (n, m1) * stride;
      load_row (job->in, q, ch, n, pad, xn);
      for (int k = 0; k < pad; k++)
        yn[k] = xn[pad]; /* y = x left of the image */
      float *out_row = plane + (size_t) (flip_v ? H - 1 - n : n) * W;
      for (int c = 0; c < W; c++)
        {
          for (int k1 = 0; k1 < m1; k1++)
            {
              const double *xs = xr + (size_t) ring (n - k1, m1) * stride + pad + c;
              const double *ys = yr + (size_t) ring (n - k1, m1) * stride + pad + c;
              for (int k2 = 0; k2 < m2; k2++)
                {
                  xw[k1 * GFX_IIR_W + k2] = xs[-k2];
                  yw[k1 * GFX_IIR_W + k2] = ys[-k2];
                }
            }
          double y = gfx_iir_point (f->a[q], f->b[q], m1, m2, xw, yw, m1, m2); /* same sums */
          yn[pad + c] = y;
          out_row[flip_h ? W - 1 - c : c] = (float) y;
        }
      long done = atomic_fetch_add (&job->rows_done, 1) + 1;
      gfx_progress_update (job->progress, (double) done / (double) job->rows_total);
    }
  return true;
}

static void
quadrant_worker (void *ctx, int worker, int n_workers)
{
  (void) worker, (void) n_workers;
  cpu_job *job = ctx;
  size_t stride = (size_t) job->in->width + (size_t) job->f->m2 - 1;
  double *rings = calloc (2 * (size_t) job->f->m1 * stride, sizeof *rings);
  if (!rings)
    {
      atomic_store (&job->nomem, 1);
      return;
    }
  size_t plane = (size_t) job->in->width * job->in->height;
  int task;
  while ((task = atomic_fetch_add (&job->next_task, 1)) < 4 * job->nch)
    {
      int c = task / 4, q = task % 4;
      if (!run_quadrant (job, job->ch0 + c, q, job->planes + (size_t) task * plane, rings,
                         rings + (size_t) job->f->m1 * stride))
        break;
    }
  free (rings);
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
  for (int c = 0; c < job->nch; c++)
    {
      const float *p = job->planes + (size_t) 4 * c * plane;
      for (size_t i = lo; i < hi; i++)
        store (job->out, i * job->out->channels + job->ch0 + c,
               gfx_iir_mean (p[i], p[plane + i], p[2 * plane + i], p[3 * plane + i]));
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
  /* Channels in batches of threads / 4, so memory stays at 4 planes per busy channel. */
  int batch = threads / 4 < 1 ? 1 : threads / 4 > colours ? colours : threads / 4;
  size_t plane = (size_t) in->width * in->height;
  float *planes = malloc (sizeof *planes * plane * 4 * (size_t) batch);
  if (!planes)
    {
      gfx_image_free (out);
      return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the IIR quadrant planes "
                       "(%zu MiB)", sizeof *planes * plane * 4 * (size_t) batch >> 20);
    }
  cpu_job job = { .f = f, .in = in, .out = out, .planes = planes, .progress = progress,
                  .rows_total = 4L * colours * in->height };
  for (int ch0 = 0; ch0 < colours && st == GFX_OK; ch0 += batch)
    {
      job.ch0 = ch0;
      job.nch = colours - ch0 < batch ? colours - ch0 : batch;
      atomic_store (&job.next_task, 0);
      int workers = 4 * job.nch < threads ? 4 * job.nch : threads;
      gfx_parallel_run (workers, quadrant_worker, &job);
      if (atomic_load (&job.nomem))
        st = gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the IIR row buffers");
      else if (gfx_progress_cancelled (progress))
        st = gfx_fail (err, GFX_ERR_CANCELLED, "IIR deblur cancelled");
      else
        gfx_parallel_run (threads, mean_worker, &job);
    }
  free (planes);
  if (st != GFX_OK)
    gfx_image_free (out);
  return st;
}
