/* Tests only: SMs held by a waiting kernel, so that a test can run a filter whose blocks
 * cannot all be resident at once (as on a GPU shared with other work) and see that it
 * still finishes, with the right output. */
#include "cuda_device.h"

#include <cuda_runtime.h>

#include "cuda_check.h"

namespace
{

/* One block an SM (it asks for all of an SM's shared memory), waiting until released. */
__global__ void
hold_kernel (const volatile int *release)
{
  extern __shared__ int unused[];
  (void) unused;
  while (*release == 0)
    __nanosleep (1000);
}

int *release_host = nullptr; /* mapped: the host writes it, the held blocks read it */
cudaStream_t hold_stream = nullptr;

} // namespace

extern "C" gfx_status
gfx_cuda_hold_sms (int keep_free, gfx_error *err)
{
  gfx_status status = GFX_OK;
  int sms = 0, smem = 0;
  int *release_dev = nullptr;
  if (release_host)
    return gfx_fail (err, GFX_ERR_PARAM, "gfx_cuda_hold_sms: the SMs are held already");
  CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  CUDA_TRY (cudaDeviceGetAttribute (&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  if (keep_free < 0 || keep_free >= sms)
    return gfx_fail (err, GFX_ERR_PARAM, "gfx_cuda_hold_sms: keep_free = %d, allowed 0..%d",
                     keep_free, sms - 1);
  CUDA_TRY (cudaHostAlloc ((void **) &release_host, sizeof *release_host, cudaHostAllocMapped));
  *release_host = 0;
  CUDA_TRY (cudaHostGetDevicePointer ((void **) &release_dev, release_host, 0));
  CUDA_TRY (cudaStreamCreateWithFlags (&hold_stream, cudaStreamNonBlocking));
  CUDA_TRY (cudaFuncSetAttribute (hold_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  hold_kernel<<<sms - keep_free, 32, smem, hold_stream>>> (release_dev);
  CUDA_TRY_LAUNCH ();
  return GFX_OK;
fail:
  gfx_error ignored;
  gfx_cuda_release_sms (&ignored);
  return status;
}

extern "C" gfx_status
gfx_cuda_release_sms (gfx_error *err)
{
  gfx_status status = GFX_OK;
  if (release_host)
    *(volatile int *) release_host = 1;
  if (hold_stream)
    CUDA_TRY (cudaStreamSynchronize (hold_stream));
fail:
  if (hold_stream)
    cudaStreamDestroy (hold_stream);
  if (release_host)
    cudaFreeHost (release_host);
  hold_stream = nullptr;
  release_host = nullptr;
  return status;
}
