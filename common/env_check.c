/* The environment variables gpufx reads, read strictly (see env_check.h). */
#include "env_check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

/* GPUFX_THREADS as written, or 0 when it is unset or not a whole number from 1. */
static long
threads_asked (void)
{
  const char *env = getenv ("GPUFX_THREADS");
  if (!env || !*env)
    return 0;
  char *end;
  errno = 0;
  long n = strtol (env, &end, 10);
  if (errno == ERANGE && n == LONG_MAX && !*end) /* digits beyond long: "a larger number" */
    return LONG_MAX;
  return errno || *end || n < 1 ? 0 : n;
}

int
gfx_env_threads (void)
{
  const long n = threads_asked ();
  return n > GFX_MAX_THREADS ? GFX_MAX_THREADS : (int) n;
}

/* Appends one sentence to note (separated by "; "). */
static void
add (char *note, size_t len, const char *name, const char *value, const char *why)
{
  size_t used = strlen (note);
  if (used < len)
    snprintf (note + used, len - used, "%s%s=%s %s", used ? "; " : "", name, value, why);
}

void
gfx_env_check (char *note, size_t len)
{
  note[0] = '\0';
  const char *backend = getenv ("GPUFX_BACKEND");
  if (backend && *backend && gfx_backend_by_name (backend) < 0)
    add (note, len, "GPUFX_BACKEND", backend, "is not auto, cpu or gpu: ignored");
  const char *threads = getenv ("GPUFX_THREADS");
  const long asked = threads_asked ();
  if (threads && *threads && !asked)
    add (note, len, "GPUFX_THREADS", threads, "is not a whole number from 1: ignored");
  else if (asked > GFX_MAX_THREADS)
    add (note, len, "GPUFX_THREADS", threads, "is more than 256: 256 are used");
}
