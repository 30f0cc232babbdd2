/* Inside cuda/ only: the copy kernel of the memory-bandwidth floors (the IIR's and the
 * local enhance's benches): 16-byte words, a grid-stride loop over a grid that fills the
 * GPU.  n: words. */
#ifndef GFX_COPY_FLOOR_CUH
#define GFX_COPY_FLOOR_CUH

#include <cuda_runtime.h>

namespace
{

__global__ void
floor_copy_kernel (const int4 *__restrict__ in, int4 *__restrict__ out, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    out[i] = in[i];
}

/* Enqueues the copy of n words on `stream` for a GPU of `sms` SMs. */
inline cudaError_t
floor_copy (const int4 *in, int4 *out, size_t n, int sms, cudaStream_t stream)
{
  floor_copy_kernel<<<sms * 8, 512, 0, stream>>> (in, out, n);
  return cudaGetLastError ();
}

} // namespace

#endif
