/* Numbers in C's syntax whatever the locale (c_numbers.h). */
#include "c_numbers.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
make_c_locale (void)
{
  c_locale = newlocale (LC_ALL_MASK, "C", (locale_t) 0); /* 0 only when out of memory */
}

static locale_t
the_c_locale (void)
{
  pthread_once (&c_locale_once, make_c_locale);
  return c_locale;
}

double
gfx_strtod_c (const char *text, char **end)
{
  locale_t c = the_c_locale ();
  return c ? strtod_l (text, end, c) : strtod (text, end);
}

double
gfx_strtod_c_held (const char *text, char **end, int *beyond)
{
  errno = 0;
  double v = gfx_strtod_c (text, end);
  *beyond = errno == ERANGE && (isinf (v) || v == 0);
  return v;
}

locale_t
gfx_c_numbers_begin (void)
{
  locale_t c = the_c_locale ();
  return c ? uselocale (c) : (locale_t) 0;
}

void
gfx_c_numbers_end (locale_t previous)
{
  if (previous)
    uselocale (previous);
}

int
gfx_vsnprintf_c (char *buf, size_t len, const char *fmt, va_list ap)
{
  locale_t user_locale = gfx_c_numbers_begin ();
  int n = vsnprintf (buf, len, fmt, ap);
  gfx_c_numbers_end (user_locale);
  return n;
}

int
gfx_snprintf_c (char *buf, size_t len, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  int n = gfx_vsnprintf_c (buf, len, fmt, ap);
  va_end (ap);
  return n;
}
