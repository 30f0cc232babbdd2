/* Bench only: appends a kernel's trace words (device memory) to a file, after a header of
 * four ints that the bench's trace readers take apart (bench/halftone_gpu_trace.py and
 * bench/iir_gpu_trace.py).  A host buffer that cannot be had skips the trace; a failed
 * copy is the caller's CUDA error. */
#ifndef GFX_TRACE_FILE_CUH
#define GFX_TRACE_FILE_CUH

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

static inline cudaError_t
gfx_cuda_append_trace (const unsigned *words, size_t n, const int header[4], const char *path)
{
  unsigned *h = (unsigned *) malloc (n * sizeof *h);
  if (!h)
    return cudaSuccess;
  cudaError_t e = cudaMemcpy (h, words, n * sizeof *h, cudaMemcpyDeviceToHost);
  FILE *f = e == cudaSuccess ? fopen (path, "ab") : NULL;
  if (f)
    {
      fwrite (header, sizeof *header, 4, f);
      fwrite (h, sizeof *h, n, f);
      fclose (f);
    }
  free (h);
  return e;
}

#endif
