/* The orientation a photograph's file asks it to be shown in (exif_orientation.c).  No
 * GEGL: the fuzzing harness builds it alone. */
#ifndef GFX_CLI_EXIF_ORIENTATION_H
#define GFX_CLI_EXIF_ORIENTATION_H

/* The EXIF orientation (1 to 8; 1: as stored) of the JPEG, PNG, WebP or TIFF file at
 * path; 1 for other files, and where none is given or it cannot be read. */
int cli_file_orientation (const char *path);

#endif
