/* GPU local enhance, host side.  Per decision plane: keys (skipped when a single
 * 8/16-bit channel is its own key), the reduction (totals and thresholds), the statistics
 * kernel (for n = 3 on 8-bit keys that fit the GPU's shared memory, by default one fused
 * kernel does both).  A single 8/16-bit channel is written straight by the statistics
 * kernel; other layouts go through decision planes and the apply kernel.  Device buffers are kept
 * between calls (grown as needed) and all dropped after any failure, so a later call
 * starts clean. */
#include "enhance_cuda.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <vector>

#include "copy_floor.cuh"
#include "cuda_check.h"
#include "cuda_timing.h"
#include "device_buf.h"
#include "enhance_cuda_internal.h"
#include "staging.h"

namespace {

struct Cache {
  GfxDevBuf in, out, key, dec, mask, rp, lut, state;
  GfxQueue q; /* events 0 and 1: around the kernels */
};

std::mutex cache_lock;
Cache cache;
EnhStripTuning tuning; /* under cache_lock */

/* The strip, n = 3 and tile kernels read whole aligned words: slack after the key
 * planes. */
constexpr size_t KEY_SLACK = 16;

void
release_locked (void)
{
  gfx_queue_release (cache.q);
  for (GfxDevBuf *b : { &cache.in, &cache.out, &cache.key, &cache.dec, &cache.mask, &cache.rp,
                        &cache.lut, &cache.state })
    gfx_devbuf_free (*b);
  cache = Cache ();
}

struct Plan {
  int w, h, ch, cc, planes, lum, direct, r, has_mask;
  size_t n, img_bytes, key_bytes;
  double maxv;
  float fix_scale; /* float images: the keys' scale, from the image as on the CPU */
};

Plan
plan_of (const gfx_image *in, const gfx_image *mask, const gfx_enhance_params *p)
{
  Plan pl;
  pl.w = in->width;
  pl.h = in->height;
  pl.ch = in->channels;
  pl.cc = gfx_image_color_channels (in);
  pl.planes = p->per_channel ? pl.cc : 1;
  pl.lum = !p->per_channel && pl.cc >= 3;
  pl.direct = in->channels == 1 && in->depth != GFX_F32;
  pl.r = p->window / 2;
  pl.has_mask = mask && mask->pixels;
  pl.n = (size_t) pl.w * pl.h;
  pl.img_bytes = gfx_image_bytes (in);
  pl.key_bytes = in->depth == GFX_U8 ? 1 : in->depth == GFX_U16 ? 2 : 4;
  pl.maxv = in->depth == GFX_U8 ? 255.0 : in->depth == GFX_U16 ? 65535.0 : 1.0;
  pl.fix_scale = in->depth == GFX_F32 ? gfx_enh_fix_scale (gfx_image_max_abs (in)) : 1.0f;
  return pl;
}

/* Buffers, stream, events, the input and the gain table on the device. */
gfx_status
prepare (const Plan &pl, const gfx_image *in, const gfx_enhance_params *p, gfx_error *err)
{
  gfx_status status = GFX_OK;
  std::vector<uint16_t> lut (pl.key_bytes < 4 ? (size_t) pl.maxv + 1 : 1);
  for (size_t v = 0; pl.key_bytes < 4 && v < lut.size (); v++)
    lut[v] = (uint16_t) gfx_enh_gain_int ((uint32_t) v, p->gain, pl.maxv);
  CUDA_TRY (gfx_queue_ensure (cache.q));
  CUDA_TRY (gfx_devbuf_ensure (cache.in, pl.img_bytes + KEY_SLACK));
  CUDA_TRY (gfx_devbuf_ensure (cache.out, pl.img_bytes));
  CUDA_TRY (gfx_devbuf_ensure (cache.key, pl.direct ? 0 : pl.n * pl.key_bytes + KEY_SLACK));
  CUDA_TRY (gfx_devbuf_ensure (cache.dec, pl.direct ? 0 : pl.n * pl.planes));
  CUDA_TRY (gfx_devbuf_ensure (cache.mask, pl.has_mask ? pl.n : 0));
  CUDA_TRY (gfx_devbuf_ensure (cache.rp,
                               enh_rowprefix_bytes (pl.w, pl.h, (int) pl.key_bytes, pl.r)));
  CUDA_TRY (gfx_devbuf_ensure (cache.lut, lut.size () * sizeof (uint16_t)));
  CUDA_TRY (gfx_devbuf_ensure (cache.state, sizeof (EnhState), true, cache.q.stream));
  CUDA_TRY (cudaMemcpyAsync (cache.lut.p, lut.data (), lut.size () * sizeof (uint16_t),
                             cudaMemcpyHostToDevice, cache.q.stream));
  CUDA_TRY (gfx_staging_upload (cache.q.staging, cache.in.p, in->pixels, pl.img_bytes,
                                cache.q.stream));
fail:
  return status;
}

template <class T, class KT>
gfx_status
launch_all (const Plan &pl, const gfx_enhance_params *p, int sms, gfx_error *err,
            gfx_enh_time_what what = GFX_ENH_TIME_ALL)
{
  gfx_status status = GFX_OK;
  const T *d_in = (const T *) cache.in.p;
  EnhState *st = (EnhState *) cache.state.p;
  uint8_t *d_mask = pl.has_mask ? (uint8_t *) cache.mask.p : nullptr;
  const uint16_t *d_lut = (const uint16_t *) cache.lut.p;
  RuleArgs ra = { { p->k0, p->k1, p->k2, p->k3 }, p->rule, (uint32_t) (p->window * p->window) };
  for (int plane = 0; plane < pl.planes; plane++)
    {
      const KT *key = (const KT *) d_in; /* direct: T is KT */
      if (!pl.direct)
        {
          key = (const KT *) cache.key.p;
          if (what == GFX_ENH_TIME_ALL)
            CUDA_TRY ((enh_launch_keys<T, KT> (d_in, (KT *) cache.key.p, pl.n, pl.ch, pl.lum,
                                               plane, pl.fix_scale, cache.q.stream)));
        }
      EnhSink<KT> sink = {};
      if (pl.direct)
        {
          sink.out = (KT *) cache.out.p;
          sink.lut = d_lut;
          sink.mask = d_mask;
        }
      else
        sink.dec = (uint8_t *) cache.dec.p + (size_t) plane * pl.n;
      if constexpr (sizeof (KT) == 1)
        if (what == GFX_ENH_TIME_ALL && pl.r == 1
            && (tuning.kernel == 0 || tuning.kernel == 4)) /* fused: automatic for n = 3 */
          {
            bool done = false;
            const int tail = tuning.kernel == 4 ? tuning.strip : 0; /* rows, 0: auto */
            const bool help_test = tuning.kernel == 4 && tuning.overlap == 1;
            CUDA_TRY (enh_launch_fused3 (key, pl.w, pl.h, tail, help_test, ra, st, sink,
                                         cache.q.stream, &done));
            if (done)
              continue;
          }
      if (what != GFX_ENH_TIME_STATS)
        CUDA_TRY (enh_launch_reduce<KT> (key, pl.n, ra, st, sms, cache.q.stream));
      if (what == GFX_ENH_TIME_TOTALS)
        continue;
      CUDA_TRY (enh_launch_stats<KT> (key, pl.w, pl.h, pl.r, st, sink, cache.rp.p, tuning,
                                      cache.q.stream));
    }
  if (!pl.direct && what == GFX_ENH_TIME_ALL)
    {
      ApplyArgs a = { pl.n, pl.ch, pl.cc, pl.ch > pl.cc, pl.planes, p->gain, pl.maxv };
      CUDA_TRY (enh_launch_apply<T> (d_in, (T *) cache.out.p, (const uint8_t *) cache.dec.p,
                                     d_lut, d_mask, a, cache.q.stream));
    }
fail:
  return status;
}

gfx_status
run_locked (const gfx_image *in, gfx_image *out, gfx_image *mask, const gfx_enhance_params *p,
            double *kernel_ms, gfx_error *err)
{
  gfx_status status = GFX_OK;
  Plan pl = plan_of (in, mask, p);
  int sms = 0;
  float ms = 0.0f;
  CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  status = prepare (pl, in, p, err);
  if (status != GFX_OK)
    return status;
  CUDA_TRY (cudaEventRecord (cache.q.ev[0], cache.q.stream));
  if (in->depth == GFX_U8)
    status = launch_all<uint8_t, uint8_t> (pl, p, sms, err);
  else if (in->depth == GFX_U16)
    status = launch_all<uint16_t, uint16_t> (pl, p, sms, err);
  else
    status = launch_all<float, int32_t> (pl, p, sms, err);
  if (status != GFX_OK)
    return status;
  CUDA_TRY (cudaEventRecord (cache.q.ev[1], cache.q.stream));
  CUDA_TRY (gfx_staging_download (out->pixels, cache.out.p, pl.img_bytes, cache.q.stream));
  if (pl.has_mask)
    CUDA_TRY (gfx_staging_download (mask->pixels, cache.mask.p, pl.n, cache.q.stream));
  CUDA_TRY (cudaStreamSynchronize (cache.q.stream));
  CUDA_TRY (cudaEventElapsedTime (&ms, cache.q.ev[0], cache.q.ev[1]));
  *kernel_ms = ms;
fail:
  return status;
}

} // namespace

extern "C" gfx_status
gfx_cuda_enhance (const gfx_image *in, gfx_image *out, gfx_image *mask,
                  const gfx_enhance_params *p, gfx_cuda_timing *timing, gfx_error *err)
{
  auto t0 = std::chrono::steady_clock::now ();
  (void) cudaGetLastError (); /* an error an earlier call left behind is not this call's */
  if (gfx_cuda_fault_injected ("gfx_cuda_enhance"))
    return gfx_fail (err, GFX_ERR_GPU,
                     "gfx_cuda_enhance: out of memory (injected by GPUFX_CUDA_FAIL)");
  gfx_status status = gfx_cuda_device_name (nullptr, 0, err);
  if (status != GFX_OK)
    return status;
  double kernel_ms = 0.0;
  {
    std::lock_guard<std::mutex> guard (cache_lock);
    status = run_locked (in, out, mask, p, &kernel_ms, err);
    if (status != GFX_OK)
      release_locked ();
  }
  if (timing)
    {
      timing->kernel_ms = kernel_ms;
      timing->total_ms
        = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0).count ();
    }
  return status;
}

extern "C" gfx_status
gfx_cuda_enhance_set_tuning (int kernel, int cols, int strip, int overlap, int store,
                             gfx_error *err)
{
  if (store < 0 || store > 1)
    return gfx_fail (err, GFX_ERR_PARAM, "enhance tuning: store = %d, allowed 0 or 1", store);
  if (overlap < 0 || overlap > 1)
    return gfx_fail (err, GFX_ERR_PARAM, "enhance tuning: overlap = %d, allowed 0 or 1", overlap);
  if (kernel < 0 || kernel > 4)
    return gfx_fail (err, GFX_ERR_PARAM, "enhance tuning: kernel = %d, allowed 0..4", kernel);
  if (cols != 0 && cols != 4 && cols != 8 && cols != 16)
    return gfx_fail (err, GFX_ERR_PARAM, "enhance tuning: cols = %d, allowed 0, 4, 8 or 16",
                     cols);
  if (strip < 0 || strip > 4096)
    return gfx_fail (err, GFX_ERR_PARAM, "enhance tuning: strip = %d, allowed 0..4096", strip);
  std::lock_guard<std::mutex> guard (cache_lock);
  tuning = { kernel, cols, strip, overlap, store };
  return GFX_OK;
}

extern "C" gfx_status
gfx_cuda_enhance_time (const gfx_image *in, const gfx_enhance_params *p, gfx_enh_time_what what,
                       int reps, int inner, double *ms, gfx_error *err)
{
  gfx_status status = gfx_cuda_device_name (nullptr, 0, err);
  if (status != GFX_OK)
    return status;
  std::lock_guard<std::mutex> guard (cache_lock);
  Plan pl = plan_of (in, nullptr, p);
  int sms = 0;
  cudaError_t e = cudaSuccess;
  CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  status = prepare (pl, in, p, err);
  if (status != GFX_OK)
    goto fail;
  if (what != GFX_ENH_TIME_ALL) /* keys and thresholds in place for the partial timings */
    {
      status = in->depth == GFX_U8    ? launch_all<uint8_t, uint8_t> (pl, p, sms, err)
               : in->depth == GFX_U16 ? launch_all<uint16_t, uint16_t> (pl, p, sms, err)
                                      : launch_all<float, int32_t> (pl, p, sms, err);
      if (status != GFX_OK)
        goto fail;
    }
  e = gfx_cuda_time_median (
    [&] {
      gfx_status s2 = in->depth == GFX_U8   ? launch_all<uint8_t, uint8_t> (pl, p, sms, err, what)
                      : in->depth == GFX_U16 ? launch_all<uint16_t, uint16_t> (pl, p, sms, err, what)
                                             : launch_all<float, int32_t> (pl, p, sms, err, what);
      return s2 == GFX_OK ? cudaSuccess : cudaErrorUnknown;
    },
    cache.q.stream, reps, ms, 2, inner);
  if (e == cudaErrorUnknown)
    status = GFX_ERR_GPU; /* err already says why */
  else
    CUDA_TRY (e);
fail:
  if (status != GFX_OK)
    release_locked ();
  return status;
}

extern "C" gfx_status
gfx_cuda_enhance_trace (const gfx_image *in, const gfx_enhance_params *p, int inner,
                        long long *t, int max_blocks, int *blocks, gfx_error *err)
{
  static_assert (GFX_ENH_TRACE_POINTS == ENH_TRACE_POINTS, "one count of trace points");
  const size_t n = (size_t) ENH_MAX_BLOCKS * ENH_TRACE_POINTS;
  unsigned long long *buf = nullptr, *host = nullptr;
  double ms = 0;
  gfx_status status = GFX_OK;
  *blocks = 0;
  CUDA_TRY (cudaMalloc (&buf, n * sizeof *buf));
  CUDA_TRY (cudaMemset (buf, 0, n * sizeof *buf));
  CUDA_TRY (enh_fused3_trace (buf));
  status = gfx_cuda_enhance_time (in, p, GFX_ENH_TIME_ALL, 1, inner, &ms, err);
  if (status != GFX_OK)
    goto fail;
  host = (unsigned long long *) malloc (n * sizeof *host);
  if (host == nullptr)
    {
      status = gfx_fail (err, GFX_ERR_NOMEM, "%s: out of memory", __func__);
      goto fail;
    }
  CUDA_TRY (cudaMemcpy (host, buf, n * sizeof *host, cudaMemcpyDeviceToHost));
  {
    unsigned long long t0 = ~0ull;
    int nb = 0;
    while (nb < ENH_MAX_BLOCKS && host[(size_t) nb * ENH_TRACE_POINTS] != 0)
      t0 = host[(size_t) nb * ENH_TRACE_POINTS] < t0 ? host[(size_t) nb * ENH_TRACE_POINTS] : t0,
      nb++;
    *blocks = nb < max_blocks ? nb : max_blocks;
    for (size_t i = 0; i < (size_t) *blocks * ENH_TRACE_POINTS; i++)
      t[i] = host[i] ? (long long) (host[i] - t0) : -1;
  }
fail:
  if (buf != nullptr)
    {
      enh_fused3_trace (nullptr);
      cudaFree (buf);
    }
  free (host);
  return status;
}

namespace
{
/* An empty kernel launched as the fused kernel is (programmatic dependent launch). */
__global__ void
empty_kernel ()
{
  cudaGridDependencySynchronize ();
  cudaTriggerProgrammaticLaunchCompletion ();
}
} // namespace

extern "C" gfx_status
gfx_cuda_launch_floor_ms (int blocks, int threads, size_t smem, int reps, int inner, double *ms,
                          gfx_error *err)
{
  gfx_status status = GFX_OK;
  cudaLaunchAttribute at;
  cudaLaunchConfig_t cfg;
  if (blocks <= 0) /* one an SM */
    CUDA_TRY (cudaDeviceGetAttribute (&blocks, cudaDevAttrMultiProcessorCount, 0));
  cfg = enh_launch_config (dim3 ((unsigned) blocks), dim3 ((unsigned) threads), smem, 0, true,
                           &at);
  CUDA_TRY (cudaFuncSetAttribute (empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int) smem));
  CUDA_TRY (gfx_cuda_time_median ([&] { return cudaLaunchKernelEx (&cfg, empty_kernel); }, 0,
                                  reps, ms, 1, inner));
fail:
  return status;
}

extern "C" gfx_status
gfx_cuda_copy_ms (size_t bytes, int by_kernel, int reps, int inner, double *ms, gfx_error *err)
{
  gfx_status status = GFX_OK;
  void *a = nullptr, *b = nullptr;
  const size_t words = (bytes + 15) / 16;
  int sms = 0;
  CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  CUDA_TRY (cudaMalloc (&a, words * 16));
  CUDA_TRY (cudaMalloc (&b, words * 16));
  CUDA_TRY (cudaMemset (a, 1, words * 16));
  CUDA_TRY (gfx_cuda_time_median (
    [&] {
      return by_kernel ? floor_copy ((const int4 *) a, (int4 *) b, words, sms, 0)
                       : cudaMemcpyAsync (b, a, bytes, cudaMemcpyDeviceToDevice, 0);
    },
    0, reps, ms, 1, inner));
fail:
  cudaFree (a);
  cudaFree (b);
  return status;
}
