/* Host-side set-up of the GPU halftone kernels, shared by cuda/halftone.cu and the CPU
 * emulation test (tests/emu/halftone_emu.cpp).  Include after halftone_kernel.cuh and
 * halftone_rows.cuh. */
#ifndef GFX_HALFTONE_SETUP_CUH
#define GFX_HALFTONE_SETUP_CUH

#include <cstring>

#include "../common/halftone_kernels.h"
#include "../common/image.h"

namespace gfxht
{

/* The compile-time tap geometry of the kernels must be gfx_kernels' own. */
inline bool
geometry_matches (int k)
{
  const gfx_kernel *g = &gfx_kernels[k];
  Geo d = geo (k);
  if (d.n != g->n_taps || d.rows != g->rows || d.reach != g->reach || d.rows > 3
      || g->taps[g->n_taps - 1].dx != 1 || g->taps[g->n_taps - 1].dy != 0)
    return false;
  for (int t = 0; t < g->n_taps; t++)
    if (d.dx[t] != g->taps[t].dx || d.dy[t] != g->taps[t].dy || g->taps[t].dy < 0
        || (g->taps[t].dy == 0 && g->taps[t].dx != 1 && g->taps[t].dx != 2))
      return false;
  return true;
}

/* Smallest float v with gfx_quantize_index (v, 2) == 1: the index is monotone in v, so
 * "v >= th" is the same test (NaN gives 0 either way). */
inline float
level2_threshold (void)
{
  unsigned lo = 0, hi = 0x3f800000u; /* index(0) = 0, index(1) = 1 */
  while (hi - lo > 1)
    {
      unsigned mid = lo + (hi - lo) / 2;
      float v;
      memcpy (&v, &mid, sizeof v);
      if (gfx_quantize_index (v, 2) == 1)
        hi = mid;
      else
        lo = mid;
    }
  float th;
  memcpy (&th, &hi, sizeof th);
  return th;
}

/* The stored sample of a level, exactly as gfx_sample_set writes it. */
inline unsigned
level_sample (float v, int depth)
{
  gfx_image one;
  unsigned char bytes[4] = { 0, 0, 0, 0 };
  memset (&one, 0, sizeof one);
  one.width = one.height = one.channels = 1;
  one.depth = (gfx_depth) depth;
  one.pixels = bytes;
  gfx_sample_set (&one, 0, v);
  if (depth == GFX_U8)
    return bytes[0];
  if (depth == GFX_U16)
    {
      uint16_t s;
      memcpy (&s, bytes, 2);
      return s;
    }
  unsigned u;
  memcpy (&u, bytes, 4);
  return u;
}

inline void
fill_params (Params &p, const gfx_image *in, int kernel, int levels, int bs, int margin)
{
  const gfx_kernel *g = &gfx_kernels[kernel];
  memset (&p, 0, sizeof p);
  p.width = in->width;
  p.height = in->height;
  p.stride = in->channels;
  p.nch = gfx_image_color_channels (in);
  p.nstrips = (in->height + bs - 1) / bs;
  p.levels = levels;
  p.margin = margin;
  p.th = level2_threshold ();
  for (int t = 0; t < g->n_taps; t++)
    p.w[t] = gfx_tap_weight (g->taps[t].weight, g->divisor);
  for (int q = 0; q < levels; q++)
    {
      p.lvl[q] = gfx_level_value (q, levels);
      p.outv[q] = level_sample (p.lvl[q], in->depth);
    }
}

/* The rows kernel's parameters (K rows per thread, nw warps per block); in_bytes: the
 * readable bytes of the input buffer, a multiple of 16 at least gfx_image_bytes. */
inline void
fill_rparams (RParams &r, const gfx_image *in, int kernel, int levels, int K, int margin,
              long long in_bytes)
{
  Params p;
  fill_params (p, in, kernel, levels, 32, margin);
  memset (&r, 0, sizeof r);
  r.in_bytes = in_bytes;
  r.width = p.width;
  r.height = p.height;
  r.stride = p.stride;
  r.sb = p.stride * (int) gfx_depth_bytes (in->depth);
  r.nch = p.nch;
  r.nst = (p.height + 32 * K - 1) / (32 * K);
  r.levels = levels;
  r.margin = margin;
  r.pitch = rows_pitch (r.sb);
  r.warp_smem = rows_warp_smem (K, r.sb);
  r.th = p.th;
  memcpy (r.w, p.w, sizeof r.w);
  memcpy (r.lvl, p.lvl, sizeof r.lvl);
  memcpy (r.outv, p.outv, sizeof r.outv);
}

/* Whether FS's table weights are fs_tap_weight's (the block-output paths assume so). */
inline bool
fs_weights_match ()
{
  const gfx_kernel *g = &gfx_kernels[GFX_KERNEL_FS];
  bool same = g->n_taps == 4;
  for (int t = 0; same && t < 4; t++)
    same = gfx_tap_weight (g->taps[t].weight, g->divisor) == fs_tap_weight (t);
  return same;
}

/* Whether the paired kernel (halftone_pair.cuh) computes it: FS levels 2 on 8-bit images */
inline bool
pair_kernel_of (const gfx_image *in, int kernel, int levels)
{
  return kernel == GFX_KERNEL_FS && levels == 2 && in->depth == GFX_U8 && fs_weights_match ();
}

/* Whether the paired kernel computes it and its rows are whole 16-byte blocks a channel
 * (rows_block_out; where the paired kernel runs is pair_path's choice). */
inline bool
pair_fits (const gfx_image *in, int kernel, int levels)
{
  return in->width % 16 == 0 && pair_kernel_of (in, kernel, levels);
}

/* Where the paired kernel runs (pair_on: the bench's knobs have not turned it off): on the
 * image as it is (gray rows of whole blocks), on planes (K = 2: colour channels, and gray
 * rows that are not whole blocks, as planes whose rows are padded to 16 bytes: the padding
 * is outside the image, which the kernel's edge masks keep out), or not at all. */
enum class PairPath { none, direct, planes };

inline PairPath
pair_path (const gfx_image *in, int kernel, int levels, int K, bool pair_on)
{
  if (!pair_on || !pair_kernel_of (in, kernel, levels))
    return PairPath::none;
  if (in->width % 16 == 0 && in->channels == 1)
    return PairPath::direct;
  return K == 2 ? PairPath::planes : PairPath::none;
}

/* Whether the rows kernel writes its output as aligned 16-byte blocks (pick_rows_fs_ob):
 * what the paired kernel runs on gray images, with K = 2 rows a thread. */
inline bool
rows_block_out (const gfx_image *in, int kernel, int levels, int K)
{
  return K == 2 && in->channels == 1 && pair_fits (in, kernel, levels);
}

/* Input buffer bytes the rows kernel may read (its 16-byte blocks): */
inline long long
rows_in_bytes (size_t bytes)
{
  return (long long) ((bytes + 15) / 16 * 16);
}

/* Bytes of a plane row: the width, padded to whole 16-byte blocks */
inline int
plane_pitch (const gfx_image *in)
{
  return (in->width + 15) & ~15;
}

/* Bytes of the nch colour planes of `in` (plane_pitch x height bytes each). */
inline size_t
planes_bytes (const gfx_image *in, int nch)
{
  return (size_t) plane_pitch (in) * in->height * (size_t) nch;
}

/* The paired kernel's parameters (fill_rparams first) for the colour channels of `in`
 * split into planes of plane_pitch x height bytes, plane c at c * plane bytes
 * (split_planes; a gray image whose rows are not whole blocks: one plane, padded). */
inline void
planar_params (RParams &r, const gfx_image *in)
{
  r.rowpitch = plane_pitch (in);
  r.plane = (long long) r.rowpitch * in->height;
  r.stride = r.sb = 1;
  r.pitch = rows_pitch (1);
  r.in_bytes = rows_in_bytes (planes_bytes (in, r.nch));
}

} // namespace gfxht

#endif
