/* gfx_cuda_iir: the GPU quadrant IIR filter (cuda_iir.h).
 *
 * Method.  In a quadrant's own frame, thread `lane` of a warp owns row r = 32 g + lane of a
 * 32-row group g and, at step t, computes column c = t - lane: a skewed scan line, so the
 * pixels a warp computes together lie on one anti-diagonal and are independent.  Each
 * thread keeps its windows x(r-k1, c-k2), y(r-k1, c-k2) in registers: column history moves
 * by a register shift, the rows above arrive by __shfl_up from the lane above (which held
 * them one step earlier).  Work goes in chunks of CH columns: each thread's own row is
 * loaded a chunk ahead, and at a chunk's start the warp fetches the rows above the group
 * (the last M1-1 rows of group g-1, kept as doubles in a boundary buffer) into shared
 * memory for lane 0, once group g-1's progress flag (acquire / release) says they are
 * written.  Warps take (group, quadrant, channel) from an atomic ticket in start order,
 * so a warp only ever waits for a group whose warp is already running.  The per-pixel sum
 * is gfx_iir_point, shared with the CPU path.  A second kernel forms the mean. */
#include "cuda_iir.h"

#include <cstring>

#include "../common/iir_kernels.h"
#include "cuda_check.h"

namespace
{

constexpr unsigned FULL = 0xffffffffu;
constexpr int AUTO_WARPS = 4;
constexpr int AUTO_SYNC = 1;   /* chunks between progress publications */
constexpr int CH = 16;         /* columns per chunk: prefetch and hand-off unit */
constexpr int MAX_WARPS = 8; /* per block: keeps the register budget of the 7x7 windows */

__constant__ double c_a[GFX_IIR_QUADRANTS][GFX_IIR_W * GFX_IIR_W];
__constant__ double c_b[GFX_IIR_QUADRANTS][GFX_IIR_W * GFX_IIR_W];

struct Args
{
  const void *in;
  gfx_depth depth;
  int W, H, channels, colours;
  int m1, m2;
  int groups, tasks, sync;
  float *planes;  /* [colour][quadrant][H][W], image frame */
  double *bnd;    /* [colour][quadrant][group][m1 - 1][W]: last rows of each group */
  int *flags;     /* [colour][quadrant][group]: steps completed */
  int *ticket;
};

/* Input sample at (n1, n2) of quadrant q's frame, rows clamped to the image (edge rule). */
__device__ __forceinline__ float
load_x (const Args &A, int q, int ch, int n1, int n2)
{
  n1 = n1 < 0 ? 0 : n1;
  int row = q >= 2 ? A.H - 1 - n1 : n1, col = (q == 1 || q == 2) ? A.W - 1 - n2 : n2;
  size_t i = ((size_t) row * A.W + col) * A.channels + ch;
  switch (A.depth)
    {
    case GFX_U8: return gfx_iir_from_u8 (__ldg ((const uint8_t *) A.in + i));
    case GFX_U16: return gfx_iir_from_u16 (__ldg ((const uint16_t *) A.in + i));
    default: return __ldg ((const float *) A.in + i);
    }
}

/* One chunk of a thread's own row, columns c0 .. c0 + CH - 1 (0 outside the image); issued
 * a chunk ahead so the loads are in flight while the previous chunk computes. */
__device__ __forceinline__ void
load_chunk (const Args &A, int q, int ch, int r, bool row_ok, int c0, float (&x)[CH])
{
#pragma unroll
  for (int j = 0; j < CH; j++)
    x[j] = row_ok && c0 + j >= 0 && c0 + j < A.W ? load_x (A, q, ch, r, c0 + j) : 0.0f;
}

/* Lane 0 waits (acquire) until group g-1 has completed `need` steps; all lanes get the
 * value it saw. */
__device__ __forceinline__ int
wait_for (const int *flag, int need, int lane)
{
  int seen = 0;
  if (lane == 0)
    for (;;)
      {
        asm volatile ("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
        if (seen >= need)
          break;
        __nanosleep (20);
      }
  return __shfl_sync (FULL, seen, 0);
}

/* Publishes `steps` completed: the lanes that wrote boundary rows make them visible, then
 * lane 0 stores the flag with release semantics. */
__device__ __forceinline__ void
publish (int *flag, int steps, int lane, int m1)
{
  if (lane >= 32 - (m1 - 1))
    __threadfence ();
  __syncwarp ();
  if (lane == 0)
    asm volatile ("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(steps) : "memory");
}

/* Lanes j < CH fetch column t0 + j of the rows above the group (x, and y from group g-1's
 * boundary rows or y = x above the image) into the warp's shared buffers for lane 0. */
template <int MR>
__device__ __forceinline__ void
fetch_above (const Args &A, int q, int ch, int r0, int t0, int lane, const double *bnd_prev,
             double (*s_x)[CH], double (*s_y)[CH])
{
  const int col = t0 + lane;
  if (lane < CH && col < A.W)
#pragma unroll
    for (int k1 = 1; k1 < MR; k1++)
      if (k1 < A.m1)
        {
          int above = r0 - k1;
          double xv = load_x (A, q, ch, above, col);
          s_x[k1 - 1][lane] = xv;
          s_y[k1 - 1][lane] = above < 0 ? xv : __ldcg (bnd_prev + (size_t) (k1 - 1) * A.W + col);
        }
  __syncwarp ();
}

template <int MR, int MC>
__device__ void
run_group (const Args &A, int g, int q, int ch, int lane, double (*s_x)[CH],
           double (*s_y)[CH])
{
  const int W = A.W, m1 = A.m1, m2 = A.m2, r = g * 32 + lane, steps = W + 31;
  const bool row_ok = r < A.H;
  const size_t task = (size_t) ch * GFX_IIR_QUADRANTS + q;
  float *plane = A.planes + task * A.H * W;
  const int *flag_prev = A.flags + task * A.groups + g - 1;
  int *flag_mine = A.flags + task * A.groups + g;
  const double *bnd_prev = g > 0 ? A.bnd + ((task * A.groups + g - 1) * (m1 - 1)) * W : A.bnd;
  double *bnd_mine = A.bnd + ((task * A.groups + g) * (m1 - 1)) * W;
  const int out_row = q >= 2 ? A.H - 1 - r : r;
  const bool flip_h = q == 1 || q == 2;
  double xw[MR * GFX_IIR_W], yw[MR * GFX_IIR_W];
#pragma unroll
  for (int i = 0; i < MR * GFX_IIR_W; i++)
    xw[i] = yw[i] = 0.0;
  float xq[CH], xn[CH];
  load_chunk (A, q, ch, r, row_ok, -lane, xq);
  int known = 0, chunks = 0;
  for (int t0 = 0; t0 < steps; t0 += CH)
    {
      load_chunk (A, q, ch, r, row_ok, t0 + CH - lane, xn);
      if (m1 > 1 && t0 < W)
        {
          /* Lane 32-k1 of group g-1 computes column c at step c + 32 - k1. */
          int need = min (t0 + CH + 31, steps);
          if (g > 0 && known < need)
            known = wait_for (flag_prev, need, lane);
          fetch_above<MR> (A, q, ch, g * 32, t0, lane, bnd_prev, s_x, s_y);
        }
#pragma unroll
      for (int j = 0; j < CH; j++)
        {
          const int c = t0 + j - lane;
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
          const bool col_ok = c >= 0 && c < W;
          xw[0] = xq[j];
#pragma unroll
          for (int k1 = 1; k1 < MR; k1++)
            {
              xw[k1 * GFX_IIR_W] = nx[k1];
              yw[k1 * GFX_IIR_W] = ny[k1];
              if (lane == 0 && k1 < m1 && col_ok) /* rows above the group */
                {
                  xw[k1 * GFX_IIR_W] = s_x[k1 - 1][j];
                  yw[k1 * GFX_IIR_W] = s_y[k1 - 1][j];
                }
            }
          if (c == 0) /* left of the image: x replicated, y = x */
#pragma unroll
            for (int k1 = 0; k1 < MR; k1++)
#pragma unroll
              for (int k2 = 1; k2 < MC; k2++)
                xw[k1 * GFX_IIR_W + k2] = yw[k1 * GFX_IIR_W + k2] = xw[k1 * GFX_IIR_W];
          double y = 0.0;
          if (row_ok && col_ok)
            {
              y = gfx_iir_point (c_a[q], c_b[q], m1, m2, xw, yw, MR, MC);
              plane[(size_t) out_row * W + (flip_h ? W - 1 - c : c)] = (float) y;
              if (lane >= 32 - (m1 - 1))
                bnd_mine[(size_t) (31 - lane) * W + c] = y;
            }
          yw[0] = y;
        }
      __syncwarp (); /* lane 0 has read the shared buffers before the next fetch */
#pragma unroll
      for (int j = 0; j < CH; j++)
        xq[j] = xn[j];
      if (++chunks == A.sync || t0 + CH >= steps)
        {
          chunks = 0;
          publish (flag_mine, t0 + CH, lane, m1);
        }
    }
}

template <int MR, int MC>
__global__ void
__launch_bounds__ (MAX_WARPS * 32) iir_quadrants (Args A)
{
  constexpr int ROWS = MR > 1 ? MR - 1 : 1;
  __shared__ double s_x[MAX_WARPS][ROWS][CH], s_y[MAX_WARPS][ROWS][CH];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
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
      run_group<MR, MC> (A, g, rem % GFX_IIR_QUADRANTS, rem / GFX_IIR_QUADRANTS, lane,
                         s_x[warp], s_y[warp]);
    }
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
        float v = gfx_iir_mean (p[0], p[n], p[2 * n], p[3 * n]);
        if (A.depth == GFX_U8)
          ((uint8_t *) out)[o] = gfx_iir_to_u8 (v);
        else if (A.depth == GFX_U16)
          ((uint16_t *) out)[o] = gfx_iir_to_u16 (v);
        else
          ((float *) out)[o] = v;
      }
}

gfx_status
launch (const Args &A, int warps_per_block, void *d_out, cudaStream_t stream, gfx_error *err)
{
  gfx_status status = GFX_OK;
  int size = A.m1 > A.m2 ? A.m1 : A.m2, device, sms, per_sm = 0;
  void (*kernel) (Args) = size <= 3 ? iir_quadrants<3, 3>
                          : size <= 5 ? iir_quadrants<5, 5> : iir_quadrants<7, 7>;
  int threads = 32 * warps_per_block;
  CUDA_TRY (cudaGetDevice (&device));
  CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_TRY (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel, threads, 0));
  if (per_sm < 1)
    return gfx_fail (err, GFX_ERR_GPU, "gfx_cuda_iir: a block of %d threads does not fit on "
                     "this GPU (too many registers); use fewer warps per block", threads);
  {
    int blocks = (A.tasks + warps_per_block - 1) / warps_per_block;
    if (blocks > per_sm * sms)
      blocks = per_sm * sms; /* persistent: warps loop over tickets */
    kernel<<<blocks, threads, 0, stream>>> (A);
    CUDA_TRY_LAUNCH ();
    iir_mean<<<sms * 8, 256, 0, stream>>> (A, d_out);
    CUDA_TRY_LAUNCH ();
  }
fail:
  return status;
}

} // namespace

extern "C" gfx_status
gfx_cuda_iir (const gfx_iir_filter *f, const gfx_image *in, gfx_image *out,
              const gfx_cuda_iir_tuning *tuning, gfx_cuda_timing *timing, gfx_error *err)
{
  gfx_status status = GFX_OK;
  int warps = tuning && tuning->warps_per_block ? tuning->warps_per_block : AUTO_WARPS;
  int sync = tuning && tuning->sync_interval ? tuning->sync_interval : AUTO_SYNC;
  if (warps < 1 || warps > MAX_WARPS)
    return gfx_fail (err, GFX_ERR_PARAM, "warps per block = %d: 0 (auto) or 1 to %d", warps, MAX_WARPS);
  if (sync < 1 || sync > 256)
    return gfx_fail (err, GFX_ERR_PARAM, "sync interval = %d: 0 (auto) or 1 to 256", sync);
  if (gfx_cuda_fault_injected ("gfx_cuda_iir"))
    return gfx_fail (err, GFX_ERR_GPU, "gfx_cuda_iir: out of memory (injected by "
                     "GPUFX_CUDA_FAIL)");
  Args A = {};
  A.depth = in->depth;
  A.W = in->width, A.H = in->height, A.channels = in->channels;
  A.colours = gfx_image_color_channels (in);
  A.m1 = f->m1, A.m2 = f->m2;
  A.groups = (A.H + 31) / 32;
  A.tasks = A.groups * GFX_IIR_QUADRANTS * A.colours;
  A.sync = sync;
  size_t bytes = gfx_image_bytes (in), n = (size_t) A.W * A.H;
  size_t tasks = (size_t) GFX_IIR_QUADRANTS * A.colours;
  void *d_in = NULL, *d_out = NULL;
  cudaStream_t stream = NULL;
  cudaEvent_t ev[3] = { NULL, NULL, NULL };
  CUDA_TRY (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (int i = 0; i < 3; i++)
    CUDA_TRY (cudaEventCreate (&ev[i]));
  CUDA_TRY (cudaEventRecord (ev[0], stream));
  CUDA_TRY (cudaMalloc (&d_in, bytes));
  CUDA_TRY (cudaMalloc (&d_out, bytes));
  CUDA_TRY (cudaMalloc (&A.planes, sizeof (float) * n * tasks));
  if (A.m1 > 1)
    CUDA_TRY (cudaMalloc (&A.bnd, sizeof (double) * tasks * A.groups * (A.m1 - 1) * A.W));
  CUDA_TRY (cudaMalloc (&A.flags, sizeof (int) * tasks * A.groups));
  CUDA_TRY (cudaMalloc (&A.ticket, sizeof (int)));
  A.in = d_in;
  {
    double ca[GFX_IIR_QUADRANTS][GFX_IIR_W * GFX_IIR_W] = {};
    double cb[GFX_IIR_QUADRANTS][GFX_IIR_W * GFX_IIR_W] = {};
    for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
      for (int i = 0; i < A.m1 * A.m2; i++)
        ca[q][i] = f->a[q][i], cb[q][i] = f->b[q][i];
    CUDA_TRY (cudaMemcpyToSymbolAsync (c_a, ca, sizeof ca, 0, cudaMemcpyHostToDevice, stream));
    CUDA_TRY (cudaMemcpyToSymbolAsync (c_b, cb, sizeof cb, 0, cudaMemcpyHostToDevice, stream));
    CUDA_TRY (cudaMemcpyAsync (d_in, in->pixels, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_TRY (cudaStreamSynchronize (stream)); /* the constants are read from host memory */
    CUDA_TRY (cudaEventRecord (ev[1], stream));
    CUDA_TRY (cudaMemsetAsync (A.flags, 0, sizeof (int) * tasks * A.groups, stream));
    CUDA_TRY (cudaMemsetAsync (A.ticket, 0, sizeof (int), stream));
    status = launch (A, warps, d_out, stream, err);
    if (status != GFX_OK)
      goto fail;
    CUDA_TRY (cudaEventRecord (ev[2], stream));
    CUDA_TRY (cudaMemcpyAsync (out->pixels, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_TRY (cudaStreamSynchronize (stream));
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
  if (stream)
    cudaStreamSynchronize (stream); /* nothing may still use the buffers we free */
  cudaFree (d_in);
  cudaFree (d_out);
  cudaFree (A.planes);
  cudaFree (A.bnd);
  cudaFree (A.flags);
  cudaFree (A.ticket);
  for (int i = 0; i < 3; i++)
    if (ev[i])
      cudaEventDestroy (ev[i]);
  if (stream)
    cudaStreamDestroy (stream);
  return status;
}
