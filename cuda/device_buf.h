/* A device buffer kept between calls (inside cuda/ only): the CUDA layer reuses its
 * buffers instead of allocating per call (a cudaMalloc and cudaFree of the IIR's planes
 * cost more than its kernel).  Not thread-safe: its owner serialises the calls. */
#ifndef GFX_CUDA_DEVICE_BUF_H
#define GFX_CUDA_DEVICE_BUF_H

#include <cstddef>
#include <cstdlib>

#include <cuda_runtime.h>

#include "../common/status.h"

struct GfxDevBuf
{
  void *p = nullptr;
  size_t cap = 0; /* bytes */
};

/* Test hook: with GPUFX_EXACT_DEVICE_BUFFERS=1 in the environment every buffer holds exactly
 * the bytes asked for (a new allocation whenever the size changes), so that
 * compute-sanitizer memcheck sees a read or write past the end of an image; by default a
 * buffer large enough is kept, and the bytes past the request are never checked. */
inline bool
gfx_devbuf_exact ()
{
  static const bool exact = [] {
    const char *v = std::getenv ("GPUFX_EXACT_DEVICE_BUFFERS");
    return v && v[0] == '1';
  }();
  return exact;
}

/* At least `bytes` in b (0: b may stay empty, p null); a buffer that grows loses its
 * contents, and with `zero` a new buffer is zeroed on stream s (ordered before the
 * caller's later work there: a plain cudaMemset is not, for a non-blocking stream).  On
 * failure b is empty. */
inline cudaError_t
gfx_devbuf_ensure (GfxDevBuf &b, size_t bytes, bool zero = false, cudaStream_t s = 0)
{
  if (b.cap == bytes || (b.cap > bytes && (bytes == 0 || !gfx_devbuf_exact ())))
    return cudaSuccess;
  cudaFree (b.p);
  b = GfxDevBuf ();
  cudaError_t e = cudaMalloc (&b.p, bytes);
  if (e == cudaSuccess && zero)
    e = cudaMemsetAsync (b.p, 0, bytes, s);
  if (e != cudaSuccess)
    {
      cudaFree (b.p);
      b = GfxDevBuf ();
      (void) cudaGetLastError (); /* reported through e, not left for a later check */
      return e;
    }
  b.cap = bytes;
  return cudaSuccess;
}

/* gfx_devbuf_ensure, a failure told in err as "who: N MiB of GPU memory: CUDA's text" */
inline gfx_status
gfx_devbuf_need (GfxDevBuf &b, size_t bytes, const char *who, gfx_error *err, bool zero = false,
                 cudaStream_t s = 0)
{
  cudaError_t e = gfx_devbuf_ensure (b, bytes, zero, s);
  if (e == cudaSuccess)
    return GFX_OK;
  return gfx_fail (err, GFX_ERR_GPU, "%s: %.1f MiB of GPU memory: %s", who,
                   (double) bytes / (1 << 20), cudaGetErrorString (e));
}

/* Frees b (errors ignored: it is being discarded); b can be used again. */
inline void
gfx_devbuf_free (GfxDevBuf &b)
{
  cudaFree (b.p);
  b = GfxDevBuf ();
}

#endif
