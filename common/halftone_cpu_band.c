/* One band of the fast CPU halftone (see halftone_cpu.c): its input samples become floats
 * in its ring rows, the skewed steps replace them by errors and write level indices, and
 * the indices become output samples.  Keeping the image layout (depth, channels) out of
 * the inner loop leaves it nothing but the reference's arithmetic. */
#include "halftone_cpu.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

#define PUBLISH_EVERY 64  /* columns between progress publications: fewer cache hand-offs */
#define CANCEL_EVERY 4096 /* steps between polls of the cancel flag */

/* Input samples as gfx_sample_get reads them. */
static void
band_load (const job *j, const band *b)
{
  const gfx_image *in = j->in;
  const size_t ch = (size_t) in->channels;
  for (int r = 0; r < b->rows; r++)
    {
      float *dst = b->err[r];
      if (in->depth == GFX_U8) /* the expression of gfx_sample_get, so it vectorises */
        for (int x = 0, n = j->width; x < n; x++)
          dst[x] = ((const uint8_t *) in->pixels)[b->first[r] + x * ch] * (1.0f / 255.0f);
      else if (in->depth == GFX_U16)
        for (int x = 0, n = j->width; x < n; x++)
          dst[x] = ((const uint16_t *) in->pixels)[b->first[r] + x * ch] * (1.0f / 65535.0f);
      else
        for (int x = 0, n = j->width; x < n; x++)
          dst[x] = ((const float *) in->pixels)[b->first[r] + x * ch];
    }
}

/* Level indices to output samples as gfx_sample_set stores the level values. */
static void
band_store (const job *j, const band *b)
{
  gfx_image *out = j->out;
  const size_t ch = (size_t) out->channels;
  for (int r = 0; r < b->rows; r++)
    {
      const uint8_t *q = b->q[r];
      if (out->depth == GFX_U8)
        for (int x = 0, n = j->width; x < n; x++)
          ((uint8_t *) out->pixels)[b->first[r] + x * ch] = j->out_u8[q[x]];
      else if (out->depth == GFX_U16)
        for (int x = 0, n = j->width; x < n; x++)
          ((uint16_t *) out->pixels)[b->first[r] + x * ch] = j->out_u16[q[x]];
      else
        for (int x = 0, n = j->width; x < n; x++)
          ((float *) out->pixels)[b->first[r] + x * ch] = j->level[q[x]];
    }
}

/* What the inner loop reads, in a local of run_steps whose address never escapes, so the
 * compiler may keep it in registers (nothing else can alias it). */
typedef struct {
  const float *src[BAND_ROWS][GFX_MAX_TAPS];
  float *err[BAND_ROWS];
  uint8_t *q[BAND_ROWS];
  float left[BAND_ROWS]; /* each row's last error: every kernel's tap 0 is (1, 0) */
  float weight[GFX_MAX_TAPS];
  int levels, n_taps;
  const float *level;
} lanes;

/* gfx_level_value (gfx_quantize_index (v, 2), 2) without a branch: halftone bits are
 * unpredictable.  v * (2 - 1) is v; the compare is false for NaN, as the index's. */
static inline float
two_level_value (float v)
{
#ifdef __SSE2__
  __m128 s = _mm_add_ss (_mm_set_ss (v), _mm_set_ss (0.5f));
  return _mm_cvtss_f32 (_mm_and_ps (_mm_cmpge_ss (s, _mm_set_ss (1.0f)), _mm_set_ss (1.0f)));
#else
  return (float) (v + 0.5f >= 1.0f);
#endif
}

/* One pixel of row r at column x: the reference's expressions.  The reference adds the
 * first product to 0.0f; starting from it is the same value except for the sign of a zero
 * sum, which cannot change any level. */
static inline __attribute__ ((always_inline)) void
pixel (lanes *l, int r, int x, int taps, bool two_levels)
{
  float e = l->weight[0] * l->left[r];
  int n = taps ? taps : l->n_taps;
#pragma GCC unroll 12
  for (int t = 1; t < n; t++)
    e += l->weight[t] * l->src[r][t][x];
  float v = l->err[r][x] + e, level;
  int q;
  if (two_levels)
    {
      level = two_level_value (v);
      q = v + 0.5f >= 1.0f;
    }
  else
    {
      q = gfx_quantize_index (v, l->levels);
      level = l->level[q];
    }
  float err = v - level;
  l->left[r] = err;
  l->err[r][x] = err;
  l->q[r][x] = (uint8_t) q;
}

static void
lanes_setup (const job *j, const band *b, lanes *l)
{
  for (int r = 0; r < BAND_ROWS; r++)
    {
      for (int t = 0; t < GFX_MAX_TAPS; t++)
        l->src[r][t] = b->src[r][t];
      l->err[r] = b->err[r];
      l->q[r] = b->q[r];
      l->left[r] = 0.0f; /* the zero column left of the image */
    }
  for (int t = 0; t < GFX_MAX_TAPS; t++)
    l->weight[t] = j->weight[t];
  l->levels = j->levels;
  l->n_taps = j->k->n_taps;
  l->level = j->level;
}

/* All steps of one band: step s does column s - r * lag of each row r. */
static inline __attribute__ ((always_inline)) bool
run_steps (job *j, const band *b, int taps, bool two_levels)
{
  const int w = j->width, lag = j->lag, n = b->rows, last = w - 1 + (n - 1) * lag;
  lanes l;
  lanes_setup (j, b, &l);
  int seen = b->above ? 0 : w;
  for (int s = 0; s <= last; s++)
    {
      int need = s + lag < w ? s + lag : w;
      if (s < w && seen < need && (seen = gfx_halftone_wait (j, b->above, need)) < 0)
        return false;
      if (n == BAND_ROWS && s >= (BAND_ROWS - 1) * lag && s < w) /* all rows: unrolled */
#pragma GCC unroll 16
        for (int r = 0; r < BAND_ROWS; r++)
          pixel (&l, r, s - r * lag, taps, two_levels);
      else /* the band's skewed ends: rows whose column s - r * lag is inside */
        for (int r = s >= w ? (s - w + lag) / lag : 0, hi = s / lag < n - 1 ? s / lag : n - 1;
             r <= hi; r++)
          pixel (&l, r, s - r * lag, taps, two_levels);
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

/* Specialisations: Floyd-Steinberg's 4 taps or any count, levels == 2 or any. */
static bool steps_4_2 (job *j, const band *b) { return run_steps (j, b, 4, true); }
static bool steps_4_n (job *j, const band *b) { return run_steps (j, b, 4, false); }
static bool steps_any_2 (job *j, const band *b) { return run_steps (j, b, 0, true); }
static bool steps_any_n (job *j, const band *b) { return run_steps (j, b, 0, false); }

bool
gfx_halftone_band (job *j, const band *b)
{
  static bool (*const steps[2][2]) (job *, const band *) = {
    { steps_4_2, steps_4_n }, { steps_any_2, steps_any_n } };
  band_load (j, b);
  if (!steps[j->k->n_taps != 4][j->levels != 2](j, b))
    return false;
  band_store (j, b);
  return true;
}
