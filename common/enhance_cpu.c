/* The CPU path of local enhance: per decision plane, a key plane (the samples, their
 * luma, or fixed-point floats), exact image totals, then the decisions from running sums
 * (per worker band of rows: column sums of k and k^2 updated by one row in and one row
 * out, then a sliding horizontal sum), so the cost per pixel does not depend on n. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "enhance_internal.h"
#include "pool.h"

typedef struct {
  const gfx_image *in;
  const gfx_enhance_params *p;
  int w, h, r, plane;
  enh_key_kind kind;
  const void *key;  /* w*h keys */
  void *key_owned;  /* key, when built here */
  float fix_scale;  /* float images: gfx_enh_fix's scale */
  int *idx;         /* idx[e] = reflected column of e - r, e in [0, w + 2r] */
  gfx_enh_thresholds th;
  uint8_t *dec;     /* this plane's w*h decisions */
  gfx_i128 *t1;     /* per-worker totals */
  gfx_u128 *t2;
  gfx_progress *progress;
  double stage0, stage_span; /* progress: this stage covers [stage0, stage0 + span) */
  atomic_int cancelled, nomem;
} enh_job;

static void
band_of (int h, int worker, int n_workers, int *y0, int *y1)
{
  *y0 = (int) ((long long) h * worker / n_workers);
  *y1 = (int) ((long long) h * (worker + 1) / n_workers);
}

/* Worker 0 reports progress; everybody polls cancel.  Returns nonzero to stop. */
static int
row_done (enh_job *j, int worker, int y, int y0, int y1)
{
  if (j->progress && gfx_progress_cancelled (j->progress))
    {
      atomic_store (&j->cancelled, 1);
      return 1;
    }
  if (worker == 0 && j->progress && y1 > y0)
    gfx_progress_update (j->progress, j->stage0 + j->stage_span * (y + 1 - y0) / (y1 - y0));
  return atomic_load (&j->cancelled);
}

/* --- keys --------------------------------------------------------------------------- */

static void
key_row (const enh_job *j, int y)
{
  const gfx_image *in = j->in;
  int c = in->channels, w = j->w;
  size_t base = (size_t) y * w;
  int lum = !j->p->per_channel && gfx_image_color_channels (in) >= 3;
  for (int x = 0; x < w; x++)
    {
      size_t s = (base + x) * c;
      if (in->depth == GFX_F32)
        {
          const float *px = (const float *) in->pixels + s;
          float v = lum ? gfx_enh_luma_float (px[0], px[1], px[2]) : px[j->plane];
          ((int32_t *) j->key_owned)[base + x] = gfx_enh_fix (v, j->fix_scale);
        }
      else if (in->depth == GFX_U16)
        {
          const uint16_t *px = (const uint16_t *) in->pixels + s;
          ((uint16_t *) j->key_owned)[base + x]
            = (uint16_t) (lum ? gfx_enh_luma_int (px[0], px[1], px[2]) : px[j->plane]);
        }
      else
        {
          const uint8_t *px = (const uint8_t *) in->pixels + s;
          ((uint8_t *) j->key_owned)[base + x]
            = (uint8_t) (lum ? gfx_enh_luma_int (px[0], px[1], px[2]) : px[j->plane]);
        }
    }
}

/* Keys of one row band, then its exact totals. */
static void
keys_and_totals (void *ctx, int worker, int n_workers)
{
  enh_job *j = ctx;
  int y0, y1;
  band_of (j->h, worker, n_workers, &y0, &y1);
  gfx_i128 t1 = 0;
  gfx_u128 t2 = 0;
  for (int y = y0; y < y1; y++)
    {
      if (j->key_owned)
        key_row (j, y);
      size_t b = (size_t) y * j->w;
      /* 64-bit partial sums over chunks of 2^15 keys (k^2 <= 2^48), then 128-bit. */
      for (int x0 = 0; x0 < j->w; x0 += 1 << 15)
        {
          int64_t c1 = 0;
          uint64_t c2 = 0;
          int x1 = j->w - x0 < (1 << 15) ? j->w : x0 + (1 << 15);
          if (j->kind == ENH_KEY_U8)
            for (int x = x0; x < x1; x++)
              {
                uint32_t k = ((const uint8_t *) j->key)[b + x];
                c1 += k;
                c2 += k * k;
              }
          else if (j->kind == ENH_KEY_U16)
            for (int x = x0; x < x1; x++)
              {
                uint64_t k = ((const uint16_t *) j->key)[b + x];
                c1 += (int64_t) k;
                c2 += k * k;
              }
          else
            for (int x = x0; x < x1; x++)
              {
                int64_t k = ((const int32_t *) j->key)[b + x];
                c1 += k;
                c2 += (uint64_t) (k * k);
              }
          t1 += c1;
          t2 += c2;
        }
      if (row_done (j, worker, y, y0, y1))
        break;
    }
  j->t1[worker] = t1;
  j->t2[worker] = t2;
}

/* --- running sums ------------------------------------------------------------------- */

/* One band of decisions for a key type KT with window sums S1T, S2T (unsigned types wrap;
 * the true window sums fit, so the results are exact).  DECIDE(s1, s2) gives 0/1. */
#define ENH_BAND(NAME, KT, S1T, S2T, DECIDE)                                            \
  static int NAME (enh_job *j, int worker, int y0, int y1, S1T *c1, S2T *c2)            \
  {                                                                                     \
    const KT *key = j->key;                                                             \
    const int w = j->w, h = j->h, r = j->r, *idx = j->idx;                              \
    const uint32_t n_win = (uint32_t) ((2 * r + 1) * (2 * r + 1));                      \
    const gfx_enh_thresholds *th = &j->th;                                              \
    memset (c1, 0, sizeof *c1 * (size_t) w);                                            \
    memset (c2, 0, sizeof *c2 * (size_t) w);                                            \
    for (int dy = -r; dy <= r; dy++)                                                    \
      {                                                                                 \
        const KT *row = key + (size_t) gfx_enh_reflect (y0 + dy, h) * w;                \
        for (int x = 0; x < w; x++)                                                     \
          {                                                                             \
            c1[x] += (S1T) row[x];                                                      \
            c2[x] += (S2T) row[x] * (S2T) row[x];                                       \
          }                                                                             \
      }                                                                                 \
    for (int y = y0; y < y1; y++)                                                       \
      {                                                                                 \
        if (y > y0)                                                                     \
          {                                                                             \
            const KT *a = key + (size_t) gfx_enh_reflect (y + r, h) * w;                \
            const KT *b = key + (size_t) gfx_enh_reflect (y - r - 1, h) * w;            \
            for (int x = 0; x < w; x++)                                                 \
              {                                                                         \
                c1[x] += (S1T) a[x] - (S1T) b[x];                                       \
                c2[x] += (S2T) a[x] * (S2T) a[x] - (S2T) b[x] * (S2T) b[x];             \
              }                                                                         \
          }                                                                             \
        S1T s1 = 0;                                                                     \
        S2T s2 = 0;                                                                     \
        for (int e = 0; e < 2 * r + 1; e++)                                             \
          {                                                                             \
            s1 += c1[idx[e]];                                                           \
            s2 += c2[idx[e]];                                                           \
          }                                                                             \
        uint8_t *dec = j->dec + (size_t) y * w;                                         \
        int x = 0, interior_end = w - r - 1; /* reflected columns only near the borders */ \
        for (; x < w && (x < r || x >= interior_end); x++)                              \
          {                                                                             \
            dec[x] = (uint8_t) (DECIDE);                                                \
            s1 += c1[idx[x + 2 * r + 1]] - c1[idx[x]];                                  \
            s2 += c2[idx[x + 2 * r + 1]] - c2[idx[x]];                                  \
          }                                                                             \
        for (; x < interior_end; x++)                                                   \
          {                                                                             \
            dec[x] = (uint8_t) (DECIDE);                                                \
            s1 += c1[x + r + 1] - c1[x - r];                                            \
            s2 += c2[x + r + 1] - c2[x - r];                                            \
          }                                                                             \
        for (; x < w; x++)                                                              \
          {                                                                             \
            dec[x] = (uint8_t) (DECIDE);                                                \
            s1 += c1[idx[x + 2 * r + 1]] - c1[idx[x]];                                  \
            s2 += c2[idx[x + 2 * r + 1]] - c2[idx[x]];                                  \
          }                                                                             \
        if (row_done (j, worker, y, y0, y1))                                            \
          return 0;                                                                     \
      }                                                                                 \
    return 1;                                                                           \
  }

ENH_BAND (band_u8, uint8_t, uint32_t, uint32_t,
          gfx_enh_decide64 (s1, gfx_enh_d_u32 (n_win, s1, s2), th))
ENH_BAND (band_u16, uint16_t, uint32_t, uint64_t,
          gfx_enh_decide64 (s1, gfx_enh_d_u64 (n_win, s1, s2), th))
ENH_BAND (band_i32, int32_t, int64_t, uint64_t,
          gfx_enh_decide128 (s1, gfx_enh_d_i64 (n_win, s1, s2), th))

static void
decide_band (void *ctx, int worker, int n_workers)
{
  enh_job *j = ctx;
  int y0, y1;
  band_of (j->h, worker, n_workers, &y0, &y1);
  if (y0 >= y1)
    return;
  void *c1 = malloc ((size_t) j->w * 8), *c2 = malloc ((size_t) j->w * 8);
  if (!c1 || !c2)
    atomic_store (&j->nomem, 1);
  else if (j->kind == ENH_KEY_U8)
    band_u8 (j, worker, y0, y1, c1, c2);
  else if (j->kind == ENH_KEY_U16)
    band_u16 (j, worker, y0, y1, c1, c2);
  else
    band_i32 (j, worker, y0, y1, c1, c2);
  free (c1);
  free (c2);
}

/* --- one decision plane ------------------------------------------------------------- */

static gfx_status
plane_keys (enh_job *j, gfx_error *err)
{
  const gfx_image *in = j->in;
  if (in->channels == 1 && in->depth != GFX_F32)
    {
      j->key = in->pixels; /* the samples are the keys */
      return GFX_OK;
    }
  size_t size = j->kind == ENH_KEY_U8 ? 1 : j->kind == ENH_KEY_U16 ? 2 : 4;
  j->key_owned = malloc ((size_t) j->w * j->h * size);
  if (!j->key_owned)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the statistics plane (%d x %d)",
                     j->w, j->h);
  j->key = j->key_owned;
  return GFX_OK;
}

/* Keys of the plane (in j->key; the caller frees j->key_owned) and their exact totals. */
static gfx_status
plane_totals (enh_job *j, int n_workers, gfx_i128 *t1, gfx_u128 *t2, gfx_error *err)
{
  gfx_status st = plane_keys (j, err);
  if (st != GFX_OK)
    return st;
  gfx_parallel_run (n_workers, keys_and_totals, j);
  *t1 = 0;
  *t2 = 0;
  for (int i = 0; i < n_workers; i++)
    {
      *t1 += j->t1[i];
      *t2 += j->t2[i];
    }
  return atomic_load (&j->cancelled) ? gfx_fail (err, GFX_ERR_CANCELLED, "cancelled") : GFX_OK;
}

static gfx_status
decide_plane (enh_job *j, int n_workers, gfx_error *err)
{
  gfx_i128 t1;
  gfx_u128 t2;
  j->stage_span /= 2;
  gfx_status st = plane_totals (j, n_workers, &t1, &t2, err);
  uint64_t n_pix = (uint64_t) j->w * j->h;
  const gfx_enhance_region *rg = &j->p->region;
  if (rg->n) /* a preview: the whole region's statistics */
    {
      n_pix = rg->n;
      t1 = (gfx_i128) (((gfx_u128) (uint64_t) rg->t1_hi[j->plane] << 64) | rg->t1_lo[j->plane]);
      t2 = ((gfx_u128) rg->t2_hi[j->plane] << 64) | rg->t2_lo[j->plane];
    }
  const double k[4] = { j->p->k0, j->p->k1, j->p->k2, j->p->k3 };
  uint32_t n_win = (uint32_t) (j->p->window * j->p->window);
  j->th = gfx_enh_thresholds_make (t1, t2, n_pix, n_win, k, j->p->rule);
  j->stage0 += j->stage_span;
  if (st == GFX_OK)
    gfx_parallel_run (n_workers, decide_band, j);
  free (j->key_owned);
  j->key_owned = NULL;
  if (st != GFX_OK)
    return st;
  if (atomic_load (&j->cancelled))
    return gfx_fail (err, GFX_ERR_CANCELLED, "cancelled");
  if (atomic_load (&j->nomem))
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the running sums");
  return GFX_OK;
}

static gfx_status
job_init (enh_job *j, const gfx_image *in, const gfx_enhance_params *p, gfx_progress *progress,
          int *n_workers, gfx_error *err)
{
  *j = (enh_job) { .in = in, .p = p, .w = in->width, .h = in->height, .r = p->window / 2,
                   .kind = enh_key_kind_of (in->depth), .progress = progress };
  *n_workers = gfx_threads () < in->height ? gfx_threads () : in->height;
  j->idx = malloc (sizeof *j->idx * (size_t) (j->w + 2 * j->r + 1));
  /* Zeroed: where threads cannot be created the job runs as one worker (pool.h), which
   * fills only the first totals, and all n_workers are summed. */
  j->t1 = calloc ((size_t) *n_workers, sizeof *j->t1);
  j->t2 = calloc ((size_t) *n_workers, sizeof *j->t2);
  if (!j->idx || !j->t1 || !j->t2)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory");
  for (int e = 0; e <= j->w + 2 * j->r; e++)
    j->idx[e] = gfx_enh_reflect (e - j->r, j->w);
  if (in->depth == GFX_F32) /* a preview's keys are the whole region's */
    j->fix_scale = p->region.n ? p->region.fix_scale
                               : gfx_enh_fix_scale (gfx_image_max_abs (in));
  return GFX_OK;
}

static void
job_free (enh_job *j)
{
  free (j->idx);
  free (j->t1);
  free (j->t2);
}

/* Decisions of every plane into dec (planes * w * h bytes), then the output. */
static gfx_status
cpu_run (const gfx_image *in, gfx_image *out, gfx_image *mask, const gfx_enhance_params *p,
         gfx_progress *progress, uint8_t *dec, gfx_error *err)
{
  int n_workers, planes = enh_planes (in, p);
  enh_job j;
  gfx_status st = job_init (&j, in, p, progress, &n_workers, err);
  for (int pl = 0; st == GFX_OK && pl < planes; pl++)
    {
      j.plane = pl;
      j.dec = dec + (size_t) pl * j.w * j.h;
      j.stage0 = 0.9 * pl / planes;
      j.stage_span = 0.9 / planes;
      st = decide_plane (&j, n_workers, err);
    }
  job_free (&j);
  return st == GFX_OK ? enh_cpu_apply (in, out, mask, p, dec, progress, err) : st;
}

gfx_status
enh_cpu_into (const gfx_image *in, gfx_image *out, gfx_image *mask,
              const gfx_enhance_params *p, gfx_progress *progress, gfx_error *err)
{
  size_t plane = (size_t) in->width * in->height;
  uint8_t *dec = malloc (plane * (size_t) enh_planes (in, p));
  if (!dec)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory for the decision planes (%d x %d)",
                     in->width, in->height);
  gfx_status st = cpu_run (in, out, mask, p, progress, dec, err);
  free (dec);
  return st;
}

gfx_status
gfx_enhance_region_totals (const gfx_image *in, const gfx_enhance_params *p,
                           gfx_enhance_region *region, gfx_error *err)
{
  gfx_status st = gfx_enhance_check_input (in, p, err);
  int n_workers;
  enh_job j;
  memset (region, 0, sizeof *region);
  gfx_enhance_params own = *p;
  own.region.n = 0; /* the keys of this image, not of an earlier region */
  if (st == GFX_OK)
    st = job_init (&j, in, &own, NULL, &n_workers, err);
  if (st == GFX_OK)
    region->fix_scale = j.fix_scale;
  for (int pl = 0; st == GFX_OK && pl < enh_planes (in, p) && pl < 3; pl++)
    {
      gfx_i128 t1;
      gfx_u128 t2;
      j.plane = pl;
      st = plane_totals (&j, n_workers, &t1, &t2, err);
      free (j.key_owned);
      j.key_owned = NULL;
      region->t1_hi[pl] = (int64_t) (t1 >> 64);
      region->t1_lo[pl] = (uint64_t) t1;
      region->t2_hi[pl] = (uint64_t) (t2 >> 64);
      region->t2_lo[pl] = (uint64_t) t2;
    }
  if (st == GFX_OK)
    region->n = (uint64_t) in->width * in->height;
  if (st != GFX_ERR_PARAM && st != GFX_ERR_INPUT)
    job_free (&j);
  return st;
}
