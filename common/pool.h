/* Running work on all cores.  gfx_parallel_run runs fn on n_workers threads at once (the
 * caller is worker 0, so progress reports from worker 0 reach the UI) and returns when
 * all are done.  Workers may wait for each other: either all n start, or, if threads
 * cannot be created, fn runs once as the single worker (fn(ctx, 0, 1)). */
#ifndef GFX_POOL_H
#define GFX_POOL_H

#include <stdatomic.h>
#include <stdbool.h>

/* Number of worker threads to use: the online cores, or GPUFX_THREADS if set (>= 1). */
int gfx_threads (void);

/* Seconds on the monotonic clock (for timing runs and waits; the origin is arbitrary). */
double gfx_seconds (void);

/* Threads for one job of `size` (in the caller's units): GPUFX_THREADS when it is set
 * (tests and batch jobs get exactly what they ask); else 1 when size < small (starting
 * and joining threads would cost more than they give); else gfx_threads(), or, for
 * `coupled` work whose workers wait on each other all along (a wavefront, which runs at
 * the pace of its slowest worker), only the cores no other process is running on at the
 * moment (Linux: the runnable count of /proc/loadavg), at least 1. */
int gfx_threads_for (double size, double small, bool coupled);

typedef void (*gfx_worker_fn) (void *ctx, int worker, int n_workers);

void gfx_parallel_run (int n_workers, gfx_worker_fn fn, void *ctx);

/* A progress counter that one worker raises and others wait on (a wavefront: "row n - 1
 * has done c columns").  Waiting spins about 0.1 ms, then sleeps (a futex on Linux) until
 * the counter moves, so a waiter whose partner lost its core to another process gives
 * that core back instead of burning it.  Publishing is a store plus, only when someone
 * sleeps, a wake-up.  Zero-initialise (or gfx_counter_init) before use. */
typedef struct {
  atomic_int value;
  atomic_int sleepers; /* waiters inside the sleep path */
} gfx_counter;

void gfx_counter_init (gfx_counter *c, int value);

/* Sets the counter to value (release: what was written before is visible to a waiter that
 * sees it) and wakes the sleepers. */
void gfx_counter_publish (gfx_counter *c, int value);

/* Waits until the counter is >= need and returns its value (acquire), or returns -1 as
 * soon as stop(ctx) is true; stop is polled while spinning and at least every
 * millisecond while asleep (stop may be NULL). */
int gfx_counter_wait (gfx_counter *c, int need, bool (*stop) (void *ctx), void *ctx);

#endif
