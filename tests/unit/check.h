/* Minimal checks for the C unit tests: each CHECK prints "PASS name" or "FAIL name: ..."
 * (the protocol scripts/run-tests.sh counts); main returns check_exit_status(). */
#ifndef GFX_TEST_CHECK_H
#define GFX_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int check_failures;

__attribute__ ((format (printf, 4, 5))) static int
check_report (int ok, const char *file, int line, const char *fmt, ...)
{
  char name[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (name, sizeof name, fmt, ap);
  va_end (ap);
  if (ok)
    printf ("PASS %s\n", name);
  else
    {
      printf ("FAIL %s (%s:%d)\n", name, file, line);
      check_failures++;
    }
  fflush (stdout);
  return ok;
}

/* CHECK(condition, "name format", args...) */
#define CHECK(cond, ...) check_report (!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define SKIP(...)                                                                      \
  do                                                                                    \
    {                                                                                   \
      printf ("SKIP ");                                                                 \
      printf (__VA_ARGS__);                                                             \
      printf ("\n");                                                                    \
    }                                                                                   \
  while (0)

static inline int
check_exit_status (void)
{
  return check_failures ? 1 : 0;
}

#endif
