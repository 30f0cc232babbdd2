/* The CPU path of the quadrant IIR filter (iir.h), one colour channel at a time.
 *
 * Two quadrants that recurse in the same vertical direction run together, one in each
 * lane of a two-double vector: pair 0 is (q1, q2), top-down, pair 1 is (q4, q3), bottom-up;
 * lane 0 runs left to right, lane 1 is the mirror image (right to left).  Each lane does
 * exactly the double operations of gfx_iir_point (iir_kernels.h), in its order, so the
 * result is bit for bit the CUDA kernel's; the vector only doubles the work per
 * instruction and gives the core two independent recursions.  The pairs are the tasks of
 * the threads; when there are more threads than pairs, each pair is a row wavefront of P
 * threads (row n on thread n mod P, each row at most CHUNK columns behind the row above,
 * through per-row progress counters).  A finished row becomes (float) lane 0 + (float)
 * lane 1 of its pair, in the image frame: the pair that gets to an image row first keeps
 * its sums (in the output's own samples for float images, else in one float plane), the
 * second writes the output row, ((q1 + q2) + (q3 + q4)) * 0.25f as gfx_iir_mean. */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "iir.h"
#include "iir_kernels.h"
#include "pool.h"

#define CHUNK 64          /* columns between progress publications in a wavefront */
#define PAIRS 2           /* (q1, q2) top-down, (q4, q3) bottom-up */
#define SMALL_IMAGE 1e5 /* fewer pixels: one thread (measured, quiet box: 283 x 283 takes 0.84 ms
                          on one thread, 0.76-0.89 on two; 400 x 400 1.74 against 1.29-1.60) */
#define MASK (GFX_IIR_MAX_MASK * GFX_IIR_MAX_MASK)

enum { ROW_FREE, ROW_CLAIMED, ROW_SUMS }; /* who has finished an image row */

typedef double v2 __attribute__ ((vector_size (16)));

typedef struct {
  v2 *x, *y;        /* ring of `ring` rows of x and y, width + M2 - 1 each (left pad) */
  gfx_counter *done; /* per row: columns computed so far */
} pair_rows;

typedef struct {
  const gfx_iir_filter *f;
  const gfx_image *in;
  gfx_image *out;
  int ch;                /* the colour channel being filtered */
  float *plane;          /* the first pair's sums of each row (integer depths only) */
  float *first;          /* where they go: the plane, or the output (float) */
  size_t first_step;     /* samples between two columns there */
  atomic_int *row_state; /* per image row: ROW_FREE, ROW_CLAIMED, ROW_SUMS */
  pair_rows rows[PAIRS];
  v2 a[PAIRS][MASK], b[PAIRS][MASK]; /* lane l of pair p: quadrant pair_quadrant[p][l] */
  int per_task, teams;   /* threads per pair (wavefront), pairs at once */
  int ring;              /* rows in each ring: per_task + M1 keeps every row needed */
  atomic_long rows_done;
  long rows_total;
  gfx_progress *progress;
  atomic_int stop;       /* cancelled: waiting threads give up */
} cpu_job;

static const int pair_quadrant[PAIRS][2] = { { 0, 1 }, { 3, 2 } };

static inline __attribute__ ((always_inline)) double
sample_at (const void *pixels, gfx_depth depth, size_t i)
{
  switch (depth)
    {
    case GFX_U8: return gfx_unit_from_u8 (((const uint8_t *) pixels)[i]);
    case GFX_U16: return gfx_unit_from_u16 (((const uint16_t *) pixels)[i]);
    default: return ((const float *) pixels)[i];
    }
}

/* The image row of row n of pair p's frame. */
static inline int
image_row (const cpu_job *job, int p, int n)
{
  return p ? job->in->height - 1 - n : n;
}

static inline __attribute__ ((always_inline)) void
load_samples (const void *pixels, gfx_depth depth, size_t first, size_t ch, int W, v2 *dst)
{
  for (int c = 0; c < W; c++)
    dst[c] = (v2) { sample_at (pixels, depth, first + c * ch),
                    sample_at (pixels, depth, first + (W - 1 - c) * ch) };
}

/* Row n of pair p's frame into dst[pad ..] (lane 0: columns left to right, lane 1: right
 * to left), replicated into dst[0 .. pad - 1]. */
static void
load_row (const cpu_job *job, int p, int n, int pad, v2 *dst)
{
  const gfx_image *in = job->in;
  int W = in->width;
  size_t ch = (size_t) in->channels, first = (size_t) image_row (job, p, n) * W * ch + job->ch;
  switch (in->depth) /* one loop per depth */
    {
    case GFX_U8: load_samples (in->pixels, GFX_U8, first, ch, W, dst + pad); break;
    case GFX_U16: load_samples (in->pixels, GFX_U16, first, ch, W, dst + pad); break;
    default: load_samples (in->pixels, GFX_F32, first, ch, W, dst + pad); break;
    }
  for (int k = 0; k < pad; k++)
    dst[k] = dst[pad];
}

static int
ring (int row, int m)
{
  return ((row % m) + m) % m;
}

static bool
stopped (void *ctx)
{
  return atomic_load_explicit (&((cpu_job *) ctx)->stop, memory_order_relaxed);
}

/* Waits until row n - 1 has `cols` columns (or the job stops); false when stopped. */
static bool
wait_row_above (cpu_job *job, const pair_rows *pr, int n, int cols)
{
  return n == 0 || gfx_counter_wait (&pr->done[n - 1], cols, stopped, job) >= 0;
}

/* Columns [c0, c1) of one row, both lanes: xr[k1], yr[k1] point at column 0 of the row
 * k1 rows up (k1 = 0: this row, whose outputs go to yr[0]).  Per lane the operations and
 * their order are gfx_iir_point's (see iir_kernels.h): S_a row by row, S_old from 0 row by
 * row skipping (0,0), (0,1), (1,0), then - b(1,0) y(1,0) - b(0,1) y(0,1).  y(0,1), the
 * previous output, stays in a register: it is the recursion's chain. */
static inline __attribute__ ((always_inline)) void
span (const v2 *restrict a, const v2 *restrict b, const v2 *const *xr, v2 *const *yr, int c0,
      int c1, int m1, int m2)
{
  v2 *yn = yr[0];
  v2 left = yn[c0 - 1];
  for (int c = c0; c < c1; c++)
    {
      v2 s_a = { 0.0, 0.0 }, s_old = { 0.0, 0.0 };
#pragma GCC unroll 7
      for (int r1 = 0; r1 < m1; r1++)
        {
          const v2 *xp = xr[r1] + c, *yp = yr[r1] + c;
          v2 row = a[r1 * m2] * xp[0];
#pragma GCC unroll 7
          for (int r2 = 1; r2 < m2; r2++)
            row = row + a[r1 * m2 + r2] * xp[-r2];
          v2 old = { 0.0, 0.0 };
#pragma GCC unroll 7
          for (int k2 = r1 == 0 ? 2 : r1 == 1 ? 1 : 0; k2 < m2; k2++)
            old = old + b[r1 * m2 + k2] * yp[-k2];
          s_a = r1 == 0 ? row : s_a + row;
          s_old = s_old + old;
        }
      v2 y = s_a - s_old;
      if (m1 > 1)
        y = y - b[m2] * yr[1][c];
      if (m2 > 1)
        y = y - b[1] * left;
      yn[c] = y;
      left = y;
    }
}

typedef void span_fn (const v2 *a, const v2 *b, const v2 *const *xr, v2 *const *yr, int c0,
                      int c1, int m1, int m2);

/* Square masks (3x3 is the default, identify's masks are square) with constant bounds: the
 * loops unroll completely, about twice as fast as span_any.  Same operations in the same
 * order, so the same bits. */
#define SPAN_SQUARE(m)                                                                      \
  static void span_##m##x##m (const v2 *a, const v2 *b, const v2 *const *xr,               \
                              v2 *const *yr, int c0, int c1, int m1, int m2)               \
  {                                                                                          \
    (void) m1, (void) m2;                                                                    \
    span (a, b, xr, yr, c0, c1, m, m);                                                       \
  }
SPAN_SQUARE (1)
SPAN_SQUARE (2)
SPAN_SQUARE (3)
SPAN_SQUARE (4)
SPAN_SQUARE (5)
SPAN_SQUARE (6)
SPAN_SQUARE (7)
#undef SPAN_SQUARE

static void
span_any (const v2 *a, const v2 *b, const v2 *const *xr, v2 *const *yr, int c0, int c1, int m1,
          int m2)
{
  span (a, b, xr, yr, c0, c1, m1, m2);
}

static span_fn *
span_for (int m1, int m2)
{
  static span_fn *const square[GFX_IIR_MAX_MASK + 1] = {
    NULL, span_1x1, span_2x2, span_3x3, span_4x4, span_5x5, span_6x6, span_7x7
  };
  return m1 == m2 ? square[m1] : span_any;
}

static void
store (gfx_image *out, size_t i, float v)
{
  switch (out->depth)
    {
    case GFX_U8: ((uint8_t *) out->pixels)[i] = gfx_unit_to_u8 (v); break;
    case GFX_U16: ((uint16_t *) out->pixels)[i] = gfx_unit_to_u16 (v); break;
    default: ((float *) out->pixels)[i] = v; break;
    }
}

/* Row `row` of the image is finished by one pair, whose outputs are yn (lane 1's column c
 * is image column W - 1 - c).  The first pair there stores its sums; the second waits for
 * them (one row's stores at most) and writes the output row. */
static void
finish_row (cpu_job *job, int row, const v2 *yn)
{
  int W = job->in->width;
  size_t step = job->first_step;
  float *first = job->first + (size_t) row * W * step;
  int expected = ROW_FREE;
  if (atomic_compare_exchange_strong_explicit (&job->row_state[row], &expected, ROW_CLAIMED,
                                               memory_order_acquire, memory_order_acquire))
    {
      for (int c = 0; c < W; c++)
        first[c * step] = (float) yn[c][0] + (float) yn[W - 1 - c][1];
      atomic_store_explicit (&job->row_state[row], ROW_SUMS, memory_order_release);
      return;
    }
  for (int spins = 0;
       atomic_load_explicit (&job->row_state[row], memory_order_acquire) != ROW_SUMS; spins++)
    if (spins > 64)
      sched_yield (); /* the first pair is storing this row */
  size_t ch = (size_t) job->out->channels, at = (size_t) row * W * ch + job->ch;
  for (int c = 0; c < W; c++)
    {
      float mine = (float) yn[c][0] + (float) yn[W - 1 - c][1];
      store (job->out, at + c * ch, (first[c * step] + mine) * 0.25f); /* gfx_iir_mean */
    }
}

/* The rows member, member + P, ... of pair p; false if stopped. */
static bool
run_rows (cpu_job *job, int p, int member)
{
  const pair_rows *pr = &job->rows[p];
  const gfx_iir_filter *f = job->f;
  int W = job->in->width, H = job->in->height, m1 = f->m1, m2 = f->m2, pad = m2 - 1;
  size_t stride = (size_t) W + pad;
  span_fn *const span_row = span_for (m1, m2);
  if (member == 0) /* rows above the image: x replicated from row 0, and y = x there */
    for (int j = 1; j < m1; j++)
      {
        v2 *xs = pr->x + ring (-j, job->ring) * stride;
        load_row (job, p, 0, pad, xs);
        memcpy (pr->y + ring (-j, job->ring) * stride, xs, sizeof (v2) * stride);
      }
  for (int n = member; n < H; n += job->per_task)
    {
      if (gfx_progress_cancelled (job->progress))
        {
          atomic_store (&job->stop, 1);
          return false;
        }
      const v2 *xr[GFX_IIR_MAX_MASK];
      v2 *yr[GFX_IIR_MAX_MASK];
      for (int k1 = 0; k1 < m1; k1++)
        {
          xr[k1] = pr->x + ring (n - k1, job->ring) * stride + pad;
          yr[k1] = pr->y + ring (n - k1, job->ring) * stride + pad;
        }
      load_row (job, p, n, pad, (v2 *) xr[0] - pad);
      for (int k = 0; k < pad; k++)
        yr[0][k - pad] = xr[0][0]; /* y = x left of the image */
      for (int c0 = 0; c0 < W; c0 += CHUNK)
        {
          int c1 = c0 + CHUNK < W ? c0 + CHUNK : W;
          if (!wait_row_above (job, pr, n, c1))
            return false;
          span_row (job->a[p], job->b[p], xr, yr, c0, c1, m1, m2);
          gfx_counter_publish (&pr->done[n], c1);
        }
      finish_row (job, image_row (job, p, n), yr[0]);
      long done = atomic_fetch_add (&job->rows_done, 1) + 1;
      gfx_progress_update (job->progress, (double) done / (double) job->rows_total);
    }
  return true;
}

static void
pair_worker (void *ctx, int worker, int n_workers)
{
  cpu_job *job = ctx;
  if (n_workers == 1) /* threads could not be created: this one runs everything */
    job->per_task = job->teams = 1;
  int team = worker / job->per_task, member = worker % job->per_task;
  for (int p = team; p < PAIRS && team < job->teams; p += job->teams)
    if (!run_rows (job, p, member))
      return;
}

/* The sum plane, rings and counters of one channel, allocated once for all. */
static gfx_status
alloc_job (cpu_job *job, gfx_error *err)
{
  size_t W = (size_t) job->in->width, H = (size_t) job->in->height;
  size_t ring_v2 = (size_t) job->ring * (W + job->f->m2 - 1);
  bool float_out = job->out->depth == GFX_F32;
  job->plane = float_out ? NULL : malloc (sizeof (float) * W * H);
  job->row_state = calloc (H, sizeof (atomic_int));
  bool ok = (float_out || job->plane) && job->row_state;
  for (int p = 0; p < PAIRS; p++)
    {
      job->rows[p].x = aligned_alloc (64, (2 * ring_v2 * sizeof (v2) + 63) / 64 * 64);
      job->rows[p].y = job->rows[p].x ? job->rows[p].x + ring_v2 : NULL;
      job->rows[p].done = calloc (H, sizeof (gfx_counter));
      ok = ok && job->rows[p].x && job->rows[p].done;
    }
  if (!ok)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the IIR rows (%zu MiB)",
                     (sizeof (float) * W * H + 2 * PAIRS * ring_v2 * sizeof (v2)) >> 20);
  for (int p = 0; p < PAIRS; p++)
    for (int i = 0; i < job->f->m1 * job->f->m2; i++)
      {
        const int *q = pair_quadrant[p];
        job->a[p][i] = (v2) { job->f->a[q[0]][i], job->f->a[q[1]][i] };
        job->b[p][i] = (v2) { job->f->b[q[0]][i], job->f->b[q[1]][i] };
      }
  return GFX_OK;
}

static void
free_job (cpu_job *job)
{
  free (job->plane);
  free (job->row_state);
  for (int p = 0; p < PAIRS; p++)
    {
      free (job->rows[p].x);
      free (job->rows[p].done);
    }
}

gfx_status
gfx_iir_filter_cpu (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out,
                    gfx_progress *progress, gfx_error *err)
{
  gfx_status st = in->has_alpha ? gfx_image_clone (out, in, err) /* alpha passes through */
                                : gfx_image_alloc (out, in->width, in->height, in->channels,
                                                   false, in->depth, err);
  if (st != GFX_OK)
    return st;
  int colours = gfx_image_color_channels (in);
  int threads = gfx_threads_for ((double) in->width * in->height, SMALL_IMAGE, false);
  cpu_job *job = calloc (1, sizeof *job);
  if (!job)
    {
      gfx_image_free (out);
      return gfx_fail (err, GFX_ERR_NOMEM, "out of memory");
    }
  *job = (cpu_job) { .f = f, .in = in, .out = out, .progress = progress,
                     .rows_total = (long) PAIRS * colours * in->height };
  job->per_task = threads / PAIRS > 1 ? threads / PAIRS : 1;
  job->teams = threads < PAIRS ? threads : PAIRS;
  job->ring = job->per_task + f->m1;
  int per_task = job->per_task, teams = job->teams;
  st = alloc_job (job, err);
  for (int ch = 0; ch < colours && st == GFX_OK; ch++)
    {
      job->ch = ch;
      job->per_task = per_task, job->teams = teams; /* a one-worker fallback changes them */
      for (int p = 0; p < PAIRS; p++)
        for (int n = 0; n < in->height; n++)
          gfx_counter_init (&job->rows[p].done[n], 0);
      memset (job->row_state, 0, sizeof (atomic_int) * (size_t) in->height);
      job->first = job->plane ? job->plane : (float *) out->pixels + ch;
      job->first_step = job->plane ? 1 : (size_t) out->channels;
      gfx_parallel_run (per_task * teams, pair_worker, job);
      if (gfx_progress_cancelled (progress) || atomic_load (&job->stop))
        st = gfx_fail (err, GFX_ERR_CANCELLED, "IIR deblur cancelled");
    }
  free_job (job);
  free (job);
  if (st != GFX_OK)
    gfx_image_free (out);
  return st;
}
