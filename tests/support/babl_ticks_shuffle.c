/* Test helper, loaded with LD_PRELOAD: babl's clock made to shuffle.
 *
 * Without a fish cache babl picks, among the conversion chains within its tolerance, the
 * one that ran fastest on a few hundred test pixels, timed with babl_ticks.  Which one
 * wins thus depends on how busy the machine is; this clock makes the choice a
 * pseudo-random one instead, repeatable for a given GFX_TICKS_SEED (else a new one in
 * each process), so a test can show that a result does not depend on it. */
#include <stdlib.h>
#include <unistd.h>

long babl_ticks (void);

long
babl_ticks (void)
{
  static unsigned long state;
  static long now;
  if (!state)
    {
      const char *seed = getenv ("GFX_TICKS_SEED");
      state = 2 * (seed ? strtoul (seed, NULL, 10) : (unsigned long) getpid ()) + 1;
    }
  state = state * 6364136223846793005ul + 1442695040888963407ul;
  now += 1 + (long) ((state >> 33) % 1000);
  return now;
}
