/* Inside cuda/ and tests/emu only: the colour channels of an 8-bit image to planes and
 * back, so that the paired kernel (halftone_pair.cuh), which reads and writes a channel's
 * rows as 16-byte blocks, runs the channels of GA, RGB and RGBA images side by side, and
 * gray images whose rows are not whole blocks (one plane; as fast as the cudaMemcpy2D
 * copies used before, within 0.7%).  Launched by halftone_planes.cu.
 *
 * A plane row is `pitch` bytes, the width padded to whole 16-byte blocks (planar_params).
 * A thread moves one plane word, four pixels of one row (the padding's words are written
 * as 0 and never read back), a grid row of blocks a row of the image (no division: a
 * 64-bit one per thread made 8192^2 RGB's split and merge 0.35 ms slower). */
#ifndef GFX_HALFTONE_PLANES_CUH
#define GFX_HALFTONE_PLANES_CUH

namespace gfxht
{

namespace planes
{

constexpr int THREADS = 256;

/* The image: w x h pixels of `channels` bytes, the first ncolor of them colour; planes of
 * pitch x h bytes. */
struct Planar
{
  int w, h, pitch, channels, ncolor;

  __host__ __device__ long long
  plane () const /* bytes from one plane to the next */
  {
    return (long long) pitch * h;
  }

  __host__ __device__ unsigned
  grid_rows () const /* grid rows (they stride over the image's rows) */
  {
    return (unsigned) min (h, 65535);
  }
};

/* Calls f (y, x) for the plane words of this thread: column x (a multiple of 4) of rows y
 * (grid rows stride over the image's rows: at most 65535 of them). */
template <class F>
__device__ __forceinline__ void
for_words (const Planar &g, F f)
{
  const int x = 4 * (blockIdx.x * THREADS + threadIdx.x);
  if (x >= g.pitch)
    return;
  for (int y = blockIdx.y; y < g.h; y += gridDim.y)
    f ((long long) y, x);
}

/* Four pixels of CH bytes (CH aligned words at px) to their colour planes' words. */
template <int CH>
__device__ __forceinline__ void
split_words (const unsigned char *px, unsigned char *dst, long long plane, int ncolor)
{
  unsigned w[CH];
#pragma unroll
  for (int k = 0; k < CH; k++)
    w[k] = ((const unsigned *) px)[k];
#pragma unroll
  for (int c = 0; c < CH; c++)
    if (c < ncolor)
      {
        unsigned v = 0;
#pragma unroll
        for (int k = 0; k < 4; k++)
          {
            const int b = k * CH + c;
            v |= (w[b >> 2] >> 8 * (b & 3) & 0xffu) << 8 * k;
          }
        *(unsigned *) (dst + c * plane) = v;
      }
}

__global__ void
split_kernel (const unsigned char *__restrict__ in, unsigned char *__restrict__ planes,
              Planar g)
{
  for_words (g, [&] (long long y, int x) {
    const int n = min (4, max (0, g.w - x)), ch = g.channels;
    const unsigned char *px = in + (y * g.w + x) * ch;
    const long long plane = g.plane (), at = y * g.pitch + x;
    if (n == 4 && g.w % 4 == 0) /* four pixels are `channels` aligned words */
      {
        unsigned char *dst = planes + at;
        ch == 1   ? split_words<1> (px, dst, plane, g.ncolor)
        : ch == 2 ? split_words<2> (px, dst, plane, g.ncolor)
        : ch == 3 ? split_words<3> (px, dst, plane, g.ncolor)
                  : split_words<4> (px, dst, plane, g.ncolor);
        return;
      }
    for (int c = 0; c < g.ncolor; c++)
      {
        unsigned v = 0;
        for (int k = 0; k < n; k++)
          v |= (unsigned) px[k * ch + c] << 8 * k;
        *(unsigned *) (planes + c * plane + at) = v;
      }
  });
}

/* Four pixels of CH bytes (CH aligned words at out) from their colour planes' words at pl,
 * alpha from the same words of in (writing only the colour bytes left partly written
 * sectors: RGBA's merge took 1.3 ms at 8192^2 against 0.2 ms for its split). */
template <int CH>
__device__ __forceinline__ void
merge_words (const unsigned char *pl, long long plane, const unsigned char *in,
             unsigned char *out, int ncolor)
{
  unsigned w[CH];
#pragma unroll
  for (int k = 0; k < CH; k++)
    w[k] = ncolor < CH ? ((const unsigned *) in)[k] : 0u;
#pragma unroll
  for (int c = 0; c < CH; c++)
    if (c < ncolor)
      {
        const unsigned v = *(const unsigned *) (pl + c * plane);
#pragma unroll
        for (int k = 0; k < 4; k++)
          {
            const int b = k * CH + c, sh = 8 * (b & 3);
            w[b >> 2] = (w[b >> 2] & ~(0xffu << sh)) | ((v >> 8 * k) & 0xffu) << sh;
          }
      }
#pragma unroll
  for (int k = 0; k < CH; k++)
    ((unsigned *) out)[k] = w[k];
}

/* Widths that are a multiple of 4: four pixels are CH aligned words. */
template <int CH>
__global__ void
merge_kernel (const unsigned char *__restrict__ planes, const unsigned char *__restrict__ in,
              unsigned char *__restrict__ out, Planar g)
{
  for_words (g, [&] (long long y, int x) {
    if (x >= g.w)
      return;
    const long long first = (y * g.w + x) * CH;
    merge_words<CH> (planes + y * g.pitch + x, g.plane (), in + first, out + first, g.ncolor);
  });
}

/* Other widths: a thread gathers one aligned output word (the word that starts in row y and
 * ends in the next row included), so every store is a whole word but the image's last. */
template <int CH>
__global__ void
merge_gather_kernel (const unsigned char *__restrict__ planes,
                     const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                     Planar g)
{
  const long long plane = g.plane (), total = (long long) g.w * g.h * CH;
  for (int y = blockIdx.y; y < g.h; y += gridDim.y)
    {
      const long long row = (long long) y * g.w * CH;
      const long long t = ((row + 3) >> 2) + blockIdx.x * THREADS + threadIdx.x;
      if (4 * t >= row + (long long) g.w * CH)
        continue;
      const int r = (int) (4 * t - row);
      int x = r / CH, c = r - x * CH, yy = y;
      unsigned v = 0;
      int n = 0;
      for (; n < 4 && 4 * t + n < total; n++)
        {
          if (x == g.w)
            x = 0, yy++;
          const unsigned char b
            = c < g.ncolor ? planes[c * plane + (long long) yy * g.pitch + x] : in[4 * t + n];
          v |= (unsigned) b << 8 * n;
          if (++c == CH)
            c = 0, x++;
        }
      if (n == 4)
        ((unsigned *) out)[t] = v;
      else
        for (int k = 0; k < n; k++)
          out[4 * t + k] = (unsigned char) (v >> 8 * k);
    }
}

/* A kernel of this file and its grid (THREADS a block, g.grid_rows () grid rows): what
 * split_planes and merge_planes launch, and what the CPU emulation runs. */
using SplitKernel = void (*) (const unsigned char *, unsigned char *, Planar);
using MergeKernel = void (*) (const unsigned char *, const unsigned char *, unsigned char *,
                              Planar);
template <class K> struct Launch
{
  K kernel;
  unsigned gx, gy;
};

/* grid blocks for one thread a plane word */
inline unsigned
word_blocks (const Planar &g)
{
  return (unsigned) ((g.pitch / 4 + THREADS - 1) / THREADS);
}

inline Launch<SplitKernel>
split_launch (const Planar &g)
{
  return { split_kernel, word_blocks (g), g.grid_rows () };
}

template <int CH>
inline Launch<MergeKernel>
merge_launch_channels (const Planar &g)
{
  if (g.w % 4 == 0)
    return { merge_kernel<CH>, word_blocks (g), g.grid_rows () };
  /* one thread an output word: w CH / 4 rounded up a row, and one that may start in it */
  const unsigned gx = (unsigned) ((g.w * CH / 4 + 2 + THREADS - 1) / THREADS);
  return { merge_gather_kernel<CH>, gx, g.grid_rows () };
}

inline Launch<MergeKernel>
merge_launch (const Planar &g)
{
  return g.channels == 1   ? merge_launch_channels<1> (g)
         : g.channels == 2 ? merge_launch_channels<2> (g)
         : g.channels == 3 ? merge_launch_channels<3> (g)
                           : merge_launch_channels<4> (g);
}

} // namespace planes

} // namespace gfxht

#endif
