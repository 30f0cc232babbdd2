#include "progress.h"

void
gfx_progress_init (gfx_progress *p, void (*report) (void *, double), void *ctx)
{
  p->report = report;
  p->ctx = ctx;
  atomic_init (&p->cancel, 0);
  p->owner = pthread_self ();
  p->last = -1.0;
}

void
gfx_progress_update (gfx_progress *p, double fraction)
{
  if (!p || !p->report || !pthread_equal (p->owner, pthread_self ()))
    return;
  if (fraction - p->last >= 0.01 || fraction >= 1.0)
    {
      p->last = fraction;
      p->report (p->ctx, fraction);
    }
}

void
gfx_progress_cancel (gfx_progress *p)
{
  if (p)
    atomic_store (&p->cancel, 1);
}

bool
gfx_progress_cancelled (gfx_progress *p)
{
  return p && atomic_load_explicit (&p->cancel, memory_order_relaxed);
}
