/* Cancelling from another thread, and a guard against hangs (support_cancel.h). */
#include "support_cancel.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *
cancel_later (void *ctx)
{
  test_late_cancel *c = ctx;
  struct timespec t = { c->delay_ns / 1000000000L, c->delay_ns % 1000000000L };
  nanosleep (&t, NULL);
  gfx_progress_cancel (c->progress);
  return NULL;
}

void
test_cancel_after (test_late_cancel *c, gfx_progress *progress, long delay_us)
{
  c->progress = progress;
  c->delay_ns = delay_us * 1000;
  pthread_create (&c->thread, NULL, cancel_later, c);
}

void
test_cancel_join (test_late_cancel *c)
{
  pthread_join (c->thread, NULL);
}

static char hang_message[256];

static void
hung (int sig)
{
  (void) sig;
  ssize_t n = write (1, hang_message, strlen (hang_message)); /* async-signal-safe */
  (void) n;
  _exit (1);
}

void
test_hang_guard (unsigned seconds, const char *what)
{
  snprintf (hang_message, sizeof hang_message,
            "FAIL %s: a run did not end within %u s (a worker hangs)\n", what, seconds);
  signal (SIGALRM, hung);
  alarm (seconds);
}
