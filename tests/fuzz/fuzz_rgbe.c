/* libFuzzer harness for the Radiance HDR reader (cli/rgbe_read.c), which follows sizes,
 * run lengths and repeat counts read from an untrusted file.  The input is read from a
 * memory file, as gpufx reads a file.  Checks: no crash, UB or leak; a header's size
 * from 1 up; on success a picture of that size whose samples are finite and not negative;
 * on failure a message and no picture.  Pictures above 2^20 pixels are only parsed to
 * their header (the CLI refuses sizes beyond the machine first).  Also compiled into
 * tests/unit/test_fuzz_regress.c (FUZZ_NO_ENTRY) to replay the corpus and kept
 * crashers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../cli/rgbe_read.h"

static void
fuzz_rgbe_fail (const char *why)
{
  fprintf (stderr, "fuzz_rgbe: %s\n", why);
  abort ();
}

static int
fuzz_rgbe_one (const uint8_t *data, size_t size)
{
  FILE *f = fmemopen ((void *) data, size, "rb");
  if (!f)
    return 0; /* fmemopen refuses an empty buffer */
  cli_rgbe_header head;
  gfx_error err = { 0 };
  gfx_image img = { 0 };
  if (cli_rgbe_read_header (f, "fuzz.hdr", &head, &err) == GFX_OK)
    {
      if (head.width < 1 || head.height < 1)
        fuzz_rgbe_fail ("a header accepted with a size below 1");
      if ((size_t) head.width * head.height <= (size_t) 1 << 20)
        {
          if (cli_rgbe_read_pixels (f, "fuzz.hdr", &head, &img, &err) == GFX_OK)
            {
              if (img.width != head.width || img.height != head.height || img.channels != 3)
                fuzz_rgbe_fail ("a picture not of the header's size");
              const float *px = img.pixels;
              for (size_t i = 0; i < (size_t) img.width * img.height * 3; i++)
                if (!isfinite (px[i]) || px[i] < 0.0f)
                  fuzz_rgbe_fail ("a sample not finite or negative");
            }
          else if (img.pixels || !err.msg[0])
            fuzz_rgbe_fail ("a refusal without a message, or with a picture left");
        }
    }
  else if (!err.msg[0])
    fuzz_rgbe_fail ("a header refused without a message");
  gfx_image_free (&img);
  fclose (f);
  return 0;
}

#ifndef FUZZ_NO_ENTRY
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return fuzz_rgbe_one (data, size);
}
#endif
