/* The band statistics kernel (enhance_band.cuh): 8-bit keys, any window, cost per pixel
 * independent of n; the launch geometry is enh_band::geometry. */
#include "enhance_band.cuh"

namespace
{

template <bool WIDE>
__global__ void __launch_bounds__ (enh_band::MAX_THREADS)
band_kernel (const enh_band::Args a)
{
  extern __shared__ __align__ (16) unsigned char band_smem[];
  const enh_band::Smem s = enh_band::smem_layout (band_smem, blockDim.x);
  enh_band::band_block<WIDE> (a, s, blockIdx.x, blockIdx.y, threadIdx.x, blockDim.x);
}

} // namespace

cudaError_t
enh_launch_band (const uint8_t *key, int w, int h, int r, EnhStripTuning tune,
                 const EnhState *st, EnhSink<uint8_t> sink, cudaStream_t s)
{
  int ow = 0, threads = 0, strip = 0;
  enh_band::geometry (w, r, tune, &ow, &threads, &strip);
  if (threads > enh_band::MAX_THREADS)
    return cudaErrorInvalidValue; /* n > 2 * 8192 / 2: not reached (n <= 255) */
  const enh_band::Args a = { key, w, h, r, ow, strip, st, sink };
  const size_t smem = enh_band::smem_bytes (threads);
  const bool wide = 2 * r + 1 > 21;
  const void *fn = wide ? (const void *) band_kernel<true> : (const void *) band_kernel<false>;
  static size_t smem_set[2] = { 0, 0 }; /* callers hold the cache lock */
  if (smem > 48 * 1024 && smem_set[wide] < smem)
    {
      cudaError_t e = cudaFuncSetAttribute (fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int) smem);
      if (e != cudaSuccess)
        return e;
      smem_set[wide] = smem;
    }
  const dim3 grid ((unsigned) ((w + ow - 1) / ow), (unsigned) ((h + strip - 1) / strip));
  cudaLaunchAttribute at;
  cudaLaunchConfig_t cfg = enh_launch_config (grid, dim3 ((unsigned) threads), smem, s,
                                              tune.kernel == 0 || tune.overlap, &at);
  return wide ? cudaLaunchKernelEx (&cfg, band_kernel<true>, a)
              : cudaLaunchKernelEx (&cfg, band_kernel<false>, a);
}
