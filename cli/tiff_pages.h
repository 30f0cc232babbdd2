/* Reading TIFF structures: how many pages a TIFF file holds, and the orientation of the
 * first directory of a TIFF file or an EXIF block (tiff_pages.c).  No GEGL: the fuzzing
 * harness builds it alone. */
#ifndef GFX_CLI_TIFF_PAGES_H
#define GFX_CLI_TIFF_PAGES_H

#include <stdio.h>

/* The number of pages in the TIFF file at path (thumbnails and masks left out), 0 when
 * it is no TIFF or its first directory cannot be read; sample_format (may be NULL) gets
 * the first directory's SampleFormat (1 unsigned, 2 signed integers, 3 floats, 5 and 6
 * complex; 1 where the file does not say), 0 when unknown. */
int cli_tiff_pages (const char *path, int *sample_format);
/* The Orientation tag (1 to 8, as EXIF numbers them) of the first directory of the TIFF
 * structure that starts at the beginning of f (a TIFF file, or an EXIF block in memory);
 * 1 when it gives none or is not one. */
int cli_tiff_orientation (FILE *f);

#endif
