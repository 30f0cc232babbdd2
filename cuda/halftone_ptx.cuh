/* The PTX the halftone kernels use, each wrapper with the reason it is PTX.  Inside cuda/
 * only, device code only: tests/emu/halftone_emu.cpp supplies the same names on the CPU,
 * which is how the emulation runs the kernels' own source.  In order: the shared hand-off
 * words (strip kernel), the rows kernel's tiles, predicated stores and register tricks,
 * and the paired kernel's named barriers and vector accesses.  The global hand-off words
 * are relaxed_words.cuh's, shared with the IIR. */
#ifndef GFX_HALFTONE_PTX_CUH
#define GFX_HALFTONE_PTX_CUH

#include "relaxed_words.cuh"

namespace gfxht
{

/* Shared-memory hand-off words.  Explicit shared-space instructions: a cuda::atomic_ref on
 * a shared word compiles to a generic strong load (LD.E.STRONG.SM), which goes through the
 * L1TEX pipeline with a global-like latency (the profile of the first version: that load
 * on every pixel step was most of the step time).  Writers use an atomic exchange, readers
 * a volatile load: both single-copy atomic 64/32-bit accesses, and the pattern
 * compute-sanitizer racecheck accepts (a relaxed atomic_ref store or a volatile store read
 * by a volatile load is reported as a race, an atomic exchange is not). */
__device__ __forceinline__ unsigned
smem_addr (const void *p)
{
  return (unsigned) __cvta_generic_to_shared (p);
}

__device__ __forceinline__ unsigned long long
ld_slot (const unsigned long long *p)
{
  unsigned long long v;
  asm volatile ("ld.volatile.shared.u64 %0, [%1];" : "=l"(v) : "r"(smem_addr (p)));
  return v;
}

/* returns the old word, which callers ignore */
__device__ __forceinline__ unsigned long long
st_slot (unsigned long long *p, unsigned long long v)
{
  unsigned long long old;
  asm volatile ("atom.shared.exch.b64 %0, [%1], %2;" : "=l"(old) : "r"(smem_addr (p)), "l"(v));
  return old;
}

__device__ __forceinline__ int
ld_flag (const int *p)
{
  int v;
  asm volatile ("ld.volatile.shared.s32 %0, [%1];" : "=r"(v) : "r"(smem_addr (p)));
  return v;
}

__device__ __forceinline__ int
st_flag (int *p, int v)
{
  int old;
  asm volatile ("atom.shared.exch.b32 %0, [%1], %2;" : "=r"(old) : "r"(smem_addr (p)), "r"(v));
  return old;
}

/* Shared-memory addresses of the tiles are kept as 32-bit shared-space addresses: a generic
 * pointer converted at every copy cost a uniform CTA-id read and a stall per copy. */
typedef unsigned sptr;

__device__ __forceinline__ sptr
to_sptr (void *p)
{
  return smem_addr (p);
}

__device__ __forceinline__ void
cp_async16 (sptr dst, const void *src)
{
  asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void
cp_async_commit ()
{
  asm volatile ("cp.async.commit_group;" ::: "memory");
}

/* until at most N committed groups are still in flight */
template <int N>
__device__ __forceinline__ void
cp_async_wait ()
{
  asm volatile ("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

/* Stores under a predicate, in PTX: as C++ conditions the compiler branched around the
 * stores of edge chunks, a divergent branch and a reconvergence at every step (edge chunks
 * took 1.8x an interior one, and they set the lag between strips).  The export store: no
 * "memory" clobber (the word is self-contained: flag and value in one).
 *
 * The schedule is sensitive to where the predicate is formed.  Formed in C++ (a bool, the
 * _if helpers) FS is fastest; formed as "mask & bit" inside the asm (the _bit helpers) the
 * other kernels are: one H100 run, 8192^2 kernel ms, C++ / asm: FS 2.84 / 3.01, JJN 5.31 /
 * 4.79, Stucki 5.31 / 4.78, Burkes 5.01 / 3.67, Sierra and Two-row Sierra 6.71 / 4.38,
 * Sierra Lite 2.64 / 2.64, Atkinson 3.40 / 3.03.  Same stores, same results. */
__device__ __forceinline__ void
st_export_if (unsigned long long *p, unsigned long long v, bool pred)
{
  asm volatile ("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %2, 0;\n\t"
                "@q st.relaxed.gpu.global.u64 [%0], %1;\n\t}" ::"l"(p), "l"(v), "r"((unsigned) pred));
}

__device__ __forceinline__ void
st_export_bit (unsigned long long *p, unsigned long long v, unsigned mask, unsigned bit)
{
  asm volatile ("{\n\t.reg .pred q;\n\t.reg .b32 t;\n\tand.b32 t, %2, %3;\n\t"
                "setp.ne.u32 q, t, 0;\n\t@q st.relaxed.gpu.global.u64 [%0], %1;\n\t}"
                ::"l"(p), "l"(v), "r"(mask), "r"(bit));
}

__device__ __forceinline__ float
keep_bit (float v, unsigned mask, unsigned bit) /* v, or +0 where mask & bit is 0 */
{
  float r;
  asm ("{\n\t.reg .pred q;\n\t.reg .b32 t;\n\tand.b32 t, %1, %2;\n\t"
       "setp.ne.u32 q, t, 0;\n\tselp.f32 %0, %3, 0f00000000, q;\n\t}"
       : "=f"(r) : "r"(mask), "r"(bit), "f"(v));
  return r;
}

/* a global store of a BYTES-byte sample */
template <int BYTES>
__device__ __forceinline__ void
st_global_if (void *p, unsigned v, bool pred)
{
#define GFXHT_ST_IF(type, cons, val)                                                           \
  asm volatile ("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %2, 0;\n\t@q st.global." type              \
                " [%0], %1;\n\t}" ::"l"(p), cons(val), "r"((unsigned) pred))
  if (BYTES == 1)
    GFXHT_ST_IF ("u8", "r", v);
  else if (BYTES == 2)
    GFXHT_ST_IF ("u16", "h", (unsigned short) v);
  else
    GFXHT_ST_IF ("u32", "r", v);
#undef GFXHT_ST_IF
}

/* the same under "mask & bit" */
template <int BYTES>
__device__ __forceinline__ void
st_global_bit (void *p, unsigned v, unsigned mask, unsigned bit)
{
#define GFXHT_ST_BIT(type, cons, val)                                                          \
  asm volatile ("{\n\t.reg .pred q;\n\t.reg .b32 t;\n\tand.b32 t, %2, %3;\n\t"                   \
                "setp.ne.u32 q, t, 0;\n\t@q st.global." type " [%0], %1;\n\t}"                  \
                ::"l"(p), cons(val), "r"(mask), "r"(bit))
  if (BYTES == 1)
    GFXHT_ST_BIT ("u8", "r", v);
  else if (BYTES == 2)
    GFXHT_ST_BIT ("u16", "h", (unsigned short) v);
  else
    GFXHT_ST_BIT ("u32", "r", v);
#undef GFXHT_ST_BIT
}

__device__ __forceinline__ void
st_shared_v4 (void *p, unsigned a, unsigned b, unsigned c, unsigned d)
{
  *(uint4 *) p = make_uint4 (a, b, c, d);
}

/* a 16-byte global store under a predicate (as a C++ condition: a branch around it) */
__device__ __forceinline__ void
st_global_v4_if (void *p, unsigned a, unsigned b, unsigned c, unsigned d, bool pred)
{
  asm volatile ("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %5, 0;\n\t"
                "@q st.global.v4.u32 [%0], {%1, %2, %3, %4};\n\t}"
                ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d), "r"((unsigned) pred));
}

/* the low word of (hi:lo) >> sh, sh < 32 */
__device__ __forceinline__ unsigned
funnel_r (unsigned lo, unsigned hi, unsigned sh)
{
  return __funnelshift_r (lo, hi, sh);
}

/* 1.0f where v >= th, else 0.0f (set.ge.f32: one instruction into a register) */
__device__ __forceinline__ float
set_ge (float v, float th)
{
  float r;
  asm ("set.ge.f32.f32 %0, %1, %2;" : "=f"(r) : "f"(v), "f"(th));
  return r;
}

/* prmt.b32 in its default mode (a selector nibble with bit 3 set sign-replicates its byte) */
__device__ __forceinline__ unsigned
prmt (unsigned a, unsigned b, unsigned sel)
{
  unsigned r;
  asm ("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
  return r;
}

/* The import load: no "memory" clobber (the word is self-contained: flag and value in one;
 * measured with and without on the H100: no difference). */
__device__ __forceinline__ unsigned long long
ld_import (const unsigned long long *p)
{
  unsigned long long v;
  asm volatile ("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

/* One input sample from a tile, as a volatile shared load: issued where the code has it
 * (at the start of a chunk, before the hand-off wait).  As plain loads in the chunk the
 * compiler moved each to just before its use, and the load latency landed on the
 * dependent chain (H100: interior chunks 1.09 -> 1.35 us). */
template <int DEPTH>
__device__ __forceinline__ float
tile_sample_v (sptr a)
{
  if (DEPTH == 0)
    {
      unsigned v;
      asm volatile ("ld.volatile.shared.u8 %0, [%1];" : "=r"(v) : "r"(a));
      return (float) v * (1.0f / 255.0f);
    }
  else if (DEPTH == 1)
    {
      unsigned short v;
      asm volatile ("ld.volatile.shared.u16 %0, [%1];" : "=h"(v) : "r"(a));
      return (float) v * (1.0f / 65535.0f);
    }
  else
    {
      float v;
      asm volatile ("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(a));
      return v;
    }
}

/* The paired kernel's (halftone_pair.cuh).  The non-aligned barrier forms: the two warps
 * arrive from different code. */
__device__ __forceinline__ void
bar_sync (int id)
{
  asm volatile ("barrier.sync %0, 64;" ::"r"(id) : "memory");
}

__device__ __forceinline__ void
bar_arrive (int id)
{
  asm volatile ("barrier.arrive %0, 64;" ::"r"(id) : "memory");
}

__device__ __forceinline__ void
ld_shared_f4 (sptr a, float &x, float &y, float &z, float &w)
{
  asm volatile ("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                : "=f"(x), "=f"(y), "=f"(z), "=f"(w) : "r"(a));
}

__device__ __forceinline__ void
st_shared_f4 (sptr a, float x, float y, float z, float w)
{
  asm volatile ("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(a), "f"(x), "f"(y), "f"(z),
                "f"(w) : "memory");
}

__device__ __forceinline__ void
ld_shared_u4 (sptr a, unsigned &x, unsigned &y, unsigned &z, unsigned &w)
{
  asm volatile ("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
}

__device__ __forceinline__ void
st_shared_u4 (sptr a, unsigned x, unsigned y, unsigned z, unsigned w)
{
  asm volatile ("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(x), "r"(y), "r"(z),
                "r"(w) : "memory");
}

} // namespace gfxht

#endif
