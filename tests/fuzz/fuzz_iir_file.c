/* libFuzzer harness for the IIR filter-file parser (common/iir_file.c, SPEC section 3).
 * Besides "no crash, no UB, no leak" it checks the parser's promises: an accepted file
 * passes gfx_iir_validate, and formatting it then parsing again gives the same filter
 * bit for bit (17 significant digits round-trip).  A rejected file has a message that is
 * one non-empty line starting with the source name.  Also compiled into
 * tests/unit/test_fuzz_regress.c (FUZZ_NO_ENTRY) to replay the corpus and kept crashers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/iir_file.h"

static void
fuzz_iir_fail (const char *why)
{
  fprintf (stderr, "fuzz_iir_file: %s\n", why);
  abort ();
}

static int
fuzz_iir_file_one (const uint8_t *data, size_t size)
{
  char *text = malloc (size + 1);
  if (!text)
    return 0;
  memcpy (text, data, size);
  text[size] = '\0';
  gfx_iir_filter f, g;
  gfx_error err;
  gfx_error_clear (&err);
  gfx_status st = gfx_iir_parse (text, "fuzz.iir", &f, &err);
  free (text);
  if (st != GFX_OK)
    {
      if (st != GFX_ERR_INPUT || strncmp (err.msg, "fuzz.iir:", 9) != 0 || strchr (err.msg, '\n'))
        fuzz_iir_fail ("a rejection without a one-line 'fuzz.iir:LINE:' message");
      return 0;
    }
  if (gfx_iir_validate (&f, &err) != GFX_OK)
    fuzz_iir_fail ("an accepted file fails gfx_iir_validate");
  char *again = gfx_iir_format (&f, "round trip\nsecond line");
  if (!again)
    return 0;
  st = gfx_iir_parse (again, "again", &g, &err);
  free (again);
  if (st != GFX_OK)
    fuzz_iir_fail ("the formatted filter does not parse again");
  int n = f.m1 * f.m2;
  if (g.m1 != f.m1 || g.m2 != f.m2)
    fuzz_iir_fail ("mask size changed in the round trip");
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    if (memcmp (f.a[q], g.a[q], n * sizeof (double)) || memcmp (f.b[q], g.b[q], n * sizeof (double)))
      fuzz_iir_fail ("coefficients changed in the round trip");
  return 0;
}

#ifndef FUZZ_NO_ENTRY
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return fuzz_iir_file_one (data, size);
}
#endif
