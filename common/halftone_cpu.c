/* The fast CPU halftone: the reference's arithmetic (halftone_ref.c) in a different order.
 *
 * Rows are grouped in bands of BAND_ROWS; the bands of all colour channels form one
 * sequence, which the workers claim in order (an atomic ticket), so channels run in
 * parallel and one channel's rows run as a wavefront; a worker that mostly waits retires
 * (see retire()).  Inside a band the rows are skewed by the kernel's
 * lag: step s does column s - r * lag of row r, which gives the out-of-order core BAND_ROWS
 * independent dependency chains instead of one (the error chain along a row is the
 * bottleneck).  A band's first row follows the previous band's last row through an atomic
 * column counter (release after writing errors, acquire before reading them).  A band's
 * rows live in one of a ring of ring_bands float blocks, column-major (input values,
 * overwritten by the errors), with zero columns on both sides so no tap needs a bounds
 * check: a zero source adds +0, which changes no sum.  halftone_cpu_band.c computes a band. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "halftone_cpu.h"
#include "halftone_internal.h"
#include "pool.h"

#define SMALL_IMAGE 4e5 /* samples: 512 x 512 gray runs on one thread, 724 x 724 on two (measured,
                          quiet box: 0.64 against 0.39-0.74 ms, 1.29 against 0.77-1.28 ms) */

/* The run is being abandoned: cancelled (then every worker is told), or another worker
 * stopped. */
static bool
abandoned (void *ctx)
{
  job *j = ctx;
  if (atomic_load_explicit (&j->abort, memory_order_relaxed))
    return true;
  if (!gfx_progress_cancelled (j->progress))
    return false;
  atomic_store (&j->abort, 1);
  return true;
}

int
gfx_halftone_wait (job *j, band_progress *above, int need, double *waited)
{
  int have = atomic_load_explicit (&above->done.value, memory_order_acquire);
  if (have >= need)
    return have;
  double t0 = gfx_seconds ();
  have = gfx_counter_wait (&above->done, need, abandoned, j);
  *waited += gfx_seconds () - t0;
  return have;
}

static float *
ring_block (const job *j, int g)
{
  return j->ring + (size_t) (g % j->ring_bands) * j->block + PAD * BAND_ROWS;
}

/* Points each row's taps at their source rows: the band's own rows, the previous band's
 * last two rows, or the zero block above the image. */
static void
band_setup (const job *j, int g, int worker, band *b)
{
  int channel = g / j->bands_per_channel, first_row = g % j->bands_per_channel * BAND_ROWS;
  int height = j->in->height;
  memset (b, 0, sizeof *b);
  b->rows = height - first_row < BAND_ROWS ? height - first_row : BAND_ROWS;
  b->above = first_row > 0 ? &j->done[g - 1] : NULL;
  b->mine = &j->done[g];
  b->e = ring_block (j, g);
  b->e_above = first_row > 0 ? ring_block (j, g - 1) : j->zero_block + PAD * BAND_ROWS;
  b->q = j->q_rows + (size_t) worker * BAND_ROWS * (size_t) j->width;
  for (int r = 0; r < b->rows; r++)
    {
      b->first[r] = (size_t) (first_row + r) * j->width * j->in->channels + channel;
      for (int t = 0; t < j->k->n_taps; t++)
        {
          int from = r - j->k->taps[t].dy; /* the previous band is always full */
          const float *block = from >= 0 ? b->e : b->e_above;
          /* -dx columns stay inside the block's zero columns */
          b->tap[r][t] = block + (from >= 0 ? from : BAND_ROWS + from)
                         - (ptrdiff_t) j->k->taps[t].dx * BAND_ROWS;
        }
    }
}

/* A worker that has spent more than gfx_halftone_retire_fraction of its time (and at least
 * gfx_halftone_retire_min_s) waiting for its partners stops claiming bands after the one it is on, unless it is the
 * last one claiming: the waits say the others keep losing their cores to other processes,
 * and a wavefront is only as fast as its slowest row, so fewer workers then finish sooner
 * (and give the cores back).  Bands are claimed in order, so the ones left run on. */
double gfx_halftone_retire_fraction = 0.25;
double gfx_halftone_retire_min_s = 2e-3;
atomic_int gfx_halftone_retired;

static bool
retire (job *j, double waited, double elapsed)
{
  if (waited < gfx_halftone_retire_min_s || waited < gfx_halftone_retire_fraction * elapsed)
    return false;
  if (atomic_fetch_sub (&j->claimers, 1) > 1)
    return true;
  atomic_fetch_add (&j->claimers, 1); /* the last one goes on */
  return false;
}

static void
worker (void *ctx, int id, int n_workers)
{
  job *j = ctx;
  double start = gfx_seconds (), waited = 0;
  for (;;)
    {
      int g = atomic_fetch_add (&j->next_band, 1);
      if (g >= j->total_bands || atomic_load_explicit (&j->abort, memory_order_relaxed))
        return;
      /* The ring slot was last written by band g - ring_bands and read by the band after
       * it (its rows above): both must be finished. */
      for (int old = g - j->ring_bands; old <= g - j->ring_bands + 1; old++)
        if (old >= 0 && gfx_halftone_wait (j, &j->done[old], j->width, &waited) < 0)
          return;
      band b;
      band_setup (j, g, id, &b);
      b.waited = &waited;
      if (!gfx_halftone_band (j, &b))
        return;
      gfx_progress_update (j->progress, (double) (g + 1) / j->total_bands); /* owner only */
      if (n_workers > 1 && retire (j, waited, gfx_seconds () - start))
        {
          atomic_fetch_add_explicit (&gfx_halftone_retired, 1, memory_order_relaxed);
          /* Worker 0 makes the progress reports: it follows the others' bands asleep. */
          for (int h = g + 1; id == 0 && h < j->total_bands; h++)
            if (gfx_halftone_wait (j, &j->done[h], j->width, &waited) < 0)
              return;
            else
              gfx_progress_update (j->progress, (double) (h + 1) / j->total_bands);
          return;
        }
    }
}

/* Tables of the exact values the reference computes per sample or level. */
static void
job_tables (job *j)
{
  gfx_image probe = { .width = 1, .height = 1, .channels = 1, .depth = j->out->depth };
  union { uint8_t u8; uint16_t u16; float f32; } sample = { 0 };
  probe.pixels = &sample;
  for (int q = 0; q < j->levels; q++)
    {
      j->level[q] = gfx_level_value (q, j->levels);
      gfx_sample_set (&probe, 0, j->level[q]);
      j->out_u8[q] = sample.u8;
      j->out_u16[q] = sample.u16;
    }
  for (int t = 0; t < j->k->n_taps; t++)
    j->weight[t] = gfx_tap_weight (j->k->taps[t].weight, j->k->divisor);
}

gfx_status
gfx_halftone_cpu (const gfx_image *in, gfx_image *out, int kernel, int levels,
                  gfx_progress *progress, gfx_error *err)
{
  job *j = calloc (1, sizeof *j);
  if (!j)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory");
  *j = (job) { .in = in, .out = out, .k = &gfx_kernels[kernel], .levels = levels,
               .width = in->width, .colors = gfx_image_color_channels (in),
               .progress = progress };
  j->lag = gfx_kernel_lag (j->k);
  j->bands_per_channel = (in->height + BAND_ROWS - 1) / BAND_ROWS;
  j->total_bands = j->bands_per_channel * j->colors;
  /* Below SMALL_IMAGE samples the wavefront's hand-offs cost about what a second core
   * gives; a wavefront runs at the pace of its slowest worker, so only free cores count. */
  int threads = gfx_threads_for ((double) in->width * in->height * j->colors, SMALL_IMAGE, true);
  if (threads > j->total_bands)
    threads = j->total_bands;
  /* threads + 1 bands of rows: at most threads bands are being computed at once, and a
   * band's slot is free once the band threads + 1 earlier and its successor are done. */
  j->ring_bands = threads + 1;
  j->block = ((size_t) in->width + 2 * PAD) * BAND_ROWS;
  j->ring = calloc ((size_t) j->ring_bands * j->block, sizeof (float));
  j->q_rows = malloc ((size_t) threads * BAND_ROWS * (size_t) in->width);
  j->zero_block = calloc (j->block, sizeof (float));
  j->done = aligned_alloc (64, sizeof (band_progress) * (size_t) j->total_bands);
  gfx_status st = GFX_OK;
  if (!j->ring || !j->q_rows || !j->zero_block || !j->done)
    st = gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the error rows of a %d-pixel-wide image",
                   in->width);
  else
    {
      for (int g = 0; g < j->total_bands; g++)
        gfx_counter_init (&j->done[g].done, 0);
      atomic_init (&j->abort, 0);
      atomic_init (&j->next_band, 0);
      atomic_init (&j->claimers, threads);
      job_tables (j);
      gfx_parallel_run (threads, worker, j);
      if (atomic_load (&j->abort))
        st = gfx_fail (err, GFX_ERR_CANCELLED, "halftone cancelled");
    }
  free (j->ring);
  free (j->q_rows);
  free (j->zero_block);
  free (j->done);
  free (j);
  return st;
}
