/* The CUDA surface our wavefront kernels use, emulated on the CPU for tests/emu: every GPU
 * thread is a host thread, a warp's shuffles and votes are barriers over its 32 lanes,
 * __syncthreads and named barriers are barriers over the block's threads, and all blocks
 * run at once (as they are resident on the GPU).  It checks a kernel's index arithmetic,
 * hand-off protocol and deadlock freedom; it says nothing about the GPU memory model or
 * speed.  Included by halftone_emu.cpp and iir_emu.cpp before the kernel source. */
#ifndef GFX_CUDA_EMU_H
#define GFX_CUDA_EMU_H

#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __grid_constant__
#define __launch_bounds__(...)

struct emu_dim3 { unsigned x, y; };
struct EmuWarp
{
  std::barrier<> bar{ 32 };
  unsigned long long buf[32];
};
struct EmuBlock
{
  std::unique_ptr<std::barrier<>> bar;                /* __syncthreads */
  std::vector<std::unique_ptr<EmuWarp>> warps;
  std::vector<std::unique_ptr<std::barrier<>>> named; /* index = barrier id */
  std::vector<unsigned char> smem;
};
thread_local unsigned emu_tid, emu_bdim;
thread_local emu_dim3 emu_bid, emu_gdim; /* emu_grid's kernels only */
thread_local EmuBlock *emu_block;

#define threadIdx (emu_dim3{ emu_tid, 0 })
#define blockDim (emu_dim3{ emu_bdim, 1 })
#define blockIdx emu_bid
#define gridDim emu_gdim

static inline EmuWarp &
emu_warp ()
{
  return *emu_block->warps[emu_tid / 32];
}

static inline void __syncthreads () { emu_block->bar->arrive_and_wait (); }
static inline void __syncwarp () { emu_warp ().bar.arrive_and_wait (); }
static inline void __threadfence_block () { std::atomic_thread_fence (std::memory_order_seq_cst); }

/* Every lane publishes v, then reads lane src(lane)'s (its own where src < 0). */
template <class T, class Src>
static T
emu_exchange (T v, Src src)
{
  EmuWarp &w = emu_warp ();
  unsigned lane = emu_tid & 31;
  unsigned long long b = 0;
  memcpy (&b, &v, sizeof v);
  w.buf[lane] = b;
  w.bar.arrive_and_wait ();
  T r = v;
  int from = src ((int) lane);
  if (from >= 0)
    memcpy (&r, &w.buf[from & 31], sizeof r);
  w.bar.arrive_and_wait ();
  return r;
}

template <class T>
static T
__shfl_up_sync (unsigned, T v, int d)
{
  return emu_exchange (v, [d] (int lane) { return lane >= d ? lane - d : -1; });
}

template <class T>
static T
__shfl_sync (unsigned, T v, int src)
{
  return emu_exchange (v, [src] (int) { return src & 31; });
}

/* Every lane's pred, combined with op over the warp. */
static bool
emu_vote (bool pred, bool all)
{
  EmuWarp &w = emu_warp ();
  w.buf[emu_tid & 31] = pred;
  w.bar.arrive_and_wait ();
  bool r = all;
  for (int i = 0; i < 32; i++)
    r = all ? r && w.buf[i] : r || w.buf[i];
  w.bar.arrive_and_wait ();
  return r;
}

static inline bool __any_sync (unsigned, bool pred) { return emu_vote (pred, false); }
static inline bool __all_sync (unsigned, bool pred) { return emu_vote (pred, true); }

template <class T> static T __ldg (const T *p) { return *p; }
static inline unsigned __float_as_uint (float f) { unsigned u; memcpy (&u, &f, 4); return u; }
static inline float __uint_as_float (unsigned u) { float f; memcpy (&f, &u, 4); return f; }

template <class T>
static T
atomicAdd (T *p, T v)
{
  return std::atomic_ref<T> (*p).fetch_add (v);
}

/* A relaxed load of a word another thread spins on; yields first, so the spinning thread
 * lets the writer run on a machine with fewer cores than emulated threads. */
template <class T>
static T
emu_ld_relaxed (const T *p)
{
  std::this_thread::yield ();
  return std::atomic_ref<T> (*const_cast<T *> (p)).load (std::memory_order_relaxed);
}

/* Runs kernel () on nblocks blocks of bs threads (a multiple of 32), all at once; setup
 * gives each block its shared memory and named barriers. */
static void
emu_launch (int nblocks, int bs, const std::function<void (EmuBlock &)> &setup,
            const std::function<void ()> &kernel)
{
  std::vector<std::unique_ptr<EmuBlock>> blocks;
  std::vector<std::thread> threads;
  for (int b = 0; b < nblocks; b++)
    {
      auto blk = std::make_unique<EmuBlock> ();
      blk->bar = std::make_unique<std::barrier<>> (bs);
      for (int w = 0; w < bs / 32; w++)
        blk->warps.push_back (std::make_unique<EmuWarp> ());
      setup (*blk);
      blocks.push_back (std::move (blk));
    }
  for (int b = 0; b < nblocks; b++)
    for (int t = 0; t < bs; t++)
      threads.emplace_back ([&, b, t] {
        emu_tid = t;
        emu_bdim = bs;
        emu_block = blocks[b].get ();
        kernel ();
      });
  for (auto &th : threads)
    th.join ();
}

/* Runs kernel () on a gx x gy grid of bs threads, one thread after another: for kernels
 * whose threads never wait for each other (no barriers, shuffles or votes). */
static inline void
emu_grid (unsigned gx, unsigned gy, unsigned bs, const std::function<void ()> &kernel)
{
  emu_gdim = { gx, gy };
  emu_bdim = bs;
  for (unsigned y = 0; y < gy; y++)
    for (unsigned x = 0; x < gx; x++)
      for (unsigned t = 0; t < bs; t++)
        {
          emu_bid = { x, y };
          emu_tid = t;
          kernel ();
        }
}

/* Under ASan/UBSan (make check's second pass) an emulator runs only its cases of up to
 * EMU_MAX_SAMPLES samples: there each of its hundreds of threads is several times slower,
 * and the large cases took minutes of CI's time.  The plain build runs every case. */
#ifdef __SANITIZE_ADDRESS__
#define EMU_MAX_SAMPLES 30000L
#else
#define EMU_MAX_SAMPLES (1L << 62)
#endif
static long emu_skipped;

static inline bool
emu_case_too_large (long samples)
{
  if (samples <= EMU_MAX_SAMPLES)
    return false;
  emu_skipped++;
  return true;
}

static inline void
emu_report_skipped ()
{
  if (emu_skipped)
    printf ("SKIP %ld cases above %ld samples: the sanitizer build runs the smaller ones (the "
            "plain build runs them all)\n", emu_skipped, EMU_MAX_SAMPLES);
}

#endif
