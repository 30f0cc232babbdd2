/* Reading and writing IIR filter files (format in iir_file.h). */
#include "iir_file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c_numbers.h"
#include "file_target.h"

/* A cursor over the text that skips white space and comments and knows its line. */
typedef struct {
  const char *p, *start;
  int line;
  const char *source;
  char tok[64]; /* the current token, cut for messages */
  int tok_line;
} lexer;

static void
skip_space (lexer *lx)
{
  for (;;)
    {
      if (*lx->p == '\n')
        lx->line++, lx->p++;
      else if (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' || *lx->p == '\f'
               || *lx->p == '\v')
        lx->p++;
      else if (*lx->p == '#')
        while (*lx->p && *lx->p != '\n')
          lx->p++;
      else
        return;
    }
}

/* Reads the next token into lx->tok; false at the end of the text. */
static bool
next_token (lexer *lx)
{
  skip_space (lx);
  lx->tok_line = lx->line;
  if (!*lx->p)
    {
      /* The file ends on its last line, not on the empty one after its final newline. */
      if (lx->line > 1 && lx->p > lx->start && lx->p[-1] == '\n')
        lx->tok_line = lx->line - 1;
      snprintf (lx->tok, sizeof lx->tok, "%s", gfx_tr ("the end of the file"));
      return false;
    }
  const char *start = lx->p;
  while (*lx->p && !strchr (" \t\r\n\f\v#", *lx->p))
    lx->p++;
  size_t n = (size_t) (lx->p - start);
  if (n >= sizeof lx->tok - 3)
    snprintf (lx->tok, sizeof lx->tok, "'%.*s...'", (int) sizeof lx->tok - 8, start);
  else
    snprintf (lx->tok, sizeof lx->tok, "'%.*s'", (int) n, start);
  return true;
}

/* The token without its quotes (tokens longer than the buffer never match a keyword). */
static bool
token_is (const lexer *lx, const char *word)
{
  size_t n = strlen (word);
  return lx->tok[0] == '\'' && strncmp (lx->tok + 1, word, n) == 0 && lx->tok[n + 1] == '\''
         && lx->tok[n + 2] == '\0';
}

static gfx_status
expected (const lexer *lx, gfx_error *err, const char *what)
{
  return gfx_fail (err, GFX_ERR_INPUT, "%s:%d: expected %s, found %s", lx->source,
                   lx->tok_line, what, lx->tok);
}

static gfx_status
expect_word (lexer *lx, const char *word, const char *what, gfx_error *err)
{
  if (!next_token (lx) || !token_is (lx, word))
    return expected (lx, err, what);
  return GFX_OK;
}

/* A finite number in C syntax (strtod in the C locale), the whole token. */
static gfx_status
expect_number (lexer *lx, double *v, const char *what, gfx_error *err)
{
  skip_space (lx);
  const char *start = lx->p;
  if (!next_token (lx))
    return expected (lx, err, what);
  char *end;
  int beyond;
  double d = gfx_strtod_c_held (start, &end, &beyond);
  if (end != lx->p || end == start)
    return *end == ',' && end > start /* "0,5": a decimal comma (a locale's) */
             ? gfx_fail (err, GFX_ERR_INPUT, "%s:%d: expected %s, found %s: numbers take a "
                         "decimal point, not a comma", lx->source, lx->tok_line, what, lx->tok)
             : expected (lx, err, what);
  if (!isfinite (d) || beyond)
    return d == 0 ? gfx_fail (err, GFX_ERR_INPUT, "%s:%d: expected %s, found %s, too close to 0 "
                              "for a double-precision number (it would read as 0)", lx->source,
                              lx->tok_line, what, lx->tok)
                  : gfx_fail (err, GFX_ERR_INPUT, "%s:%d: expected %s, found %s, which is not a "
                              "finite double-precision number", lx->source, lx->tok_line, what,
                              lx->tok);
  *v = d;
  return GFX_OK;
}

static gfx_status
expect_mask_size (lexer *lx, int *m, const char *what, gfx_error *err)
{
  double d;
  gfx_status st = expect_number (lx, &d, what, err);
  if (st != GFX_OK)
    return st;
  if (d != floor (d) || d < 1 || d > GFX_IIR_MAX_MASK)
    return gfx_fail (err, GFX_ERR_INPUT, "%s:%d: expected %s (an integer from 1 to %d), "
                     "found %s", lx->source, lx->tok_line, what, GFX_IIR_MAX_MASK, lx->tok);
  *m = (int) d;
  return GFX_OK;
}

/* "qN a" or "qN b" followed by exactly m1*m2 numbers. */
static gfx_status
parse_block (lexer *lx, int q, char kind, int m2, int n, double *out, gfx_error *err)
{
  char what[192]; /* a translation may be twice the bytes of the English */
  snprintf (what, sizeof what, gfx_tr ("'q%d %c' (block %d of 8)"), q + 1, kind,
            2 * q + (kind == 'b') + 1);
  char word[4] = { 'q', (char) ('1' + q), 0, 0 };
  char kw[2] = { kind, 0 };
  gfx_status st = expect_word (lx, word, what, err);
  if (st == GFX_OK)
    st = expect_word (lx, kw, what, err);
  int first_line = 0;
  for (int i = 0; st == GFX_OK && i < n; i++)
    {
      snprintf (what, sizeof what, gfx_tr ("a number: coefficient %d of %d of q%d %c, %c(%d,%d)"),
                i + 1, n, q + 1, kind, kind, i / m2, i % m2);
      st = expect_number (lx, &out[i], what, err);
      first_line = i == 0 ? lx->tok_line : first_line;
    }
  if (st == GFX_OK && kind == 'b' && out[0] != 1.0)
    return gfx_fail (err, GFX_ERR_INPUT, "%s:%d: q%d b: the first coefficient b(0,0) must be "
                     "1, found %.17g", lx->source, first_line, q + 1, out[0]);
  return st;
}

gfx_status
gfx_iir_parse (const char *text, const char *source, gfx_iir_filter *f, gfx_error *err)
{
  /* A UTF-8 byte order mark, which some Windows editors put first, is not a word. */
  static const char bom[] = "\xEF\xBB\xBF";
  if (!strncmp (text, bom, sizeof bom - 1))
    text += sizeof bom - 1;
  lexer lx = { .p = text, .start = text, .line = 1, .source = source ? source : "<string>" };
  memset (f, 0, sizeof *f);
  /* 'gpufx-iir' is GFX_IIR_FILE_MAGIC, written out for xgettext */
  gfx_status st = expect_word (&lx, GFX_IIR_FILE_MAGIC, gfx_tr ("'gpufx-iir' (the first word "
                                                                "of a filter file)"), err);
  double version = 0;
  if (st == GFX_OK)
    st = expect_number (&lx, &version, gfx_tr ("the format version 1"), err);
  if (st == GFX_OK && version != GFX_IIR_FILE_VERSION)
    return expected (&lx, err, gfx_tr ("the format version 1"));
  if (st == GFX_OK)
    st = expect_word (&lx, "mask", gfx_tr ("'mask M1 M2'"), err);
  if (st == GFX_OK)
    st = expect_mask_size (&lx, &f->m1, gfx_tr ("the mask rows M1"), err);
  if (st == GFX_OK)
    st = expect_mask_size (&lx, &f->m2, gfx_tr ("the mask columns M2"), err);
  int n = f->m1 * f->m2;
  for (int q = 0; st == GFX_OK && q < GFX_IIR_QUADRANTS; q++)
    {
      st = parse_block (&lx, q, 'a', f->m2, n, f->a[q], err);
      if (st == GFX_OK)
        st = parse_block (&lx, q, 'b', f->m2, n, f->b[q], err);
    }
  if (st == GFX_OK && next_token (&lx))
    return expected (&lx, err, gfx_tr ("the end of the file after the q4 b block"));
  return st;
}

gfx_status
gfx_iir_read (const char *path, gfx_iir_filter *f, gfx_error *err)
{
  struct stat sb; /* opening a fifo would block for ever; a folder reads as an error */
  if (stat (path, &sb) == 0 && !S_ISREG (sb.st_mode))
    return gfx_fail (err, GFX_ERR_INPUT,
                     "filter file '%s' cannot be read: not a regular file (%s)", path,
                     S_ISDIR (sb.st_mode) ? gfx_tr ("a folder")
                                          : gfx_tr ("a device, fifo or socket"));
  FILE *fp = fopen (path, "rb");
  if (!fp && errno == ENOENT && !strcmp (path, "-")) /* images take "-", filter files not */
    return gfx_fail (err, GFX_ERR_INPUT, "filter file '-' cannot be read: a filter file is "
                     "read from a file named by its path, not from standard input");
  if (!fp) /* missing or unreadable: bad input (CLI exit 2), as for an input image */
    return gfx_fail (err, GFX_ERR_INPUT, "filter file '%s' cannot be read: %s", path,
                     strerror (errno));
  size_t cap = 4096, len = 0;
  char *text = malloc (cap);
  size_t got;
  while (text && (got = fread (text + len, 1, cap - len - 1, fp)) > 0)
    {
      len += got;
      if (len + 1 == cap && len < ((size_t) 1 << 26))
        {
          char *bigger = realloc (text, cap * 2);
          if (!bigger)
            free (text);
          text = bigger;
          cap *= 2;
        }
      else if (len + 1 == cap)
        break; /* 64 MiB: no filter file is that long; the parser reports the cut */
    }
  int failed = ferror (fp);
  fclose (fp);
  if (!text)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory reading filter file '%s'", path);
  if (failed)
    {
      free (text);
      return gfx_fail (err, GFX_ERR_IO, "filter file '%s' cannot be read", path);
    }
  text[len] = '\0';
  if (strlen (text) != len)
    {
      free (text);
      return gfx_fail (err, GFX_ERR_INPUT, "%s: not a text file (it contains a NUL byte)", path);
    }
  gfx_status st = gfx_iir_parse (text, path, f, err);
  free (text);
  return st;
}

gfx_status
gfx_iir_validate (const gfx_iir_filter *f, gfx_error *err)
{
  if (f->m1 < 1 || f->m1 > GFX_IIR_MAX_MASK || f->m2 < 1 || f->m2 > GFX_IIR_MAX_MASK)
    return gfx_fail (err, GFX_ERR_INPUT, "IIR mask %d x %d: M1 and M2 must be 1 to %d", f->m1,
                     f->m2, GFX_IIR_MAX_MASK);
  int n = f->m1 * f->m2;
  for (int q = 0; q < GFX_IIR_QUADRANTS; q++)
    {
      if (f->b[q][0] != 1.0)
        return gfx_fail (err, GFX_ERR_INPUT, "IIR q%d b(0,0) = %.17g: it must be 1", q + 1,
                         f->b[q][0]);
      for (int i = 0; i < n; i++)
        if (!isfinite (f->a[q][i]) || !isfinite (f->b[q][i]))
          return gfx_fail (err, GFX_ERR_INPUT, "IIR q%d %c(%d,%d) is not a finite number", q + 1,
                           isfinite (f->a[q][i]) ? 'b' : 'a', i / f->m2, i % f->m2);
    }
  return GFX_OK;
}

/* Appends printf output to a growing buffer; false (buffer freed) when out of memory. */
static bool
append (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

static bool
append (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
  for (;;)
    {
      va_list ap;
      va_start (ap, fmt);
      int n = vsnprintf (*buf + *len, *cap - *len, fmt, ap);
      va_end (ap);
      if (n < 0)
        return false;
      if ((size_t) n < *cap - *len)
        {
          *len += (size_t) n;
          return true;
        }
      char *bigger = realloc (*buf, *cap * 2 + (size_t) n);
      if (!bigger)
        {
          free (*buf);
          *buf = NULL;
          return false;
        }
      *buf = bigger;
      *cap = *cap * 2 + (size_t) n;
    }
}

static bool
append_comment (char **buf, size_t *len, size_t *cap, const char *comment)
{
  while (comment && *comment)
    {
      size_t n = strcspn (comment, "\n");
      if (!append (buf, len, cap, "# %.*s\n", (int) n, comment))
        return false;
      comment += n + (comment[n] == '\n');
    }
  return true;
}

char *
gfx_iir_format (const gfx_iir_filter *f, const char *comment)
{
  size_t cap = 8192, len = 0;
  char *buf = malloc (cap);
  if (!buf)
    return NULL;
  buf[0] = '\0';
  bool ok = append_comment (&buf, &len, &cap, comment)
            && append (&buf, &len, &cap, "%s %d\nmask %d %d\n", GFX_IIR_FILE_MAGIC,
                       GFX_IIR_FILE_VERSION, f->m1, f->m2);
  locale_t user_locale = gfx_c_numbers_begin (); /* "0.5", never the user's "0,5" */
  for (int q = 0; ok && q < GFX_IIR_QUADRANTS; q++)
    for (int k = 0; ok && k < 2; k++)
      {
        const double *c = k ? f->b[q] : f->a[q];
        ok = append (&buf, &len, &cap, "q%d %c", q + 1, k ? 'b' : 'a');
        for (int i = 0; ok && i < f->m1 * f->m2; i++)
          ok = append (&buf, &len, &cap, "%s%.17g", i % f->m2 ? " " : "\n  ", c[i]);
        ok = ok && append (&buf, &len, &cap, "\n");
      }
  gfx_c_numbers_end (user_locale);
  return ok ? buf : NULL;
}

/* A temporary file next to path, with the mode a new file would get. */
static FILE *
open_temp (const char *path, char *tmp, size_t len)
{
  const char *slash = strrchr (path, '/');
  snprintf (tmp, len, "%.*s.gpufx-iir-XXXXXX", slash ? (int) (slash - path) + 1 : 0, path);
  int fd = mkstemp (tmp);
  if (fd < 0)
    return NULL;
  mode_t mask = umask (0);
  umask (mask);
  FILE *fp = fchmod (fd, 0666 & ~mask) == 0 ? fdopen (fd, "wb") : NULL;
  if (!fp)
    {
      close (fd);
      unlink (tmp);
    }
  return fp;
}

gfx_status
gfx_iir_check_writable (const char *path, gfx_error *err)
{
  if (!path[0])
    return gfx_fail (err, GFX_ERR_PARAM, "the filter file's name is empty");
  char target[PATH_MAX], tmp[PATH_MAX + 32];
  struct stat sb;
  int e = gfx_file_target (path, target, sizeof target);
  if (!e && stat (target, &sb) == 0 && S_ISDIR (sb.st_mode))
    e = EISDIR;
  FILE *fp = e ? NULL : open_temp (target, tmp, sizeof tmp);
  if (!fp)
    return gfx_fail (err, GFX_ERR_IO, "filter file '%s' cannot be written: %s", path,
                     e ? gfx_file_target_error (e) : strerror (errno));
  fclose (fp);
  unlink (tmp);
  return GFX_OK;
}

gfx_status
gfx_iir_write (const char *path, const gfx_iir_filter *f, const char *comment, gfx_error *err)
{
  char *text = gfx_iir_format (f, comment);
  if (!text)
    return gfx_fail (err, GFX_ERR_NOMEM, "out of memory formatting filter file '%s'", path);
  /* Written beside path (where its symbolic links lead) and renamed at the end: a failure
   * never leaves a cut file, and an existing filter file stays as it was. */
  char target[PATH_MAX], tmp[PATH_MAX + 32];
  int e = gfx_file_target (path, target, sizeof target);
  FILE *fp = e ? NULL : open_temp (target, tmp, sizeof tmp);
  if (!fp)
    {
      gfx_status st = gfx_fail (err, GFX_ERR_IO, "filter file '%s' cannot be written: %s", path,
                                e ? gfx_file_target_error (e) : strerror (errno));
      free (text);
      return st;
    }
  size_t n = strlen (text);
  bool ok = fwrite (text, 1, n, fp) == n;
  ok = (fclose (fp) == 0) && ok;
  free (text);
  if (!ok)
    {
      gfx_status st = gfx_fail (err, GFX_ERR_IO, "filter file '%s' could not be written "
                                "completely: %s", path, strerror (errno));
      unlink (tmp);
      return st;
    }
  gfx_file_keep_mode (tmp, target);
  if (rename (tmp, target) != 0)
    {
      gfx_status st = gfx_fail (err, GFX_ERR_IO, "filter file '%s' cannot be written: %s", path,
                                strerror (errno));
      unlink (tmp);
      return st;
    }
  return GFX_OK;
}
