/* Inside cuda/ only: the clocks the kernels' bench traces read (the halftone rows, IIR
 * split and fused enhance kernels; each trace is off unless a bench asks for it).  The CPU
 * emulations in tests/emu supply their own. */
#ifndef GFX_TRACE_CLOCK_CUH
#define GFX_TRACE_CLOCK_CUH

/* The SM's cycle counter (low 32 bits): step and wait times within one block. */
__device__ __forceinline__ unsigned
trace_clock ()
{
  return (unsigned) clock ();
}

/* The GPU's global timer (ns): times that compare across SMs. */
__device__ __forceinline__ unsigned long long
trace_gtime ()
{
  unsigned long long t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned
trace_smid ()
{
  unsigned r;
  asm volatile ("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

#endif
