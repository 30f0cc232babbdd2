/* common/pool: the thread-count rules of gfx_threads_for and the progress counter that
 * wavefront workers wait on (spin, then sleep; wake-ups; stop). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../common/pool.h"
#include "check.h"

static void
check_thread_counts (void)
{
  setenv ("GPUFX_THREADS", "3", 1);
  CHECK (gfx_threads_for (1, 1e6, true) == 3 && gfx_threads_for (1e9, 1e6, false) == 3,
         "GPUFX_THREADS=3 is obeyed whatever the size and coupling");
  unsetenv ("GPUFX_THREADS");
  int all = gfx_threads (), coupled = gfx_threads_for (1e9, 1e6, true);
  CHECK (gfx_threads_for (10, 1e6, false) == 1 && gfx_threads_for (10, 1e6, true) == 1,
         "a job below the small size gets one thread");
  CHECK (gfx_threads_for (1e9, 1e6, false) == all && coupled >= 1 && coupled <= all,
         "a large job gets all %d cores, a coupled one 1 to %d (now %d)", all, all, coupled);
}

typedef struct {
  gfx_counter *c; /* c[i] is raised by worker i, after c[i - 1] reached each value */
  int steps, pause_every;
  atomic_int stop, bad;
} chain;

static bool
stopped (void *ctx)
{
  return atomic_load (&((chain *) ctx)->stop);
}

/* Worker i raises its counter to 1..steps, each only after counter i - 1 got there: a
 * wavefront.  Worker 0 pauses now and then (1 ms) so the others go to sleep and must be
 * woken. */
static void
chain_worker (void *ctx, int id, int n)
{
  chain *ch = ctx;
  (void) n;
  for (int s = 1; s <= ch->steps; s++)
    {
      if (id > 0)
        {
          int have = gfx_counter_wait (&ch->c[id - 1], s, stopped, ch);
          if (have < s)
            atomic_fetch_add (&ch->bad, 1);
        }
      else if (s % ch->pause_every == 0)
        {
          struct timespec t = { 0, 1000000 };
          nanosleep (&t, NULL);
        }
      gfx_counter_publish (&ch->c[id], s);
    }
}

static bool
stop_now (void *ctx)
{
  (void) ctx;
  return true;
}

static void
check_counter (void)
{
  for (int workers = 2; workers <= 6; workers += 2)
    {
      gfx_counter c[6];
      for (int i = 0; i < 6; i++)
        gfx_counter_init (&c[i], 0);
      chain ch = { .c = c, .steps = 3000, .pause_every = 300 };
      atomic_init (&ch.stop, 0);
      atomic_init (&ch.bad, 0);
      gfx_parallel_run (workers, chain_worker, &ch);
      bool ok = atomic_load (&ch.bad) == 0;
      for (int i = 0; i < workers; i++)
        ok = ok && atomic_load (&c[i].value) == 3000 && atomic_load (&c[i].sleepers) == 0;
      CHECK (ok, "a %d-worker wavefront through counters (spins, sleeps, wake-ups) completes", workers);
    }
  gfx_counter c;
  gfx_counter_init (&c, 5);
  CHECK (gfx_counter_wait (&c, 5, NULL, NULL) == 5 && gfx_counter_wait (&c, 6, stop_now, NULL) == -1
           && atomic_load (&c.sleepers) == 0,
         "a counter already there returns its value; a stopped wait returns -1");
}

int
main (void)
{
  check_thread_counts ();
  check_counter ();
  return check_exit_status ();
}
