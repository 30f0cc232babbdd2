/* Replays the fuzzing inputs in the normal suite (and under ASan/UBSan in make check):
 * every file in tests/fuzz/crashers/ (inputs that once crashed a harness, kept as
 * regressions: iir-* for the filter-file parser, cli-* for the option parser, tiff-* for
 * the TIFF page count and the EXIF orientation, rgbe-* for the Radiance HDR reader) and the
 * seed corpora tests/fuzz/corpus_iir, corpus_cli, corpus_tiff and corpus_rgbe, through the same harness code that libFuzzer runs
 * (tests/fuzz/fuzz_*.c; a broken promise there aborts). */
#define FUZZ_NO_ENTRY 1
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cli/options.c"
#include "../fuzz/fuzz_cli_options.c"
#include "../fuzz/fuzz_iir_file.c"
#include "../../cli/tiff_pages.c"
#include "../../cli/exif_orientation.c"
#include "../fuzz/fuzz_tiff_pages.c"
#include "../../cli/rgbe_read.c"
#include "../fuzz/fuzz_rgbe.c"
#include "check.h"

/* tests/fuzz, found from the working directory or from this program's place. */
static int
find_fuzz_dir (const char *argv0, char *out, size_t len)
{
  char exe[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  const char *tries[] = { "tests/fuzz", "../tests/fuzz", "../../tests/fuzz",
                          "../../../tests/fuzz" };
  for (int base = 0; base < 2; base++)
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++)
      {
        char dir[PATH_MAX];
        const char *from = base ? exe : ".";
        if (base)
          {
            const char *slash = strrchr (from, '/');
            snprintf (dir, sizeof dir, "%.*s/../%s", (int) (slash ? slash - from : 0), from,
                      tries[i]);
          }
        else
          snprintf (dir, sizeof dir, "%s", tries[i]);
        char probe[PATH_MAX + 32];
        snprintf (probe, sizeof probe, "%s/fuzz_iir_file.c", dir);
        if (access (probe, R_OK) == 0)
          {
            snprintf (out, len, "%s", dir);
            return 1;
          }
      }
  (void) argv0;
  return 0;
}

static unsigned char *
slurp (const char *path, size_t *size)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  unsigned char *buf = NULL;
  size_t cap = 0, len = 0, got;
  do
    {
      if (len == cap)
        {
          unsigned char *bigger = realloc (buf, cap = cap * 2 + 4096);
          if (!bigger)
            break;
          buf = bigger;
        }
      got = fread (buf + len, 1, cap - len, f);
      len += got;
    }
  while (got > 0);
  fclose (f);
  *size = len;
  return buf;
}

/* Runs every regular file in dir whose name starts with prefix through one harness. */
static int
replay (const char *dir, const char *prefix, int (*one) (const uint8_t *, size_t))
{
  DIR *d = opendir (dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir (d)))
    {
      if (e->d_name[0] == '.' || strncmp (e->d_name, prefix, strlen (prefix)))
        continue;
      char path[PATH_MAX];
      snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
      size_t size = 0;
      unsigned char *data = slurp (path, &size);
      if (data || size == 0)
        {
          one (data ? data : (const uint8_t *) "", size);
          n++;
        }
      free (data);
    }
  if (d)
    closedir (d);
  return n;
}

/* A harness's seed corpus (at least min_seeds files) and its kept crashers (prefix-*). */
static void
replay_harness (const char *dir, const char *corpus, const char *prefix, int min_seeds,
                int (*one) (const uint8_t *, size_t), const char *what)
{
  char sub[PATH_MAX + 32];
  snprintf (sub, sizeof sub, "%s/%s", dir, corpus);
  int n = replay (sub, "", one);
  CHECK (n >= min_seeds, "%s: %d seed inputs keep its promises", what, n);
  snprintf (sub, sizeof sub, "%s/crashers", dir);
  n = replay (sub, prefix, one);
  CHECK (1, "%s: %d kept crashers replay without a crash", what, n);
}

int
main (int argc, char **argv)
{
  (void) argc;
  char dir[PATH_MAX], sub[PATH_MAX + 32];
  if (!find_fuzz_dir (argv[0], dir, sizeof dir))
    {
      SKIP ("fuzz regressions: tests/fuzz not found from here");
      return 0;
    }
  /* The option parser prints --help and usage lines: not this test's output. */
  FILE *quiet = freopen ("/dev/null", "w", stderr);
  (void) quiet;
  replay_harness (dir, "corpus_iir", "iir-", 10, fuzz_iir_file_one, "filter-file parser");
  int saved = dup (1);
  snprintf (sub, sizeof sub, "%s/corpus_cli", dir);
  fflush (stdout);
  FILE *help = freopen ("/dev/null", "w", stdout); /* --help seeds print the help */
  (void) help;
  int m = replay (sub, "", fuzz_cli_options_one);
  snprintf (sub, sizeof sub, "%s/crashers", dir);
  int k = replay (sub, "cli-", fuzz_cli_options_one);
  fflush (stdout);
  dup2 (saved, 1);
  CHECK (m >= 5, "option parser: %d seed command lines parse without a crash", m);
  CHECK (1, "option parser: %d kept crashers replay without a crash", k);

  replay_harness (dir, "corpus_tiff", "tiff-", 8, fuzz_tiff_pages_one, "TIFF page count");
  /* The seeds' counts, as tifffile reads them (a thumbnail is no page; a directory whose
   * next one is itself is one page). */
  const struct { const char *file; int pages, format; } seeds[] = {
    { "one-page.tif", 1, 1 }, { "three-pages.tif", 3, 1 }, { "bigtiff-big-endian.tif", 3, 1 },
    { "page-and-thumbnail.tif", 1, 1 }, { "loop.tif", 1, 1 }, { "header-only.tif", 0, 0 },
    { "signed-rgb.tif", 1, 2 }, /* three SHORTs: the value field holds their offset */
    { "float-gray.tif", 1, 3 },
  };
  for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
    {
      snprintf (sub, sizeof sub, "%s/corpus_tiff/%s", dir, seeds[i].file);
      int format;
      const int got = cli_tiff_pages (sub, &format);
      CHECK (got == seeds[i].pages && format == seeds[i].format,
             "TIFF page count and sample format of %s: %d, %d (want %d, %d)", seeds[i].file,
             got, format, seeds[i].pages, seeds[i].format);
    }
  /* Pillow wrote these with EXIF orientation 6; the TIFF seeds have none. */
  const char *turned[] = { "exif-6.jpg", "exif-6.png", "exif-6.webp", "exif-6.tif",
                           "one-page.tif" };
  for (size_t i = 0; i < sizeof turned / sizeof turned[0]; i++)
    {
      snprintf (sub, sizeof sub, "%s/corpus_tiff/%s", dir, turned[i]);
      const int want = strncmp (turned[i], "exif-6", 6) ? 1 : 6;
      const int got = cli_file_orientation (sub);
      CHECK (got == want, "EXIF orientation of %s: %d (want %d)", turned[i], got, want);
    }

  replay_harness (dir, "corpus_rgbe", "rgbe-", 8, fuzz_rgbe_one, "Radiance HDR reader");
  return check_exit_status ();
}
