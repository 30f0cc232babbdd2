/* The split kernel's device code (cuda_iir_split.cu says how it works), in a header of
 * its own so that tests/emu/iir_emu.cpp can run it on the CPU.  The includer provides
 * pair_sync (id, threads) (named barrier), ld_relaxed / st_relaxed (64-bit relaxed global
 * accesses) and GFX_IIR_SMEM (name) (the dynamic shared memory), inside namespace gfx_iir. */
#ifndef GFX_CUDA_IIR_SPLIT_CUH
#define GFX_CUDA_IIR_SPLIT_CUH

#include "cuda_iir_internal.h"

namespace gfx_iir
{


constexpr unsigned FULL = 0xffffffffu;
constexpr int M = 3;
constexpr int RING = 128;          /* columns of the S_a / y ring (power of 2, >= 3 CH + 32:
                                      see f_phase) */
constexpr int RS = RING + 2;       /* its row stride: skewed reads (R) are conflict-free */
constexpr int XR = 64;             /* columns of the input ring (>= 2 CH + 2, power of 2) */
constexpr int XS = XR + 1;         /* odd row stride: column reads across rows conflict-free */
constexpr int XROWS = 32 + M - 1;  /* input rows r0 - 2 .. r0 + 31 */
constexpr int SPLIT_THREADS = 256; /* per block at most: registers for the feeders */

__constant__ double c_a[GFX_IIR_QUADRANTS][9];
__constant__ double c_b[GFX_IIR_QUADRANTS][9];

struct PairSmem
{
  double ring[32 * RS];     /* row l, frame column c at l * RS + (c & (RING - 1)) */
  double xs[XROWS * XS];    /* input row r0 - 2 + i at i * XS + (c & (XR - 1)) */
  double ay[M - 1][RING];   /* y of rows r0 - 1 (0) and r0 - 2 (1) for lane 0 */
  double x0[XROWS];         /* column 0 of the input rows: the window left of the image */
  int task;
};

__device__ __forceinline__ double
sa3 (const double (&a)[9], const double (&xw)[M][M])
{
  double s_a = 0.0;
#pragma unroll
  for (int r1 = 0; r1 < M; r1++)
    {
      double row = a[r1 * M] * xw[r1][0];
#pragma unroll
      for (int r2 = 1; r2 < M; r2++)
        row = row + a[r1 * M + r2] * xw[r1][r2];
      s_a = r1 == 0 ? row : s_a + row;
    }
  return s_a;
}

__device__ __forceinline__ double
rest3 (const double (&b)[9], double s_a, const double (&yw)[M][M])
{
  double s_old = 0.0;
#pragma unroll
  for (int r1 = 0; r1 < M; r1++)
    {
      double old = 0.0;
#pragma unroll
      for (int k2 = 0; k2 < M; k2++)
        if (r1 > 1 || (r1 == 1 && k2 > 0) || (r1 == 0 && k2 > 1))
          old = old + b[r1 * M + k2] * yw[r1][k2];
      s_old = s_old + old;
    }
  double y = s_a - s_old;
  y = y - b[M] * yw[1][0];
  y = y - b[1] * yw[0][1];
  return y;
}

/* R: steps t0 .. t0 + CH - 1.  EDGE: some lane is left of the image (c < 0: nothing kept;
 * the window is set up at c == 0) or right of it (c >= W); without EDGE no column test. */
template <int CH, bool EDGE>
__device__ __forceinline__ void
r_steps (const double (&b)[9], int W, int t0, int lane, PairSmem &S, double (&yw)[M][M],
         unsigned long long *pub)
{
  double *row = S.ring + lane * RS;
#pragma unroll
  for (int j = 0; j < CH; j++)
    {
      const int c = t0 + j - lane, slot = c & (RING - 1), tc = (t0 + j) & (RING - 1);
      const double n1 = __shfl_up_sync (FULL, yw[0][0], 1);
      const double n2 = __shfl_up_sync (FULL, yw[1][0], 1);
      const double a1 = S.ay[0][tc], a2 = S.ay[1][tc];
      const double sa = row[slot];
#pragma unroll
      for (int k1 = 0; k1 < M; k1++)
        {
          yw[k1][2] = yw[k1][1];
          yw[k1][1] = yw[k1][0];
        }
      yw[1][0] = lane == 0 ? a1 : n1;
      yw[2][0] = lane == 0 ? a2 : n2;
      if (EDGE && c == 0) /* left of the image: y = x, replicated */
#pragma unroll
        for (int k1 = 0; k1 < M; k1++)
          yw[k1][1] = yw[k1][2] = S.x0[lane + 2 - k1];
      const double y = rest3 (b, sa, yw);
      if (!EDGE || (c >= 0 && c < W))
        {
          row[slot] = y;
          if (pub)
            st_relaxed (pub + t0 + j, y);
        }
      yw[0][0] = y;
    }
}

/* R, group g: lanes 30 and 31 publish their y (the rows the group below needs) to the
 * boundary buffer as soon as it is computed: relaxed 64-bit stores, each word its own ready
 * flag (pub + t is column t - lane of the lane's boundary row). */
template <int CH>
__device__ void
recur (const IirArgs &A, int g, int q, int ch, int lane, PairSmem &S, int bar, int nb)
{
  const int W = A.W, chunks = (W + 31 + CH - 1) / CH;
  const size_t task = (size_t) ch * GFX_IIR_QUADRANTS + q;
  unsigned long long *pub = nullptr;
  if (g + 1 < A.groups && lane >= 32 - (M - 1))
    pub = A.bnd + (task * A.groups + g) * (M - 1) * W + (size_t) (31 - lane) * W - lane;
  double b[9];
#pragma unroll
  for (int i = 0; i < 9; i++)
    b[i] = c_b[q][i];
  double yw[M][M];
#pragma unroll
  for (int k1 = 0; k1 < M; k1++)
#pragma unroll
    for (int k2 = 0; k2 < M; k2++)
      yw[k1][k2] = 0.0;
  pair_sync (bar, nb); /* input of chunks 0 and 1 staged */
  pair_sync (bar, nb); /* chunk 0 is ready */
  for (int i = 0; i < chunks; i++)
    {
      const int t0 = i * CH;
      if (t0 >= 32 && t0 + CH <= W)
        r_steps<CH, false> (b, W, t0, lane, S, yw, pub);
      else
        r_steps<CH, true> (b, W, t0, lane, S, yw, pub);
      pair_sync (bar, nb);
    }
}

/* F's input: rows r0 - 2 .. r0 + 31 (clamped to row 0 above the image), load i of a chunk
 * covering 32 / CH rows of CH consecutive columns; row pointers set once per group, rows
 * below the image read as 0.  T: the sample type (uint8_t, uint16_t, float). */
template <int CH>
constexpr int NPF = (XROWS + 32 / CH - 1) / (32 / CH);

template <int CH, typename T>
struct Input
{
  const T *row[NPF<CH>];
  unsigned valid; /* bit i: load i's row is inside the image */
  int step;       /* frame column + 1 -> element offset (channels, negative if flipped) */
  long long col0; /* element offset of frame column 0 for this lane's column in a chunk */
};

template <int CH, typename T>
__device__ __forceinline__ void
in_setup (const IirArgs &A, int q, int ch, int r0, int lane, Input<CH, T> &I)
{
  constexpr int RPI = 32 / CH;
  const int pr = lane / CH, lc = lane % CH;
  const bool flip = q == 1 || q == 2;
  I.valid = 0;
#pragma unroll
  for (int i = 0; i < NPF<CH>; i++)
    {
      const int ri = i * RPI + pr;
      int fr = r0 - 2 + ri;
      if (ri < XROWS && fr < A.H)
        I.valid |= 1u << i;
      fr = fr < 0 ? 0 : fr >= A.H ? A.H - 1 : fr;
      const int row = q >= 2 ? A.H - 1 - fr : fr;
      I.row[i] = (const T *) A.in + (size_t) row * A.W * A.channels + ch;
    }
  I.step = flip ? -A.channels : A.channels;
  I.col0 = (long long) (flip ? A.W - 1 - lc : lc) * A.channels;
}

/* Feeder f of NF issues loads i with i % NF == f. */
template <int CH, int NF, typename T>
__device__ __forceinline__ void
f_load (const Input<CH, T> &I, int W, int c0, int lane, int f, T (&pf)[NPF<CH>])
{
  const bool in = c0 + lane % CH < W;
  const long long off = I.col0 + (long long) c0 * I.step;
#pragma unroll
  for (int i = 0; i < NPF<CH>; i++)
    if (i % NF == f)
      pf[i] = in && (I.valid >> i & 1) ? __ldg (I.row[i] + off) : T (0);
}

__device__ __forceinline__ float
value (uint8_t v)
{
  return gfx_iir_from_u8 (v);
}

__device__ __forceinline__ float
value (uint16_t v)
{
  return gfx_iir_from_u16 (v);
}

__device__ __forceinline__ float
value (float v)
{
  return v;
}

template <int CH, int NF, typename T>
__device__ __forceinline__ void
f_stage (PairSmem &S, int c0, int lane, int f, const T (&pf)[NPF<CH>])
{
  constexpr int RPI = 32 / CH;
  const int pr = lane / CH, slot = (c0 + lane % CH) & (XR - 1);
#pragma unroll
  for (int i = 0; i < NPF<CH>; i++)
    {
      const int ri = i * RPI + pr;
      if (i % NF == f && ri < XROWS)
        S.xs[ri * XS + slot] = (double) value (pf[i]);
    }
}

/* F: S_a of row r0 + lane at columns c0 .. c0 + N - 1 (< W) into the ring. */
template <int N>
__device__ __forceinline__ void
f_sums (const double (&a)[9], int W, int c0, int lane, PairSmem &S)
{
  double xw[M][M];
  double *ring = S.ring + lane * RS;
  const double *xs = S.xs + lane * XS; /* row r0 + lane - 2 + i at xs + i * XS */
#pragma unroll
  for (int j = 0; j < N; j++)
    {
      const int c = c0 + j;
      if (c >= W)
        break;
      if (j == 0)
#pragma unroll
        for (int k2 = 1; k2 < M; k2++)
#pragma unroll
          for (int k1 = 0; k1 < M; k1++)
            xw[k1][k2] = xs[(2 - k1) * XS + ((c - k2 < 0 ? 0 : c - k2) & (XR - 1))];
      else
#pragma unroll
        for (int k1 = 0; k1 < M; k1++)
          {
            xw[k1][2] = xw[k1][1];
            xw[k1][1] = xw[k1][0];
          }
#pragma unroll
      for (int k1 = 0; k1 < M; k1++)
        xw[k1][0] = xs[(2 - k1) * XS + (c & (XR - 1))];
      ring[c & (RING - 1)] = sa3 (a, xw);
    }
}

/* F: y of the two rows above the group at columns c0 .. c0 + CH - 1 into `ay` (lane j:
 * column c0 + j): above the image y = x (row 0, the input ring's clamped rows), else
 * group g-1's boundary words, loaded early in the phase (issue) and waited for at its end
 * (settle: each re-poll of a word still the sentinel is an L2 round trip). */
template <int N>
__device__ __forceinline__ void
f_issue (int W, const unsigned long long *prev, int c0, int lane, unsigned long long (&v)[2])
{
  const int col = c0 + lane;
  if (prev && lane < N && col < W)
    v[0] = ld_relaxed (prev + col), v[1] = ld_relaxed (prev + W + col);
}

template <int N>
__device__ __forceinline__ void
f_settle (int W, const unsigned long long *prev, int c0, int lane, unsigned long long (&v)[2],
          PairSmem &S)
{
  const int col = c0 + lane;
  const bool mine = lane < N && col < W;
  if (!prev)
    {
      if (mine)
        for (int k = 0; k < M - 1; k++)
          S.ay[k][col & (RING - 1)] = S.xs[(1 - k) * XS + (col & (XR - 1))];
      return;
    }
  while (__any_sync (FULL, mine && (v[0] == GFX_IIR_SENTINEL || v[1] == GFX_IIR_SENTINEL)))
    if (mine)
      {
        if (v[0] == GFX_IIR_SENTINEL)
          v[0] = ld_relaxed (prev + col);
        if (v[1] == GFX_IIR_SENTINEL)
          v[1] = ld_relaxed (prev + W + col);
      }
  if (mine)
    {
      S.ay[0][col & (RING - 1)] = __longlong_as_double (v[0]);
      S.ay[1][col & (RING - 1)] = __longlong_as_double (v[1]);
    }
}

/* F: the finished columns c0 .. c0 + CH - 1: the group's last two rows of y to the
 * boundary buffer first (the group below waits for them), then the outputs as float to the
 * quadrant's plane, row by row (image frame). */
template <int CH, int NF>
__device__ __forceinline__ void
f_flush (const IirArgs &A, int q, int r0, int c0, int lane, int f, float *plane,
         const PairSmem &S)
{
  constexpr int RPI = 32 / CH;
  const int W = A.W, pr = lane / CH, col = c0 + lane % CH;
  if (col >= W)
    return;
  const int slot = col & (RING - 1), icol = (q == 1 || q == 2) ? W - 1 - col : col;
#pragma unroll
  for (int i = 0; i < CH; i++)
    {
      const int row = r0 + i * RPI + pr;
      if (i % NF == f && row < A.H)
        plane[(size_t) (q >= 2 ? A.H - 1 - row : row) * W + icol] =
          (float) S.ring[(i * RPI + pr) * RS + slot];
    }
}

/* F, phase i (R runs chunk i: ring columns i CH - 31 .. i CH + CH - 1, ay of chunk i),
 * shared by the NF feeder warps f (each takes its share of every job, so that their
 * latencies overlap): flush the block (i - 1) CH - 32 that R completed in phase i - 1; stage
 * the input of chunk i + 2 (loaded two phases ago into `use`, which then loads chunk i + 4);
 * S_a of chunk c1 = (i + 1) CH into the ring (slots of columns (i + 1) CH - RING .., flushed
 * in an earlier phase since RING >= 3 CH + 32), reading the input staged a phase ago; ay of
 * chunk i + 1.  The
 * input ring holds columns c1 - 2 .. c1 + 2 CH - 1 at once (XR >= 2 CH + 2).  Barrier. */
template <int CH, int NF, typename T>
__device__ __forceinline__ void
f_phase (const IirArgs &A, const double (&a)[9], const Input<CH, T> &I, int q, int r0, int i,
         int lane, int f, float *plane, const unsigned long long *prev, T (&use)[NPF<CH>],
         PairSmem &S, int bar, int nb)
{
  constexpr int N = CH / NF;
  const int W = A.W, fb = (i - 1) * CH - 32, c1 = (i + 1) * CH;
  unsigned long long v[2] = { 0, 0 };
  if (c1 < W)
    f_issue<N> (W, prev, c1 + f * N, lane, v);
  if (fb >= 0 && fb < W)
    f_flush<CH, NF> (A, q, r0, fb, lane, f, plane, S);
  if (c1 + CH < W)
    {
      f_stage<CH, NF, T> (S, c1 + CH, lane, f, use);
      if (c1 + 3 * CH < W)
        f_load<CH, NF, T> (I, W, c1 + 3 * CH, lane, f, use);
    }
  if (c1 < W)
    {
      f_sums<N> (a, W, c1 + f * N, lane, S);
      f_settle<N> (W, prev, c1 + f * N, lane, v, S);
    }
  __syncwarp ();
  pair_sync (bar, nb);
}

template <int CH, int NF, typename T>
__device__ void
feed (const IirArgs &A, int g, int q, int ch, int lane, int f, PairSmem &S, int bar, int nb)
{
  constexpr int N = CH / NF;
  const int W = A.W, chunks = (W + 31 + CH - 1) / CH, r0 = g * 32;
  const size_t task = (size_t) ch * GFX_IIR_QUADRANTS + q;
  float *plane = A.planes + task * A.H * W;
  const unsigned long long *prev =
    g > 0 ? A.bnd + (task * A.groups + g - 1) * (M - 1) * W : nullptr;
  double a[9];
#pragma unroll
  for (int i = 0; i < 9; i++)
    a[i] = c_a[q][i];
  Input<CH, T> I;
  in_setup<CH, T> (A, q, ch, r0, lane, I);
  T pa[NPF<CH>], pb[NPF<CH>]; /* chunks in flight: even ones in pa, odd ones in pb */
  f_load<CH, NF, T> (I, W, 0, lane, f, pa);
  if (CH < W)
    f_load<CH, NF, T> (I, W, CH, lane, f, pb);
  f_stage<CH, NF, T> (S, 0, lane, f, pa);
  if (CH < W)
    f_stage<CH, NF, T> (S, CH, lane, f, pb);
  if (2 * CH < W)
    f_load<CH, NF, T> (I, W, 2 * CH, lane, f, pa);
  if (3 * CH < W)
    f_load<CH, NF, T> (I, W, 3 * CH, lane, f, pb);
  __syncwarp ();
  pair_sync (bar, nb); /* chunks 0 and 1 staged by all feeders */
  if (f == 0)
    {
      S.x0[lane] = S.xs[lane * XS];
      if (lane < XROWS - 32)
        S.x0[32 + lane] = S.xs[(32 + lane) * XS];
    }
  unsigned long long v[2] = { 0, 0 };
  f_issue<N> (W, prev, f * N, lane, v);
  f_sums<N> (a, W, f * N, lane, S);
  f_settle<N> (W, prev, f * N, lane, v, S);
  __syncwarp ();
  pair_sync (bar, nb);
  for (int i = 0; i < chunks; i += 2)
    {
      f_phase<CH, NF, T> (A, a, I, q, r0, i, lane, f, plane, prev, pa, S, bar, nb);
      if (i + 1 < chunks)
        f_phase<CH, NF, T> (A, a, I, q, r0, i + 1, lane, f, plane, prev, pb, S, bar, nb);
    }
  for (int c0 = (chunks - 1) * CH - 32; c0 < W; c0 += CH) /* the last block */
    if (c0 >= 0)
      f_flush<CH, NF> (A, q, r0, c0, lane, f, plane, S);
  __syncwarp ();
}

/* Block: `pairs` groups, warps 0 .. pairs - 1 their R warps (spread over the SM's
 * schedulers), then NF feeder warps per group. */
template <int CH, int NF, typename T>
__global__ void
__launch_bounds__ (SPLIT_THREADS) iir_split (IirArgs A)
{
  GFX_IIR_SMEM (smem);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int pairs = blockDim.x / (32 * (1 + NF)), nb = 32 * (1 + NF);
  const bool feeder = warp >= pairs;
  const int pair = feeder ? (warp - pairs) / NF : warp, f = feeder ? (warp - pairs) % NF : 0;
  const int bar = 1 + pair;
  PairSmem &S = reinterpret_cast<PairSmem *> (smem)[pair];
  for (;;)
    {
      if (feeder && f == 0 && lane == 0)
        S.task = atomicAdd (A.ticket, 1);
      pair_sync (bar, nb);
      const int task = S.task;
      if (task >= A.tasks)
        return;
      /* Group-major order: group g-1 of the same (quadrant, channel) has a smaller ticket. */
      const int per_group = GFX_IIR_QUADRANTS * A.colours, g = task / per_group;
      const int rem = task % per_group, q = rem % GFX_IIR_QUADRANTS;
      if (feeder)
        feed<CH, NF, T> (A, g, q, rem / GFX_IIR_QUADRANTS, lane, f, S, bar, nb);
      else
        recur<CH> (A, g, q, rem / GFX_IIR_QUADRANTS, lane, S, bar, nb);
    }
}

template <int CH, int NF>
void (*pick (gfx_depth depth)) (IirArgs)
{
  return depth == GFX_U8 ? iir_split<CH, NF, uint8_t>
       : depth == GFX_U16 ? iir_split<CH, NF, uint16_t> : iir_split<CH, NF, float>;
}

} // namespace gfx_iir

#endif
