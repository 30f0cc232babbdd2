/* Radiance RGBE (.hdr) files, read by gpufx itself (rgbe_read.c).  GEGL 0.4's loader gives
 * an all-black, fully transparent picture for scanlines in run-length encoding, which is
 * what Radiance, Photoshop, OpenCV and ImageMagick write, and reads a cut file without a
 * word.  No GEGL: the fuzzing harness builds it alone. */
#ifndef GFX_CLI_RGBE_READ_H
#define GFX_CLI_RGBE_READ_H

#include <stdio.h>

#include "../common/image.h"

/* The header of the RGBE file f (name in messages): reads up to its scanlines and gives the
 * picture's size.  The caller may refuse the size before cli_rgbe_read_pixels allocates. */
typedef struct {
  int width, height;
  bool x_major;       /* scanlines are columns ("+X W -Y H") */
  bool rows_up;       /* "+Y": the first row in the file is the bottom one */
  bool columns_left;  /* "-X": a scanline runs from right to left */
} cli_rgbe_header;

gfx_status cli_rgbe_read_header (FILE *f, const char *name, cli_rgbe_header *head,
                                 gfx_error *err);
/* The scanlines after that header into img (allocated here: RGB, 32-bit float, linear
 * samples as stored: m * 2^(e - 136), EXPOSURE and COLORCORR left to the viewer, as GEGL's
 * loader does for unencoded files).  Flat, old-style and new-style run-length scanlines;
 * a file that ends early or whose runs overflow a line is refused, img left empty. */
gfx_status cli_rgbe_read_pixels (FILE *f, const char *name, const cli_rgbe_header *head,
                                 gfx_image *img, gfx_error *err);

#endif
