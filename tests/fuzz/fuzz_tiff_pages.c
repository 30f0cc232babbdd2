/* libFuzzer harness for the TIFF page count (cli/tiff_pages.c) and the EXIF orientation
 * (cli/exif_orientation.c: JPEG segments, PNG and WebP chunks, then a TIFF directory),
 * which follow lengths and offsets read from an untrusted file.  The input is written to
 * a memory file and read by both.  Checks: no crash, UB or leak; a count between 0 and
 * the directories' cap; 0 for a file that does not start as a TIFF does; an orientation
 * from 1 to 8; and (libFuzzer's -timeout) no endless chain.  Also
 * compiled into tests/unit/test_fuzz_regress.c (FUZZ_NO_ENTRY) to replay the corpus and
 * kept crashers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../cli/exif_orientation.h"
#include "../../cli/tiff_pages.h"

static void
fuzz_tiff_fail (const char *why)
{
  fprintf (stderr, "fuzz_tiff_pages: %s\n", why);
  abort ();
}

static int
fuzz_tiff_pages_one (const uint8_t *data, size_t size)
{
  int fd = memfd_create ("fuzz.tif", 0);
  if (fd < 0)
    return 0;
  size_t done = 0;
  while (done < size)
    {
      ssize_t n = write (fd, data + done, size - done);
      if (n <= 0)
        break;
      done += (size_t) n;
    }
  char path[64];
  snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  int format = -1;
  int pages = done == size ? cli_tiff_pages (path, &format) : 0;
  int orientation = done == size ? cli_file_orientation (path) : 1;
  close (fd);
  if (orientation < 1 || orientation > 8)
    fuzz_tiff_fail ("an orientation outside 1..8");
  if (pages < 0 || pages > 65536)
    fuzz_tiff_fail ("a page count outside 0..65536");
  if (format < 0 || format > 65535)
    fuzz_tiff_fail ("a sample format not set, or not a SHORT");
  const int tiff_like = size >= 8 && (!memcmp (data, "II", 2) || !memcmp (data, "MM", 2));
  if (pages > 0 && !tiff_like)
    fuzz_tiff_fail ("pages counted in a file that is no TIFF");
  return 0;
}

#ifndef FUZZ_NO_ENTRY
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return fuzz_tiff_pages_one (data, size);
}
#endif
