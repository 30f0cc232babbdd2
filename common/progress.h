/* Progress reporting and cancellation for long work.  The core calls
 * gfx_progress_update from any thread; the report callback only runs on the thread that
 * called gfx_progress_init (GIMP's progress bar must be driven from the plug-in's main
 * thread), at most once per percent.  Cancel is a flag anyone may set. */
#ifndef GFX_PROGRESS_H
#define GFX_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct gfx_progress {
  void (*report) (void *ctx, double fraction); /* may be NULL */
  void *ctx;
  atomic_int cancel; /* nonzero: stop as soon as possible */
  pthread_t owner;
  double last;
} gfx_progress;

void gfx_progress_init (gfx_progress *p, void (*report) (void *, double), void *ctx);
void gfx_progress_update (gfx_progress *p, double fraction);
void gfx_progress_cancel (gfx_progress *p);
bool gfx_progress_cancelled (gfx_progress *p);

#endif
