#include "cuda_device.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <cuda_runtime.h>

/* Built with the filters' kernels (the same -gencode list): whether the device can run it
 * is whether it can run them. */
__global__ void
probe_kernel (void)
{
}

static std::once_flag probe_once;
static gfx_status probe_status;
static char probe_text[GFX_MSG_LEN];

static void
probe (void)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0)
    {
      snprintf (probe_text, sizeof probe_text, "no usable CUDA GPU: %s",
                e != cudaSuccess ? cudaGetErrorString (e) : "no device found");
      probe_status = GFX_ERR_GPU;
      return;
    }
  cudaDeviceProp prop;
  e = cudaGetDeviceProperties (&prop, 0);
  if (e != cudaSuccess)
    {
      snprintf (probe_text, sizeof probe_text, "no usable CUDA GPU: %s", cudaGetErrorString (e));
      probe_status = GFX_ERR_GPU;
      return;
    }
  /* The kernels are built for sm_90 (with PTX for newer GPUs): an older GPU is found and
   * named, but cannot run them, so it is not usable (rather than failing every call). */
  cudaFuncAttributes attributes;
  e = cudaFuncGetAttributes (&attributes, probe_kernel);
  if (e != cudaSuccess)
    {
      (void) cudaGetLastError ();
      snprintf (probe_text, sizeof probe_text,
                "no usable CUDA GPU: %s is sm_%d%d; the GPU code is built for sm_90 (Hopper) "
                "and newer (%s)", /* the Makefile's CUDA_ARCH */
                prop.name, prop.major, prop.minor, cudaGetErrorString (e));
      probe_status = GFX_ERR_GPU;
      return;
    }
  snprintf (probe_text, sizeof probe_text, "%s, sm_%d%d", prop.name, prop.major, prop.minor);
  probe_status = GFX_OK;
}

extern "C" gfx_status
gfx_cuda_device_name (char *name, size_t len, gfx_error *err)
{
  std::call_once (probe_once, probe);
  if (name)
    snprintf (name, len, "%s", probe_text);
  if (probe_status != GFX_OK)
    return gfx_fail (err, probe_status, "%s", probe_text);
  return GFX_OK;
}

extern "C" void
gfx_cuda_warm_up (void)
{
  std::call_once (probe_once, probe);
  if (probe_status == GFX_OK)
    cudaFree (nullptr); /* creates the primary context; an error shows again where it matters */
}

extern "C" int
gfx_cuda_fault_injected (const char *function)
{
  const char *env = getenv ("GPUFX_CUDA_FAIL");
  if (!env || (strcmp (env, function) != 0 && strcmp (env, "all") != 0))
    return 0;
  /* A real failed allocation, so the runtime is left as a real out-of-memory leaves it
   * (its last error set): the next call must not mistake that error for its own. */
  void *p = nullptr;
  if (cudaMalloc (&p, (size_t) 1 << 62) == cudaSuccess)
    cudaFree (p);
  return 1;
}
