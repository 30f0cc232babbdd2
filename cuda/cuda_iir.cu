/* gfx_cuda_iir: the GPU quadrant IIR filter (cuda_iir.h).
 *
 * Method.  In a quadrant's own frame, thread `lane` of a warp owns row r = 32 g + lane of a
 * 32-row group g and, at step t, computes column c = t - lane: a skewed scan line, so the
 * pixels a warp computes together lie on one anti-diagonal and are independent.  Each
 * thread keeps its windows x(r-k1, c-k2), y(r-k1, c-k2) in registers: column history moves
 * by a register shift, the rows above arrive by __shfl_up from the lane above (which held
 * them one step earlier).
 *
 * Memory.  Work goes in chunks of CH (8 or 16) steps.  The group's input passes through a
 * per-warp ring of 64 columns in shared memory: a chunk's columns are loaded a chunk ahead,
 * row by row (each load instruction reads consecutive columns of one row: coalesced), kept
 * raw in registers (a conversion right after the load would wait for it), converted to
 * double when stored into the ring, and each lane then reads its own skewed sample there.
 * The outputs go the other way: each lane writes its (float) y into a second ring (lanes
 * 32-(M1-1) .. 31 also their double y into a third), and once every lane has passed a
 * block of CH columns the warp writes the block out row by row.
 *
 * Hand-off.  Group g-1 writes its last M1-1 rows of y (doubles) into a boundary buffer with
 * relaxed 64-bit stores, a block of CH columns at a time with its outputs; the buffer
 * starts filled with a signalling-NaN sentinel that arithmetic never produces (its NaNs are
 * quiet), so a value is its own ready flag (single-copy atomic 64-bit words): no fences,
 * no separate flags.  The warp of group g loads the next chunk's rows above a chunk ahead,
 * and at the chunk's start re-polls only the words that were still the sentinel, then
 * puts them into shared memory for lane 0.  Warps take (group, quadrant, channel) from an
 * atomic ticket in start order, so a warp only ever waits for a group whose warp is
 * already running.
 *
 * The per-pixel sum is gfx_iir_point, whose order the CPU path follows; for a mask of exactly the
 * compiled size (3x3) its bounds are compile-time constants and the coefficients sit in
 * registers, which changes the instruction count, not the arithmetic.  A second kernel
 * forms the mean of the four quadrant planes in gfx_iir_mean's order (the split kernel
 * with many groups forms it itself, in its tail: see tail_mean).  Bench: GPUFX_IIR_TRACE=file
 * appends per-chunk clocks of the split kernel to file (bench/iir_gpu_trace.py). */
#include "cuda_iir.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cuda_check.h"
#include "cuda_iir_internal.h"
#include "device_buf.h"
#include "staging.h"
#include "trace_file.cuh"

namespace
{

constexpr unsigned FULL = 0xffffffffu;
constexpr int AUTO_WARPS = 4;
constexpr int AUTO_CHUNK = 16; /* columns per chunk: 8 or 16 */
/* Split kernel, measured on the H100, one group a block: where there are few groups the
 * per-step time counts most: chunk 16, 4 feeders (2048^2 0.66 ms against 0.70 with chunk 8
 * and 2 feeders); where there are many the hand-off lag (about 32 + 3 chunk steps) and the
 * SM's instruction issue count most: chunk 8, 2 feeders (8192^2 u8 3.90 ms against 5.69 with
 * 4 feeders, whose code is not specialised per feeder; chunk 16: 7.8). */
constexpr int AUTO_PAIRS = 1;
constexpr int SPLIT_FEW_GROUPS = 64;
constexpr int TICKETS = 2; /* quadrant tasks, mean tasks */
constexpr unsigned long long SENTINEL = GFX_IIR_SENTINEL;
constexpr int MAX_WARPS = 8;   /* per block: keeps the register budget of the 7x7 windows */
constexpr int RING = 64;       /* columns of the shared rings: >= CH + 32, a power of 2 */

__constant__ double c_a[GFX_IIR_QUADRANTS][GFX_IIR_W * GFX_IIR_W];
__constant__ double c_b[GFX_IIR_QUADRANTS][GFX_IIR_W * GFX_IIR_W];

using Args = IirArgs;

/* One warp's shared memory: the input and output rings (frame column c at slot
 * c & (RING - 1); lane l's accesses at one step, column t - l, hit 32 different banks) and
 * the rows above the group for lane 0. */
template <int MR, int CH>
struct WarpSmem
{
  double xs[32][RING];                 /* input, converted */
  float os[32][RING];                  /* outputs */
  double bs[MR > 1 ? MR - 1 : 1][RING]; /* the group's last M1-1 rows of y, for group g+1 */
  double ax[MR > 1 ? MR - 1 : 1][CH], ay[MR > 1 ? MR - 1 : 1][CH];
};

/* The group's rows at frame columns c0 .. c0 + CH - 1 into registers: load i covers
 * 32 / CH rows, each of them CH consecutive columns (0 outside the image). */
template <int CH>
__device__ __forceinline__ void
load_block (const Args &A, int q, int ch, int r0, int c0, int lane, unsigned (&pf)[CH])
{
  constexpr int RPI = 32 / CH;
  const int pr = lane / CH, col = c0 + lane % CH;
#pragma unroll
  for (int i = 0; i < CH; i++)
    {
      int row = r0 + i * RPI + pr;
      pf[i] = 0;
      if (row < A.H && col < A.W)
        pf[i] = gfx_iir_load_raw (A, q, ch, row, col);
    }
}

template <int MR, int CH>
__device__ __forceinline__ void
store_block (WarpSmem<MR, CH> &S, gfx_depth depth, int c0, int lane, const unsigned (&pf)[CH])
{
  constexpr int RPI = 32 / CH;
  const int pr = lane / CH, slot = (c0 + lane % CH) & (RING - 1);
#pragma unroll
  for (int i = 0; i < CH; i++)
    S.xs[i * RPI + pr][slot] = (double) gfx_iir_raw_value (depth, pf[i]);
}

/* Writes the finished outputs of frame columns c0 .. c0 + CH - 1 to the quadrant's plane,
 * row by row (image frame), and the group's last rows of y at these columns to the
 * boundary buffer (relaxed 64-bit stores: each word is its own ready flag). */
template <int MR, int CH>
__device__ __forceinline__ void
flush_block (const Args &A, int q, float *plane, unsigned long long *bnd_mine, int r0, int c0,
             int lane, const WarpSmem<MR, CH> &S)
{
  constexpr int RPI = 32 / CH;
  const int pr = lane / CH, col = c0 + lane % CH;
  if (c0 < 0 || col >= A.W)
    return;
  const int icol = (q == 1 || q == 2) ? A.W - 1 - col : col, slot = col & (RING - 1);
  if (lane < CH)
#pragma unroll
    for (int k = 0; k < MR - 1; k++)
      if (k < A.m1 - 1)
        st_relaxed (bnd_mine + (size_t) k * A.W + col, S.bs[k][slot]);
#pragma unroll
  for (int i = 0; i < CH; i++)
    {
      int row = r0 + i * RPI + pr;
      if (row < A.H)
        plane[(size_t) (q >= 2 ? A.H - 1 - row : row) * A.W + icol] = S.os[i * RPI + pr][slot];
    }
}

/* The rows above the group at frame columns t0 .. t0 + CH - 1, lane j < CH: column t0 + j
 * (x, and y from group g-1's boundary rows or y = x above the image), issued a chunk
 * before they are needed. */
template <int MR>
struct Above
{
  unsigned x[MR > 1 ? MR - 1 : 1]; /* raw samples */
  unsigned long long y[MR > 1 ? MR - 1 : 1];
};

template <int MR, int CH>
__device__ __forceinline__ void
issue_above (const Args &A, int q, int ch, int r0, int t0, int lane,
             const unsigned long long *bnd_prev, Above<MR> &ab)
{
  const int col = t0 + lane;
#pragma unroll
  for (int k1 = 1; k1 < MR; k1++)
    if (lane < CH && col < A.W && k1 < A.m1)
      {
        int above = r0 - k1;
        ab.x[k1 - 1] = gfx_iir_load_raw (A, q, ch, above, col);
        ab.y[k1 - 1] = above < 0 ? 0 : ld_relaxed (bnd_prev + (size_t) (k1 - 1) * A.W + col);
      }
}

/* Waits until every word of `ab` is written (re-polling only the sentinels), then puts
 * the rows above into the warp's shared buffers for lane 0. */
template <int MR, int CH>
__device__ __forceinline__ void
settle_above (const Args &A, int r0, int t0, int lane, const unsigned long long *bnd_prev,
              const Above<MR> &ab, WarpSmem<MR, CH> &S)
{
  const int col = t0 + lane;
  const bool mine = lane < CH && col < A.W;
#pragma unroll
  for (int k1 = 1; k1 < MR; k1++)
    if (k1 < A.m1)
      {
        const int above = r0 - k1;
        unsigned long long y = ab.y[k1 - 1];
        const unsigned long long *p = bnd_prev + (size_t) (k1 - 1) * A.W + col;
        while (__any_sync (FULL, mine && above >= 0 && y == SENTINEL))
          if (mine && above >= 0 && y == SENTINEL)
            y = ld_relaxed (p); /* each poll is an L2 round trip: no sleep needed */
        if (mine)
          {
            double xv = gfx_iir_raw_value (A.depth, ab.x[k1 - 1]);
            S.ax[k1 - 1][lane] = xv;
            S.ay[k1 - 1][lane] = above < 0 ? xv : __longlong_as_double (y);
          }
      }
  __syncwarp ();
}

/* Steps t0 .. t0 + CH - 1 of one lane.  EDGE: some lane is left of the image (c < 0, the
 * window is set up at c == 0) or right of it (c >= W, nothing is kept); without EDGE every
 * lane is inside for the whole chunk and no column test is made. */
template <int MR, int MC, int CH, bool EDGE>
__device__ __forceinline__ void
chunk_steps (const double *a, const double *b, int m1, int m2, int t0, int lane,
             WarpSmem<MR, CH> &S, double (&xw)[MR * GFX_IIR_W], double (&yw)[MR * GFX_IIR_W])
{
  const double *xrow = S.xs[lane];
  float *orow = S.os[lane];
#pragma unroll
  for (int j = 0; j < CH; j++)
    {
      const int c = t0 + j - lane, slot = c & (RING - 1);
      double nx[MR], ny[MR];
#pragma unroll
      for (int k1 = 1; k1 < MR; k1++)
        {
          nx[k1] = __shfl_up_sync (FULL, xw[(k1 - 1) * GFX_IIR_W], 1);
          ny[k1] = __shfl_up_sync (FULL, yw[(k1 - 1) * GFX_IIR_W], 1);
        }
#pragma unroll
      for (int k1 = 0; k1 < MR; k1++)
#pragma unroll
        for (int k2 = MC - 1; k2 > 0; k2--)
          {
            xw[k1 * GFX_IIR_W + k2] = xw[k1 * GFX_IIR_W + k2 - 1];
            yw[k1 * GFX_IIR_W + k2] = yw[k1 * GFX_IIR_W + k2 - 1];
          }
      xw[0] = xrow[slot];
#pragma unroll
      for (int k1 = 1; k1 < MR; k1++) /* lane 0: the rows above the group */
        {
          xw[k1 * GFX_IIR_W] = lane == 0 ? S.ax[k1 - 1][j] : nx[k1];
          yw[k1 * GFX_IIR_W] = lane == 0 ? S.ay[k1 - 1][j] : ny[k1];
        }
      if (EDGE && c == 0) /* left of the image: x replicated, y = x */
#pragma unroll
        for (int k1 = 0; k1 < MR; k1++)
#pragma unroll
          for (int k2 = 1; k2 < MC; k2++)
            xw[k1 * GFX_IIR_W + k2] = yw[k1 * GFX_IIR_W + k2] = xw[k1 * GFX_IIR_W];
      double y = gfx_iir_point (a, b, m1, m2, xw, yw, MR, MC);
      orow[slot] = (float) y;
      if (lane >= 32 - (MR - 1)) /* the group's last rows, for the boundary buffer */
        S.bs[31 - lane][slot] = y;
      yw[0] = y;
    }
}

/* EXACT: the filter's mask is MR x MC, so m1, m2 are compile-time constants and the
 * coefficients are held in registers. */
template <int MR, int MC, int CH, bool EXACT>
__device__ void
run_group (const Args &A, int g, int q, int ch, int lane, WarpSmem<MR, CH> &S)
{
  const int W = A.W, m1 = EXACT ? MR : A.m1, m2 = EXACT ? MC : A.m2, r0 = g * 32;
  const int steps = W + 31;
  const size_t task = (size_t) ch * GFX_IIR_QUADRANTS + q;
  float *plane = A.planes + task * A.H * W;
  const unsigned long long *bnd_prev =
    g > 0 ? A.bnd + ((task * A.groups + g - 1) * (m1 - 1)) * W : A.bnd;
  unsigned long long *bnd_mine = A.bnd + ((task * A.groups + g) * (m1 - 1)) * W;
  double ra[EXACT ? MR * MC : 1], rb[EXACT ? MR * MC : 1];
  const double *a = c_a[q], *b = c_b[q];
  if (EXACT)
    {
#pragma unroll
      for (int i = 0; i < (EXACT ? MR * MC : 1); i++)
        ra[i] = c_a[q][i], rb[i] = c_b[q][i];
      a = ra, b = rb;
    }
  double xw[MR * GFX_IIR_W], yw[MR * GFX_IIR_W];
#pragma unroll
  for (int i = 0; i < MR * GFX_IIR_W; i++)
    xw[i] = yw[i] = 0.0;
  unsigned pf[CH];
  load_block<CH> (A, q, ch, r0, 0, lane, pf);
  store_block<MR, CH> (S, A.depth, 0, lane, pf);
  load_block<CH> (A, q, ch, r0, CH, lane, pf);
  Above<MR> ab = {};
  if (m1 > 1)
    issue_above<MR, CH> (A, q, ch, r0, 0, lane, bnd_prev, ab);
  __syncwarp ();
  int t0 = 0;
  for (; t0 < steps; t0 += CH)
    {
      if (m1 > 1 && t0 < W)
        {
          settle_above<MR, CH> (A, r0, t0, lane, bnd_prev, ab, S);
          if (t0 + CH < W)
            issue_above<MR, CH> (A, q, ch, r0, t0 + CH, lane, bnd_prev, ab);
        }
      if (t0 >= 32 && t0 + CH <= W)
        chunk_steps<MR, MC, CH, false> (a, b, m1, m2, t0, lane, S, xw, yw);
      else
        chunk_steps<MR, MC, CH, true> (a, b, m1, m2, t0, lane, S, xw, yw);
      __syncwarp (); /* every lane is done with the rings' old columns */
      /* After step t0 + CH - 1, lane 31 has passed column t0 + CH - 32: the block of CH
         columns at t0 - 32 is complete. */
      flush_block<MR, CH> (A, q, plane, bnd_mine, r0, t0 - 32, lane, S);
      store_block<MR, CH> (S, A.depth, t0 + CH, lane, pf);
      load_block<CH> (A, q, ch, r0, t0 + 2 * CH, lane, pf);
      __syncwarp ();
    }
  for (int c0 = t0 - 32; c0 < W; c0 += CH) /* the blocks still in the ring */
    flush_block<MR, CH> (A, q, plane, bnd_mine, r0, c0, lane, S);
  __syncwarp ();
}

template <int MR, int MC, int CH, bool EXACT>
__global__ void
__launch_bounds__ (MAX_WARPS * 32) iir_quadrants (Args A)
{
  extern __shared__ __align__ (16) unsigned char smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  WarpSmem<MR, CH> &S = reinterpret_cast<WarpSmem<MR, CH> *> (smem)[warp];
  for (;;)
    {
      int task = 0;
      if (lane == 0)
        task = atomicAdd (A.ticket, 1);
      task = __shfl_sync (FULL, task, 0);
      if (task >= A.tasks)
        return;
      /* Group-major order: group g-1 of the same (quadrant, channel) has a smaller ticket. */
      int per_group = GFX_IIR_QUADRANTS * A.colours, g = task / per_group;
      int rem = task % per_group;
      run_group<MR, MC, CH, EXACT> (A, g, rem % GFX_IIR_QUADRANTS, rem / GFX_IIR_QUADRANTS,
                                    lane, S);
    }
}

__global__ void
fill_sentinel (unsigned long long *p, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    p[i] = SENTINEL;
}

__global__ void
iir_mean (Args A, void *out)
{
  size_t n = (size_t) A.W * A.H;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    for (int ch = 0; ch < A.channels; ch++)
      {
        size_t o = i * A.channels + ch;
        if (ch >= A.colours) /* alpha passes through */
          {
            if (A.depth == GFX_U8)
              ((uint8_t *) out)[o] = ((const uint8_t *) A.in)[o];
            else if (A.depth == GFX_U16)
              ((uint16_t *) out)[o] = ((const uint16_t *) A.in)[o];
            else
              ((float *) out)[o] = ((const float *) A.in)[o];
            continue;
          }
        const float *p = A.planes + (size_t) ch * GFX_IIR_QUADRANTS * n + i;
        float v = gfx_iir_mean (__ldcs (p), __ldcs (p + n), __ldcs (p + 2 * n), __ldcs (p + 3 * n));
        if (A.depth == GFX_U8)
          ((uint8_t *) out)[o] = gfx_unit_to_u8 (v);
        else if (A.depth == GFX_U16)
          ((uint16_t *) out)[o] = gfx_unit_to_u16 (v);
        else
          ((float *) out)[o] = v;
      }
}

template <int CH>
void (*pick (int m1, int m2)) (Args)
{
  int size = m1 > m2 ? m1 : m2;
  if (m1 == 3 && m2 == 3)
    return iir_quadrants<3, 3, CH, true>;
  return size <= 3 ? iir_quadrants<3, 3, CH, false>
                   : size <= 5 ? iir_quadrants<5, 5, CH, false> : iir_quadrants<7, 7, CH, false>;
}

template <int CH>
size_t
warp_smem (int m1, int m2)
{
  int size = m1 > m2 ? m1 : m2;
  return size <= 3 ? sizeof (WarpSmem<3, CH>)
                   : size <= 5 ? sizeof (WarpSmem<5, CH>) : sizeof (WarpSmem<7, CH>);
}

/* Where the split kernel's mean is formed: GPUFX_IIR_MEAN=1 by its own warps once out of
 * quadrant tasks (overlapping the last groups), 0 by iir_mean after it; by default the tail
 * where there are many groups (H100, 8192^2: u8 3.90 against 3.92 ms, float 4.22 against
 * 4.37; at 2048^2 the tail is slower, 0.85 against 0.66 ms). */
bool
tail_mean (bool few)
{
  const char *v = getenv ("GPUFX_IIR_MEAN");
  return v && (v[0] == '0' || v[0] == '1') ? v[0] == '1' : !few;
}

/* The split kernel (3x3), after the sentinel fill. */
gfx_status
launch_split (const Args &A, int pairs, int chunk, int feeders, int limit, cudaStream_t stream,
              gfx_error *err)
{
  gfx_status status = GFX_OK;
  int per_sm = 0, threads = 0;
  CUDA_TRY (gfx_iir_split_launch (A, pairs, chunk, feeders, limit, stream, &per_sm, &threads));
  if (per_sm < 1)
    return gfx_fail (err, GFX_ERR_GPU, "gfx_cuda_iir: a block of %d threads does not fit on "
                     "this GPU (registers or shared memory); use fewer warps per block",
                     threads);
fail:
  return status;
}

gfx_status
launch (const Args &A, bool split, int warps_per_block, int chunk, int feeders, int limit,
        size_t bnd_words, void *d_out, cudaStream_t stream, gfx_error *err)
{
  gfx_status status = GFX_OK;
  int device, sms, per_sm = 0, optin = 0;
  void (*kernel) (Args) = chunk == 16 ? pick<16> (A.m1, A.m2) : pick<8> (A.m1, A.m2);
  size_t per_warp = chunk == 16 ? warp_smem<16> (A.m1, A.m2) : warp_smem<8> (A.m1, A.m2);
  size_t smem;
  int threads;
  CUDA_TRY (cudaGetDevice (&device));
  CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device));
  if (bnd_words)
    {
      fill_sentinel<<<sms * 4, 256, 0, stream>>> (A.bnd, bnd_words);
      CUDA_TRY_LAUNCH ();
    }
  if (split)
    {
      status = launch_split (A, warps_per_block, chunk, feeders, limit, stream, err);
      if (status != GFX_OK || A.done) /* A.done: the kernel forms the mean itself */
        return status;
    }
  else
    {
      CUDA_TRY (cudaDeviceGetAttribute (&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                        device));
      if ((size_t) warps_per_block * per_warp > (size_t) optin) /* a speed knob: fewer warps */
        warps_per_block = (int) (optin / per_warp) > 0 ? (int) (optin / per_warp) : 1;
      smem = warps_per_block * per_warp;
      threads = 32 * warps_per_block;
      CUDA_TRY (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int) smem));
      CUDA_TRY (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, threads,
                                                               smem));
      if (per_sm < 1)
        return gfx_fail (err, GFX_ERR_GPU, "gfx_cuda_iir: a block of %d threads does not fit "
                         "on this GPU (registers or shared memory); use fewer warps per block",
                         threads);
      int blocks = (A.tasks + warps_per_block - 1) / warps_per_block;
      if (blocks > per_sm * sms)
        blocks = per_sm * sms; /* persistent: warps loop over tickets */
      kernel<<<blocks, threads, smem, stream>>> (A);
      CUDA_TRY_LAUNCH ();
    }
  iir_mean<<<sms * 8, 256, 0, stream>>> (A, d_out);
  CUDA_TRY_LAUNCH ();
fail:
  return status;
}

/* Appends the trace (bench/iir_gpu_trace.py reads it) to `path`: a header of four ints
 * (tasks, trace_nc, W, H), then the task records. */
cudaError_t
write_trace (const Args &A, const char *path)
{
  const int hdr[4] = { A.tasks, A.trace_nc, A.W, A.H };
  return gfx_cuda_append_trace (A.trace,
                                (size_t) A.tasks * (GFX_IIR_TRACE_HDR + A.trace_nc), hdr, path);
}

/* What a call keeps for the next one (made on first use, grown as needed, all dropped
 * after a failure so that the next call starts clean); calls are serialised by its lock. */
struct Cache
{
  GfxQueue q; /* events: call start, kernels start, kernels end */
  GfxDevBuf in, out, planes, bnd, ticket, done;
};

std::mutex cache_lock;
Cache cache;

void
release_locked ()
{
  gfx_queue_release (cache.q);
  for (GfxDevBuf *b : { &cache.in, &cache.out, &cache.planes, &cache.bnd, &cache.ticket,
                        &cache.done })
    gfx_devbuf_free (*b);
  cache = Cache ();
}

gfx_status run_locked (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out, bool split,
                       int warps, int chunk, int feeders, int limit, gfx_cuda_timing *timing,
                       gfx_error *err);

} // namespace

extern "C" gfx_status
gfx_cuda_iir (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out,
              const gfx_cuda_iir_tuning *tuning, gfx_cuda_timing *timing, gfx_error *err)
{
  (void) cudaGetLastError (); /* an error an earlier call left behind is not this call's */
  int method = tuning ? tuning->method : 0;
  if (method < 0 || method > 2)
    return gfx_fail (err, GFX_ERR_PARAM, "method = %d: 0 (auto), 1 (one warp per group) or 2 "
                     "(split, 3x3 masks)", method);
  bool split = method != 1 && gfx_iir_split_fits (f->m1, f->m2);
  int warps = tuning && tuning->warps_per_block ? tuning->warps_per_block
            : split ? AUTO_PAIRS : AUTO_WARPS;
  int chunk = tuning && tuning->chunk ? tuning->chunk
            : !split ? AUTO_CHUNK : (in->height + 31) / 32 <= SPLIT_FEW_GROUPS ? 16 : 8;
  if (warps < 1 || warps > MAX_WARPS)
    return gfx_fail (err, GFX_ERR_PARAM, "warps per block = %d: 0 (auto) or 1 to %d", warps, MAX_WARPS);
  bool few = (in->height + 31) / 32 <= SPLIT_FEW_GROUPS;
  int feeders = tuning && tuning->feeders ? tuning->feeders : few ? 4 : 2;
  if (feeders != 1 && feeders != 2 && feeders != 4)
    return gfx_fail (err, GFX_ERR_PARAM, "feeders = %d: 0 (auto), 1, 2 or 4", feeders);
  int limit = tuning ? tuning->per_sm : 0;
  if (limit < 0 || limit > 32)
    return gfx_fail (err, GFX_ERR_PARAM, "blocks per SM = %d: 0 (all that fit) or 1 to 32",
                     limit);
  if (chunk != 8 && chunk != 16)
    return gfx_fail (err, GFX_ERR_PARAM, "chunk = %d columns: 0 (auto), 8 or 16", chunk);
  if (gfx_cuda_fault_injected ("gfx_cuda_iir"))
    return gfx_fail (err, GFX_ERR_GPU, "gfx_cuda_iir: out of memory (injected by "
                     "GPUFX_CUDA_FAIL)");
  std::lock_guard<std::mutex> guard (cache_lock);
  const gfx_status status
    = run_locked (f, in, out, split, warps, chunk, feeders, limit, timing, err);
  if (status != GFX_OK)
    release_locked ();
  return status;
}

namespace
{

gfx_status
run_locked (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out, bool split, int warps,
            int chunk, int feeders, int limit, gfx_cuda_timing *timing, gfx_error *err)
{
  gfx_status status = GFX_OK;
  const bool few = (in->height + 31) / 32 <= SPLIT_FEW_GROUPS;
  Args A = {};
  A.depth = in->depth;
  A.W = in->width, A.H = in->height, A.channels = in->channels;
  A.colours = gfx_image_color_channels (in);
  A.m1 = f->m1, A.m2 = f->m2;
  A.groups = (A.H + 31) / 32;
  A.tasks = A.groups * GFX_IIR_QUADRANTS * A.colours;
  size_t bytes = gfx_image_bytes (in), n = (size_t) A.W * A.H;
  size_t tasks = (size_t) GFX_IIR_QUADRANTS * A.colours;
  size_t bnd_words = A.m1 > 1 ? tasks * A.groups * (A.m1 - 1) * A.W : 0;
  cudaError_t qe = gfx_queue_ensure (cache.q);
  if (qe != cudaSuccess)
    return gfx_fail (err, GFX_ERR_GPU, "gfx_cuda_iir: stream and events: %s",
                     cudaGetErrorString (qe));
  if ((status = gfx_devbuf_need (cache.in, bytes, "gfx_cuda_iir", err))
      || (status = gfx_devbuf_need (cache.out, bytes, "gfx_cuda_iir", err))
      || (status = gfx_devbuf_need (cache.planes, sizeof (float) * n * tasks, "gfx_cuda_iir", err))
      || (status = gfx_devbuf_need (cache.bnd, sizeof (unsigned long long) * bnd_words,
                                    "gfx_cuda_iir", err))
      || (status = gfx_devbuf_need (cache.ticket, sizeof (int) * TICKETS, "gfx_cuda_iir", err)))
    return status;
  cudaStream_t stream = cache.q.stream;
  cudaEvent_t *ev = cache.q.ev;
  void *d_in = cache.in.p, *d_out = cache.out.p;
  A.planes = (float *) cache.planes.p;
  A.bnd = A.m1 > 1 ? (unsigned long long *) cache.bnd.p : nullptr;
  A.ticket = (int *) cache.ticket.p;
  if (split && tail_mean (few))
    {
      status = gfx_devbuf_need (cache.done, sizeof (unsigned) * GFX_IIR_QUADRANTS * A.groups,
                                "gfx_cuda_iir", err);
      if (status != GFX_OK)
        return status;
      A.done = (unsigned *) cache.done.p;
      A.out = d_out;
      A.mean_tasks = A.groups * ((A.W + GFX_IIR_MEAN_COLS - 1) / GFX_IIR_MEAN_COLS);
    }
  A.in = d_in;
  CUDA_TRY (cudaEventRecord (ev[0], stream));
  if (split && getenv ("GPUFX_IIR_TRACE")) /* bench: per-chunk clocks to a file */
    {
      A.trace_nc = ((A.W + 31 + 7) / 8 + GFX_IIR_TRACE_EVERY - 1) / GFX_IIR_TRACE_EVERY;
      const size_t tw = (size_t) A.tasks * (GFX_IIR_TRACE_HDR + A.trace_nc);
      CUDA_TRY (cudaMalloc (&A.trace, tw * 4));
      CUDA_TRY (cudaMemsetAsync (A.trace, 0, tw * 4, stream));
    }
  {
    double ca[GFX_IIR_QUADRANTS][GFX_IIR_W * GFX_IIR_W] = {};
    double cb[GFX_IIR_QUADRANTS][GFX_IIR_W * GFX_IIR_W] = {};
    for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
      for (int i = 0; i < A.m1 * A.m2; i++)
        ca[q][i] = f->a[q][i], cb[q][i] = f->b[q][i];
    CUDA_TRY (cudaMemcpyToSymbolAsync (c_a, ca, sizeof ca, 0, cudaMemcpyHostToDevice, stream));
    CUDA_TRY (cudaMemcpyToSymbolAsync (c_b, cb, sizeof cb, 0, cudaMemcpyHostToDevice, stream));
    if (split)
      {
        double sa[GFX_IIR_QUADRANTS][9] = {}, sb[GFX_IIR_QUADRANTS][9] = {};
        for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
          for (int i = 0; i < 9; i++)
            sa[q][i] = f->a[q][i], sb[q][i] = f->b[q][i];
        CUDA_TRY (gfx_iir_split_coefs (sa, sb, stream));
      }
    CUDA_TRY (gfx_staging_upload (cache.q.staging, d_in, in->pixels, bytes, stream));
    CUDA_TRY (cudaStreamSynchronize (stream)); /* the constants are read from host memory */
    CUDA_TRY (cudaEventRecord (ev[1], stream));
    CUDA_TRY (cudaMemsetAsync (A.ticket, 0, sizeof (int) * TICKETS, stream));
    if (A.done)
      CUDA_TRY (cudaMemsetAsync (A.done, 0, sizeof (unsigned) * GFX_IIR_QUADRANTS * A.groups,
                                 stream));
    status = launch (A, split, warps, chunk, feeders, limit, bnd_words, d_out, stream, err);
    if (status != GFX_OK)
      goto fail;
    CUDA_TRY (cudaEventRecord (ev[2], stream));
    CUDA_TRY (gfx_staging_download (out->pixels, d_out, bytes, stream));
    CUDA_TRY (cudaStreamSynchronize (stream));
    if (A.trace)
      CUDA_TRY (write_trace (A, getenv ("GPUFX_IIR_TRACE")));
    if (timing)
      {
        float k_ms = 0, t_ms = 0;
        CUDA_TRY (cudaEventElapsedTime (&k_ms, ev[1], ev[2]));
        CUDA_TRY (cudaEventElapsedTime (&t_ms, ev[0], ev[2]));
        timing->kernel_ms = k_ms;
        timing->total_ms = t_ms;
      }
  }
fail:
  if (A.trace)
    {
      cudaStreamSynchronize (stream); /* nothing may still use it */
      cudaFree (A.trace);
    }
  return status;
}

} // namespace
