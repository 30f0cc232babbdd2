#include "fragments.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

#define MIN_COHERENCE 0.8 /* (l1 - l2) / (l1 + l2) of the structure tensor: one direction */
#define FIT_TOLERANCE 0.05 /* RMS misfit of the blurred-step model / contrast */
#define ORIENT_BINS 8     /* orientation classes over 180 degrees */
#define MIN_FRAGMENTS 3
#define MIN_SPREAD (M_PI / 6) /* the orientations must differ by at least 30 degrees */

void
gfx_fragment_opts_default (gfx_fragment_opts *opt)
{
  opt->size = 32;
  opt->max_fragments = 24;
  opt->min_contrast = 0.08;
  opt->checkpoint = NULL;
  opt->checkpoint_ctx = NULL;
}

void
gfx_luminance_plane (const gfx_image *img, float *plane)
{
  int nc = gfx_image_color_channels (img);
  size_t n = (size_t) img->width * (size_t) img->height;
  for (size_t p = 0; p < n; p++)
    {
      float s = 0.0f;
      for (int c = 0; c < nc; c++)
        s += gfx_sample_get (img, p * (size_t) img->channels + (size_t) c);
      plane[p] = s / (float) nc;
    }
}

/* Sobel gradient / 8 (a unit step gives 1 per pixel), edges replicated. */
static void
sobel (const float *lum, int w, int h, float *gx, float *gy)
{
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++)
      {
        int u = i > 0 ? i - 1 : 0, d = i < h - 1 ? i + 1 : h - 1;
        int l = j > 0 ? j - 1 : 0, r = j < w - 1 ? j + 1 : w - 1;
#define L(y, x) lum[(size_t) (y) * (size_t) w + (size_t) (x)]
        gx[(size_t) i * w + j] = (L (u, r) + 2 * L (i, r) + L (d, r) - L (u, l) - 2 * L (i, l)
                                  - L (d, l)) / 8.0f;
        gy[(size_t) i * w + j] = (L (d, l) + 2 * L (d, j) + L (d, r) - L (u, l) - 2 * L (u, j)
                                  - L (u, r)) / 8.0f;
#undef L
      }
}

typedef struct {
  double score, theta;
  int x0, y0;
} candidate;

static int
by_score (const void *pa, const void *pb)
{
  const candidate *a = pa, *b = pb;
  return a->score > b->score ? -1 : a->score < b->score ? 1 : 0;
}

/* Structure tensor of every window on the size / 4 grid, summed from size / 4 blocks;
 * windows whose gradients share one direction become candidates. */
static candidate *
find_candidates (const float *gx, const float *gy, int w, int h, int size, int *n_cand)
{
  int blk = size / 4, bw = w / blk, bh = h / blk;
  double *tensor = calloc ((size_t) bw * (size_t) bh * 3, sizeof (double));
  candidate *cand = malloc (sizeof (candidate) * (size_t) (bw > 4 ? bw - 3 : 1)
                            * (size_t) (bh > 4 ? bh - 3 : 1));
  *n_cand = 0;
  if (!tensor || !cand)
    {
      free (tensor);
      free (cand);
      return NULL;
    }
  for (int i = 0; i < bh * blk; i++)
    for (int j = 0; j < bw * blk; j++)
      {
        double x = gx[(size_t) i * w + j], y = gy[(size_t) i * w + j];
        double *t = tensor + ((size_t) (i / blk) * bw + (size_t) (j / blk)) * 3;
        t[0] += x * x, t[1] += y * y, t[2] += x * y;
      }
  for (int bi = 0; bi + 4 <= bh; bi++)
    for (int bj = 0; bj + 4 <= bw; bj++)
      {
        double jxx = 0, jyy = 0, jxy = 0;
        for (int di = 0; di < 4; di++)
          for (int dj = 0; dj < 4; dj++)
            {
              const double *t = tensor + ((size_t) (bi + di) * bw + (size_t) (bj + dj)) * 3;
              jxx += t[0], jyy += t[1], jxy += t[2];
            }
        double tr = jxx + jyy;
        if (!(tr > 1e-12))
          continue;
        double coh = sqrt ((jxx - jyy) * (jxx - jyy) + 4 * jxy * jxy) / tr;
        if (coh < MIN_COHERENCE)
          continue;
        cand[(*n_cand)++] = (candidate) { tr * pow (coh, 4), 0.5 * atan2 (2 * jxy, jxx - jyy),
                                          bj * blk, bi * blk };
      }
  free (tensor);
  qsort (cand, (size_t) *n_cand, sizeof *cand, by_score);
  return cand;
}

typedef struct {
  double t0, s, l0, l1, rms;
} step_fit;

/* The window as a profile across the edge: pixels binned by their distance t to the window
 * centre along the normal (bins of PROFILE_BIN px), with each bin's count and sums of t, v,
 * v^2.  Fitting on bins (t at the bin's mean) costs a fifth of fitting on pixels. */
#define PROFILE_BIN 0.25
typedef struct {
  int n;
  double *count, *sum_t, *sum_v, *sum_vv;
} profile;

static int
profile_bins (int size)
{
  return (int) ceil (size * M_SQRT2 / PROFILE_BIN) + 2;
}

/* The blurred-step model v(t) = l0 + (l1 - l0) Phi((t - t0) / s) at fixed (t0, s): the
 * levels by simple linear regression of v on Phi, and the RMS misfit. */
static void
eval_step (const profile *pr, double t0, double s, double *phi, step_fit *f)
{
  double n = 0, sp = 0, sv = 0, spp = 0, spv = 0, svv = 0;
  for (int k = 0; k < pr->n; k++)
    {
      if (pr->count[k] == 0)
        continue;
      double p = 0.5 * erfc (-(pr->sum_t[k] / pr->count[k] - t0) / (s * M_SQRT2));
      phi[k] = p;
      n += pr->count[k], sp += pr->count[k] * p, spp += pr->count[k] * p * p;
      sv += pr->sum_v[k], spv += p * pr->sum_v[k], svv += pr->sum_vv[k];
    }
  double var = spp - sp * sp / n, slope = var > 1e-12 ? (spv - sp * sv / n) / var : 0.0;
  double l0 = (sv - slope * sp) / n, sq = svv;
  for (int k = 0; k < pr->n; k++)
    if (pr->count[k] > 0)
      {
        double m = l0 + slope * phi[k];
        sq += pr->count[k] * m * m - 2 * m * pr->sum_v[k];
      }
  *f = (step_fit) { t0, s, l0, l0 + slope, sqrt (fmax (sq, 0.0) / n) };
}

/* Best fit along one coordinate (0: t0, 1: s) on a grid centred at the current value. */
static void
search (const profile *pr, int coord, double half, double step, double lo_limit,
        double hi_limit, double *phi, step_fit *best)
{
  double centre = coord ? best->s : best->t0;
  for (double x = centre - half; x <= centre + half + 1e-9; x += step)
    {
      if (x < lo_limit || x > hi_limit)
        continue;
      step_fit f;
      eval_step (pr, coord ? best->t0 : x, coord ? x : best->s, phi, &f);
      if (f.rms < best->rms)
        *best = f;
    }
}

/* Fits the blurred-step model by coarse-to-fine coordinate search: the edge position within
 * 1.5 px of the gradient centroid, the blur spread from 0.25 px to size / 8. */
static step_fit
fit_step (const profile *pr, double t0, double spread, int size, double *phi)
{
  double s_max = size / 8.0, t_lo = t0 - 1.5, t_hi = t0 + 1.5;
  step_fit best;
  eval_step (pr, t0, fmin (fmax (spread, 0.25), s_max), phi, &best);
  for (int round = 0; round < 2; round++)
    {
      search (pr, 1, s_max, 0.25, 0.25, s_max, phi, &best);
      search (pr, 1, 0.25, 0.05, 0.25, s_max, phi, &best);
      search (pr, 0, 1.5, 0.25, t_lo, t_hi, phi, &best);
      search (pr, 0, 0.25, 0.025, t_lo, t_hi, phi, &best);
    }
  return best;
}

/* The edge line starts at the centroid of the directional gradient; a blurred ideal step is
 * fitted to the window's profile; false unless the step explains the window (misfit at most
 * FIT_TOLERANCE of the contrast) and the line stays in the window's middle half. */
static int
estimate_edge (const float *lum, const float *gx, const float *gy, int w, const candidate *c,
               const gfx_fragment_opts *opt, profile *pr, gfx_edge_fragment *f)
{
  int size = opt->size;
  double nx = cos (c->theta), ny = sin (c->theta), half = size / 2.0;
  double sg = 0, st = 0, stt = 0;
  for (int k = 0; k < pr->n; k++)
    pr->count[k] = pr->sum_t[k] = pr->sum_v[k] = pr->sum_vv[k] = 0.0;
  for (int i = 0; i < size; i++)
    for (int j = 0; j < size; j++)
      {
        size_t at = (size_t) (c->y0 + i) * w + (size_t) (c->x0 + j);
        double t = (j + 0.5 - half) * nx + (i + 0.5 - half) * ny, v = lum[at];
        int bin = (int) floor (t / PROFILE_BIN) + pr->n / 2;
        pr->count[bin] += 1, pr->sum_t[bin] += t, pr->sum_v[bin] += v, pr->sum_vv[bin] += v * v;
        double g = fabs (gx[at] * nx + gy[at] * ny);
        sg += g, st += g * t, stt += g * t * t;
      }
  double t0 = st / sg, spread = sqrt (fmax (stt / sg - t0 * t0, 0.0));
  if (fabs (t0) > size / 4.0)
    return 0;
  step_fit fit = fit_step (pr, t0, spread, size, pr->sum_vv + pr->n); /* phi scratch */
  double contrast = fabs (fit.l1 - fit.l0);
  if (contrast < opt->min_contrast || fit.rms > FIT_TOLERANCE * contrast
      || fabs (fit.t0) > size / 4.0)
    return 0;
  *f = (gfx_edge_fragment) { c->x0, c->y0, size, c->theta, fit.t0, fit.l0, fit.l1, fit.s,
                             c->score };
  return 1;
}

static int
orientation_bin (double theta)
{
  double folded = fmod (theta + 2 * M_PI, M_PI);
  return (int) (folded / M_PI * ORIENT_BINS) % ORIENT_BINS;
}

static int
overlaps (const gfx_edge_fragment *frags, int n, const candidate *c, int size)
{
  for (int k = 0; k < n; k++)
    if (abs (frags[k].x0 - c->x0) * 4 < 3 * size && abs (frags[k].y0 - c->y0) * 4 < 3 * size)
      return 1;
  return 0;
}

/* Largest angle between two edge orientations, folded into [0, 90] degrees. */
static double
orientation_spread (const gfx_edge_fragment *frags, int n)
{
  double best = 0;
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      {
        double d = fmod (fabs (frags[a].angle - frags[b].angle), M_PI);
        best = fmax (best, fmin (d, M_PI - d));
      }
  return best;
}

/* The search state: a candidate is passed over when its orientation class is full or its
 * window overlaps an accepted fragment.  Both only grow, so a candidate passed over once
 * stays passed over. */
typedef struct {
  const gfx_fragment_opts *opt;
  gfx_edge_fragment *frags;
  int n, cap, per_bin[ORIENT_BINS];
} selection;

static int
passed_over (const selection *sel, const candidate *c)
{
  return sel->per_bin[orientation_bin (c->theta)] >= sel->cap
         || overlaps (sel->frags, sel->n, c, sel->opt->size);
}

/* One batch of candidates fitted on all cores; fits are pure functions of the candidate,
 * so a batch gives what fitting them one by one would. */
typedef struct {
  const float *lum, *gx, *gy;
  int w;
  const gfx_fragment_opts *opt;
  const candidate **batch;
  int n;
  gfx_edge_fragment *fits;
  unsigned char *ok;
  profile *scratch; /* one per worker */
  atomic_int next;
} fit_batch;

static void
fit_worker (void *ctx, int worker, int n_workers)
{
  (void) n_workers;
  fit_batch *b = ctx;
  for (int k; (k = atomic_fetch_add (&b->next, 1)) < b->n;)
    b->ok[k] = (unsigned char) estimate_edge (b->lum, b->gx, b->gy, b->w, b->batch[k], b->opt,
                                              &b->scratch[worker], &b->fits[k]);
}

/* Candidates are taken best first, as if one by one: each that is not passed over and
 * whose edge fits becomes a fragment.  They are fitted ahead in batches of BATCH_PER_WORKER
 * per worker (a fit costs about half a millisecond, and a textured picture may have a
 * hundred thousand candidates that all fail); b has room for that many and a scratch
 * profile per worker.  Between batches the caller's checkpoint may stop the search. */
#define BATCH_PER_WORKER 16
static gfx_status
select_fragments (const candidate *cand, int n_cand, fit_batch *b, int workers, selection *sel,
                  gfx_error *err)
{
  const gfx_fragment_opts *opt = sel->opt;
  gfx_status st = GFX_OK;
  for (int k = 0; st == GFX_OK && k < n_cand && sel->n < opt->max_fragments;)
    {
      if (opt->checkpoint)
        st = opt->checkpoint (opt->checkpoint_ctx, (double) k / n_cand, err);
      b->n = 0, atomic_store (&b->next, 0);
      for (; st == GFX_OK && k < n_cand && b->n < BATCH_PER_WORKER * workers; k++)
        if (!passed_over (sel, &cand[k]))
          b->batch[b->n++] = &cand[k];
      if (st != GFX_OK || !b->n)
        break;
      gfx_parallel_run (b->n < workers ? b->n : workers, fit_worker, b);
      for (int i = 0; i < b->n && sel->n < opt->max_fragments; i++)
        if (b->ok[i] && !passed_over (sel, b->batch[i]))
          sel->per_bin[orientation_bin (b->batch[i]->theta)]++,
            sel->frags[sel->n++] = b->fits[i];
    }
  return st;
}

gfx_status
gfx_fragments_find (const float *lum, int width, int height, const gfx_fragment_opts *opt,
                    gfx_edge_fragment *frags, int *n_frags, gfx_error *err)
{
  *n_frags = 0;
  if (opt->size < GFX_FRAG_MIN_SIZE || opt->size > GFX_FRAG_MAX_SIZE || opt->size % 4)
    return gfx_fail (err, GFX_ERR_PARAM, "fragment size %d: a multiple of 4 from %d to %d",
                     opt->size, GFX_FRAG_MIN_SIZE, GFX_FRAG_MAX_SIZE);
  if (opt->max_fragments < 1 || opt->max_fragments > GFX_FRAG_MAX)
    return gfx_fail (err, GFX_ERR_PARAM, "fragment count %d: 1 to %d", opt->max_fragments,
                     GFX_FRAG_MAX);
  if (width < opt->size || height < opt->size)
    return gfx_fail (err, GFX_ERR_INPUT, "the area %d x %d is smaller than one %d x %d "
                     "fragment", width, height, opt->size, opt->size);
  size_t n = (size_t) width * (size_t) height;
  float *gx = malloc (n * sizeof (float)), *gy = malloc (n * sizeof (float));
  int n_cand = 0;
  candidate *cand = NULL;
  if (gx && gy)
    {
      sobel (lum, width, height, gx, gy);
      cand = find_candidates (gx, gy, width, height, opt->size, &n_cand);
    }
  int workers = gfx_threads_for (n_cand, 8, false), bins = profile_bins (opt->size);
  const size_t most = (size_t) BATCH_PER_WORKER * (size_t) workers;
  fit_batch b = { lum, gx, gy, width, opt, malloc (sizeof (candidate *) * most), 0,
                  malloc (sizeof (gfx_edge_fragment) * most), malloc (most),
                  malloc (sizeof (profile) * (size_t) workers), 0 };
  double *sums = malloc (sizeof (double) * 5 * (size_t) bins * (size_t) workers);
  gfx_status st = GFX_OK;
  if (!cand || !b.batch || !b.fits || !b.ok || !b.scratch || !sums)
    st = gfx_fail (err, GFX_ERR_NOMEM, "out of memory while searching for edge fragments");
  else
    {
      for (int k = 0; k < workers; k++) /* 4 sums + the phi scratch */
        {
          double *at = sums + (size_t) k * 5 * (size_t) bins;
          b.scratch[k] = (profile) { bins, at, at + bins, at + 2 * bins, at + 3 * bins };
        }
      selection sel = { .opt = opt, .frags = frags,
                        .cap = opt->max_fragments / 4 > 2 ? opt->max_fragments / 4 : 2 };
      st = select_fragments (cand, n_cand, &b, workers, &sel, err);
      *n_frags = sel.n;
    }
  free (gx), free (gy), free (cand), free (sums);
  free (b.batch), free (b.fits), free (b.ok), free (b.scratch);
  if (st == GFX_OK && *n_frags < MIN_FRAGMENTS)
    st = *n_frags == 1
           ? gfx_fail (err, GFX_ERR_INPUT, "found only one straight edge between flat areas (at "
                       "least %d are needed): give a sharp reference instead", MIN_FRAGMENTS)
           : gfx_fail (err, GFX_ERR_INPUT, "found only %d straight edges between flat areas (at "
                       "least %d are needed): give a sharp reference instead", *n_frags,
                       MIN_FRAGMENTS);
  else if (st == GFX_OK && orientation_spread (frags, *n_frags) < MIN_SPREAD)
    st = gfx_fail (err, GFX_ERR_INPUT, "the %d straight edges found all have about the same "
                   "orientation, so the filter cannot be identified: give a sharp reference "
                   "instead", *n_frags);
  return st;
}

void
gfx_fragment_step (const gfx_edge_fragment *f, float *y)
{
  enum { SUB = 8 };
  double nx = cos (f->angle), ny = sin (f->angle), half = f->size / 2.0;
  for (int i = 0; i < f->size; i++)
    for (int j = 0; j < f->size; j++)
      {
        int inside = 0;
        for (int si = 0; si < SUB; si++)
          for (int sj = 0; sj < SUB; sj++)
            {
              double t = (j + (sj + 0.5) / SUB - half) * nx + (i + (si + 0.5) / SUB - half) * ny;
              inside += t > f->offset;
            }
        double cover = inside / (double) (SUB * SUB);
        y[(size_t) i * f->size + j] = (float) (f->level0 + (f->level1 - f->level0) * cover);
      }
}
