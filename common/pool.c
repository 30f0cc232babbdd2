#include "pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int
gfx_threads (void)
{
  const char *env = getenv ("GPUFX_THREADS");
  if (env && atoi (env) >= 1)
    return atoi (env) > 256 ? 256 : atoi (env);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 256 ? 256 : (int) n;
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
