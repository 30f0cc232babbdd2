/* Running work on all cores.  gfx_parallel_run runs fn on n_workers threads at once (the
 * caller is worker 0, so progress reports from worker 0 reach the UI) and returns when
 * all are done.  Workers may wait for each other: either all n start, or, if threads
 * cannot be created, fn runs once as the single worker (fn(ctx, 0, 1)). */
#ifndef GFX_POOL_H
#define GFX_POOL_H

/* Number of worker threads to use: the online cores, or GPUFX_THREADS if set (>= 1). */
int gfx_threads (void);

typedef void (*gfx_worker_fn) (void *ctx, int worker, int n_workers);

void gfx_parallel_run (int n_workers, gfx_worker_fn fn, void *ctx);

#endif
