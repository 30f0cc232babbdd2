/* The fast CPU halftone: the reference's arithmetic (halftone_ref.c) in a different order.
 *
 * Rows are grouped in bands of BAND_ROWS; the bands of all colour channels form one
 * sequence, and worker w takes bands w, w + n, w + 2n...  so channels run in parallel and
 * one channel's rows run as a wavefront.  Inside a band the rows are skewed by the kernel's
 * lag: step s does column s - r * lag of row r, which gives the out-of-order core BAND_ROWS
 * independent dependency chains instead of one (the error chain along a row is the
 * bottleneck).  A band's first row follows the previous band's last row through an atomic
 * column counter (release after writing errors, acquire before reading them).  Errors live
 * in a ring of ring_bands bands of rows, padded with zero columns so no tap needs a bounds
 * check: a zero source adds +0, which changes no sum. */
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "halftone_internal.h"
#include "halftone_kernels.h"
#include "pool.h"

#define BAND_ROWS 4        /* rows one worker interleaves: independent chains for the CPU; more
                             spill registers and, at power-of-two widths, thrash L1 sets */
#define PAD 2             /* zero columns on each side of an error row: taps reach 2 */
#define PUBLISH_EVERY 64  /* columns between progress publications: fewer cache hand-offs */
#define CANCEL_EVERY 4096 /* steps between polls of the cancel flag */

typedef struct {
  alignas (64) atomic_int done; /* columns of the band's last row that are finished */
  char pad[64 - sizeof (atomic_int)];
} band_progress;

typedef struct {
  const gfx_image *in;
  gfx_image *out;
  const gfx_kernel *k;
  int levels, width, colors, lag;
  int bands_per_channel, total_bands, ring_bands;
  size_t stride;       /* floats per error row, pads included */
  float *ring;         /* ring_bands * BAND_ROWS error rows */
  float *zero_row;     /* stands for the rows above the image */
  band_progress *done; /* one per band */
  atomic_int abort;
  gfx_progress *progress;
  float weight[GFX_MAX_TAPS];
  float level[256];    /* gfx_level_value of each index */
  float in_u8[256];    /* gfx_sample_get of each 8-bit sample */
  uint8_t out_u8[256]; /* gfx_sample_set of each level, per depth */
  uint16_t out_u16[256];
} job;

typedef struct {
  const float *src[BAND_ROWS][GFX_MAX_TAPS]; /* per row and tap: error row shifted by -dx */
  float *err[BAND_ROWS];                     /* the row's own error row */
  size_t first[BAND_ROWS];                   /* sample index of the row's column 0 */
  int rows;
  band_progress *above; /* the previous band of the channel, NULL for the first */
  band_progress *mine;
} band;

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#endif
}

/* Waits until the band above has finished `need` columns; returns what it has finished,
 * or -1 when the run is being abandoned (cancel, or another worker stopped). */
static int
wait_for (job *j, band_progress *above, int need)
{
  int spins = 0, have;
  while ((have = atomic_load_explicit (&above->done, memory_order_acquire)) < need)
    {
      if (atomic_load_explicit (&j->abort, memory_order_relaxed))
        return -1;
      if (gfx_progress_cancelled (j->progress))
        {
          atomic_store (&j->abort, 1);
          return -1;
        }
      if (++spins > 64) /* more workers than cores: let the one we wait for run */
        sched_yield ();
      else
        cpu_relax ();
    }
  return have;
}

/* What the inner loop reads, copied into a local of run_steps: a local whose address never
 * escapes cannot alias the 8-bit output stores, so the compiler keeps it in registers. */
typedef struct {
  const float *src[BAND_ROWS][GFX_MAX_TAPS];
  float *err[BAND_ROWS];
  size_t first[BAND_ROWS];
  float weight[GFX_MAX_TAPS];
  const void *in;
  void *out;
  size_t channels;
  int levels, n_taps;
  const float *level, *in_u8;
  const uint8_t *out_u8;
  const uint16_t *out_u16;
} lanes;

/* One pixel of row r at column x: exactly the reference's expressions. */
static inline __attribute__ ((always_inline)) void
pixel (const lanes *l, int r, int x, gfx_depth depth, int taps, bool two_levels)
{
  size_t index = l->first[r] + (size_t) x * l->channels;
  float v;
  if (depth == GFX_U8)
    v = l->in_u8[((const uint8_t *) l->in)[index]];
  else if (depth == GFX_U16)
    v = ((const uint16_t *) l->in)[index] * (1.0f / 65535.0f);
  else
    v = ((const float *) l->in)[index];
  /* The reference adds the first product to 0.0f; starting from it is the same value
   * except for the sign of a zero sum, which cannot change any output level. */
  float e = l->weight[0] * l->src[r][0][x];
  int n = taps ? taps : l->n_taps;
#pragma GCC unroll 12
  for (int t = 1; t < n; t++)
    e += l->weight[t] * l->src[r][t][x];
  v = v + e;
  int q;
  float level;
  if (two_levels) /* gfx_quantize_index with levels - 1 = 1: v * 1 is v */
    {
      q = v + 0.5f >= 1.0f;
      level = (float) q; /* q / 1, and no branch: halftone bits are unpredictable */
    }
  else
    {
      q = gfx_quantize_index (v, l->levels);
      level = l->level[q];
    }
  l->err[r][x] = v - level;
  if (depth == GFX_U8)
    ((uint8_t *) l->out)[index] = l->out_u8[q];
  else if (depth == GFX_U16)
    ((uint16_t *) l->out)[index] = l->out_u16[q];
  else
    ((float *) l->out)[index] = level;
}

static void
lanes_setup (const job *j, const band *b, lanes *l)
{
  memcpy (l->src, b->src, sizeof l->src);
  memcpy (l->err, b->err, sizeof l->err);
  memcpy (l->first, b->first, sizeof l->first);
  memcpy (l->weight, j->weight, sizeof l->weight);
  l->in = j->in->pixels;
  l->out = j->out->pixels;
  l->channels = (size_t) j->in->channels;
  l->levels = j->levels;
  l->n_taps = j->k->n_taps;
  l->level = j->level;
  l->in_u8 = j->in_u8;
  l->out_u8 = j->out_u8;
  l->out_u16 = j->out_u16;
}

/* All steps of one band.  Returns false when the run is abandoned. */
static inline __attribute__ ((always_inline)) bool
run_steps (job *j, const band *b, gfx_depth depth, int taps, bool two_levels)
{
  const int w = j->width, lag = j->lag, n = b->rows, last = w - 1 + (n - 1) * lag;
  lanes l;
  lanes_setup (j, b, &l);
  int seen = b->above ? 0 : w;
  for (int s = 0; s <= last; s++)
    {
      int need = s + lag < w ? s + lag : w;
      if (s < w && seen < need && (seen = wait_for (j, b->above, need)) < 0)
        return false;
      int r_lo = s >= w ? (s - w + lag) / lag : 0;
      int r_hi = s / lag < n - 1 ? s / lag : n - 1;
      if (r_lo == 0 && r_hi == BAND_ROWS - 1) /* steady state: a fixed count to unroll */
#pragma GCC unroll 8
        for (int r = 0; r < BAND_ROWS; r++)
          pixel (&l, r, s - r * lag, depth, taps, two_levels);
      else
        for (int r = r_lo; r <= r_hi; r++)
          pixel (&l, r, s - r * lag, depth, taps, two_levels);
      int x_last = s - (n - 1) * lag;
      if (x_last >= 0 && ((x_last + 1) % PUBLISH_EVERY == 0 || x_last == w - 1))
        atomic_store_explicit (&b->mine->done, x_last + 1, memory_order_release);
      if ((s & (CANCEL_EVERY - 1)) == 0 && gfx_progress_cancelled (j->progress))
        {
          atomic_store (&j->abort, 1);
          return false;
        }
    }
  return true;
}

/* One specialisation per depth, tap count (Floyd-Steinberg's 4 or any) and levels == 2:
 * constants the compiler folds into the inner loop. */
#define BAND_FN(name, depth, taps, two)                                                    \
  static bool name (job *j, const band *b) { return run_steps (j, b, depth, taps, two); }
BAND_FN (band_u8_4_2, GFX_U8, 4, true)
BAND_FN (band_u8_4_n, GFX_U8, 4, false)
BAND_FN (band_u8_any_2, GFX_U8, 0, true)
BAND_FN (band_u8_any_n, GFX_U8, 0, false)
BAND_FN (band_u16_4_2, GFX_U16, 4, true)
BAND_FN (band_u16_4_n, GFX_U16, 4, false)
BAND_FN (band_u16_any_2, GFX_U16, 0, true)
BAND_FN (band_u16_any_n, GFX_U16, 0, false)
BAND_FN (band_f32_4_2, GFX_F32, 4, true)
BAND_FN (band_f32_4_n, GFX_F32, 4, false)
BAND_FN (band_f32_any_2, GFX_F32, 0, true)
BAND_FN (band_f32_any_n, GFX_F32, 0, false)

typedef bool (*band_fn) (job *j, const band *b);
static const band_fn band_fns[3][2][2] = { /* [depth][any taps][levels > 2] */
  { { band_u8_4_2, band_u8_4_n }, { band_u8_any_2, band_u8_any_n } },
  { { band_u16_4_2, band_u16_4_n }, { band_u16_any_2, band_u16_any_n } },
  { { band_f32_4_2, band_f32_4_n }, { band_f32_any_2, band_f32_any_n } },
};

static float *
ring_row (const job *j, int g, int r)
{
  return j->ring + ((size_t) (g % j->ring_bands) * BAND_ROWS + r) * j->stride + PAD;
}

/* Points each row's taps at its source rows: the band's own rows, the previous band's
 * last two rows, or the zero row above the image. */
static void
band_setup (const job *j, int g, band *b)
{
  int channel = g / j->bands_per_channel, first_row = g % j->bands_per_channel * BAND_ROWS;
  int height = j->in->height;
  b->rows = height - first_row < BAND_ROWS ? height - first_row : BAND_ROWS;
  b->above = first_row > 0 ? &j->done[g - 1] : NULL;
  b->mine = &j->done[g];
  for (int r = 0; r < b->rows; r++)
    {
      b->err[r] = ring_row (j, g, r);
      b->first[r] = (size_t) (first_row + r) * j->width * j->in->channels + channel;
      for (int t = 0; t < j->k->n_taps; t++)
        {
          int dy = j->k->taps[t].dy, from = r - dy;
          const float *row = from >= 0 ? ring_row (j, g, from)
                             : first_row + from >= 0 ? ring_row (j, g - 1, BAND_ROWS + from)
                                                     : j->zero_row + PAD;
          b->src[r][t] = row - j->k->taps[t].dx;
        }
    }
}

static void
worker (void *ctx, int id, int n_workers)
{
  job *j = ctx;
  bool four = j->k->n_taps == 4;
  band_fn fn = band_fns[j->in->depth][!four][j->levels != 2];
  for (int g = id; g < j->total_bands; g += n_workers)
    {
      if (atomic_load_explicit (&j->abort, memory_order_relaxed))
        return;
      /* The ring slot's previous band must be finished: across a channel boundary its
       * successor (this worker's previous band) did not wait for it. */
      if (g >= j->ring_bands && wait_for (j, &j->done[g - j->ring_bands], j->width) < 0)
        return;
      band b;
      band_setup (j, g, &b);
      if (!fn (j, &b))
        return;
      if (id == 0)
        gfx_progress_update (j->progress, (double) (g + 1) / j->total_bands);
    }
}

/* Tables of the exact values the reference computes per sample or level. */
static void
job_tables (job *j)
{
  gfx_image probe = { 1, 1, 1, false, j->out->depth, NULL };
  union { uint8_t u8; uint16_t u16; float f32; } sample;
  probe.pixels = &sample;
  for (int q = 0; q < j->levels; q++)
    {
      j->level[q] = gfx_level_value (q, j->levels);
      gfx_sample_set (&probe, 0, j->level[q]);
      j->out_u8[q] = sample.u8;
      j->out_u16[q] = sample.u16;
    }
  gfx_image byte = { 1, 1, 1, false, GFX_U8, NULL };
  for (int v = 0; v < 256; v++)
    {
      sample.u8 = (uint8_t) v;
      byte.pixels = &sample;
      j->in_u8[v] = gfx_sample_get (&byte, 0);
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
  int threads = gfx_threads ();
  if (threads > j->total_bands)
    threads = j->total_bands;
  /* threads + 1 bands of rows: a band's slot was last used by the band threads + 1
   * earlier, read only by the next band, which is this worker's previous one (finished). */
  j->ring_bands = threads + 1;
  j->stride = ((size_t) in->width + 2 * PAD + 15) & ~(size_t) 15;
  j->ring = calloc ((size_t) j->ring_bands * BAND_ROWS * j->stride, sizeof (float));
  j->zero_row = calloc (j->stride, sizeof (float));
  j->done = aligned_alloc (64, sizeof (band_progress) * (size_t) j->total_bands);
  gfx_status st = GFX_OK;
  if (!j->ring || !j->zero_row || !j->done)
    st = gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the error rows of a %d-pixel-wide image",
                   in->width);
  else
    {
      for (int g = 0; g < j->total_bands; g++)
        atomic_init (&j->done[g].done, 0);
      atomic_init (&j->abort, 0);
      job_tables (j);
      gfx_parallel_run (threads, worker, j);
      if (atomic_load (&j->abort))
        st = gfx_fail (err, GFX_ERR_CANCELLED, "halftone cancelled");
    }
  free (j->ring);
  free (j->zero_row);
  free (j->done);
  free (j);
  return st;
}
