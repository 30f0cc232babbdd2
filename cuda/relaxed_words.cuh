/* Inside cuda/ only, device code only: the 64-bit words that blocks hand each other (the
 * halftone's error words, the IIR's boundary words).  Relaxed loads and stores at GPU
 * scope: single-copy atomic, so a word written once carries its own ready flag (a launch
 * epoch, or a sentinel it replaces) and needs no separate flag or fence.  The "memory"
 * clobber keeps the compiler from moving other memory accesses across them.  The CPU
 * emulations in tests/emu bring their own. */
#ifndef GFX_RELAXED_WORDS_CUH
#define GFX_RELAXED_WORDS_CUH

__device__ __forceinline__ unsigned long long
ld_relaxed_gpu (const unsigned long long *p)
{
  unsigned long long v;
  asm volatile ("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void
st_relaxed_gpu (unsigned long long *p, unsigned long long v)
{
  asm volatile ("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

#endif
