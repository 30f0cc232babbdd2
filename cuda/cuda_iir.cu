/* gfx_cuda_iir: the GPU quadrant IIR filter (cuda_iir.h).
 *
 * Method.  In a quadrant's own frame, thread `lane` of a warp owns row r = 32 g + lane of a
 * 32-row group g and, at step t, computes column c = t - lane: a skewed scan line, so the
 * pixels a warp computes together lie on one anti-diagonal and are independent.  Each
 * thread keeps its windows x(r-k1, c-k2), y(r-k1, c-k2) in registers: column history moves
 * by a register shift, the rows above arrive by __shfl_up from the lane above (which held
 * them one step earlier).  Lane 0 reads the rows above its group (the last M1-1 rows of
 * group g-1, kept as doubles in a boundary buffer) once group g-1's progress flag says they
 * are written.  Warps take (group, quadrant, channel) from an atomic ticket in start order,
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
constexpr int AUTO_SYNC = 8;
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
__device__ __forceinline__ double
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

/* Lane 0 spins until group g-1 has completed `need` steps, then makes its writes visible. */
__device__ __forceinline__ int
wait_for (const int *flag, int need, int lane)
{
  int seen = 0;
  if (lane == 0)
    {
      while ((seen = *(const volatile int *) flag) < need)
        __nanosleep (32);
      __threadfence ();
    }
  return __shfl_sync (FULL, seen, 0);
}

template <int MR, int MC>
__device__ void
run_group (const Args &A, int g, int q, int ch, int lane)
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
  int known = 0, next_publish = A.sync;
  for (int t = 0; t < steps; t++)
    {
      const int c = t - lane;
      if (g > 0 && m1 > 1 && t < W && known < t + 32)
        known = wait_for (flag_prev, t + 32, lane);
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
      xw[0] = row_ok && col_ok ? load_x (A, q, ch, r, c) : 0.0;
#pragma unroll
      for (int k1 = 1; k1 < MR; k1++)
        {
          xw[k1 * GFX_IIR_W] = nx[k1];
          yw[k1 * GFX_IIR_W] = ny[k1];
          if (lane == 0 && k1 < m1 && col_ok)
            {
              int above = r - k1; /* in group g-1, or above the image: y = x there */
              xw[k1 * GFX_IIR_W] = load_x (A, q, ch, above, c);
              yw[k1 * GFX_IIR_W] = above < 0 ? xw[k1 * GFX_IIR_W]
                                              : __ldcg (bnd_prev + (size_t) (k1 - 1) * W + c);
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
      if (t + 1 == next_publish || t + 1 == steps)
        {
          next_publish += A.sync;
          __threadfence ();
          __syncwarp ();
          if (lane == 0)
            *(volatile int *) flag_mine = t + 1;
        }
    }
}

template <int MR, int MC>
__global__ void
__launch_bounds__ (MAX_WARPS * 32) iir_quadrants (Args A)
{
  const int lane = threadIdx.x & 31;
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
      run_group<MR, MC> (A, g, rem % GFX_IIR_QUADRANTS, rem / GFX_IIR_QUADRANTS, lane);
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
  if (sync < 1 || sync > 4096)
    return gfx_fail (err, GFX_ERR_PARAM, "sync interval = %d: 0 (auto) or 1 to 4096", sync);
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
