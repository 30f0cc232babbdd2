/* The split quadrant kernel of gfx_cuda_iir for 3x3 masks (device code in
 * cuda_iir_split.cuh): each 32-row group is run by a recursion warp and 1, 2 or 4 feeder
 * warps (cuda_iir.cu chooses), so that the warp on the wavefront's critical path does only
 * the recursion.
 *
 * Recursion warp R: lane l owns row r0 + l and at step t computes column c = t - l (the
 * skewed wavefront of cuda_iir.cu).  Per step: the rows above from the lane above by
 * __shfl_up (lane 0: from the feeders' `ay`), the input part S_a of the pixel from the ring,
 * then S_old and the two newest terms (gfx_iir_point's order, split in two), y back into
 * the same ring slot, and lanes 30 and 31 store their y at once to the boundary buffer for
 * the group below (64-bit words that start as a signalling-NaN sentinel: a value is its own
 * ready flag).  No input loads, no conversions.
 *
 * Feeder warps F (each takes a share of every job, so their latencies overlap), a chunk of
 * CH columns ahead: load and convert the input (rows r0-2 .. r0+31, loads two chunks ahead),
 * compute S_a of the next chunk into the ring (rows in lanes, no skew), wait for the group
 * above's boundary words of the next chunk, and write the finished outputs to the
 * quadrant's plane.
 *
 * R's steps are pipelined (r_steps_pipe): S_old of the next step is formed a step early
 * and S_a of the whole chunk is loaded first, so the step's chain is three operations.
 * With 1 or 2 feeders each feeder's code is inlined with its index as a constant.
 *
 * R and its feeders meet at one named barrier per chunk; between two barriers they touch
 * disjoint ring and input-ring columns (see f_phase).  With 4 groups an SM it is the
 * feeders' phase, latency-bound, that sets the pace: R waits at this barrier 42-52% of the
 * time on the H100 (BENCHMARKS.md, tenth session).  Groups take (group, quadrant,
 * channel) from the atomic ticket in start order, so a group only waits for groups already
 * running.  With IirArgs.done set, each finished group is counted, and warps whose block
 * finds no task left form the mean of the four planes (mean_tail) for the row groups whose
 * writers are all counted, middle rows first.  tests/emu/iir_emu.cpp runs this code on the
 * CPU.
 *
 * Sums: sa3, s_old3 and the step's last three operations are gfx_iir_point for m1 = m2 = 3
 * with the same products and sums in the same order (S_a and S_old are independent, so
 * computing them apart changes nothing); test_iir_gpu checks the bits against the CPU.
 *
 * Bench trace (IirArgs.trace): R's lane 0 records the SM clock every few chunks and the
 * cycles R and feeder 0 wait; bench/iir_gpu_trace.py turns that into step times and the lag
 * of each group behind the one above. */
#include "cuda_iir_internal.h"
#include "trace_clock.cuh"

namespace gfx_iir
{

/* The group's barrier: its R warp and its NF feeder warps.  Not bar.sync (= barrier.sync
 * .aligned, which requires every thread to execute the same barrier instruction): R and F
 * arrive from different code (synccheck reports the aligned form there).  (With the id in
 * a register the kernel reserves all 16 of a block's barriers, so 4 blocks fit on an SM;
 * constant ids let 5 fit, but 5 groups an SM were slower: H100 8192^2 u8 4.29 ms against
 * 4.19 with 4, each step slower in proportion.) */
__device__ __forceinline__ void
pair_sync (int id, int threads)
{
  asm volatile ("barrier.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ unsigned
ld_acquire (const unsigned *p)
{
  unsigned v;
  asm volatile ("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void
gfx_iir_fence ()
{
  __threadfence ();
}

/* At L2 (ld.global.cg): another SM wrote it; no stale L1 line can answer. */
__device__ __forceinline__ float
ld_plane (const float *p)
{
  return __ldcg (p);
}

/* The mean tail's wait between two polls of the group counters.  (Longer sleeps there, 1
 * or 4 us, and sleeps between the polls of the boundary words were no faster on the H100.) */
__device__ __forceinline__ void
spin_pause ()
{
  __nanosleep (256);
}

#define GFX_IIR_SMEM(name) extern __shared__ __align__ (16) unsigned char name[]

} // namespace gfx_iir

#include "cuda_iir_split.cuh"

using namespace gfx_iir;

namespace
{
template <int CH>
void (*pick_nf (int nf, gfx_depth depth)) (IirArgs)
{
  return nf == 4 ? pick<CH, 4> (depth) : nf == 2 ? pick<CH, 2> (depth) : pick<CH, 1> (depth);
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
gfx_iir_split_launch (const IirArgs &A, int pairs, int chunk, int feeders, int limit,
                      cudaStream_t s, int *per_sm, int *threads)
{
  const int nf = feeders == 2 || feeders == 4 ? feeders : 1;
  void (*kernel) (IirArgs) = chunk == 16 ? pick_nf<16> (nf, A.depth) : pick_nf<8> (nf, A.depth);
  const int most = SPLIT_THREADS / (32 * (1 + nf)); /* a speed knob: more run as the most */
  pairs = pairs < most ? pairs : most;
  *threads = 32 * (1 + nf) * pairs;
  const size_t smem = pairs * sizeof (PairSmem);
  int device, sms;
  cudaError_t e;
  *per_sm = 0;
  if ((e = cudaGetDevice (&device)) != cudaSuccess
      || (e = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device))
           != cudaSuccess
      || (e = cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int) smem)) != cudaSuccess
      || (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (per_sm, kernel, *threads, smem))
           != cudaSuccess)
    return e;
  if (*per_sm < 1)
    return cudaSuccess; /* the caller reports it */
  const int resident = limit > 0 && limit < *per_sm ? limit : *per_sm;
  int blocks = (A.tasks + pairs - 1) / pairs;
  if (blocks > resident * sms)
    blocks = resident * sms; /* persistent: groups loop over tickets */
  kernel<<<blocks, *threads, smem, s>>> (A);
  return cudaGetLastError ();
}
