/* Inside cuda/cuda_iir*.cu only: what the two quadrant kernels share (the launch
 * arguments, the boundary sentinel, input sampling) and the split kernel's entry points. */
#ifndef GFX_CUDA_IIR_INTERNAL_H
#define GFX_CUDA_IIR_INTERNAL_H

#ifndef GFX_IIR_EMULATE /* tests/emu/iir_emu.cpp brings its own CUDA surface */
#include <cuda_runtime.h>
#endif

#include "../common/iir_kernels.h"
#include "../common/image.h"

/* Columns of one of the split kernel's mean tasks (32 image rows each). */
constexpr int GFX_IIR_MEAN_COLS = 1024;

/* Not-yet-written boundary word: a signalling NaN (arithmetic only makes quiet ones). */
constexpr unsigned long long GFX_IIR_SENTINEL = 0x7ff4dead0000beefull;

struct IirArgs
{
  const void *in;
  gfx_depth depth;
  int W, H, channels, colours;
  int m1, m2;
  int groups, tasks;
  float *planes;           /* [colour][quadrant][H][W], image frame */
  unsigned long long *bnd; /* [colour][quadrant][group][m1 - 1][W]: last rows of each
                              group (double bits), row 0 = the group's last row;
                              GFX_IIR_SENTINEL until written */
  int *ticket;             /* [0]: quadrant tasks; [1]: mean tasks (split kernel) */
  /* Split kernel with the mean in its tail (null: iir_mean runs after it): */
  unsigned *done;          /* [quadrant][group]: colours whose group has its plane rows out */
  void *out;               /* the output image */
  int mean_tasks;          /* row groups x GFX_IIR_MEAN_COLS-column segments */
  /* Bench only (GPUFX_IIR_TRACE): per task GFX_IIR_TRACE_HDR words, then the R warp's SM
     clock at the start of every GFX_IIR_TRACE_EVERY-th chunk (trace_nc of them); null: none. */
  unsigned *trace;
  int trace_nc;
};

/* Trace header words of a task: 0-1 global timer at the start, 2 SM clock at the start,
   3 SM id, 4-5 global timer at the end, 6 SM clock at the end, 7 cycles R waited at its
   barriers, 8 cycles feeder 0 spent waiting for the boundary words (f_settle), 9 ticket. */
constexpr int GFX_IIR_TRACE_HDR = 16;
constexpr int GFX_IIR_TRACE_EVERY = 4;

/* Raw input sample (its bits, not yet converted: the load stays in flight until the value
 * is used) at (n1, n2) of quadrant q's frame, rows above the image clamped to row 0. */
__device__ __forceinline__ unsigned
gfx_iir_load_raw (const IirArgs &A, int q, int ch, int n1, int n2)
{
  n1 = n1 < 0 ? 0 : n1;
  int row = q >= 2 ? A.H - 1 - n1 : n1, col = (q == 1 || q == 2) ? A.W - 1 - n2 : n2;
  size_t i = ((size_t) row * A.W + col) * A.channels + ch;
  switch (A.depth)
    {
    case GFX_U8: return __ldg ((const uint8_t *) A.in + i);
    case GFX_U16: return __ldg ((const uint16_t *) A.in + i);
    default: return __float_as_uint (__ldg ((const float *) A.in + i));
    }
}

/* The sample's value (gfx_unit_from_u8 / _u16, as the CPU path reads it); raw 0 is 0. */
__device__ __forceinline__ float
gfx_iir_raw_value (gfx_depth depth, unsigned v)
{
  return depth == GFX_U8 ? gfx_unit_from_u8 ((uint8_t) v)
       : depth == GFX_U16 ? gfx_unit_from_u16 ((uint16_t) v) : __uint_as_float (v);
}

#ifndef GFX_IIR_EMULATE /* (tests/emu/iir_emu.cpp has its own boundary-word accesses) */
#include "relaxed_words.cuh"

/* A boundary word: a double's bits, GFX_IIR_SENTINEL until written. */
__device__ __forceinline__ unsigned long long
ld_relaxed (const unsigned long long *p)
{
  return ld_relaxed_gpu (p);
}

__device__ __forceinline__ void
st_relaxed (unsigned long long *p, double v)
{
  st_relaxed_gpu (p, (unsigned long long) __double_as_longlong (v));
}

/* The split kernel (cuda_iir_split.cu): exactly 3x3 masks. */
bool gfx_iir_split_fits (int m1, int m2);
/* Copies the coefficients (q-major, row-major, 3x3) to the split kernel's constants. */
cudaError_t gfx_iir_split_coefs (const double (*a)[9], const double (*b)[9], cudaStream_t s);
/* Launches the quadrant kernel: `pairs` groups per block (fewer if the block would pass 256
 * threads), each a recursion warp and `feeders` (1, 2 or 4) feeder warps, chunk 8 or 16
 * columns, at most `limit` blocks per SM (0: all that fit); *per_sm gets the blocks that fit
 * on an SM (0: none, nothing launched), *threads the block size.  Returns the CUDA error. */
cudaError_t gfx_iir_split_launch (const IirArgs &A, int pairs, int chunk, int feeders,
                                  int limit, cudaStream_t s, int *per_sm, int *threads);
#endif

#endif
