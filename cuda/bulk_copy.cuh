/* Inside cuda/ only: bulk copies from global to shared memory by the copy engine of sm_90
 * (cp.async.bulk, "TMA" without a tensor map), completed on a shared-memory mbarrier.
 * A block issues all its copies at once and no thread spends instructions or registers
 * on the bytes in flight: what a kernel that must read a whole band before it can work
 * wants (enhance_fused3.cu).
 *
 * Use: one thread calls bulk_init (bar, 1), then every thread passes a __syncthreads;
 * one thread calls bulk_expect (bar, total bytes of all copies) before (or while) copies
 * are issued with bulk_copy; every thread that reads the data calls bulk_wait (bar, 0).
 * The other way, shared to global: every thread that wrote the bytes calls
 * bulk_store_fence, the block passes a __syncthreads, one thread calls bulk_store and
 * then bulk_store_wait_read (before the block ends).  Addresses and sizes of a copy are
 * multiples of 16 bytes. */
#ifndef GFX_BULK_COPY_CUH
#define GFX_BULK_COPY_CUH

#include <cstdint>

__device__ __forceinline__ uint32_t
bulk_smem (const void *p)
{
  return (uint32_t) __cvta_generic_to_shared (p);
}

__device__ __forceinline__ void
bulk_init (uint64_t *bar, uint32_t arrivals)
{
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bulk_smem (bar)), "r"(arrivals));
  /* make the initialised barrier visible to the copy engine (the async proxy) */
  asm volatile ("fence.proxy.async.shared::cta;" ::: "memory");
}

/* Arrives on the barrier and announces `bytes` to come from bulk copies. */
__device__ __forceinline__ void
bulk_expect (uint64_t *bar, uint32_t bytes)
{
  asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bulk_smem (bar)),
                "r"(bytes)
                : "memory");
}

__device__ __forceinline__ void
bulk_copy (void *dst_smem, const void *src_global, uint32_t bytes, uint64_t *bar)
{
  asm volatile ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                "%2, [%3];" ::"r"(bulk_smem (dst_smem)),
                "l"(src_global), "r"(bytes), "r"(bulk_smem (bar))
                : "memory");
}

/* Waits until phase `parity` of the barrier has completed (all bytes landed). */
__device__ __forceinline__ void
bulk_wait (uint64_t *bar, uint32_t parity)
{
  uint32_t done = 0;
  while (!done)
    asm volatile ("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                  "selp.u32 %0, 1, 0, p; }"
                  : "=r"(done)
                  : "r"(bulk_smem (bar)), "r"(parity)
                  : "memory");
}

/* Makes this thread's shared-memory writes visible to a following bulk store. */
__device__ __forceinline__ void
bulk_store_fence ()
{
  asm volatile ("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void
bulk_store (void *dst_global, const void *src_smem, uint32_t bytes)
{
  asm volatile ("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst_global),
                "r"(bulk_smem (src_smem)), "r"(bytes)
                : "memory");
  asm volatile ("cp.async.bulk.commit_group;" ::: "memory");
}

/* Waits until this thread's bulk stores have read their shared memory (their writes to
 * global memory may still be in flight: they complete before the kernel does, as in
 * CUTLASS's and nvFuser's epilogues, so a block may end after this). */
__device__ __forceinline__ void
bulk_store_wait_read ()
{
  asm volatile ("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

#endif
