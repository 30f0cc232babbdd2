/* LD_PRELOAD shim for tests: in a gpufx process (the command line or a plug-in), malloc
 * of exactly $GPUFX_TEST_FAIL_MALLOC bytes, or of $GPUFX_TEST_FAIL_MALLOC_FROM bytes or
 * more, returns NULL, as when memory runs out; every other call (and every other process:
 * GIMP, its file plug-ins) gets glibc's malloc.  Not for ASan builds, whose runtime owns
 * malloc. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc (size_t size);

void *
malloc (size_t size)
{
  static int state; /* 0 not read yet, 1 armed, 2 off */
  static size_t fail_size, fail_from;
  if (state == 0)
    {
      const char *v = getenv ("GPUFX_TEST_FAIL_MALLOC"), *f = getenv ("GPUFX_TEST_FAIL_MALLOC_FROM");
      fail_size = v ? strtoull (v, NULL, 10) : 0;
      fail_from = f ? strtoull (f, NULL, 10) : 0;
      const char *me = program_invocation_short_name;
      state = (fail_size || fail_from) && (!strcmp (me, "gpufx") || !strncmp (me, "gpufx-", 6))
                ? 1 : 2;
    }
  if (state == 1 && (size == fail_size || (fail_from && size >= fail_from)))
    {
      errno = ENOMEM;
      return NULL;
    }
  return __libc_malloc (size);
}
