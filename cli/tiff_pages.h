/* How many pages a TIFF file holds (tiff_pages.c).  No GEGL: the fuzzing harness
 * builds it alone. */
#ifndef GFX_CLI_TIFF_PAGES_H
#define GFX_CLI_TIFF_PAGES_H

/* The number of pages in the TIFF file at path (thumbnails and masks left out), 0 when
 * it is no TIFF or its first directory cannot be read. */
int cli_tiff_pages (const char *path);

#endif
