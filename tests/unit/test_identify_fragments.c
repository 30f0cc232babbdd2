/* Automatic edge fragments (fragments.h): on a blurred picture of polygons whose sharp
 * version is known, every retouched fragment must match the sharp picture; failures
 * (no edges, one orientation only) are clear input errors; the overlay marks them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/fragments.h"
#include "check.h"

#define W 256
#define H 256

/* Inside a convex polygon given by its vertices (counter-clockwise in x-right, y-down). */
static int
inside (const double (*v)[2], int n, double x, double y)
{
  for (int k = 0; k < n; k++)
    {
      const double *a = v[k], *b = v[(k + 1) % n];
      if ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) < 0)
        return 0;
    }
  return 1;
}

/* A rotated square and a triangle (edges at many angles), 8 x 8 supersampled. */
static void
draw_sharp (float *img, double spin)
{
  double sq[4][2], tri[3][2] = { { 150, 230 }, { 245, 150 }, { 240, 235 } };
  for (int k = 0; k < 4; k++)
    {
      double a = spin + k * M_PI / 2;
      sq[k][0] = 90 + 60 * cos (a), sq[k][1] = 90 + 60 * sin (a);
    }
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      {
        double v = 0;
        for (int s = 0; s < 64; s++)
          {
            double x = j + (s % 8 + 0.5) / 8, y = i + (s / 8 + 0.5) / 8;
            v += inside ((const double (*)[2]) sq, 4, x, y) ? 0.8
                 : inside ((const double (*)[2]) tri, 3, x, y) ? 0.55 : 0.2;
          }
        img[i * W + j] = (float) (v / 64);
      }
}

static void
gaussian_blur (const float *in, float *out, double sigma)
{
  enum { R = 6 };
  double k[2 * R + 1], sum = 0;
  for (int d = -R; d <= R; d++)
    sum += k[d + R] = exp (-d * d / (2 * sigma * sigma));
  float *tmp = malloc (sizeof (float) * W * H);
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      {
        double s = 0;
        for (int d = -R; d <= R; d++)
          s += k[d + R] * in[i * W + (j + d < 0 ? 0 : j + d >= W ? W - 1 : j + d)];
        tmp[i * W + j] = (float) (s / sum);
      }
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      {
        double s = 0;
        for (int d = -R; d <= R; d++)
          s += k[d + R] * tmp[(i + d < 0 ? 0 : i + d >= H ? H - 1 : i + d) * W + j];
        out[i * W + j] = (float) (s / sum);
      }
  free (tmp);
}

static void
test_polygons (double spin, double sigma)
{
  static float sharp[W * H], blurred[W * H], step[GFX_FRAG_MAX_SIZE * GFX_FRAG_MAX_SIZE];
  draw_sharp (sharp, spin);
  gaussian_blur (sharp, blurred, sigma);
  gfx_fragment_opts opt;
  gfx_fragment_opts_default (&opt);
  gfx_edge_fragment frags[GFX_FRAG_MAX];
  int n = 0;
  gfx_error err = { 0 };
  gfx_status st = gfx_fragments_find (blurred, W, H, &opt, frags, &n, &err);
  CHECK (st == GFX_OK && n >= 4, "fragments_found_spin%.2f_sigma%.1f (%d: %s)", spin, sigma, n,
         st == GFX_OK ? "ok" : err.msg);
  double worst = 0, worst_width = 0;
  for (int k = 0; k < n; k++)
    {
      gfx_fragment_step (&frags[k], step);
      double sq = 0;
      for (int i = 0; i < opt.size; i++)
        for (int j = 0; j < opt.size; j++)
          {
            double d = step[i * opt.size + j] - sharp[(frags[k].y0 + i) * W + frags[k].x0 + j];
            sq += d * d;
          }
      worst = fmax (worst, sqrt (sq / (opt.size * opt.size)));
      worst_width = fmax (worst_width, fabs (frags[k].width - sigma));
    }
  CHECK (n > 0 && worst < 0.02, "retouched_steps_match_sharp_spin%.2f (worst RMS %.4f)", spin,
         worst);
  /* The fitted spread of an ideal step blurred by a Gaussian is about its sigma. */
  CHECK (n > 0 && worst_width < 0.3, "edge_blur_estimated_spin%.2f (worst |s - sigma| %.3f)",
         spin, worst_width);
}

static void
test_failures (void)
{
  static float flat[W * H], stripes[W * H];
  gfx_fragment_opts opt;
  gfx_fragment_opts_default (&opt);
  gfx_edge_fragment frags[GFX_FRAG_MAX];
  int n;
  gfx_error err = { 0 };
  for (int p = 0; p < W * H; p++)
    flat[p] = 0.5f;
  gfx_status st = gfx_fragments_find (flat, W, H, &opt, frags, &n, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "straight edges"), "flat_image_no_fragments (%s)",
         err.msg);
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      stripes[i * W + j] = (j / 40) % 2 ? 0.8f : 0.2f;
  gaussian_blur (stripes, flat, 1.5);
  st = gfx_fragments_find (flat, W, H, &opt, frags, &n, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, "orientation"),
         "one_orientation_is_refused (%d found: %s)", n, err.msg);
  opt.size = 30;
  st = gfx_fragments_find (flat, W, H, &opt, frags, &n, &err);
  CHECK (st == GFX_ERR_PARAM, "fragment_size_must_be_multiple_of_4 (%s)", err.msg);
}

/* The candidates are fitted in parallel batches: any number of threads finds the same
 * fragments in the same order. */
/* The polygons turned by 0.3 and blurred with sigma 1.5: the scene of the tests below. */
static void
blurred_polygons (float *blurred)
{
  static float sharp[W * H];
  draw_sharp (sharp, 0.3);
  gaussian_blur (sharp, blurred, 1.5);
}

static void
test_threads (void)
{
  static float blurred[W * H];
  blurred_polygons (blurred);
  gfx_fragment_opts opt;
  gfx_fragment_opts_default (&opt);
  gfx_edge_fragment one[GFX_FRAG_MAX], many[GFX_FRAG_MAX];
  int n_one = 0, n_many = 0;
  gfx_error err = { 0 };
  setenv ("GPUFX_THREADS", "1", 1);
  gfx_fragments_find (blurred, W, H, &opt, one, &n_one, &err);
  const char *threads[] = { "2", "3", "8" };
  for (int t = 0; t < 3; t++)
    {
      setenv ("GPUFX_THREADS", threads[t], 1);
      memset (many, 0, sizeof many);
      gfx_fragments_find (blurred, W, H, &opt, many, &n_many, &err);
      int same = n_one >= 4 && n_many == n_one;
      for (int k = 0; same && k < n_one; k++) /* field by field: the padding is not set */
        same = one[k].x0 == many[k].x0 && one[k].y0 == many[k].y0 && one[k].size == many[k].size
               && one[k].angle == many[k].angle && one[k].offset == many[k].offset
               && one[k].level0 == many[k].level0 && one[k].level1 == many[k].level1
               && one[k].width == many[k].width && one[k].score == many[k].score;
      CHECK (same,
             "same_fragments_on_%s_threads (%d vs %d on 1)", threads[t], n_many, n_one);
    }
  unsetenv ("GPUFX_THREADS");
}

/* Counts the checkpoints and stops the search at the `stop_at`-th. */
typedef struct {
  int calls, stop_at, backwards;
  double last;
} search_watch;

static gfx_status
watch_search (void *ctx, double searched, gfx_error *err)
{
  search_watch *w = ctx;
  w->backwards += searched < w->last || searched < 0 || searched >= 1;
  w->last = searched;
  if (++w->calls == w->stop_at)
    return gfx_fail (err, GFX_ERR_CANCELLED, "stopped by the checkpoint");
  return GFX_OK;
}

/* A texture of coherent stripes has many candidates whose fits all fail (seconds of work
 * on a large picture): the search reports how far it is and stops when told to. */
static void
test_checkpoint (void)
{
  static float waves[W * H];
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      waves[i * W + j] = (float) (0.5 + 0.4 * sin ((0.8 * j + 0.3 * i) / 3.0));
  gfx_fragment_opts opt;
  gfx_fragment_opts_default (&opt);
  gfx_edge_fragment frags[GFX_FRAG_MAX];
  int n = 0;
  gfx_error err = { 0 };
  search_watch all = { .stop_at = -1 }, stop = { .stop_at = 3 };
  opt.checkpoint = watch_search, opt.checkpoint_ctx = &all;
  gfx_status st = gfx_fragments_find (waves, W, H, &opt, frags, &n, &err);
  CHECK (st == GFX_ERR_INPUT && all.calls >= 3 && !all.backwards,
         "search_reports_progress (%d checkpoints, last %.2f, %d out of order: %s)", all.calls,
         all.last, all.backwards, err.msg);
  opt.checkpoint_ctx = &stop;
  st = gfx_fragments_find (waves, W, H, &opt, frags, &n, &err);
  CHECK (st == GFX_ERR_CANCELLED && stop.calls == 3 && strstr (err.msg, "checkpoint"),
         "search_stops_at_the_checkpoint (status %d after %d checkpoints: %s)", (int) st,
         stop.calls, err.msg);
}

static void
test_overlay (void)
{
  static float blurred[W * H];
  blurred_polygons (blurred);
  gfx_fragment_opts opt;
  gfx_fragment_opts_default (&opt);
  gfx_edge_fragment frags[GFX_FRAG_MAX];
  int n = 0;
  gfx_error err;
  gfx_fragments_find (blurred, W, H, &opt, frags, &n, &err);
  gfx_image img = { .width = W, .height = H, .channels = 1, .depth = GFX_F32, .pixels = blurred },
            over;
  gfx_status st = gfx_fragments_overlay (&img, frags, n, &over, &err);
  int coloured = 0, corner_coloured = 0;
  if (st == GFX_OK)
    {
      const uint8_t *p = over.pixels;
      for (int k = 0; k < W * H; k++)
        coloured += p[3 * k] != p[3 * k + 1] || p[3 * k + 1] != p[3 * k + 2];
      const uint8_t *c = p + 3 * (frags[0].y0 * W + frags[0].x0);
      corner_coloured = c[0] != c[1] || c[1] != c[2];
    }
  CHECK (st == GFX_OK && over.channels == 3 && over.depth == GFX_U8 && coloured > n * 4 * 20
           && corner_coloured,
         "overlay_marks_fragments (%d coloured pixels for %d fragments)", coloured, n);
  if (st == GFX_OK)
    gfx_image_free (&over);
}

int
main (void)
{
  test_polygons (0.3, 1.5);
  test_polygons (0.75, 1.0);
  test_polygons (0.1, 2.2);
  test_failures ();
  test_threads ();
  test_checkpoint ();
  test_overlay ();
  return check_exit_status ();
}
