/* The split quadrant kernel of gfx_cuda_iir for 3x3 masks: each 32-row group is run by a
 * pair of warps, so that the warp on the wavefront's critical path does only the recursion.
 *
 * Recursion warp R: lane l owns row r0 + l and at step t computes column c = t - l (the
 * skewed wavefront of cuda_iir.cu).  Per step: the rows above from the lane above by
 * __shfl_up (lane 0: from the feeder's `ay`), the input part S_a of the pixel from the ring,
 * then S_old and the two newest terms (gfx_iir_point's order, split in two), and y back into
 * the same ring slot.  Nothing else: no input loads, no conversion, no global memory.
 *
 * Feeder warp F, one chunk of CH columns ahead: loads and converts the input (rows r0-2 ..
 * r0+31), computes S_a of the next chunk into the ring (rows in lanes, no skew), fetches
 * the group above's boundary rows from global memory (64-bit words that start as a
 * signalling-NaN sentinel: a value is its own ready flag), writes the finished outputs to
 * the quadrant's plane and publishes the group's last two rows of y for the group below.
 *
 * R and F meet at one named barrier (64 threads) per chunk; between two barriers they touch
 * disjoint ring columns (see the comments in feed()).  Pairs take (group, quadrant, channel)
 * from the atomic ticket in start order, so a pair only waits for groups already running.
 *
 * Sums: sa3 + rest3 are gfx_iir_point for m1 = m2 = 3 with the same products and sums in
 * the same order (S_a and S_old are independent, so computing them in two warps changes
 * nothing); test_iir_gpu checks the bits against the CPU. */
#include "cuda_iir_internal.h"

namespace
{

constexpr unsigned FULL = 0xffffffffu;
constexpr int M = 3;
constexpr int RING = 64;           /* columns of the S_a / y ring (power of 2) */
constexpr int RS = RING + 2;       /* its row stride: skewed reads (R) are conflict-free */
constexpr int XR = 32;             /* columns of the input ring (>= CH + 2, power of 2) */
constexpr int XS = XR + 1;         /* odd row stride: column reads across rows conflict-free */
constexpr int XROWS = 32 + M - 1;  /* input rows r0 - 2 .. r0 + 31 */

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

__device__ __forceinline__ void
pair_sync (int id)
{
  asm volatile ("bar.sync %0, 64;" ::"r"(id) : "memory");
}

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
r_steps (const double (&b)[9], int W, int t0, int lane, PairSmem &S, double (&yw)[M][M])
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
        row[slot] = y;
      yw[0][0] = y;
    }
}

template <int CH>
__device__ void
recur (const IirArgs &A, int q, int lane, PairSmem &S, int bar)
{
  const int W = A.W, chunks = (W + 31 + CH - 1) / CH;
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
  pair_sync (bar); /* chunk 0 is ready */
  for (int i = 0; i < chunks; i++)
    {
      const int t0 = i * CH;
      if (t0 >= 32 && t0 + CH <= W)
        r_steps<CH, false> (b, W, t0, lane, S, yw);
      else
        r_steps<CH, true> (b, W, t0, lane, S, yw);
      pair_sync (bar);
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

template <int CH, typename T>
__device__ __forceinline__ void
f_load (const Input<CH, T> &I, int W, int c0, int lane, T (&pf)[NPF<CH>])
{
  const bool in = c0 + lane % CH < W;
  const long long off = I.col0 + (long long) c0 * I.step;
#pragma unroll
  for (int i = 0; i < NPF<CH>; i++)
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

template <int CH, typename T>
__device__ __forceinline__ void
f_stage (PairSmem &S, int c0, int lane, const T (&pf)[NPF<CH>])
{
  constexpr int RPI = 32 / CH;
  const int pr = lane / CH, slot = (c0 + lane % CH) & (XR - 1);
#pragma unroll
  for (int i = 0; i < NPF<CH>; i++)
    {
      const int ri = i * RPI + pr;
      if (ri < XROWS)
        S.xs[ri * XS + slot] = (double) value (pf[i]);
    }
}

/* F: S_a of row r0 + lane at columns c0 .. c0 + CH - 1 (< W) into the ring. */
template <int CH>
__device__ __forceinline__ void
f_sums (const double (&a)[9], int W, int c0, int lane, PairSmem &S)
{
  double xw[M][M];
  double *ring = S.ring + lane * RS;
  const double *xs = S.xs + lane * XS; /* row r0 + lane - 2 + i at xs + i * XS */
#pragma unroll
  for (int j = 0; j < CH; j++)
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

__device__ __forceinline__ unsigned long long
ld_relaxed (const unsigned long long *p)
{
  unsigned long long v;
  asm volatile ("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void
st_relaxed (unsigned long long *p, double v)
{
  asm volatile ("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(__double_as_longlong (v))
                : "memory");
}

/* F: y of the two rows above the group at columns c0 .. c0 + CH - 1 into `ay` (lane j:
 * column c0 + j): above the image y = x (row 0, the input ring's clamped rows), else
 * group g-1's boundary words, loaded early in the phase (issue) and waited for at its end
 * (settle: each re-poll of a word still the sentinel is an L2 round trip). */
template <int CH>
__device__ __forceinline__ void
f_issue (int W, const unsigned long long *prev, int c0, int lane, unsigned long long (&v)[2])
{
  const int col = c0 + lane;
  if (prev && lane < CH && col < W)
    v[0] = ld_relaxed (prev + col), v[1] = ld_relaxed (prev + W + col);
}

template <int CH>
__device__ __forceinline__ void
f_settle (int W, const unsigned long long *prev, int c0, int lane, unsigned long long (&v)[2],
          PairSmem &S)
{
  const int col = c0 + lane;
  const bool mine = lane < CH && col < W;
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
template <int CH>
__device__ __forceinline__ void
f_flush (const IirArgs &A, int q, int r0, int c0, int lane, float *plane,
         unsigned long long *mine, const PairSmem &S)
{
  constexpr int RPI = 32 / CH;
  const int W = A.W, pr = lane / CH, col = c0 + lane % CH;
  if (col >= W)
    return;
  const int slot = col & (RING - 1), icol = (q == 1 || q == 2) ? W - 1 - col : col;
  if (mine && lane < CH)
    {
      st_relaxed (mine + col, S.ring[31 * RS + slot]);
      st_relaxed (mine + W + col, S.ring[30 * RS + slot]);
    }
#pragma unroll
  for (int i = 0; i < CH; i++)
    {
      const int row = r0 + i * RPI + pr;
      if (row < A.H)
        plane[(size_t) (q >= 2 ? A.H - 1 - row : row) * W + icol] =
          (float) S.ring[(i * RPI + pr) * RS + slot];
    }
}

/* F, phase i (R runs chunk i: ring columns i CH - 31 .. i CH + CH - 1, ay of chunk i):
 * flush the block (i - 1) CH - 32 that R completed in phase i - 1, then chunk c1 = (i + 1)
 * CH: stage its input (loaded two phases ago from `use`, which then loads chunk i + 3), its
 * S_a into the ring (slots of columns (i + 1) CH - 64 .., flushed by now since CH <= 16)
 * and its ay.  Then the barrier. */
template <int CH, typename T>
__device__ __forceinline__ void
f_phase (const IirArgs &A, const double (&a)[9], const Input<CH, T> &I, int q, int r0, int i,
         int lane, float *plane, const unsigned long long *prev, unsigned long long *mine,
         T (&use)[NPF<CH>], PairSmem &S, int bar)
{
  const int W = A.W, fb = (i - 1) * CH - 32, c1 = (i + 1) * CH;
  unsigned long long v[2] = { 0, 0 };
  if (c1 < W)
    f_issue<CH> (W, prev, c1, lane, v);
  if (fb >= 0 && fb < W)
    f_flush<CH> (A, q, r0, fb, lane, plane, mine, S);
  if (c1 < W)
    {
      __syncwarp ();
      f_stage<CH, T> (S, c1, lane, use);
      if (c1 + 2 * CH < W)
        f_load<CH, T> (I, W, c1 + 2 * CH, lane, use);
      __syncwarp ();
      f_sums<CH> (a, W, c1, lane, S);
      f_settle<CH> (W, prev, c1, lane, v, S);
    }
  __syncwarp ();
  pair_sync (bar);
}

template <int CH, typename T>
__device__ void
feed (const IirArgs &A, int g, int q, int ch, int lane, PairSmem &S, int bar)
{
  const int W = A.W, chunks = (W + 31 + CH - 1) / CH, r0 = g * 32;
  const size_t task = (size_t) ch * GFX_IIR_QUADRANTS + q;
  float *plane = A.planes + task * A.H * W;
  const unsigned long long *prev =
    g > 0 ? A.bnd + (task * A.groups + g - 1) * (M - 1) * W : nullptr;
  unsigned long long *mine =
    g + 1 < A.groups ? A.bnd + (task * A.groups + g) * (M - 1) * W : nullptr;
  double a[9];
#pragma unroll
  for (int i = 0; i < 9; i++)
    a[i] = c_a[q][i];
  Input<CH, T> I;
  in_setup<CH, T> (A, q, ch, r0, lane, I);
  T pa[NPF<CH>], pb[NPF<CH>]; /* chunks in flight: odd ones in pa, even ones in pb */
  f_load<CH, T> (I, W, 0, lane, pa);
  f_stage<CH, T> (S, 0, lane, pa);
  if (CH < W)
    f_load<CH, T> (I, W, CH, lane, pa);
  if (2 * CH < W)
    f_load<CH, T> (I, W, 2 * CH, lane, pb);
  __syncwarp ();
  S.x0[lane] = S.xs[lane * XS];
  if (lane < XROWS - 32)
    S.x0[32 + lane] = S.xs[(32 + lane) * XS];
  unsigned long long v[2] = { 0, 0 };
  f_issue<CH> (W, prev, 0, lane, v);
  f_sums<CH> (a, W, 0, lane, S);
  f_settle<CH> (W, prev, 0, lane, v, S);
  __syncwarp ();
  pair_sync (bar);
  for (int i = 0; i < chunks; i += 2)
    {
      f_phase<CH, T> (A, a, I, q, r0, i, lane, plane, prev, mine, pa, S, bar);
      if (i + 1 < chunks)
        f_phase<CH, T> (A, a, I, q, r0, i + 1, lane, plane, prev, mine, pb, S, bar);
    }
  for (int c0 = (chunks - 1) * CH - 32; c0 < W; c0 += CH) /* the last block */
    if (c0 >= 0)
      f_flush<CH> (A, q, r0, c0, lane, plane, mine, S);
  __syncwarp ();
}

template <int CH, typename T>
__global__ void
__launch_bounds__ (GFX_IIR_SPLIT_MAX_PAIRS * 64) iir_split (IirArgs A)
{
  extern __shared__ __align__ (16) unsigned char smem[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, pairs = blockDim.x >> 6;
  const bool feeder = warp >= pairs; /* warps 0 .. pairs-1: R, then F: R spread over SMSPs */
  const int pair = feeder ? warp - pairs : warp, bar = 1 + pair;
  PairSmem &S = reinterpret_cast<PairSmem *> (smem)[pair];
  for (;;)
    {
      if (feeder && lane == 0)
        S.task = atomicAdd (A.ticket, 1);
      pair_sync (bar);
      const int task = S.task;
      if (task >= A.tasks)
        return;
      /* Group-major order: group g-1 of the same (quadrant, channel) has a smaller ticket. */
      const int per_group = GFX_IIR_QUADRANTS * A.colours, g = task / per_group;
      const int rem = task % per_group, q = rem % GFX_IIR_QUADRANTS;
      if (feeder)
        feed<CH, T> (A, g, q, rem / GFX_IIR_QUADRANTS, lane, S, bar);
      else
        recur<CH> (A, q, lane, S, bar);
    }
}

template <int CH>
void (*pick (gfx_depth depth)) (IirArgs)
{
  return depth == GFX_U8 ? iir_split<CH, uint8_t>
       : depth == GFX_U16 ? iir_split<CH, uint16_t> : iir_split<CH, float>;
}

} // namespace
bool
gfx_iir_split_fits (int m1, int m2)
{
  return m1 == M && m2 == M;
}

cudaError_t
gfx_iir_split_coefs (const double (*a)[9], const double (*b)[9], cudaStream_t s)
{
  cudaError_t e = cudaMemcpyToSymbolAsync (c_a, a, sizeof c_a, 0, cudaMemcpyHostToDevice, s);
  return e != cudaSuccess ? e
                          : cudaMemcpyToSymbolAsync (c_b, b, sizeof c_b, 0,
                                                     cudaMemcpyHostToDevice, s);
}

cudaError_t
gfx_iir_split_launch (const IirArgs &A, int pairs, int chunk, int limit, cudaStream_t s,
                      int *per_sm)
{
  void (*kernel) (IirArgs) = chunk == 16 ? pick<16> (A.depth) : pick<8> (A.depth);
  const int threads = 64 * pairs;
  const size_t smem = pairs * sizeof (PairSmem);
  int device, sms;
  cudaError_t e;
  *per_sm = 0;
  if ((e = cudaGetDevice (&device)) != cudaSuccess
      || (e = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device))
           != cudaSuccess
      || (e = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int) smem)) != cudaSuccess
      || (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (per_sm, kernel, threads, smem))
           != cudaSuccess)
    return e;
  if (*per_sm < 1)
    return cudaSuccess; /* the caller reports it */
  const int resident = limit > 0 && limit < *per_sm ? limit : *per_sm;
  int blocks = (A.tasks + pairs - 1) / pairs;
  if (blocks > resident * sms)
    blocks = resident * sms; /* persistent: pairs loop over tickets */
  kernel<<<blocks, threads, smem, s>>> (A);
  return cudaGetLastError ();
}
