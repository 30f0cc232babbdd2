/* Cancelling a run from another thread, as GIMP's main thread does, for the unit tests. */
#ifndef GFX_TEST_SUPPORT_CANCEL_H
#define GFX_TEST_SUPPORT_CANCEL_H

#include <pthread.h>

#include "../../common/progress.h"

typedef struct {
  gfx_progress *progress;
  long delay_ns;
  pthread_t thread;
} test_late_cancel;

/* Cancels progress from a thread of its own delay_us microseconds from now. */
void test_cancel_after (test_late_cancel *c, gfx_progress *progress, long delay_us);
/* Waits for that thread (the cancel has happened when this returns). */
void test_cancel_join (test_late_cancel *c);

/* From now until test_hang_guard (0): a run that does not end within seconds (a worker
 * left waiting by a cancel) prints "FAIL what: ..." and ends the program, so that the
 * suite reports it instead of hanging. */
void test_hang_guard (unsigned seconds, const char *what);

#endif
