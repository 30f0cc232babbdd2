#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "env_check.h"

int
gfx_threads (void)
{
  const int env = gfx_env_threads ();
  if (env)
    return env;
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > GFX_MAX_THREADS ? GFX_MAX_THREADS : (int) n;
}

int
gfx_threads_for (double size, double small, bool coupled)
{
  if (gfx_env_threads ())
    return gfx_threads ();
  if (size < small)
    return 1;
  int threads = gfx_threads ();
  if (!coupled || threads == 1)
    return threads;
  FILE *f = fopen ("/proc/loadavg", "r");
  int running = 0;
  if (f) /* "0.52 0.58 0.59 3/417 12345": 3 runnable now, this thread included */
    {
      if (fscanf (f, "%*s %*s %*s %d/", &running) != 1) /* %f would read "0,52" */
        running = 0;
      fclose (f);
    }
  int busy = running > 1 ? running - 1 : 0;
  return busy >= threads ? 1 : threads - busy;
}

/* Threads wait at a gate until all were created, so a worker never waits for a peer
 * that will not exist. */
typedef struct {
  gfx_worker_fn fn;
  void *ctx;
  int n_workers;
  pthread_mutex_t lock;
  pthread_cond_t opened;
  int state; /* 0 closed, 1 go, -1 abandon */
} gate;

typedef struct {
  gate *g;
  int worker;
} worker_arg;

static void *
worker_main (void *p)
{
  worker_arg *a = p;
  gate *g = a->g;
  pthread_mutex_lock (&g->lock);
  while (g->state == 0)
    pthread_cond_wait (&g->opened, &g->lock);
  int go = g->state == 1;
  pthread_mutex_unlock (&g->lock);
  if (go)
    g->fn (g->ctx, a->worker, g->n_workers);
  return NULL;
}

static void
open_gate (gate *g, int state)
{
  pthread_mutex_lock (&g->lock);
  g->state = state;
  pthread_cond_broadcast (&g->opened);
  pthread_mutex_unlock (&g->lock);
}

void
gfx_parallel_run (int n_workers, gfx_worker_fn fn, void *ctx)
{
  pthread_t *threads = n_workers > 1 ? malloc (sizeof *threads * (size_t) n_workers) : NULL;
  worker_arg *args = n_workers > 1 ? malloc (sizeof *args * (size_t) n_workers) : NULL;
  if (!threads || !args)
    {
      free (threads);
      free (args);
      fn (ctx, 0, 1);
      return;
    }
  gate g = { fn, ctx, n_workers, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
  int created = 1;
  for (; created < n_workers; created++)
    {
      args[created] = (worker_arg) { &g, created };
      if (pthread_create (&threads[created], NULL, worker_main, &args[created]) != 0)
        break;
    }
  open_gate (&g, created == n_workers ? 1 : -1);
  if (created == n_workers)
    fn (ctx, 0, n_workers);
  for (int w = 1; w < created; w++)
    pthread_join (threads[w], NULL);
  if (created != n_workers)
    fn (ctx, 0, 1);
  free (threads);
  free (args);
}

/* --- progress counters ------------------------------------------------------------- */

#define SPIN_ROUNDS 2000 /* pause instructions before sleeping: about 130 us on the EPYC box (65 ns
                            each), longer than the waits of a wavefront whose workers all run */

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#endif
}

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>

static void
sleep_while (atomic_int *addr, int seen)
{
  struct timespec t = { 0, 1000000 }; /* 1 ms: stop is polled at least that often */
  syscall (SYS_futex, (int *) addr, FUTEX_WAIT_PRIVATE, seen, &t, NULL, 0);
}

static void
wake_all (atomic_int *addr)
{
  syscall (SYS_futex, (int *) addr, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}
#else
static void
sleep_while (atomic_int *addr, int seen)
{
  (void) addr, (void) seen;
  sched_yield ();
}

static void
wake_all (atomic_int *addr)
{
  (void) addr;
}
#endif

void
gfx_counter_init (gfx_counter *c, int value)
{
  atomic_init (&c->value, value);
  atomic_init (&c->sleepers, 0);
}

void
gfx_counter_publish (gfx_counter *c, int value)
{
  /* seq_cst store, then load: with the sleeper's increment-then-load (also seq_cst), one
   * of the two sees the other, so no wake-up is lost; the futex re-checks the value. */
  atomic_store (&c->value, value);
  if (atomic_load (&c->sleepers) > 0)
    wake_all (&c->value);
}

int
gfx_counter_wait (gfx_counter *c, int need, bool (*stop) (void *ctx), void *ctx)
{
  int have;
  for (int spins = 0; (have = atomic_load_explicit (&c->value, memory_order_acquire)) < need;
       spins++)
    {
      if (stop && stop (ctx))
        return -1;
      if (spins < SPIN_ROUNDS)
        {
          cpu_relax ();
          continue;
        }
      atomic_fetch_add (&c->sleepers, 1);
      while ((have = atomic_load (&c->value)) < need && !(stop && stop (ctx)))
        sleep_while (&c->value, have);
      atomic_fetch_sub (&c->sleepers, 1);
      if (have < need)
        return -1; /* stopped */
      break;
    }
  return have;
}

double
gfx_seconds (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}
