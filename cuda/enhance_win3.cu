/* The statistics kernel for 8-bit keys and n = 3 (r = 1), the seed's case, with few
 * instructions per pixel (device code in enhance_win3.cuh).  A block takes a tile of 128
 * columns x 8 * SEG rows, loads it with its one-pixel halo into shared memory once, and
 * each warp walks SEG rows of it.  Optionally (knob `overlap`) launched to start while
 * the totals kernel ends (programmatic dependent launch): it loads its tile, then waits
 * for the thresholds. */
#include "enhance_win3.cuh"

namespace {

constexpr int WARPS = 8; /* warps per block: each walks SEG rows of the tile */

template <int MODE, int SEG>
__global__ void __launch_bounds__ (32 * WARPS)
win3_kernel (const uint8_t *__restrict__ key, int w, int h, const EnhState *st,
             EnhSink<uint8_t> sink)
{
  constexpr int TR = SEG * WARPS + 2; /* tile rows, halo included */
  __shared__ __align__ (16) uint32_t tile[TR * w3::WORDS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int x0 = blockIdx.x * w3::COLS, y0 = blockIdx.y * (SEG * WARPS);
  w3::load_rows (tile, key, w, warp, TR, WARPS, lane, [&] (int j, int &srow, int &gy, int &tx) {
    srow = j;
    gy = gfx_enh_reflect (y0 - 1 + j, h);
    tx = x0;
  });
  /* Launched with programmatic stream serialization, the block may start while the totals
   * kernel is still running: the loads above need only the keys.  A no-op otherwise. */
  cudaGridDependencySynchronize ();
  if constexpr (MODE != ENH_SINK_DEC)
    w3::slut[threadIdx.x] = (uint8_t) sink.lut[threadIdx.x]; /* 256 threads */
  const w3::Rule32 q = w3::rule32 (st->th);
  __syncthreads (); /* tile and gain table in place */
  const int oy0 = warp * SEG; /* the warp's first output row in the tile */
  const int nrows = min (SEG, h - (y0 + oy0));
  if (nrows <= 0)
    return;
  const w3::Out o = { MODE == ENH_SINK_DEC ? sink.dec : sink.out, sink.mask };
  w3::walk<MODE, SEG> (tile + oy0 * w3::WORDS + lane, nrows, q, o,
                       (size_t) (y0 + oy0) * w + x0, w, x0, lane);
}

template <int MODE, int SEG>
cudaError_t
launch_seg (const uint8_t *key, int w, int h, int overlap, const EnhState *st,
            EnhSink<uint8_t> sink, cudaStream_t s)
{
  cudaLaunchAttribute at;
  cudaLaunchConfig_t cfg = enh_launch_config (
      dim3 ((unsigned) ((w + w3::COLS - 1) / w3::COLS),
            (unsigned) ((h + SEG * WARPS - 1) / (SEG * WARPS))),
      dim3 (32 * WARPS), 0, s, overlap, &at);
  return cudaLaunchKernelEx (&cfg, win3_kernel<MODE, SEG>, key, w, h, st, sink);
}

template <int SEG>
cudaError_t
launch_mode (const uint8_t *key, int w, int h, int overlap, const EnhState *st,
             EnhSink<uint8_t> sink, cudaStream_t s)
{
  return enh_launch_for_sink (sink, [&] (auto mode) {
    return launch_seg<decltype (mode)::value, SEG> (key, w, h, overlap, st, sink, s);
  });
}

} // namespace

int
enh_win3_seg (EnhStripTuning tune)
{
  /* 4 measured fastest on an H100 (more, smaller blocks overlap loads and work better) */
  return tune.strip == 0 ? 4 : tune.strip < 4 ? 2 : tune.strip < 8 ? 4 : tune.strip < 16 ? 8 : 16;
}

int
enh_win3_fits (int h, EnhStripTuning tune)
{
  return (h + 8 * enh_win3_seg (tune) - 1) / (8 * enh_win3_seg (tune)) <= 65535;
}

cudaError_t
enh_launch_win3 (const uint8_t *key, int w, int h, EnhStripTuning tune, const EnhState *st,
                 EnhSink<uint8_t> sink, cudaStream_t s)
{
  switch (enh_win3_seg (tune))
    {
    case 2:
      return launch_mode<2> (key, w, h, tune.overlap, st, sink, s);
    case 8:
      return launch_mode<8> (key, w, h, tune.overlap, st, sink, s);
    case 16:
      return launch_mode<16> (key, w, h, tune.overlap, st, sink, s);
    default:
      return launch_mode<4> (key, w, h, tune.overlap, st, sink, s);
    }
}
