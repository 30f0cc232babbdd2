/* One band of the fast CPU halftone (see halftone_cpu.c): its input samples become floats
 * in its ring block, the skewed steps replace them by errors and write level indices, and
 * the indices become output samples.  Keeping the image layout (depth, channels) out of
 * the inner loop leaves it nothing but the reference's arithmetic. */
#include <stddef.h>

#include "halftone_cpu.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

#define PUBLISH_EVERY 64  /* columns between progress publications: fewer cache hand-offs */
#define CANCEL_EVERY 4096 /* steps between polls of the cancel flag */

#define B BAND_ROWS

/* Input samples as gfx_sample_get reads them, into the band's column-major block: a
 * column at a time, so the block is written in order while the rows are read as streams. */
static inline __attribute__ ((always_inline)) void
load_rows (const job *j, const band *b, int rows, gfx_depth depth)
{
  const void *pixels = j->in->pixels;
  const size_t ch = (size_t) j->in->channels;
  size_t at[B];
  for (int r = 0; r < rows; r++)
    at[r] = b->first[r];
  float *dst = b->e;
  for (int x = 0, n = j->width; x < n; x++, dst += B)
#pragma GCC unroll 16
    for (int r = 0; r < rows; r++)
      {
        size_t i = at[r] + (size_t) x * ch;
        dst[r] = depth == GFX_U8    ? ((const uint8_t *) pixels)[i] * (1.0f / 255.0f)
                 : depth == GFX_U16 ? ((const uint16_t *) pixels)[i] * (1.0f / 65535.0f)
                                    : ((const float *) pixels)[i];
      }
}

/* Level indices to output samples as gfx_sample_set stores the level values. */
static inline __attribute__ ((always_inline)) void
store_rows (const job *j, const band *b, int rows, gfx_depth depth)
{
  void *pixels = j->out->pixels;
  const size_t ch = (size_t) j->out->channels;
  const uint8_t *out_u8 = j->out_u8;
  const uint16_t *out_u16 = j->out_u16;
  const float *level = j->level;
  size_t at[B];
  for (int r = 0; r < rows; r++)
    at[r] = b->first[r];
  const uint8_t *q = b->q;
  for (int x = 0, n = j->width; x < n; x++, q += B)
#pragma GCC unroll 16
    for (int r = 0; r < rows; r++)
      {
        size_t i = at[r] + (size_t) x * ch;
        if (depth == GFX_U8)
          ((uint8_t *) pixels)[i] = out_u8[q[r]];
        else if (depth == GFX_U16)
          ((uint16_t *) pixels)[i] = out_u16[q[r]];
        else
          ((float *) pixels)[i] = level[q[r]];
      }
}

/* A full band's row count is a constant the loops unroll over. */
static void
band_load (const job *j, const band *b)
{
  gfx_depth d = j->in->depth;
  if (b->rows == B)
    d == GFX_U8 ? load_rows (j, b, B, GFX_U8) : d == GFX_U16 ? load_rows (j, b, B, GFX_U16)
                                                           : load_rows (j, b, B, GFX_F32);
  else
    load_rows (j, b, b->rows, d);
}

static void
band_store (const job *j, const band *b)
{
  gfx_depth d = j->out->depth;
  if (b->rows == B)
    d == GFX_U8 ? store_rows (j, b, B, GFX_U8) : d == GFX_U16 ? store_rows (j, b, B, GFX_U16)
                                                            : store_rows (j, b, B, GFX_F32);
  else
    store_rows (j, b, b->rows, d);
}

/* Quantises v = input + e; stores its error and level index at *err, *q.  The reference's
 * expressions; for two levels without a branch (halftone bits are unpredictable): the
 * compare with GFX_LEVEL2_THRESHOLD, false for NaN as gfx_quantize_index's. */
static inline __attribute__ ((always_inline)) void
quantise (int levels, const float *level, float v, float *err, uint8_t *q, bool two_levels)
{
  if (two_levels)
    {
#ifdef __SSE2__
      const __m128 one = _mm_set1_ps (1.0f);
      __m128 up = _mm_cmpge_ps (_mm_set1_ps (v), _mm_set1_ps (GFX_LEVEL2_THRESHOLD));
      *err = v - _mm_cvtss_f32 (_mm_and_ps (up, one));
      *q = (uint8_t) (_mm_movemask_ps (up) & 1);
#else
      int up = v >= GFX_LEVEL2_THRESHOLD;
      *err = v - (float) up;
      *q = (uint8_t) up;
#endif
    }
  else
    {
      int index = gfx_quantize_index (v, levels);
      *err = v - level[index];
      *q = (uint8_t) index;
    }
}

/* What the general pixel reads, copied into a local of run_steps whose address never
 * escapes: the byte stores of level indices cannot alias it, so nothing is reloaded. */
typedef struct {
  const float *tap[B][GFX_MAX_TAPS];
  float weight[GFX_MAX_TAPS];
  float *e;
  uint8_t *q;
  const float *level;
  int n_taps, levels;
} sources;

static void
sources_setup (const job *j, const band *b, sources *src)
{
  for (int r = 0; r < B; r++)
    for (int t = 0; t < GFX_MAX_TAPS; t++)
      src->tap[r][t] = b->tap[r][t];
  for (int t = 0; t < GFX_MAX_TAPS; t++)
    src->weight[t] = j->weight[t];
  src->e = b->e;
  src->q = b->q;
  src->level = j->level;
  src->n_taps = j->k->n_taps;
  src->levels = j->levels;
}

/* One pixel of row r at column x, any kernel: its input (e holds it until quantise
 * overwrites it with the error) plus the taps in table order, as the reference. */
static inline __attribute__ ((always_inline)) void
pixel (const sources *src, int r, int x, bool two_levels)
{
  size_t at = (size_t) x * B;
  float v = src->e[at + (size_t) r];
  for (int t = 0; t < src->n_taps; t++)
    v = gfx_diffuse (v, src->weight[t], src->tap[r][t][at]);
  at += (size_t) r;
  quantise (src->levels, src->level, v, &src->e[at], &src->q[at], two_levels);
}

/* Floyd-Steinberg's taps (1,1) (0,1) (-1,1) (1,0) and lag 2 as constants: at step s every
 * access is a fixed offset from e + s * B.  Used when the table says exactly that. */
static inline __attribute__ ((always_inline)) void
fs_pixel (const job *j, float *here, const float *above, uint8_t *q, const float w[4], int r,
          bool two_levels)
{
  const int col = -2 * r;                       /* row r is at column s - 2r */
  const float *up = r ? here + (r - 1) : above + (B - 1);
  float v = here[col * B + r];
  v = gfx_diffuse (v, w[0], up[(col - 1) * B]);
  v = gfx_diffuse (v, w[1], up[col * B]);
  v = gfx_diffuse (v, w[2], up[(col + 1) * B]);
  v = gfx_diffuse (v, w[3], here[(col - 1) * B + r]);
  quantise (j->levels, j->level, v, &here[col * B + r], &q[col * B + r], two_levels);
}

static bool
is_fs (const gfx_kernel *k)
{
  static const signed char fs[4][2] = { { 1, 1 }, { 0, 1 }, { -1, 1 }, { 1, 0 } };
  for (int t = 0; t < 4; t++)
    if (k->n_taps != 4 || k->taps[t].dx != fs[t][0] || k->taps[t].dy != fs[t][1])
      return false;
  return true;
}

/* All steps of one band: step s does column s - r * lag of each row r. */
static inline __attribute__ ((always_inline)) bool
run_steps (job *j, const band *b, bool fs, bool two_levels)
{
  const int w = j->width, lag = fs ? 2 : j->lag, n = b->rows, last = w - 1 + (n - 1) * lag;
  const float weight[4] = { j->weight[0], j->weight[1], j->weight[2], j->weight[3] };
  sources src;
  sources_setup (j, b, &src);
  int seen = b->above ? 0 : w;
  for (int s = 0; s <= last; s++)
    {
      int need = s + lag < w ? s + lag : w;
      if (s < w && seen < need && (seen = gfx_halftone_wait (j, b->above, need, b->waited)) < 0)
        return false;
      if (fs && n == B && s >= (B - 1) * lag && s < w) /* all rows inside: unrolled */
        {
          float *here = b->e + (size_t) s * B;
          const float *above = b->e_above + (size_t) s * B;
          uint8_t *q = b->q + (size_t) s * B; /* a local: byte stores cannot alias it */
#pragma GCC unroll 16
          for (int r = 0; r < B; r++)
            fs_pixel (j, here, above, q, weight, r, two_levels);
        }
      else /* rows whose column s - r * lag is inside */
        for (int r = s >= w ? (s - w + lag) / lag : 0, hi = s / lag < n - 1 ? s / lag : n - 1;
             r <= hi; r++)
          pixel (&src, r, s - r * lag, two_levels);
      int x_last = s - (n - 1) * lag;
      if (x_last >= 0 && ((x_last + 1) % PUBLISH_EVERY == 0 || x_last == w - 1))
        gfx_counter_publish (&b->mine->done, x_last + 1);
      if ((s & (CANCEL_EVERY - 1)) == 0 && gfx_progress_cancelled (j->progress))
        {
          atomic_store (&j->abort, 1);
          return false;
        }
    }
  return true;
}

/* Specialisations: Floyd-Steinberg or any kernel, levels == 2 or any.  Each is built twice,
 * picked once at load time: with FMA instructions where the CPU has them, and for any x86-64
 * (fmaf from libm, correctly rounded too: the same results, slower). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FMA_CLONES __attribute__ ((target_clones ("fma", "default")))
#else
#define FMA_CLONES
#endif
FMA_CLONES static bool
steps_fs_2 (job *j, const band *b) { return run_steps (j, b, true, true); }
FMA_CLONES static bool
steps_fs_n (job *j, const band *b) { return run_steps (j, b, true, false); }
FMA_CLONES static bool
steps_any_2 (job *j, const band *b) { return run_steps (j, b, false, true); }
FMA_CLONES static bool
steps_any_n (job *j, const band *b) { return run_steps (j, b, false, false); }

bool
gfx_halftone_band (job *j, const band *b)
{
  static bool (*const steps[2][2]) (job *, const band *) = {
    { steps_fs_2, steps_fs_n }, { steps_any_2, steps_any_n } };
  band_load (j, b);
  if (!steps[!is_fs (j->k)][j->levels != 2](j, b))
    return false;
  band_store (j, b);
  return true;
}
