#include "cuda_device.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <cuda_runtime.h>

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
  return env && (strcmp (env, function) == 0 || strcmp (env, "all") == 0);
}
