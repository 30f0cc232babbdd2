/* IIR filter files: good files (comments, blank lines, blocks over several lines, every
 * mask size), exact round trip, and every malformed case with its line number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/iir_file.h"
#include "check.h"
#include "test_iir_util.h"

static const char *good =
  "# identified by hand\n"
  "\n"
  "gpufx-iir 1   # version\n"
  "mask 2 3\n"
  "q1 a 1 2 3\n"
  "     4 5 6\n"
  "q1 b 1 -0.25 0 # b(0,0) first\n"
  "  0.125 0 0\n"
  "\n"
  "q2 a 0.5 0 0 0 0 0   q2 b 1 0 0 0 0 0\n"
  "q3 a 1e-3 -2E+1 .5 0x1p-2 +7 -0\n"
  "q3 b 1 0 0 0 0 0\n"
  "# comment between blocks\n"
  "q4 a 0 0 0 0 0 1\tq4 b\t1 0 0 0 0 -0.5\n";

static void
test_good (void)
{
  gfx_iir_filter f;
  gfx_error err;
  gfx_status st = gfx_iir_parse (good, "good.iir", &f, &err);
  CHECK (st == GFX_OK, "good file parses: %s", st == GFX_OK ? "" : err.msg);
  CHECK (f.m1 == 2 && f.m2 == 3, "mask 2 x 3 read");
  CHECK (f.a[0][4] == 5 && f.b[0][1] == -0.25 && f.b[0][3] == 0.125, "q1 block over two lines");
  CHECK (f.a[2][0] == 1e-3 && f.a[2][1] == -20 && f.a[2][2] == 0.5 && f.a[2][3] == 0.25
           && f.a[2][4] == 7, "number spellings (exponents, leading dot, hex, sign)");
  CHECK (f.a[3][5] == 1 && f.b[3][5] == -0.5, "tabs separate tokens");
  char with_bom[4096];
  snprintf (with_bom, sizeof with_bom, "\xEF\xBB\xBF%s", good);
  gfx_iir_filter g;
  st = gfx_iir_parse (with_bom, "bom.iir", &g, &err);
  CHECK (st == GFX_OK && memcmp (&f, &g, sizeof f) == 0,
         "a UTF-8 byte order mark before the first word is passed over: %s",
         st == GFX_OK ? "" : err.msg);
  for (int m1 = 1; m1 <= 7; m1 += 3)
    for (int m2 = 1; m2 <= 7; m2 += 2)
      {
        gfx_iir_filter g, h;
        iir_random_filter (&g, m1, m2, 0.5);
        char *text = gfx_iir_format (&g, "line one\nline two");
        bool ok = text && gfx_iir_parse (text, "rt", &h, &err) == GFX_OK && h.m1 == m1
                  && h.m2 == m2 && memcmp (g.a, h.a, sizeof g.a) == 0
                  && memcmp (g.b, h.b, sizeof g.b) == 0;
        CHECK (ok, "mask %dx%d round-trips bit for bit", m1, m2);
        free (text);
      }
}

static void
test_round_trip_extremes (void)
{
  gfx_iir_filter g, h;
  gfx_error err;
  iir_random_filter (&g, 3, 3, 0.5);
  double v[] = { 5e-324, -2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1.0 / 3.0,
                 -0.0, 123456789.123456789 };
  for (int i = 0; i < 7; i++)
    g.a[1][i] = v[i];
  char path[] = "/tmp/gpufx-test-iir-file-XXXXXX";
  close (mkstemp (path));
  bool ok = gfx_iir_write (path, &g, "extremes", &err) == GFX_OK
            && gfx_iir_read (path, &h, &err) == GFX_OK && memcmp (&g, &h, sizeof g) == 0;
  CHECK (ok, "subnormal, largest, 1/3, -0 round-trip through a file exactly");
  unlink (path);
  CHECK (gfx_iir_read ("/nonexistent/x.iir", &h, &err) == GFX_ERR_INPUT
           && strstr (err.msg, "/nonexistent/x.iir"), "missing file is bad input (CLI exit 2): %s", err.msg);
  CHECK (gfx_iir_write ("/nonexistent/x.iir", &g, NULL, &err) == GFX_ERR_IO,
         "unwritable file: %s", err.msg);
}

/* Writing over a symbolic link writes the file it names (relative links from their own
 * folder, chains, a link to a file not made yet), keeps an existing file's permissions,
 * and refuses a loop. */
static void
test_write_through_links (void)
{
  gfx_iir_filter g, h;
  gfx_error err;
  iir_random_filter (&g, 2, 2, 0.5);
  char dir[] = "/tmp/gpufx-test-iir-links-XXXXXX", p[6][512];
  if (!mkdtemp (dir))
    return;
  const char *names[6] = { "real/private.iir", "real", "link.iir", "chain.iir", "new.iir",
                           "loop.iir" };
  for (int i = 0; i < 6; i++)
    snprintf (p[i], sizeof p[i], "%s/%s", dir, names[i]);
  mkdir (p[1], 0755);
  FILE *f = fopen (p[0], "w");
  if (f)
    fclose (f);
  chmod (p[0], 0600);
  bool made = symlink ("real/private.iir", p[2]) == 0 && symlink ("link.iir", p[3]) == 0
              && symlink ("real/later.iir", p[4]) == 0 && symlink ("loop.iir", p[5]) == 0;
  struct stat sb, lb;
  bool ok = made && gfx_iir_write (p[3], &g, NULL, &err) == GFX_OK
            && gfx_iir_read (p[0], &h, &err) == GFX_OK && memcmp (&g, &h, sizeof g) == 0
            && lstat (p[2], &lb) == 0 && S_ISLNK (lb.st_mode) && lstat (p[3], &lb) == 0
            && S_ISLNK (lb.st_mode);
  CHECK (ok, "a filter file written through two links lands in the file they name");
  bool present = stat (p[0], &sb) == 0;
  CHECK (present && (sb.st_mode & 0777) == 0600,
         "a private (0600) filter file stays private when rewritten: %o", sb.st_mode & 0777);
  char later[600];
  snprintf (later, sizeof later, "%s/real/later.iir", dir);
  CHECK (gfx_iir_write (p[4], &g, NULL, &err) == GFX_OK && lstat (p[4], &lb) == 0
           && S_ISLNK (lb.st_mode) && gfx_iir_read (later, &h, &err) == GFX_OK,
         "a link to a file not made yet makes that file");
  CHECK (gfx_iir_write (p[5], &g, NULL, &err) == GFX_ERR_IO && strstr (err.msg, "loop.iir")
           && strstr (err.msg, "symbolic links"), "a loop of links is refused: %s", err.msg);
  unlink (later);
  for (int i = 5; i >= 2; i--)
    unlink (p[i]);
  unlink (p[0]); /* real/private.iir before its folder, real */
  rmdir (p[1]);
  rmdir (dir);
}

/* Replaces the first occurrence of `from` in the good file by `to`. */
static void
malformed (const char *from, const char *to, const char *line, const char *expect)
{
  char text[4096];
  const char *at = strstr (good, from);
  snprintf (text, sizeof text, "%.*s%s%s", (int) (at - good), good, to, at + strlen (from));
  gfx_iir_filter f;
  gfx_error err = { 0 };
  gfx_status st = gfx_iir_parse (text, "bad.iir", &f, &err);
  CHECK (st == GFX_ERR_INPUT && strstr (err.msg, line) && strstr (err.msg, expect),
         "'%s' -> '%s' refused at %s: %s", from, to, line, err.msg);
}

static void
test_malformed (void)
{
  gfx_iir_filter f;
  gfx_error err;
  CHECK (gfx_iir_parse ("", "e.iir", &f, &err) == GFX_ERR_INPUT && strstr (err.msg, "e.iir:1:")
           && strstr (err.msg, "gpufx-iir") && strstr (err.msg, "end of the file"),
         "empty file: %s", err.msg);
  CHECK (gfx_iir_parse ("# only\n\n# comments\n", "c.iir", &f, &err) == GFX_ERR_INPUT
           && strstr (err.msg, "c.iir:3:"), "comments only: %s", err.msg);
  malformed ("gpufx-iir 1", "gpufx-fir 1", "bad.iir:3:", "gpufx-iir");
  malformed ("gpufx-iir 1", "gpufx-iir 2", "bad.iir:3:", "version 1");
  malformed ("mask 2 3", "mask 2", "bad.iir:5:", "mask columns");
  malformed ("mask 2 3", "mask 0 3", "bad.iir:4:", "1 to 7");
  malformed ("mask 2 3", "mask 2 8", "bad.iir:4:", "1 to 7");
  malformed ("mask 2 3", "mask 2.5 3", "bad.iir:4:", "mask rows");
  malformed ("mask 2 3", "size 2 3", "bad.iir:4:", "'mask M1 M2'");
  malformed ("     4 5 6", "     4 5", "bad.iir:7:", "coefficient 6 of 6 of q1 a");
  malformed ("     4 5 6", "     4 5 6 7", "bad.iir:6:", "'q1 b'");
  malformed ("q1 b 1 -0.25", "q1 b 0.5 -0.25", "bad.iir:7:", "b(0,0) must be 1");
  malformed ("  0.125 0 0", "  nan 0 0", "bad.iir:8:", "not a finite");
  malformed ("  0.125 0 0", "  inf 0 0", "bad.iir:8:", "not a finite");
  malformed ("  0.125 0 0", "  1e999 0 0", "bad.iir:8:", "not a finite");
  malformed ("  0.125 0 0", "  1e-400 0 0", "bad.iir:8:", "'1e-400', too close to 0 for a double");
  malformed ("  0.125 0 0", "  0.125x 0 0", "bad.iir:8:", "coefficient 4 of 6 of q1 b, b(1,0)");
  malformed ("  0.125 0 0", "  0,125 0 0", "bad.iir:8:", "decimal point, not a comma");
  malformed ("q2 a 0.5", "q3 a 0.5", "bad.iir:10:", "'q2 a'");
  malformed ("q3 b 1", "q3 a 1", "bad.iir:12:", "'q3 b'");
  malformed ("q4 b\t1 0 0 0 0 -0.5\n", "q4 b\t1 0 0 0 0 -0.5\nextra\n", "bad.iir:15:",
             "end of the file");
  malformed ("q4 b\t1 0 0 0 0 -0.5\n", "q4 b\t1 0 0\n", "bad.iir:14:",
             "coefficient 4 of 6 of q4 b");
  malformed ("q4 a 0 0 0 0 0 1\tq4 b\t1 0 0 0 0 -0.5\n", "", "bad.iir:13:", "'q4 a'");
  gfx_iir_filter g;
  iir_random_filter (&g, 2, 2, 0.3);
  g.b[1][0] = 2;
  CHECK (gfx_iir_validate (&g, &err) == GFX_ERR_INPUT && strstr (err.msg, "q2"),
         "validate: b(0,0) != 1 named: %s", err.msg);
  g.b[1][0] = 1;
  g.a[3][2] = NAN;
  CHECK (gfx_iir_validate (&g, &err) == GFX_ERR_INPUT && strstr (err.msg, "q4 a(1,0)"),
         "validate: NaN named: %s", err.msg);
}

int
main (void)
{
  test_good ();
  test_round_trip_extremes ();
  test_write_through_links ();
  test_malformed ();
  return check_exit_status ();
}
