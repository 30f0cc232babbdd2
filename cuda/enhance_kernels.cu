/* GPU local enhance, the kernels around the statistics: keys (luma or one channel, or
 * fixed-point floats), the exact image totals by a one-pass reduction whose last block
 * turns them into the integer thresholds, and the apply kernel (decision planes to the
 * output image and mask). */
#include "enhance_cuda_internal.h"

namespace {

constexpr int RED_THREADS = 256, RED_UNROLL = 4, APPLY_THREADS = 256;
/* Reduction blocks resident per SM: 2048 threads, so that one round of RED_UNROLL 16-byte
 * loads per thread has the whole 12 MB seed image in flight at once. */
constexpr int RED_BLOCKS_PER_SM = 8;

/* --- keys ----------------------------------------------------------------------------- */

template <class T, class KT>
__global__ void
key_kernel (const T *__restrict__ in, KT *__restrict__ key, size_t n, int ch, int lum, int plane,
            float fix_scale)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const T *px = in + i * ch;
  if constexpr (sizeof (KT) == 4)
    key[i] = gfx_enh_fix (lum ? gfx_enh_luma_float (px[0], px[1], px[2]) : px[plane],
                          fix_scale);
  else
    key[i] = (KT) (lum ? gfx_enh_luma_int (px[0], px[1], px[2]) : px[plane]);
}

/* --- reduction -------------------------------------------------------------------------- */

__device__ __forceinline__ void
acc_word (uint32_t w, uint16_t *, unsigned long long &a1, unsigned long long &a2)
{
  unsigned long long lo = w & 0xffffu, hi = w >> 16;
  a1 += lo + hi;
  a2 += lo * lo + hi * hi;
}

__device__ __forceinline__ void
acc_word (uint32_t w, int32_t *, unsigned long long &a1, unsigned long long &a2)
{
  long long k = (int32_t) w;
  a1 += (unsigned long long) k;
  a2 += (unsigned long long) (k * k);
}

__device__ __forceinline__ gfx_u128
block_sum (gfx_u128 v, gfx_u128 *scratch)
{
  for (int o = 16; o > 0; o >>= 1)
    {
      unsigned long long lo = __shfl_down_sync (0xffffffffu, (unsigned long long) v, o);
      unsigned long long hi = __shfl_down_sync (0xffffffffu, (unsigned long long) (v >> 64), o);
      v += ((gfx_u128) hi << 64) | lo;
    }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads ();
  gfx_u128 total = 0;
  if (threadIdx.x == 0)
    for (int i = 0; i < (int) (blockDim.x >> 5); i++)
      total += scratch[i];
  __syncthreads ();
  return total; /* valid in thread 0 */
}

__device__ __forceinline__ unsigned long long
block_sum64 (unsigned long long v, unsigned long long *scratch)
{
  v = warp_sum64 (v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads ();
  unsigned long long total = 0;
  if (threadIdx.x == 0)
    for (int i = 0; i < (int) (blockDim.x >> 5); i++)
      total += scratch[i];
  __syncthreads ();
  return total; /* valid in thread 0 */
}

/* Totals of the n keys (k signed 128-bit, k^2 unsigned 128-bit, both exact); the last
 * block to finish adds up the partials and writes the thresholds.  Per-thread 64-bit
 * sums hold: the launcher gives each thread at most 2^15 keys. */
template <class KT>
__global__ void __launch_bounds__ (RED_THREADS, RED_BLOCKS_PER_SM)
reduce_kernel (const KT *__restrict__ key, size_t n, RuleArgs ra, EnhState *st)
{
  __shared__ gfx_u128 scratch[RED_THREADS / 32];
  __shared__ unsigned long long scratch64[RED_THREADS / 32];
  __shared__ int last;
  /* The statistics kernel after this one may be scheduled now (it waits for this grid's
   * completion before it reads the thresholds). */
  cudaTriggerProgrammaticLaunchCompletion ();
  unsigned long long a1 = 0, a2 = 0;
  const size_t tid = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  const size_t stride = (size_t) gridDim.x * blockDim.x;
  const size_t nvec = n * sizeof (KT) / 16;
  const uint4 *vec = (const uint4 *) key;
  if constexpr (sizeof (KT) == 1)
    {
      /* 8-bit keys: 32-bit sums with dp4a (at most 2^15 keys per thread: k^2 sums stay
       * below 2^32). */
      uint32_t b1 = 0, b2 = 0;
      for (size_t i = tid; i < nvec; i += RED_UNROLL * stride)
        {
          uint4 q[RED_UNROLL];
#pragma unroll
          for (int u = 0; u < RED_UNROLL; u++)
            q[u] = i + u * stride < nvec ? __ldg (&vec[i + u * stride]) : make_uint4 (0, 0, 0, 0);
#pragma unroll
          for (int u = 0; u < RED_UNROLL; u++)
            {
              b1 = __dp4a (q[u].x, 0x01010101u, b1);
              b2 = __dp4a (q[u].x, q[u].x, b2);
              b1 = __dp4a (q[u].y, 0x01010101u, b1);
              b2 = __dp4a (q[u].y, q[u].y, b2);
              b1 = __dp4a (q[u].z, 0x01010101u, b1);
              b2 = __dp4a (q[u].z, q[u].z, b2);
              b1 = __dp4a (q[u].w, 0x01010101u, b1);
              b2 = __dp4a (q[u].w, q[u].w, b2);
            }
        }
      a1 = b1;
      a2 = b2;
    }
  else
    for (size_t i = tid; i < nvec; i += RED_UNROLL * stride)
      {
        uint4 q[RED_UNROLL]; /* several 16-byte loads in flight per thread */
#pragma unroll
        for (int u = 0; u < RED_UNROLL; u++)
          q[u] = i + u * stride < nvec ? vec[i + u * stride] : make_uint4 (0, 0, 0, 0);
#pragma unroll
        for (int u = 0; u < RED_UNROLL; u++)
          {
            acc_word (q[u].x, (KT *) 0, a1, a2);
            acc_word (q[u].y, (KT *) 0, a1, a2);
            acc_word (q[u].z, (KT *) 0, a1, a2);
            acc_word (q[u].w, (KT *) 0, a1, a2);
          }
      }
  for (size_t i = nvec * 16 / sizeof (KT) + tid; i < n; i += stride)
    {
      long long k = key[i];
      a1 += (unsigned long long) k;
      a2 += (unsigned long long) (k * k);
    }
  gfx_u128 t1, t2;
  if constexpr (sizeof (KT) == 1)
    {
      /* at most 2^23 keys per block: both block sums fit 64 bits */
      t1 = block_sum64 (a1, scratch64);
      t2 = block_sum64 (a2, scratch64);
    }
  else
    {
      /* a1 is a two's complement 64-bit sum: sign-extend before widening. */
      t1 = block_sum ((gfx_u128) (gfx_i128) (long long) a1, scratch);
      t2 = block_sum ((gfx_u128) a2, scratch);
    }
  if (threadIdx.x == 0)
    {
      st->part[blockIdx.x] = { (unsigned long long) t1, (unsigned long long) (t1 >> 64),
                               (unsigned long long) t2, (unsigned long long) (t2 >> 64) };
      __threadfence ();
      last = atomicAdd (&st->ticket, 1u) == gridDim.x - 1;
    }
  __syncthreads ();
  if (!last)
    return;
  __threadfence ();
  gfx_u128 s1 = 0, s2 = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    {
      const volatile EnhPartial *p = &st->part[b];
      s1 += ((gfx_u128) p->t1hi << 64) | p->t1lo;
      s2 += ((gfx_u128) p->t2hi << 64) | p->t2lo;
    }
  s1 = block_sum (s1, scratch);
  s2 = block_sum (s2, scratch);
  if (threadIdx.x == 0)
    {
      st->th = gfx_enh_thresholds_make ((gfx_i128) s1, s2, n, ra.n_win, ra.k, ra.rule);
      st->ticket = 0;
    }
}

/* --- apply (decision planes -> output) ------------------------------------------------- */

template <class T>
__device__ __forceinline__ T
gained (T v, T vmax, int hue, const ApplyArgs &a, const uint16_t *lut)
{
  if constexpr (sizeof (T) == 4)
    return hue ? gfx_enh_gain_hue_float (v, vmax, a.gain) : gfx_enh_gain_float (v, a.gain);
  else
    return hue ? (T) gfx_enh_gain_hue_int (v, vmax, a.gain, a.maxv) : (T) __ldg (&lut[v]);
}

template <class T>
__global__ void
apply_kernel (const T *__restrict__ in, T *__restrict__ out, const uint8_t *__restrict__ dec,
              const uint16_t *__restrict__ lut, uint8_t *mask, ApplyArgs a)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n)
    return;
  const T *px = in + i * a.ch;
  T *po = out + i * a.ch;
  const int hue = a.planes == 1 && a.cc >= 3;
  T vmax = px[0];
  for (int c = 1; hue && c < a.cc; c++)
    vmax = px[c] > vmax ? px[c] : vmax;
  int any = 0;
  for (int c = 0; c < a.cc; c++)
    {
      int d = dec[(a.planes == 1 ? 0 : (size_t) c * a.n) + i];
      any |= d;
      po[c] = d ? gained (px[c], vmax, hue, a, lut) : px[c];
    }
  if (a.alpha)
    po[a.cc] = px[a.cc];
  if (mask)
    mask[i] = any ? 255 : 0;
}

} // namespace

template <class T, class KT>
cudaError_t
enh_launch_keys (const T *in, KT *key, size_t n, int ch, int lum, int plane, float fix_scale,
                 cudaStream_t s)
{
  key_kernel<T, KT><<<(unsigned) ((n + APPLY_THREADS - 1) / APPLY_THREADS), APPLY_THREADS, 0,
                      s>>> (in, key, n, ch, lum, plane, fix_scale);
  return cudaGetLastError ();
}

template <class KT>
cudaError_t
enh_launch_reduce (const KT *key, size_t n, RuleArgs ra, EnhState *st, int sms, cudaStream_t s)
{
  /* Enough blocks to keep every SM streaming, few enough that the last block's pass over
   * the partials is short, and at most 2^15 keys per thread (2^23 per block) so the
   * 64-bit per-thread sums of k^2 (k^2 <= 2^48) cannot overflow. */
  size_t want = (n + 4095) / 4096, cap = (size_t) sms * RED_BLOCKS_PER_SM, need = (n + (1u << 23) - 1) >> 23;
  size_t blocks = want < cap ? want : cap;
  blocks = blocks < need ? need : blocks < 1 ? 1 : blocks;
  if (blocks > ENH_MAX_BLOCKS)
    blocks = ENH_MAX_BLOCKS;
  reduce_kernel<KT><<<(unsigned) blocks, RED_THREADS, 0, s>>> (key, n, ra, st);
  return cudaGetLastError ();
}

template <class T>
cudaError_t
enh_launch_apply (const T *in, T *out, const uint8_t *dec, const uint16_t *lut, uint8_t *mask,
                  ApplyArgs a, cudaStream_t s)
{
  apply_kernel<T><<<(unsigned) ((a.n + APPLY_THREADS - 1) / APPLY_THREADS), APPLY_THREADS, 0,
                    s>>> (in, out, dec, lut, mask, a);
  return cudaGetLastError ();
}

#define ENH_KEYS(T, KT)                                                                   \
  template cudaError_t enh_launch_keys<T, KT> (const T *, KT *, size_t, int, int, int,     \
                                               float, cudaStream_t);
ENH_KEYS (uint8_t, uint8_t)
ENH_KEYS (uint16_t, uint16_t)
ENH_KEYS (float, int32_t)
template cudaError_t enh_launch_reduce<uint8_t> (const uint8_t *, size_t, RuleArgs, EnhState *,
                                                 int, cudaStream_t);
template cudaError_t enh_launch_reduce<uint16_t> (const uint16_t *, size_t, RuleArgs,
                                                  EnhState *, int, cudaStream_t);
template cudaError_t enh_launch_reduce<int32_t> (const int32_t *, size_t, RuleArgs, EnhState *,
                                                 int, cudaStream_t);
#define ENH_APPLY(T)                                                                       \
  template cudaError_t enh_launch_apply<T> (const T *, T *, const uint8_t *,               \
                                            const uint16_t *, uint8_t *, ApplyArgs,        \
                                            cudaStream_t);
ENH_APPLY (uint8_t)
ENH_APPLY (uint16_t)
ENH_APPLY (float)
