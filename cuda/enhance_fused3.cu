/* n = 3 for 8-bit keys in one cooperative kernel, when the whole key plane fits the GPU's
 * shared memory (the seed's 3241 x 3685 image is 12 MB; an H100 has 132 x 227 KB): each
 * block (one per SM, all resident) loads a band of full rows with a one-row halo into
 * shared memory once, as 128-column tiles (enhance_win3.cuh), adds up the exact totals of
 * its own rows (dp4a; at most 2^32 / 2^16 keys a lane), publishes them, and waits at a grid
 * barrier; then every block adds up all the partial totals (integers: the order does not
 * matter), computes the very same thresholds as the totals kernel
 * (gfx_enh_thresholds_make), and decides and writes its band from shared memory.  The key
 * plane is read from global memory once and the output written once: the memory traffic
 * of a copy. */
#include <cooperative_groups.h>

#include "enhance_win3.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int THREADS = 1024, WARPS = THREADS / 32;
constexpr int SEG = 4; /* output rows per warp job */

/* j / d for the block-uniform divisors of the job maps (d < 2^16, j d < 2^32): one
 * multiply-high by m = floor((2^32 - 1) / d) + 1 instead of a division. */
struct Div {
  uint32_t d, m;
  __device__ explicit Div (uint32_t d_) : d (d_), m (0xffffffffu / d_ + 1u) {}
  __device__ __forceinline__ uint32_t
  operator() (uint32_t j) const
  {
    return d == 1 ? j : __umulhi (j, m);
  }
};

template <int MODE>
__global__ void __launch_bounds__ (THREADS, 1)
fused3_kernel (const uint8_t *__restrict__ key, int w, int h, int band, RuleArgs ra,
               EnhState *st, EnhSink<uint8_t> sink)
{
  extern __shared__ __align__ (16) uint32_t tiles[]; /* ntiles x (rows + 2) x WORDS */
  __shared__ unsigned long long red[2][WARPS];
  __shared__ w3::Rule32 rule;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int ntiles = (w + w3::COLS - 1) / w3::COLS;
  const int y0 = blockIdx.x * band, rows = min (band, h - y0), tr = rows + 2;
  /* job j: tile j / tr, its shared row j % tr (global row y0 - 1 + j % tr) */
  const Div by_tr ((uint32_t) tr), by_rows ((uint32_t) rows);
  w3::load_rows (tiles, key, w, warp, ntiles * tr, WARPS, lane,
                 [&] (int j, int &srow, int &gy, int &x0) {
                   const int t = (int) by_tr ((uint32_t) j), r = j - t * tr;
                   srow = j;
                   gy = w3::refl (y0 - 1 + r, h);
                   x0 = t * w3::COLS;
                 });
  __syncthreads ();
  /* Totals of the band's own rows: each key once (lane word 1 + lane of rows 1 .. rows),
   * columns past w masked. */
  uint32_t p1 = 0, p2 = 0;
  for (int j = warp; j < ntiles * rows; j += WARPS)
    {
      const int t = (int) by_rows ((uint32_t) j), r = j - t * rows + 1;
      uint32_t v = tiles[(t * tr + r) * w3::WORDS + 1 + lane];
      const int left = w - (t * w3::COLS + 4 * lane); /* columns of this word in the image */
      v = left >= 4 ? v : left <= 0 ? 0u : v & (0xffffffffu >> (8 * (4 - left)));
      p1 = __dp4a (v, 0x01010101u, p1);
      p2 = __dp4a (v, v, p2);
    }
  unsigned long long q1 = p1, q2 = p2;
  for (int o = 16; o > 0; o >>= 1)
    {
      q1 += __shfl_down_sync (0xffffffffu, q1, o);
      q2 += __shfl_down_sync (0xffffffffu, q2, o);
    }
  if (lane == 0)
    red[0][warp] = q1, red[1][warp] = q2;
  __syncthreads ();
  if (threadIdx.x == 0)
    {
      unsigned long long b1 = 0, b2 = 0;
      for (int i = 0; i < WARPS; i++)
        b1 += red[0][i], b2 += red[1][i];
      st->part[blockIdx.x] = { b1, 0ull, b2, 0ull };
    }
  if constexpr (MODE != w3::MODE_DEC)
    if (threadIdx.x < 256)
      w3::slut[threadIdx.x] = (uint8_t) sink.lut[threadIdx.x];
  cg::this_grid ().sync ();
  if (warp == 0)
    {
      /* 8-bit keys, fewer than 2^34 of them: both totals fit 64 bits */
      unsigned long long t1 = 0, t2 = 0;
      for (unsigned b = lane; b < gridDim.x; b += 32)
        {
          const volatile EnhPartial *pp = &st->part[b];
          t1 += pp->t1lo;
          t2 += pp->t2lo;
        }
      for (int o = 16; o > 0; o >>= 1)
        {
          t1 += __shfl_down_sync (0xffffffffu, t1, o);
          t2 += __shfl_down_sync (0xffffffffu, t2, o);
        }
      if (lane == 0)
        {
          const gfx_enh_thresholds th = gfx_enh_thresholds_make (
            (gfx_i128) t1, (gfx_u128) t2, (uint64_t) w * (uint64_t) h, ra.n_win, ra.k, ra.rule);
          rule = w3::rule32 (th);
          if (blockIdx.x == 0)
            st->th = th; /* as the totals kernel leaves it (the bench's partial timings) */
        }
    }
  __syncthreads ();
  const w3::Rule32 q = rule;
  const w3::Out o = { MODE == w3::MODE_DEC ? sink.dec : sink.out, sink.mask };
  const int nseg = (rows + SEG - 1) / SEG;
  const Div by_nseg ((uint32_t) nseg);
  for (int j = warp; j < ntiles * nseg; j += WARPS)
    {
      const int t = (int) by_nseg ((uint32_t) j), sg = j - t * nseg, x0 = t * w3::COLS;
      w3::walk<MODE, SEG> (tiles + (t * tr + sg * SEG) * w3::WORDS + lane,
                           min (SEG, rows - sg * SEG), q, o,
                           (size_t) (y0 + sg * SEG) * w + x0, w, x0, lane);
    }
}

template <int MODE>
cudaError_t
launch_mode (const uint8_t *key, int w, int h, RuleArgs ra, EnhState *st,
             EnhSink<uint8_t> sink, cudaStream_t s, bool *done)
{
  /* The plan for this device and size, set once per (device, w, h, mode) by the caller's
   * lock: band rows per block so that one block per SM covers the image. */
  static int max_smem = -1, sms = 0;
  if (max_smem < 0)
    {
      int dev = 0;
      cudaError_t e = cudaGetDevice (&dev);
      if (e == cudaSuccess)
        e = cudaDeviceGetAttribute (&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
      if (e == cudaSuccess)
        e = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev);
      if (e != cudaSuccess)
        {
          max_smem = -1;
          return e;
        }
    }
  const int ntiles = (w + w3::COLS - 1) / w3::COLS;
  const int band = (h + sms - 1) / sms, grid = (h + band - 1) / band;
  const size_t smem = (size_t) ntiles * (band + 2) * w3::WORDS * 4;
  const size_t static_smem = 256 + 2 * WARPS * 8 + sizeof (w3::Rule32) + 64;
  if (grid > ENH_MAX_BLOCKS || smem + static_smem > (size_t) max_smem)
    return cudaSuccess; /* does not fit: *done stays false */
  static size_t smem_set[3] = { 0, 0, 0 };
  if (smem_set[MODE] < smem)
    {
      cudaError_t e = cudaFuncSetAttribute (fused3_kernel<MODE>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int) smem);
      if (e != cudaSuccess)
        return e;
      smem_set[MODE] = smem;
    }
  int per_sm = 0;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, fused3_kernel<MODE>,
                                                                 THREADS, smem);
  if (e != cudaSuccess)
    return e;
  if (per_sm < 1 || grid > per_sm * sms)
    return cudaSuccess; /* not all resident: not for a grid barrier */
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3 ((unsigned) grid);
  cfg.blockDim = dim3 (THREADS);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeCooperative;
  at[0].val.cooperative = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  e = cudaLaunchKernelEx (&cfg, fused3_kernel<MODE>, key, w, h, band, ra, st, sink);
  if (e == cudaErrorCooperativeLaunchTooLarge)
    {
      (void) cudaGetLastError (); /* not sticky: the separate kernels take over */
      return cudaSuccess;
    }
  *done = e == cudaSuccess;
  return e;
}

} // namespace

cudaError_t
enh_launch_fused3 (const uint8_t *key, int w, int h, RuleArgs ra, EnhState *st,
                   EnhSink<uint8_t> sink, cudaStream_t s, bool *done)
{
  *done = false;
  if (sink.dec)
    return launch_mode<w3::MODE_DEC> (key, w, h, ra, st, sink, s, done);
  if (sink.mask)
    return launch_mode<w3::MODE_OUT_MASK> (key, w, h, ra, st, sink, s, done);
  return launch_mode<w3::MODE_OUT> (key, w, h, ra, st, sink, s, done);
}
