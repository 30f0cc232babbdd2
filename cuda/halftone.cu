/* gfx_cuda_halftone: the host side of the GPU error diffusion.  Two kernels: the rows
 * kernel (halftone_rows.cuh, K rows a thread, the default) and the strip kernel
 * (halftone_kernel.cuh, one row a thread); GPUFX_HALFTONE_GPU=strip picks the latter,
 * GPUFX_HALFTONE_ROWS=2..4 the rows per thread of FS levels 2 u8 (bench),
 * GPUFX_HALFTONE_TRACE=file appends per-chunk clocks of the rows kernel to file (bench,
 * bench/halftone_gpu_trace.py; FS levels 2 gray 8-bit with block output only),
 * GPUFX_HALFTONE_OB=0 turns the block output off (bench: before / after in one run),
 * GPUFX_HALFTONE_PAIR=0 the paired kernel (halftone_pair.cuh, the block-output cases: one
 * warp on the chain, one moving input and output) back to the rows kernel.
 * A small cached context keeps the stream, events, device buffers and the upload's pinned
 * bands (staging.h) between calls; calls are serialised by its mutex. */
#include "cuda_halftone.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "../common/halftone_check.h"
#include "../common/halftone_kernels.h"
#include "cuda_check.h"
#include "device_buf.h"
#include "halftone_bench.h"
#include "halftone_kernel.cuh"
#include "halftone_rows.cuh"
#include "halftone_pair.cuh"
#include "halftone_setup.cuh"
#include "staging.h"
#include "trace_file.cuh"

using namespace gfxht;

namespace
{

constexpr int AUTO_BLOCK = 128;                  /* rows per strip: one warp per SM scheduler */
constexpr int AUTO_MARGIN = 0;
constexpr int FS_ROWS_K = 2; /* rows per thread of FS levels 2 u8 (best of 2..4 on the H100) */

struct Context
{
  bool ready;
  GfxQueue q; /* events 0 and 1: around the kernel */
  GfxDevBuf in, out, bnd, ticket; /* input, output, hand-off words, the strips' ticket */
  GfxDevBuf pin, pout;            /* the paired kernel's colour planes (planar_params) */
  unsigned epoch;
  int sm_smem; /* shared memory bytes of an SM (0: not asked yet) */
};

std::mutex ctx_mutex;
Context ctx;

gfx_status
ctx_init (gfx_error *err)
{
  gfx_status status = GFX_OK;
  if (ctx.ready)
    return GFX_OK;
  CUDA_TRY (cudaSetDevice (0));
  CUDA_TRY (gfx_queue_ensure (ctx.q));
  CUDA_TRY (gfx_devbuf_ensure (ctx.ticket, sizeof (unsigned)));
  ctx.ready = true;
  return GFX_OK;
fail:
  return status; /* what was created stays for the next try; nothing leaks per call */
}

kernel_fn
pick (int kernel, bool l2, int depth, bool big)
{
  switch (kernel)
    {
    case GFX_KERNEL_FS: return pick_fs (l2, depth, big);
    case GFX_KERNEL_JJN: return pick_jjn (l2, depth, big);
    case GFX_KERNEL_STUCKI: return pick_stucki (l2, depth, big);
    case GFX_KERNEL_BURKES: return pick_burkes (l2, depth, big);
    case GFX_KERNEL_SIERRA: return pick_sierra (l2, depth, big);
    case GFX_KERNEL_SIERRA2: return pick_sierra2 (l2, depth, big);
    case GFX_KERNEL_SIERRA_LITE: return pick_sierra_lite (l2, depth, big);
    default: return pick_atkinson (l2, depth, big);
    }
}

gfx_status
check_args (const gfx_image *in, const gfx_image *out, int kernel, int levels, int block_size,
            int margin, gfx_error *err)
{
  if (!in || !out || !in->pixels || !out->pixels || in->width < 1 || in->height < 1
      || in->channels < 1 || in->channels > 4 || out->width != in->width
      || out->height != in->height || out->channels != in->channels
      || out->depth != in->depth || out->has_alpha != in->has_alpha
      || (in->depth != GFX_U8 && in->depth != GFX_U16 && in->depth != GFX_F32))
    return gfx_fail (err, GFX_ERR_INPUT, "gpu halftone: input and output images must be "
                     "allocated with the same layout");
  if (in->width > (1 << 30)) /* column arithmetic is in int */
    return gfx_fail (err, GFX_ERR_GPU, "gpu halftone: width %d is over the GPU path's "
                     "limit of %d columns", in->width, 1 << 30);
  const gfx_status st = gfx_halftone_check_values (kernel, levels, block_size, margin, err);
  if (st != GFX_OK)
    return st;
  if (!geometry_matches (kernel))
    return gfx_fail (err, GFX_ERR_INTERNAL, "gpu halftone: kernel %d's taps differ from the "
                     "table the GPU code was built for", kernel);
  return GFX_OK;
}

rows_fn
pick_rows (int kernel, bool l2, int depth, int k, bool margin)
{
  switch (kernel)
    {
    case GFX_KERNEL_FS: return pick_rows_fs (l2, depth, k, margin);
    case GFX_KERNEL_JJN: return pick_rows_jjn (l2, depth, k, margin);
    case GFX_KERNEL_STUCKI: return pick_rows_stucki (l2, depth, k, margin);
    case GFX_KERNEL_BURKES: return pick_rows_burkes (l2, depth, k, margin);
    case GFX_KERNEL_SIERRA: return pick_rows_sierra (l2, depth, k, margin);
    case GFX_KERNEL_SIERRA2: return pick_rows_sierra2 (l2, depth, k, margin);
    case GFX_KERNEL_SIERRA_LITE: return pick_rows_sierra_lite (l2, depth, k, margin);
    default: return pick_rows_atkinson (l2, depth, k, margin);
    }
}

/* Which kernel: the rows kernel unless GPUFX_HALFTONE_GPU=strip. */
bool
use_rows (void)
{
  const char *e = getenv ("GPUFX_HALFTONE_GPU");
  return !(e && !strcmp (e, "strip"));
}

/* Rows per thread of the rows kernel: ROWS_K, or GPUFX_HALFTONE_ROWS (2..4) for FS
 * levels 2 u8, the bench's case (the other combinations are built for ROWS_K only). */
int
rows_k (int kernel, int levels, int depth)
{
  const char *e = getenv ("GPUFX_HALFTONE_ROWS");
  int k = e ? atoi (e) : FS_ROWS_K;
  if (kernel == GFX_KERNEL_FS && levels == 2 && depth == GFX_U8 && k >= 2 && k <= 4)
    return k;
  return ROWS_K;
}

/* The boundary words (grown, zeroed when new) and a fresh epoch for one launch. */
gfx_status
boundary (size_t words, gfx_error *err)
{
  gfx_status status = GFX_OK;
  /* a new buffer is zeroed: epoch 0 is never valid */
  status = gfx_devbuf_need (ctx.bnd, words * 8, "gfx_cuda_halftone", err, true, ctx.q.stream);
  if (status != GFX_OK)
    return status;
  if (++ctx.epoch == 0) /* after 2^32 calls: old words could look valid again */
    {
      ctx.epoch = 1;
      CUDA_TRY (cudaMemsetAsync (ctx.bnd.p, 0, ctx.bnd.cap, ctx.q.stream));
    }
  return GFX_OK;
fail:
  return status;
}

struct NoStep
{
  cudaError_t
  operator() () const
  {
    return cudaSuccess;
  }
};

/* Either kernel (P: Params or RParams) on grid x threads with smem bytes: the hand-off
 * words and a zeroed ticket, launched between the k0 / k1 events; `before` and `after`
 * (the planes' split and merge) run on the stream between the events too. */
template <class P, class Before = NoStep, class After = NoStep>
gfx_status
timed_launch (void (*fn) (P), P &p, int grid, int threads, size_t smem, gfx_error *err,
              Before before = {}, After after = {})
{
  gfx_status status = GFX_OK;
  p.bnd = (unsigned long long *) ctx.bnd.p;
  p.ticket = (unsigned *) ctx.ticket.p;
  p.epoch = ctx.epoch;
  CUDA_TRY (cudaFuncSetAttribute (fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
  CUDA_TRY (cudaMemsetAsync (ctx.ticket.p, 0, sizeof (unsigned), ctx.q.stream));
  CUDA_TRY (cudaEventRecord (ctx.q.ev[0], ctx.q.stream));
  CUDA_TRY (before ());
  fn<<<grid, threads, smem, ctx.q.stream>>> (p);
  CUDA_TRY_LAUNCH ();
  CUDA_TRY (after ());
  CUDA_TRY (cudaEventRecord (ctx.q.ev[1], ctx.q.stream));
  return GFX_OK;
fail:
  return status;
}

/* Dynamic shared memory of at least `need` bytes that leaves room for one block an SM: a
 * paired block's chain warp then has a scheduler to itself.  With more strips than SMs
 * (colour planes, tall images) the blocks had been packed: 8192^2 RGB on the H100 1.78 ms
 * packed, 1.52 with two blocks an SM, 1.47 with one.  A waiting block only ever waits for
 * an earlier ticket, so fewer resident blocks cannot deadlock. */
size_t
one_block_an_sm (size_t need)
{
  if (!ctx.sm_smem
      && cudaDeviceGetAttribute (&ctx.sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0)
           != cudaSuccess)
    {
      (void) cudaGetLastError ();
      return need; /* blocks may share an SM: slower, the same pixels */
    }
  return std::max (need, (size_t) ctx.sm_smem / 2 + 1024);
}

/* The paired kernel fn on the colour planes of `in`, or on a gray image's plane with rows
 * padded to 16 bytes (planar_params; ctx.pin and ctx.pout allocated), grid blocks: split,
 * kernel and merge between the k0 / k1 events. */
gfx_status
launch_planar (rows_fn fn, RParams &p, const gfx_image *in, int grid, size_t smem,
               gfx_error *err)
{
  planar_params (p, in);
  p.in = ctx.pin.p;
  p.out = ctx.pout.p;
  const int ch = in->channels, nc = p.nch, w = in->width, h = in->height, pw = p.rowpitch;
  const cudaStream_t st = ctx.q.stream;
  return timed_launch (
    fn, p, grid, 64, smem, err,
    [&] { return split_planes (ctx.in.p, ctx.pin.p, w, h, pw, ch, nc, st); },
    [&] { return merge_planes (ctx.pout.p, ctx.in.p, ctx.out.p, w, h, pw, ch, nc, st); });
}

/* The rows kernel: block size bs maps to warps per block (rows_warps), each warp a strip
 * of 32 K rows with its own ticket. */
gfx_status
launch_rows (const gfx_image *in, int kernel, int levels, int bs, int margin, gfx_error *err)
{
  gfx_status status = GFX_OK;
  const int k = rows_k (kernel, levels, in->depth);
  RParams p;
  fill_rparams (p, in, kernel, levels, k, margin, rows_in_bytes (gfx_image_bytes (in)));
  const char *obe = getenv ("GPUFX_HALFTONE_OB"), *pe = getenv ("GPUFX_HALFTONE_PAIR");
  const bool ob = rows_block_out (in, kernel, levels, k) && !(obe && !strcmp (obe, "0"));
  const PairPath pp = pair_path (in, kernel, levels, k, !(pe && !strcmp (pe, "0"))
                                                        && !(obe && !strcmp (obe, "0")));
  /* on planes: split before the kernel and merged after, where the planes fit in GPU memory
   * (else the rows kernel on the samples as they are; gray rows that are not whole 16-byte
   * blocks, FS 8191 x 8192 on the H100: 2.53 ms there, 1.28 ms on a padded plane) */
  bool planar = pp == PairPath::planes;
  if (planar)
    {
      const size_t pb = planes_bytes (in, p.nch);
      planar = gfx_devbuf_ensure (ctx.pin, pb) == cudaSuccess
               && gfx_devbuf_ensure (ctx.pout, pb) == cudaSuccess;
      if (!planar)
        {
          (void) cudaGetLastError (); /* the failed allocation's error, not sticky */
          gfx_devbuf_free (ctx.pin);
          gfx_devbuf_free (ctx.pout);
        }
    }
  const bool paired = planar || pp == PairPath::direct;
  const char *tf = getenv ("GPUFX_HALFTONE_TRACE"); /* bench: per-chunk clocks to a file */
  /* the kernels without the margin's code where the margin is 0 (bench, for A/B runs:
   * GPUFX_HALFTONE_MARGIN_CODE=1 keeps it) */
  const char *mce = getenv ("GPUFX_HALFTONE_MARGIN_CODE");
  const bool mcode = margin > 0 || (mce && !strcmp (mce, "1"));
  rows_fn fn = paired ? pick_pair_fs (k, tf != nullptr && !planar, mcode, planar)
             : ob     ? pick_rows_fs_ob (tf != nullptr)
                      : pick_rows (kernel, levels == 2, in->depth, k, mcode);
  /* warps per block: nw strips, or one strip on a pair of warps (the knob does not apply) */
  const int nw = paired ? 1 : rows_warps (bs, k, p.sb), threads = paired ? 64 : 32 * nw;
  const size_t smem
    = paired ? one_block_an_sm (pair::smem_bytes (k)) : (size_t) nw * p.warp_smem;
  const int warps = p.nch * p.nst;
  if ((status = boundary ((size_t) warps * 2 * p.width, err)))
    return status;
  p.in = ctx.in.p;
  p.out = ctx.out.p;
  if (planar)
    return launch_planar (fn, p, in, warps, smem, err);
  if (!tf)
    return timed_launch (fn, p, (warps + nw - 1) / nw, threads, smem, err);
  p.trace_nc = (p.width + 31 * 9 + 64) / RC + 2; /* FS chunks with K <= 4 (wider skews first) */
  const size_t tw = (size_t) warps * (8 + 2 * p.trace_nc);
  {
    const int hdr[4] = { warps, p.trace_nc, p.width, p.height };
    p.trace = nullptr;
    CUDA_TRY (cudaMalloc (&p.trace, tw * 4));
    CUDA_TRY (cudaMemsetAsync (p.trace, 0, tw * 4, ctx.q.stream));
    if ((status = timed_launch (fn, p, (warps + nw - 1) / nw, threads, smem, err)))
      goto fail;
    CUDA_TRY (cudaStreamSynchronize (ctx.q.stream));
    CUDA_TRY (gfx_cuda_append_trace (p.trace, tw, hdr, tf));
  }
fail:
  cudaFree (p.trace); /* the trace's alone: the cached buffers stay */
  return status;
}

/* Runs the kernel on the device buffers (already filled); records k0/k1 around it. */
gfx_status
launch (Params &p, int kernel, int depth, int bs, gfx_error *err)
{
  gfx_status status = GFX_OK;
  kernel_fn fn = pick (kernel, p.levels == 2, depth, bs > 256);
  size_t smem = smem_bytes (bs / 32);
  if ((status = boundary ((size_t) p.nch * p.nstrips * 2 * p.width, err)))
    return status;
  return timed_launch (fn, p, p.nch * p.nstrips, bs, smem, err);
}

} // namespace

extern "C" gfx_status
gfx_cuda_halftone (const gfx_image *in, gfx_image *out, int kernel, int levels, int block_size,
                   int margin, gfx_cuda_timing *timing, gfx_error *err)
{
  auto t0 = std::chrono::steady_clock::now ();
  (void) cudaGetLastError (); /* an error an earlier call left behind is not this call's */
  gfx_status status = check_args (in, out, kernel, levels, block_size, margin, err);
  if (status != GFX_OK)
    return status;
  if (gfx_cuda_fault_injected ("gfx_cuda_halftone"))
    return gfx_fail (err, GFX_ERR_GPU, "gfx_cuda_halftone: out of memory (injected by "
                     "GPUFX_CUDA_FAIL)");
  status = gfx_cuda_device_name (nullptr, 0, err);
  if (status != GFX_OK)
    return status;

  std::lock_guard<std::mutex> lock (ctx_mutex);
  const int bs = block_size ? block_size : AUTO_BLOCK;
  const size_t bytes = gfx_image_bytes (in);
  float kms = 0.0f;
  Params p;
  fill_params (p, in, kernel, levels, bs, margin < 0 ? AUTO_MARGIN : margin);
  /* the rows kernel reads whole 16-byte blocks */
  if ((status = ctx_init (err)) != GFX_OK
      || (status = gfx_devbuf_need (ctx.in, (size_t) rows_in_bytes (bytes), "gfx_cuda_halftone",
                                    err))
      || (status = gfx_devbuf_need (ctx.out, bytes, "gfx_cuda_halftone", err)))
    return status;
  CUDA_TRY (gfx_staging_upload (ctx.q.staging, ctx.in.p, in->pixels, bytes, ctx.q.stream));
  p.in = ctx.in.p;
  p.out = ctx.out.p;
  if (in->has_alpha) /* alpha passes through: start from a copy of the input */
    CUDA_TRY (cudaMemcpyAsync (ctx.out.p, ctx.in.p, bytes, cudaMemcpyDeviceToDevice, ctx.q.stream));
  else if (getenv ("GPUFX_HALFTONE_POISON")) /* tests: an unwritten sample cannot pass */
    CUDA_TRY (cudaMemsetAsync (ctx.out.p, 0xa5, bytes, ctx.q.stream));
  if ((status = use_rows () ? launch_rows (in, kernel, levels, block_size, p.margin, err)
                            : launch (p, kernel, in->depth, bs, err)))
    return status;
  CUDA_TRY (gfx_staging_download (out->pixels, ctx.out.p, bytes, ctx.q.stream));
  CUDA_TRY (cudaStreamSynchronize (ctx.q.stream));
  CUDA_TRY (cudaEventElapsedTime (&kms, ctx.q.ev[0], ctx.q.ev[1]));
  if (timing)
    {
      timing->kernel_ms = kms;
      timing->total_ms
        = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0)
            .count ();
    }
  return GFX_OK;
fail:
  return status;
}
