/* Inside the fast CPU halftone (halftone_cpu.c: bands, threads and their hand-offs;
 * halftone_cpu_band.c: one band's rows).  See halftone_cpu.c for the method. */
#ifndef GFX_HALFTONE_CPU_H
#define GFX_HALFTONE_CPU_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "halftone_kernels.h"
#include "image.h"
#include "pool.h"
#include "progress.h"

#define BAND_ROWS 8 /* rows one worker interleaves: independent dependency chains */
#define PAD 2       /* zero columns on each side of an error row: taps reach 2 */

typedef struct {
  alignas (64) gfx_counter done; /* columns of the band's last row that are finished */
  char pad[64 - sizeof (gfx_counter)];
} band_progress;

typedef struct {
  const gfx_image *in;
  gfx_image *out;
  const gfx_kernel *k;
  int levels, width, colors, lag;
  int bands_per_channel, total_bands, ring_bands;
  size_t block;        /* floats per band block: (width + 2 PAD) columns of BAND_ROWS */
  float *ring;         /* ring_bands blocks: input values, overwritten by the errors */
  float *zero_block;   /* stands for the rows above the image */
  uint8_t *q_rows;     /* per worker, width * BAND_ROWS level indices: its band's output
                          before it becomes samples (a band's ring block may be reused
                          while it is still writing its output) */
  band_progress *done; /* one per band */
  atomic_int next_band;  /* the next band to claim: bands are taken in order */
  atomic_int claimers;   /* workers still claiming bands (see retire() in halftone_cpu.c) */
  atomic_int abort;
  gfx_progress *progress;
  float weight[GFX_MAX_TAPS];
  float level[256];      /* gfx_level_value of each index */
  uint8_t out_u8[256];   /* gfx_sample_set of each level, per depth */
  uint16_t out_u16[256];
} job;

/* A band's rows are stored column by column (column x of row r at x * BAND_ROWS + r), so
 * the skewed step reaches every row's pixel and taps at fixed offsets from one pointer. */
typedef struct {
  float *e;                /* the band's block, at column 0 */
  const float *e_above;    /* the previous band's block, or the zero block */
  uint8_t *q;              /* level indices, same layout (this worker's) */
  const float *tap[BAND_ROWS][GFX_MAX_TAPS]; /* per row and tap: the source of column 0
                                                (row r - dy, column -dx) in e or e_above */
  size_t first[BAND_ROWS]; /* sample index of the row's column 0 in the images */
  int rows;
  band_progress *above;    /* the previous band of the channel, NULL for the first */
  band_progress *mine;
  double *waited;          /* the worker's time spent waiting, seconds */
} band;

/* Waits until `above` has finished `need` columns (spinning briefly, then asleep: see
 * gfx_counter_wait); returns what it has finished, or -1 when the run is being abandoned
 * (cancel, or another worker stopped).  Time spent waiting is added to *waited. */
int gfx_halftone_wait (job *j, band_progress *above, int need, double *waited);

/* When a worker retires (see retire() in halftone_cpu.c): more than this fraction of its
 * time and at least this many seconds spent waiting (0.25 and 2 ms; tests set 0 and 0 to
 * make every worker but the last retire after its first band), and how many did. */
extern double gfx_halftone_retire_fraction, gfx_halftone_retire_min_s;
extern atomic_int gfx_halftone_retired;

/* Computes one band: input into its rows, the skewed steps, level indices out into the
 * output image.  Returns false when the run is abandoned. */
bool gfx_halftone_band (job *j, const band *b);

#endif
