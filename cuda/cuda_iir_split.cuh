/* The split kernel's device code (cuda_iir_split.cu says how it works), in a header of
 * its own so that tests/emu/iir_emu.cpp can run it on the CPU.  The includer provides
 * pair_sync (id, threads) (named barrier), ld_relaxed / st_relaxed (64-bit relaxed global
 * accesses; on the GPU from cuda_iir_internal.h, shared with cuda_iir.cu's kernel),
 * ld_acquire (32-bit acquire load), gfx_iir_fence () (device-wide fence),
 * ld_plane (a plane value, read at the coherent level), spin_pause () and GFX_IIR_SMEM
 * (name) (the dynamic shared memory), inside namespace gfx_iir, and for the bench's trace
 * trace_clock () (SM clock), trace_gtime () (global timer) and trace_smid () (on the GPU
 * from trace_clock.cuh). */
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

/* The old terms of gfx_iir_point for 3x3 (its S_old: same products, same order) from
 * the windows of one step: w02 = y(0,2), w11 = y(1,1), w12 = y(1,2), w20 = y(2,0), ... */
__device__ __forceinline__ double
s_old3 (const double (&b)[9], double w02, double w11, double w12, double w20, double w21,
        double w22)
{
  double s = 0.0;
  s = s + (0.0 + b[2] * w02);
  s = s + ((0.0 + b[4] * w11) + b[5] * w12);
  s = s + (((0.0 + b[6] * w20) + b[7] * w21) + b[8] * w22);
  return s;
}

/* R's registers between steps (pipelined steps): the windows of the coming step except
 * y(1,0) (this step's shuffle), its S_old (computed a step early, off the chain), and the
 * value lane l + 1 needs as its y(2,0) (this lane's y(1,0) of the last step). */
struct RState
{
  double y01, y02, y11, y12, y21, y22, p10, so;
};

/* The rows left of the image (y = x replicated, x0 of rows r0 + lane - k1). */
__device__ __forceinline__ void
r_left (const PairSmem &S, int lane, double &w01, double &w02, double &w11, double &w12,
        double &w21, double &w22)
{
  w01 = w02 = S.x0[lane + 2];
  w11 = w12 = S.x0[lane + 1];
  w21 = w22 = S.x0[lane];
}

/* Pipelined R steps t0 .. t0 + CH - 1: the step's chain is only y = (S_a - S_old) -
 * b(1,0) y(1,0) - b(0,1) y(0,1) (gfx_iir_point's last three operations): S_old of step j + 1 is
 * formed in step j from values known a step ahead (y(2,0) of step j + 1 is lane l - 1's
 * y(1,0) of step j), S_a and the rows above the group (lane 0) are loaded for the whole
 * chunk first.  S_old of the chunk's first step waits for this chunk's `ay` (lane 0), so
 * it is formed after the barrier.  Same operations in the same order as gfx_iir_point. */
template <int CH, bool EDGE>
__device__ __forceinline__ void
r_steps_pipe (const double (&b)[9], int W, int t0, int lane, PairSmem &S, RState &st,
              unsigned long long *pub)
{
  double *row = S.ring + lane * RS;
  double sa[CH], a1[CH], a2[CH];
#pragma unroll
  for (int j = 0; j < CH; j++)
    {
      const int tc = (t0 + j) & (RING - 1);
      sa[j] = row[(t0 + j - lane) & (RING - 1)];
      a1[j] = S.ay[0][tc];
      a2[j] = S.ay[1][tc];
    }
  /* S_old of the first step */
  const double n2 = __shfl_up_sync (FULL, st.p10, 1); /* every lane: FULL mask */
  double y20 = lane == 0 ? a2[0] : n2;
  st.so = s_old3 (b, st.y02, st.y11, st.y12, y20, st.y21, st.y22);
#pragma unroll
  for (int j = 0; j < CH; j++)
    {
      const int c = t0 + j - lane, slot = c & (RING - 1);
      const double n1 = __shfl_up_sync (FULL, st.y01, 1);
      const double y10 = lane == 0 ? a1[j] : n1;
      /* the windows of step j + 1 */
      double w01 = 0.0, w02 = st.y01, w11 = y10, w12 = st.y11, w21 = y20, w22 = st.y21;
      const bool left = EDGE && c + 1 == 0;
      if (left)
        r_left (S, lane, w01, w02, w11, w12, w21, w22);
      double y20n = 0.0, so_n = 0.0;
      if (j + 1 < CH)
        {
          const double n2n = __shfl_up_sync (FULL, y10, 1);
          y20n = lane == 0 ? a2[j + 1] : n2n;
          so_n = s_old3 (b, w02, w11, w12, y20n, w21, w22);
        }
      double y = sa[j] - st.so;
      y = y - b[M] * y10;
      y = y - b[1] * st.y01;
      if (!EDGE || (c >= 0 && c < W))
        {
          row[slot] = y;
          if (pub)
            st_relaxed (pub + t0 + j, y);
        }
      st.y01 = left ? w01 : y;
      st.y02 = w02, st.y11 = w11, st.y12 = w12, st.y21 = w21, st.y22 = w22;
      st.p10 = y10, st.so = so_n;
      y20 = y20n;
    }
}

/* R, group g: lanes 30 and 31 publish their y (the rows the group below needs) to the
 * boundary buffer as soon as it is computed: relaxed 64-bit stores, each word its own ready
 * flag (pub + t is column t - lane of the lane's boundary row). */
template <int CH>
__device__ void
recur (const IirArgs &A, int g, int q, int ch, int lane, PairSmem &S, int bar, int nb,
       unsigned *tr)
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
  pair_sync (bar, nb); /* input of chunks 0 and 1 staged */
  pair_sync (bar, nb); /* chunk 0 is ready */
  RState st; /* step 0: lane 0 is at column 0 */
  r_left (S, lane, st.y01, st.y02, st.y11, st.y12, st.y21, st.y22);
  st.p10 = 0.0, st.so = 0.0;
  /* trace: cycles waited at the barriers.  The barrier instruction defers its blocking to
   * the loop's branch (the SASS is BAR.SYNC.DEFER_BLOCKING), so a clock read right after it
   * would not see the wait: the wait is read at the top of the next chunk. */
  unsigned wait = 0, c0 = 0;
  for (int i = 0; i < chunks; i++)
    {
      const int t0 = i * CH;
      if (tr && i > 0)
        wait += trace_clock () - c0;
      if (tr && i % GFX_IIR_TRACE_EVERY == 0 && i / GFX_IIR_TRACE_EVERY < A.trace_nc)
        tr[GFX_IIR_TRACE_HDR + i / GFX_IIR_TRACE_EVERY] = trace_clock ();
      if (t0 >= 32 && t0 + CH <= W)
        r_steps_pipe<CH, false> (b, W, t0, lane, S, st, pub);
      else
        r_steps_pipe<CH, true> (b, W, t0, lane, S, st, pub);
      if (tr)
        c0 = trace_clock ();
      pair_sync (bar, nb);
    }
  if (tr)
    {
      const unsigned long long t = trace_gtime ();
      tr[4] = (unsigned) t, tr[5] = (unsigned) (t >> 32), tr[6] = trace_clock (), tr[7] = wait;
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
  return gfx_unit_from_u8 (v);
}

__device__ __forceinline__ float
value (uint16_t v)
{
  return gfx_unit_from_u16 (v);
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

/* F: S_a of row r0 + lane at columns c0 .. c0 + N - 1 (< W) into the ring.  A run wholly
 * inside the image loads all its input columns first and then forms its N sums, which are
 * independent, so that their latencies overlap (column after column, each sum waited for
 * its loads and its chain of additions: the feeders' phases of 8 columns took longer than
 * R's chunks). */
template <int N>
__device__ __forceinline__ void
f_sums (const double (&a)[9], int W, int c0, int lane, PairSmem &S)
{
  double xw[M][M];
  double *ring = S.ring + lane * RS;
  const double *xs = S.xs + lane * XS; /* row r0 + lane - 2 + i at xs + i * XS */
  if (c0 + N <= W)
    {
      double x[M][N + M - 1]; /* x[k1][j]: row r0 + lane - k1, column c0 - (M - 1) + j */
#pragma unroll
      for (int k1 = 0; k1 < M; k1++)
#pragma unroll
        for (int j = 0; j < N + M - 1; j++)
          {
            const int c = c0 - (M - 1) + j;
            x[k1][j] = xs[(2 - k1) * XS + ((c < 0 ? 0 : c) & (XR - 1))];
          }
#pragma unroll
      for (int j = 0; j < N; j++)
        {
#pragma unroll
          for (int k1 = 0; k1 < M; k1++)
#pragma unroll
            for (int k2 = 0; k2 < M; k2++)
              xw[k1][k2] = x[k1][j + M - 1 - k2];
          ring[(c0 + j) & (RING - 1)] = sa3 (a, xw);
        }
      return;
    }
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
 * group g-1's boundary words, loaded before the phase's sums (issue) and waited for at its
 * end (settle: each re-poll of a word still the sentinel is an L2 round trip). */
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

/* F's output rows: lane l writes rows r0 + i RPI + l / CH (i < CH) of the quadrant's plane
 * (image frame): frame column c of the first of them is at row[cdir c], `step` leads to the
 * next row, i RPI < `left` is inside the image.  Set once a group, so that a store is an
 * address add and a predicate. */
struct Output
{
  float *row;
  long long step;
  int left, cdir;
};

template <int CH>
__device__ __forceinline__ void
out_setup (const IirArgs &A, int q, int r0, int lane, float *plane, Output &O)
{
  constexpr int RPI = 32 / CH;
  const int fr = r0 + lane / CH;
  const bool up = q >= 2, flip = q == 1 || q == 2;
  O.left = A.H - fr;
  O.row = plane + (long long) (up ? (O.left > 0 ? A.H - 1 - fr : 0) : fr) * A.W
          + (flip ? A.W - 1 : 0);
  O.step = up ? -(long long) RPI * A.W : (long long) RPI * A.W;
  O.cdir = flip ? -1 : 1;
}

/* F: the finished columns c0 .. c0 + CH - 1: the outputs as float to the quadrant's plane,
 * row by row (image frame).  Feeder f takes rows f, f + NF, ...: all their loads and
 * conversions first, then the stores (predicated), so that the rows' latencies overlap
 * (row after row, each store waited for its load and conversion). */
template <int CH, int NF>
__device__ __forceinline__ void
f_flush (const Output &O, int W, int c0, int lane, int f, const PairSmem &S)
{
  constexpr int RPI = 32 / CH, NR = CH / NF;
  const int col = c0 + lane % CH;
  if (col >= W)
    return;
  const double *src = S.ring + (lane / CH + f * RPI) * RS + (col & (RING - 1));
  float v[NR];
#pragma unroll
  for (int k = 0; k < NR; k++)
    v[k] = (float) src[k * NF * RPI * RS];
  float *p = O.row + O.cdir * col + f * O.step;
#pragma unroll
  for (int k = 0; k < NR; k++, p += NF * O.step)
    if ((f + k * NF) * RPI < O.left)
      *p = v[k];
}

/* F, phase i (R runs chunk i: ring columns i CH - 31 .. i CH + CH - 1, ay of chunk i),
 * shared by the NF feeder warps f (each takes its share of every job, so that their
 * latencies overlap): stage the input of chunk i + 2 (loaded two phases ago into `use`,
 * which then loads chunk i + 4); S_a of chunk c1 = (i + 1) CH into the ring (slots of
 * columns (i + 1) CH - RING .., flushed in an earlier phase since RING >= 3 CH + 32),
 * reading the input staged a phase ago; flush the block (i - 1) CH - 32 that R completed in
 * phase i - 1; ay of chunk i + 1.  The input ring holds columns c1 - 2 .. c1 + 2 CH - 1 at
 * once (XR >= 2 CH + 2).  Barrier. */
template <int CH, int NF, typename T>
__device__ __forceinline__ void
f_phase (const IirArgs &A, const double (&a)[9], const Input<CH, T> &I, const Output &O, int i,
         int lane, int f, const unsigned long long *prev, T (&use)[NPF<CH>], PairSmem &S,
         int bar, int nb, unsigned *tw)
{
  constexpr int N = CH / NF;
  const int W = A.W, fb = (i - 1) * CH - 32, c1 = (i + 1) * CH;
  unsigned long long v[2] = { 0, 0 };
  if (c1 + CH < W)
    {
      f_stage<CH, NF, T> (S, c1 + CH, lane, f, use);
      if (c1 + 3 * CH < W)
        f_load<CH, NF, T> (I, W, c1 + 3 * CH, lane, f, use);
    }
  /* The boundary words are loaded as late as the sums and the flush still hide their
     latency: loaded at the phase's start, they came back the sentinel more often and took
     another round trip (H100, 8192^2: u8 3.53 -> 3.39 ms, float 3.74 -> 3.63 ms). */
  if (c1 < W)
    {
      f_issue<N> (W, prev, c1 + f * N, lane, v);
      f_sums<N> (a, W, c1 + f * N, lane, S);
    }
  if (fb >= 0 && fb < W)
    f_flush<CH, NF> (O, W, fb, lane, f, S);
  if (c1 < W)
    {
      const unsigned c0 = tw ? trace_clock () : 0;
      f_settle<N> (W, prev, c1 + f * N, lane, v, S);
      if (tw)
        *tw += trace_clock () - c0;
    }
  __syncwarp ();
  pair_sync (bar, nb);
}

template <int CH, int NF, typename T>
__device__ __forceinline__ void
feed (const IirArgs &A, int g, int q, int ch, int lane, int f, PairSmem &S, int bar, int nb,
      unsigned *tr)
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
  Output O;
  out_setup<CH> (A, q, r0, lane, plane, O);
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
  unsigned settle = 0, *tw = tr && f == 0 ? &settle : nullptr; /* trace: feeder 0's waits */
  for (int i = 0; i < chunks; i += 2)
    {
      f_phase<CH, NF, T> (A, a, I, O, i, lane, f, prev, pa, S, bar, nb, tw);
      if (i + 1 < chunks)
        f_phase<CH, NF, T> (A, a, I, O, i + 1, lane, f, prev, pb, S, bar, nb, tw);
    }
  if (tw)
    tr[8] = settle;
  for (int c0 = (chunks - 1) * CH - 32; c0 < W; c0 += CH) /* the last block */
    if (c0 >= 0)
      f_flush<CH, NF> (O, W, c0, lane, f, S);
  __syncwarp ();
}

/* The mean of the four planes (iir_mean's arithmetic), done by warps whose block has run out
 * of quadrant tasks, so that it overlaps the last groups instead of following the kernel.
 * A mean task is 32 image rows x MEAN_COLS columns; row groups go from the middle outwards,
 * the order in which the two directions both finish them.  Each waits for the counters of
 * the groups that wrote its rows: (q1, q2) frame group k, (q3, q4) the one or two frame
 * groups over the same image rows. */
constexpr int MEAN_COLS = GFX_IIR_MEAN_COLS;

__device__ __forceinline__ int
mean_segments (int W)
{
  return (W + MEAN_COLS - 1) / MEAN_COLS;
}

/* A finished quadrant task: its plane rows are out (every writer fenced, then the group's
 * barrier), one thread counts it. */
__device__ __forceinline__ void
mark_done (const IirArgs &A, int task)
{
  const int per_group = GFX_IIR_QUADRANTS * A.colours, g = task / per_group;
  const int q = task % per_group % GFX_IIR_QUADRANTS;
  gfx_iir_fence ();
  atomicAdd (A.done + q * A.groups + g, 1u);
}

__device__ __forceinline__ void
mean_task (const IirArgs &A, int t, int lane)
{
  const int G = A.groups, W = A.W, H = A.H, segs = mean_segments (W);
  const int i = t / segs, m = (G - 1) / 2, k = i & 1 ? m + (i + 1) / 2 : m - i / 2;
  const int r0 = 32 * k, r1 = r0 + 32 < H ? r0 + 32 : H;
  const int c0 = t % segs * MEAN_COLS, c1 = c0 + MEAN_COLS < W ? c0 + MEAN_COLS : W;
  /* lanes 0-5 wait for one counter each: q1 k, q2 k, q3 ga, q3 gb, q4 ga, q4 gb */
  const int ga = (H - r1) / 32, gb = (H - 1 - r0) / 32;
  const int q = lane < 2 ? lane : lane < 4 ? 2 : 3, g = lane < 2 ? k : lane & 1 ? gb : ga;
  const unsigned *cnt = A.done + q * G + g;
  while (__any_sync (FULL, lane < 6 && ld_acquire (cnt) < (unsigned) A.colours))
    spin_pause ();
  const size_t n = (size_t) W * H;
  /* 4 rows x 2 columns a lane at once: 32 plane loads in flight before the first use (one
     pixel at a time, a task was a chain of 1024 memory latencies) */
  constexpr int MR = 4, MC = 2;
  for (int cb = c0 + lane; cb < c1; cb += 32 * MC)
    for (int rb = r0; rb < r1; rb += MR)
      for (int ch = 0; ch < A.channels; ch++)
        {
          float v[MR][MC][GFX_IIR_QUADRANTS];
#pragma unroll
          for (int j = 0; j < MR; j++)
#pragma unroll
            for (int i = 0; i < MC; i++)
              if (ch < A.colours && rb + j < r1 && cb + 32 * i < c1)
                {
                  const float *p = A.planes + (size_t) ch * GFX_IIR_QUADRANTS * n
                                   + (size_t) (rb + j) * W + cb + 32 * i;
#pragma unroll
                  for (int k = 0; k < GFX_IIR_QUADRANTS; k++)
                    v[j][i][k] = ld_plane (p + k * n);
                }
#pragma unroll
          for (int j = 0; j < MR; j++)
#pragma unroll
            for (int i = 0; i < MC; i++)
              if (rb + j < r1 && cb + 32 * i < c1)
                {
                  const size_t o = ((size_t) (rb + j) * W + cb + 32 * i) * A.channels + ch;
                  if (ch >= A.colours) /* alpha passes through */
                    {
                      if (A.depth == GFX_U8)
                        ((uint8_t *) A.out)[o] = ((const uint8_t *) A.in)[o];
                      else if (A.depth == GFX_U16)
                        ((uint16_t *) A.out)[o] = ((const uint16_t *) A.in)[o];
                      else
                        ((float *) A.out)[o] = ((const float *) A.in)[o];
                      continue;
                    }
                  const float m = gfx_iir_mean (v[j][i][0], v[j][i][1], v[j][i][2], v[j][i][3]);
                  if (A.depth == GFX_U8)
                    ((uint8_t *) A.out)[o] = gfx_unit_to_u8 (m);
                  else if (A.depth == GFX_U16)
                    ((uint16_t *) A.out)[o] = gfx_unit_to_u16 (m);
                  else
                    ((float *) A.out)[o] = m;
                }
        }
}

/* A warp's mean tasks, from the second ticket, until none is left. */
__device__ __forceinline__ void
mean_tail (const IirArgs &A, int lane)
{
  for (;;)
    {
      int t = 0;
      if (lane == 0)
        t = atomicAdd (A.ticket + 1, 1);
      t = __shfl_sync (FULL, t, 0);
      if (t >= A.mean_tasks)
        return;
      mean_task (A, t, lane);
    }
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
  int last = -1; /* the task this group finished last */
  for (;;)
    {
      if (feeder && f == 0 && lane == 0)
        S.task = atomicAdd (A.ticket, 1);
      if (A.done && feeder)
        gfx_iir_fence (); /* the plane rows this thread wrote, before the count below */
      pair_sync (bar, nb);
      if (A.done && last >= 0 && feeder && f == 0 && lane == 0)
        mark_done (A, last);
      const int task = S.task;
      if (task >= A.tasks)
        {
          if (A.done)
            mean_tail (A, lane);
          return;
        }
      last = task;
      unsigned *tr = A.trace && lane == 0
                       ? A.trace + (size_t) task * (GFX_IIR_TRACE_HDR + A.trace_nc) : nullptr;
      if (tr && !feeder)
        {
          const unsigned long long t = trace_gtime ();
          tr[0] = (unsigned) t, tr[1] = (unsigned) (t >> 32), tr[2] = trace_clock ();
          tr[3] = trace_smid (), tr[9] = task;
        }
      /* Group-major order: group g-1 of the same (quadrant, channel) has a smaller ticket. */
      const int per_group = GFX_IIR_QUADRANTS * A.colours, g = task / per_group;
      const int rem = task % per_group, q = rem % GFX_IIR_QUADRANTS;
      const int cq = rem / GFX_IIR_QUADRANTS;
      /* NF <= 2: one inlined copy of feed per feeder, f a constant there, so that each
         feeder's share of the loads, stores and columns is fixed at compile time (fewer
         instructions: 8192^2 u8 4.39 -> 4.06 ms with 2 feeders); four copies (NF = 4)
         overflow the instruction cache (no_inst stalls: 4.85 -> 7.1 ms), so there f stays
         a variable. */
      if (feeder && NF > 2)
        feed<CH, NF, T> (A, g, q, cq, lane, f, S, bar, nb, tr);
      else if (feeder && f == 0)
        feed<CH, NF, T> (A, g, q, cq, lane, 0, S, bar, nb, tr);
      else if (feeder)
        feed<CH, NF, T> (A, g, q, cq, lane, 1, S, bar, nb, tr);
      else
        recur<CH> (A, g, q, cq, lane, S, bar, nb, tr);
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
