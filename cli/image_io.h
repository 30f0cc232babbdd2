/* Shared by the CLI's image reading (image_io.c) and writing (image_save.c). */
#ifndef GFX_CLI_IMAGE_IO_H
#define GFX_CLI_IMAGE_IO_H

#include <stdbool.h>

#include <gegl.h>

#include "../common/image.h"

#define CLI_GEGL_SAID_LEN 256

/* Starts GEGL once, with its warnings kept for messages instead of printed. */
void cli_gegl_start (void);
/* The first GEGL/GLib warning since it was last emptied (write '\0' to empty it). */
char *cli_gegl_said (void);
/* The babl format of a core layout, perceptual ("Y' u8", "R'G'B'A float"). */
const Babl *cli_layout_format (int colors, bool alpha, gfx_depth depth);

#endif
