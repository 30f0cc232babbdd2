/* Inside cuda/ only: checking every CUDA call.  CUDA_TRY jumps to the function's
 * `fail:` label with the error text in err, so one cleanup path frees everything.
 *
 * A failed runtime call also leaves the error as the thread's "last error", which a
 * later launch check would read as its own: the failure branch clears it (cudaGetLastError;
 * a sticky error, a kernel's fault, stays, as it must), and launches are checked with
 * cudaGetLastError, which clears what it reports, never with cudaPeekAtLastError. */
#ifndef GFX_CUDA_CHECK_H
#define GFX_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "../common/status.h"

#define CUDA_TRY(call)                                                                 \
  do                                                                                    \
    {                                                                                   \
      cudaError_t e_ = (call);                                                          \
      if (e_ != cudaSuccess)                                                            \
        {                                                                               \
          (void) cudaGetLastError ();                                                   \
          status = gfx_fail (err, GFX_ERR_GPU, "%s: %s (%s)", __func__,                 \
                             cudaGetErrorString (e_), #call);                           \
          goto fail;                                                                    \
        }                                                                               \
    }                                                                                   \
  while (0)

#define CUDA_TRY_LAUNCH() CUDA_TRY (cudaGetLastError ())

#endif
