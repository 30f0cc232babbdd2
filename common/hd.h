/* GFX_HD marks the small maths functions that the CPU and the CUDA paths share, so the
 * two compile the very same expressions (with FMA contraction off on both sides). */
#ifndef GFX_HD_H
#define GFX_HD_H

#ifdef __CUDACC__
#define GFX_HD static __host__ __device__ __forceinline__
#else
#define GFX_HD static inline
#endif

#endif
