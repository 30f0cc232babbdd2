/* The CUDA layer's host <-> device copies (staging.h). */
#include "staging.h"

#include <cstring>
#include <thread>
#include <vector>

extern "C" int gfx_threads (void); /* common/pool.h (C11 atomics: not for C++) */

namespace
{

constexpr size_t BAND_BYTES = (size_t) 8 << 20; /* one pinned band */

/* memcpy on several threads (at most 4, at least 1 MiB each). */
void
copy_parallel (void *dst, const void *src, size_t n)
{
  constexpr size_t PIECE_MIN = (size_t) 1 << 20;
  int t = gfx_threads ();
  t = t < 4 ? t : 4;
  t = n / PIECE_MIN < (size_t) t ? (int) (n / PIECE_MIN) : t;
  if (t <= 1)
    {
      memcpy (dst, src, n);
      return;
    }
  const size_t piece = (n + t - 1) / t;
  std::vector<std::thread> helpers;
  for (int i = 1; i < t; i++)
    {
      const size_t off = i * piece, len = off + piece < n ? piece : n - off;
      try
        {
          helpers.emplace_back (
            [=] { memcpy ((char *) dst + off, (const char *) src + off, len); });
        }
      catch (...) /* no thread: this one copies the piece */
        {
          memcpy ((char *) dst + off, (const char *) src + off, len);
        }
    }
  memcpy (dst, src, piece);
  for (auto &h : helpers)
    h.join ();
}

cudaError_t
ensure_bands (GfxStaging &s)
{
  for (int i = 0; i < 2; i++)
    {
      cudaError_t e = cudaSuccess;
      if (!s.done[i])
        e = cudaEventCreateWithFlags (&s.done[i], cudaEventDisableTiming);
      if (e == cudaSuccess && !s.pin[i])
        e = cudaMallocHost (&s.pin[i], BAND_BYTES);
      if (e != cudaSuccess)
        return e;
    }
  return cudaSuccess;
}

} // namespace

cudaError_t
gfx_staging_upload (GfxStaging &s, void *dst, const void *src, size_t bytes, cudaStream_t st)
{
  cudaError_t e = ensure_bands (s);
  int k = 0;
  for (size_t off = 0; e == cudaSuccess && off < bytes; off += BAND_BYTES, k ^= 1)
    {
      const size_t n = bytes - off < BAND_BYTES ? bytes - off : BAND_BYTES;
      e = cudaEventSynchronize (s.done[k]); /* the band's previous DMA has read it */
      if (e != cudaSuccess)
        break;
      copy_parallel (s.pin[k], (const char *) src + off, n);
      e = cudaMemcpyAsync ((char *) dst + off, s.pin[k], n, cudaMemcpyHostToDevice, st);
      if (e == cudaSuccess)
        e = cudaEventRecord (s.done[k], st);
    }
  return e;
}

cudaError_t
gfx_staging_download (void *dst, const void *src, size_t bytes, cudaStream_t st)
{
  return cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToHost, st);
}

void
gfx_staging_release (GfxStaging &s)
{
  for (int i = 0; i < 2; i++)
    {
      if (s.pin[i])
        cudaFreeHost (s.pin[i]);
      if (s.done[i])
        cudaEventDestroy (s.done[i]);
    }
  s = GfxStaging ();
}

cudaError_t
gfx_queue_ensure (GfxQueue &q)
{
  cudaError_t e = cudaSuccess;
  if (!q.stream)
    e = cudaStreamCreateWithFlags (&q.stream, cudaStreamNonBlocking);
  for (cudaEvent_t &ev : q.ev)
    if (e == cudaSuccess && !ev)
      e = cudaEventCreate (&ev);
  return e;
}

void
gfx_queue_release (GfxQueue &q)
{
  if (q.stream)
    cudaStreamSynchronize (q.stream); /* nothing may still use what its owner frees */
  for (cudaEvent_t ev : q.ev)
    if (ev)
      cudaEventDestroy (ev);
  if (q.stream)
    cudaStreamDestroy (q.stream);
  gfx_staging_release (q.staging);
  q = GfxQueue ();
}
