/* Inside cuda/ only: the statistics kernels' launchers and the types they share with the
 * host code of enhance_cuda.cu. */
#ifndef GFX_ENHANCE_CUDA_INTERNAL_H
#define GFX_ENHANCE_CUDA_INTERNAL_H

#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../common/enhance_math.h"

/* Key kinds and their exact window-sum types (unsigned ones wrap; the true sums fit). */
template <class KT> struct EnhSums;
template <> struct EnhSums<uint8_t> { typedef uint32_t S1; typedef uint32_t S2; };
template <> struct EnhSums<uint16_t> { typedef uint32_t S1; typedef uint64_t S2; };
template <> struct EnhSums<int32_t> { typedef int64_t S1; typedef uint64_t S2; };

/* The launch of a statistics kernel: with overlap it may start while the totals kernel
 * ends (programmatic dependent launch; the kernel waits before it reads the thresholds).
 * at: the one attribute's storage, alive until the launch. */
inline cudaLaunchConfig_t
enh_launch_config (dim3 grid, dim3 block, size_t smem, cudaStream_t s, bool overlap,
                   cudaLaunchAttribute *at)
{
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  at->id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at->val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = overlap ? 1 : 0;
  return cfg;
}

#define ENH_MAX_BLOCKS 2048 /* reduction blocks: one partial each (2^34 keys / 2^23) */

struct EnhPartial {
  unsigned long long t1lo, t1hi, t2lo, t2hi; /* 128-bit two's complement halves */
};

/* The fused n = 3 kernel's most blocks (its arrival counts have 8 bits). */
#define ENH_FUSED_MAX_GRID 255

/* Device-side state: the reduction's partials and ticket, and the thresholds the last
 * reduction block computes for the statistics kernels. */
struct EnhState {
  gfx_enh_thresholds th;
  unsigned int ticket; /* 0 between launches: the last block resets it */
  EnhPartial part[ENH_MAX_BLOCKS];
  /* the fused n = 3 kernel's grid totals (with arrival counts) and leaving blocks, 0
   * between launches, and who sums each band (its last claim: 4 launch epoch + 1 its own
   * block, + 2 a helper) */
  unsigned long long sum1, sum2;
  unsigned int left;
  alignas (128) unsigned long long claim[ENH_FUSED_MAX_GRID]; /* lines of their own */
};

/* Where a statistics kernel puts its decision: a decision plane (0/1), or, for a single
 * 8/16-bit channel whose samples are the keys, the output itself (and the mask). */
template <class KT> struct EnhSink {
  uint8_t *dec;        /* decision plane, or NULL in direct mode */
  KT *out;             /* direct mode */
  const uint16_t *lut; /* direct mode: gained value of each sample value */
  uint8_t *mask;       /* direct mode, may be NULL */
};

/* What a kernel writes, a template argument of each: decisions, or the output itself
 * without or with the mask. */
enum { ENH_SINK_DEC = 0, ENH_SINK_OUT = 1, ENH_SINK_OUT_MASK = 2 };

/* Calls launch with the sink's mode as a compile-time constant (an
 * std::integral_constant<int, ENH_SINK_...>), the one place that maps a sink to its mode. */
template <class KT, class Launch>
inline cudaError_t
enh_launch_for_sink (const EnhSink<KT> &sink, Launch launch)
{
  if (sink.dec)
    return launch (std::integral_constant<int, ENH_SINK_DEC> ());
  if (sink.mask)
    return launch (std::integral_constant<int, ENH_SINK_OUT_MASK> ());
  return launch (std::integral_constant<int, ENH_SINK_OUT> ());
}

/* The rule as unsigned range tests (x - lo) <= span, for keys whose S1 fits 32 bits and D
 * 64 bits (8/16-bit keys; the same decisions as gfx_enh_decide64): an empty range becomes
 * lo = max, span = 0, which no sum reaches (S1 < 2^32 - 1, D < 2^64 - 1).  dlo32/dspan32:
 * the D bounds saturated to 32 bits, exact where D < 2^32 - 1 (8-bit keys, n <= 21). */
struct EnhRange {
  uint32_t s1lo, s1span, dlo32, dspan32;
  uint64_t dlo, dspan;
};

__device__ __forceinline__ EnhRange
enh_range (const gfx_enh_thresholds &th)
{
  EnhRange q;
  const int64_t s1lo = th.s1_lo < 0 ? 0 : th.s1_lo, s1hi = th.s1_hi;
  const bool s1_empty = s1hi < s1lo || s1lo > (int64_t) UINT32_MAX;
  q.s1lo = s1_empty ? UINT32_MAX : (uint32_t) s1lo;
  q.s1span = s1_empty ? 0u
                      : (uint32_t) ((s1hi > (int64_t) UINT32_MAX ? (int64_t) UINT32_MAX : s1hi)
                                    - s1lo);
  const bool d_empty = th.d_hi64 < th.d_lo64;
  q.dlo = d_empty ? UINT64_MAX : th.d_lo64;
  q.dspan = d_empty ? 0 : th.d_hi64 - th.d_lo64;
  q.dlo32 = q.dlo > UINT32_MAX ? UINT32_MAX : (uint32_t) q.dlo;
  const uint32_t dhi32 = th.d_hi64 > UINT32_MAX ? UINT32_MAX : (uint32_t) th.d_hi64;
  q.dspan32 = d_empty || q.dlo > UINT32_MAX ? 0u : dhi32 - q.dlo32;
  return q;
}

__device__ __forceinline__ int
enh_range_decide (uint32_t s1, uint64_t d, const EnhRange &q)
{
  return (s1 - q.s1lo <= q.s1span) & (d - q.dlo <= q.dspan);
}

/* v summed over the warp (the sum in lane 0) */
__device__ __forceinline__ unsigned long long
warp_sum64 (unsigned long long v)
{
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync (0xffffffffu, v, o);
  return v;
}

struct RuleArgs {
  double k[4];
  int rule;
  uint32_t n_win;
};

struct ApplyArgs {
  size_t n;
  int ch, cc, alpha, planes; /* channels, colour channels, has alpha, decision planes */
  double gain, maxv;
};

/* Keys of one plane: luma (lum) or channel `plane` of an image of ch channels; floats as
 * fixed point (gfx_enh_fix with fix_scale). */
template <class T, class KT>
cudaError_t enh_launch_keys (const T *in, KT *key, size_t n, int ch, int lum, int plane,
                             float fix_scale, cudaStream_t s);

/* Exact totals of n keys, then the thresholds into st->th (st->ticket must be 0). */
template <class KT>
cudaError_t enh_launch_reduce (const KT *key, size_t n, RuleArgs ra, EnhState *st, int sms,
                               cudaStream_t s);

/* out (and mask) from in and the decision planes; lut: gained value of each integer
 * sample value. */
template <class T>
cudaError_t enh_launch_apply (const T *in, T *out, const uint8_t *dec, const uint16_t *lut,
                              uint8_t *mask, ApplyArgs a, cudaStream_t s);

/* Speed knobs of the statistics kernels (0 = automatic); they never change results.
 * kernel: 1 the shared-memory tile kernel, 2 the strip kernel (8-bit keys, r <= 16 only),
 * 3 the n = 3 kernel (8-bit keys, r = 1 only; other cases take the automatic choice),
 * 4 the fused n = 3 kernel where it fits, else as 3; automatic: for n = 3 on 8-bit keys
 * the fused kernel where it fits, else the n = 3 kernel, other windows the tile kernel,
 * the last two with an overlapped start (the strip kernel measured slower on an H100).
 * cols:
 * columns per strip-kernel thread (4, 8 or 16; automatic 4); strip: rows per strip-kernel
 * block (automatic 16 or 32); overlap: 1 lets the strip, n = 3 or tile kernel start while
 * the totals kernel ends (programmatic dependent launch; the automatic choice on for the
 * n = 3 and tile kernels, off for the strip kernel, measured slower there); store: 1
 * makes the strip kernel store its bytes directly instead of staging aligned words. */
struct EnhStripTuning {
  int kernel, cols, strip, overlap, store;
};

#define ENH_STRIP_MAX_R 16

/* Decisions of the w x h key plane (thresholds in st->th) with window n = 2r + 1.
 * rp is scratch for large windows: enh_rowprefix_bytes(w, h) bytes. */
template <class KT>
cudaError_t enh_launch_stats (const KT *key, int w, int h, int r, const EnhState *st,
                              EnhSink<KT> sink, void *rp, EnhStripTuning tune,
                              cudaStream_t stream);

/* The strip kernel (enhance_strip.cu): 8-bit keys, 1 <= r <= ENH_STRIP_MAX_R, at most
 * 65535 strips of tune.strip rows. */
cudaError_t enh_launch_strip (const uint8_t *key, int w, int h, int r, EnhStripTuning tune,
                              const EnhState *st, EnhSink<uint8_t> sink, cudaStream_t s);
int enh_strip_rows (EnhStripTuning tune, int r);

/* The n = 3 kernel (enhance_win3.cu): 8-bit keys, r = 1; tune.strip picks the rows per
 * warp (0: 4; below 4: 2; below 8: 4; below 16: 8; else 16), tune.overlap as for the
 * strip kernel.  enh_win3_fits: the grid's rows fit a launch. */
cudaError_t enh_launch_win3 (const uint8_t *key, int w, int h, EnhStripTuning tune,
                             const EnhState *st, EnhSink<uint8_t> sink, cudaStream_t s);
int enh_win3_seg (EnhStripTuning tune);

/* n = 3 for 8-bit keys, totals and statistics in one kernel with a grid barrier
 * (enhance_fused3.cu), when a band of rows per SM and its output fit shared memory; *done
 * says whether it was launched (if not, and no error, the caller runs the separate
 * kernels).  tail: output rows of a band in its last row group (0: a third).  It uses
 * st->sum1/sum2/left/claim and writes st->th as the totals kernel does.  help_test (tests
 * only): odd blocks leave their bands' totals to helpers, which help at once. */
cudaError_t enh_launch_fused3 (const uint8_t *key, int w, int h, int tail, bool help_test,
                               RuleArgs ra, EnhState *st, EnhSink<uint8_t> sink,
                               cudaStream_t s, bool *done);
int enh_win3_fits (int h, EnhStripTuning tune);

/* Bench only: while buf (device memory, ENH_MAX_BLOCKS x ENH_TRACE_POINTS) is not NULL,
 * each fused n = 3 launch writes every block's phase times there (%globaltimer, ns):
 * start, warp 0's rows landed, the block's totals added, grid totals known (the barrier
 * passed), thresholds computed, and known to all threads, first and second row group
 * decided, end. */
#define ENH_TRACE_POINTS 9
cudaError_t enh_fused3_trace (unsigned long long *buf);

size_t enh_rowprefix_bytes (int w, int h, int key_bytes, int r);

#endif
