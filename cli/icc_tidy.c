/* babl's own colour profiles with the bytes it leaves unset made zero (see image_io.h).
 *
 * For a space that came from no ICC file (sRGB, an EXR's chromaticities) babl 0.1.98's
 * babl_space_to_icc builds the profile in an uninitialised stack array and sets only what
 * it knows: the header's platform, flags, device and profile-ID fields, the padding
 * between tags, the copyright's closing NUL and the rest of the description tag keep
 * whatever the stack held.  GEGL's TIFF, JPEG and PNG savers embed that profile, so a
 * file carried stray stack bytes (addresses among them), named an invalid platform and a
 * profile ID that is not its MD5, and could differ from run to run.  babl keeps the
 * profile it made with its space (babl_space_get_icc), so tidying that copy once covers
 * every save after it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"

enum { HEADER = 128, TABLE = 132, ENTRY = 12 };

/* A profile babl wrote itself (its CMM and creator) whose tag table fits in it. */
static bool
made_by_babl (const unsigned char *icc, size_t len)
{
  return len >= TABLE && cli_be32 (icc) == len && !memcmp (icc + 4, "babl", 4)
         && !memcmp (icc + 80, "babl", 4) && cli_be32 (icc + HEADER) <= (len - TABLE) / ENTRY;
}

/* The bytes of a tag that babl sets, by the tag's type (size: the table's length). */
static size_t
set_part (const unsigned char *tag, size_t size)
{
  if (size < 12)
    return size;
  if (!memcmp (tag, "XYZ ", 4))
    return size < 20 ? size : 20;
  if (!memcmp (tag, "curv", 4))
    {
      size_t n = 12 + 2 * (size_t) cli_be32 (tag + 8);
      return n < size ? n : size;
    }
  if (!memcmp (tag, "text", 4)) /* the text, not its closing NUL */
    return 8 + strnlen ((const char *) tag + 8, size - 9);
  if (!memcmp (tag, "desc", 4)) /* the ASCII count (NUL included), then the text */
    {
      size_t n = cli_be32 (tag + 8);
      return n >= 1 && 11 + n <= size ? 11 + n : 12;
    }
  return size; /* a type babl does not write: keep it whole */
}

static void
keep (unsigned char *clean, const unsigned char *icc, size_t at, size_t n)
{
  memcpy (clean + at, icc + at, n);
}

void
cli_icc_tidy (const Babl *space)
{
  int length = 0;
  /* babl hands its own malloc'ed copy out as const: the copy every saver gets */
  unsigned char *icc = (unsigned char *) babl_space_get_icc (space, &length);
  size_t len = length > 0 ? (size_t) length : 0;
  if (!icc || !made_by_babl (icc, len))
    return;
  unsigned char *clean = calloc (len, 1);
  if (!clean)
    return;
  keep (clean, icc, 0, 10);  /* size, CMM, version */
  keep (clean, icc, 12, 28); /* class, colour space, PCS, date, "acsp" */
  keep (clean, icc, 64, 20); /* intent, illuminant, creator */
  const uint32_t tags = cli_be32 (icc + HEADER);
  keep (clean, icc, HEADER, 4 + ENTRY * (size_t) tags);
  for (uint32_t t = 0; t < tags; t++)
    {
      const unsigned char *e = icc + TABLE + ENTRY * (size_t) t;
      size_t at = cli_be32 (e + 4), size = cli_be32 (e + 8);
      if (at < TABLE && size > 0) /* not babl's layout after all: leave it be */
        {
          free (clean);
          return;
        }
      if (at <= len && size <= len - at)
        keep (clean, icc, at, set_part (icc + at, size));
    }
  memcpy (icc, clean, len);
  free (clean);
}
