/* Numbers in C's syntax whatever the process's locale.  The plug-ins run under the user's
 * locale (gtk_init calls setlocale (LC_ALL, "")), where the decimal point may be a comma;
 * filter files and parameter text must read and write alike in GIMP and in gpufx. */
#ifndef GFX_C_NUMBERS_H
#define GFX_C_NUMBERS_H

#include <locale.h>
#include <stdarg.h>
#include <stddef.h>

/* strtod with '.' as the decimal point. */
double gfx_strtod_c (const char *text, char **end);
/* The same, and *beyond: whether the text names a number no double holds (1e400, read as
 * inf; 1e-400, read as 0), which the caller should not take for what was typed.  A
 * subnormal (1e-310) is held. */
double gfx_strtod_c_held (const char *text, char **end, int *beyond);

/* snprintf and vsnprintf with '.' as the decimal point ("k1 = 0.5", never "0,5"). */
int gfx_snprintf_c (char *buf, size_t len, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));
int gfx_vsnprintf_c (char *buf, size_t len, const char *fmt, va_list ap)
  __attribute__ ((format (printf, 3, 0)));

/* Makes the calling thread format and parse numbers as in the C locale until
 * gfx_c_numbers_end (previous) (uselocale: other threads are not affected). */
locale_t gfx_c_numbers_begin (void);
void gfx_c_numbers_end (locale_t previous);

#endif
