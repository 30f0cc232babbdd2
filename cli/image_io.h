/* Shared by the CLI's image reading (image_io.c) and writing (image_save.c). */
#ifndef GFX_CLI_IMAGE_IO_H
#define GFX_CLI_IMAGE_IO_H

#include <stdbool.h>
#include <stdint.h>

#include <gegl.h>

#include "../common/image.h"

#define CLI_GEGL_SAID_LEN 256

/* The big-endian 32-bit number at p (PNG chunks, ICC profiles). */
static inline uint32_t
cli_be32 (const unsigned char *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/* The GEGL loader the first bytes of the file at path name ("gegl:png-load"), whether GEGL
 * has it here or not (GEGL need not run), or NULL (image_sniff.c). */
const char *cli_loader_by_signature (const char *path);
/* Whether the file at path is one only ImageMagick reads here (BMP, TGA, PSD...), by its
 * extension or its first bytes (magick_convert.c). */
bool cli_magick_only (const char *path);
/* Whether the first bytes of the file at path name a format only ImageMagick reads here,
 * whatever its name says: a BMP named .png, or on standard input (no name at all), went
 * to gegl:load, which refused it or took it to gegl:magick-load (image_sniff.c). */
bool cli_magick_by_signature (const char *path);
/* Has ImageMagick's convert write the file at path (called name in messages) as an untagged
 * PNG in $TMPDIR, named in png (the caller removes it).  False where convert cannot be
 * run (png ""); true otherwise, png "" and err set when convert failed. */
bool cli_magick_to_png (const char *path, const char *name, char *png, size_t len,
                        gfx_error *err);
/* Whether the file at path, read by loader, ends before its image data does: a JPEG
 * without a scan or its end marker after its last scan, a WebP shorter than its RIFF size,
 * a PNG whose chunks run out before IEND, a PNM with fewer samples than its header says, a
 * GIF that ends before its trailer (image_cut_short.c). */
bool cli_file_cut_short (const char *path, const char *loader);
/* Whether a processed gegl:load node found no loader for its file and stands in a
 * picture of its error text instead. */
bool cli_load_found_no_loader (GeglNode *load);
/* Whether gegl:load would read the file at path through its ImageMagick fallback
 * (gegl:magick-load, whose box after a failed convert is garbage: a text file was called
 * "18528976 x 21915 pixels, too large", other numbers at each run). */
bool cli_load_falls_to_magick (const char *path);
/* img (8-bit RGB, read from buffer) made again the way GIMP's JPEG loader makes it where
 * the file at path is a CMYK JPEG without a profile (cmyk_jpeg.c); else left alone. */
gfx_status cli_cmyk_jpeg_as_gimp (const char *path, GeglBuffer *buffer, gfx_image *img,
                                  gfx_error *err);
/* Starts GEGL once, with its warnings kept for messages instead of printed. */
void cli_gegl_start (void);
/* The first GEGL/GLib warning since it was last emptied (write '\0' to empty it). */
char *cli_gegl_said (void);
/* fd 2 goes into a temporary file while GEGL reads or writes path (the codecs' words are
 * then the caller's to judge).  Should a codec exit() meanwhile, the process ends with
 * cleanup () (may be NULL), one line "gpufx: PATH: WHAT (their words)" and status. */
void cli_capture_begin (const char *path, const char *what, int status, void (*cleanup) (void));
/* Puts fd 2 back; said gets what was written to it (newlines as spaces). */
void cli_capture_end (char *said, size_t len);
/* The babl format of a core layout, perceptual ("Y' u8", "R'G'B'A float"), in space (a
 * file's colour space; NULL: sRGB). */
const Babl *cli_layout_format (int colors, bool alpha, gfx_depth depth, const Babl *space);
/* Whether samples in space (a file's; NULL when none was read) are sRGB's. */
bool cli_space_is_srgb (const Babl *space);
/* img as a PGM (gray) or PPM (RGB) file at path, 8-bit, or 16-bit for deeper images; samples
 * in space (not sRGB) are converted to sRGB first, as a pixmap names no space
 * (image_write_own.c).  False with errno set when the file cannot be written. */
bool cli_write_pnm (const char *path, const gfx_image *img, const Babl *space);
/* Whether img is 8-bit gray holding only 0 and 255 (a black-and-white halftone). */
bool cli_is_black_and_white (const gfx_image *img);
/* Such an image as a 1-bit PNG: every reader gives back the same 0 and 255, the file is
 * several times smaller and written several times faster than GEGL's 8-bit PNG. */
bool cli_write_png_1bit (const char *path, const gfx_image *img);
/* Takes every chunk of that type out of the PNG file at path, in place (file_parts.c).
 * False when the file cannot be read or written back, or is not a whole PNG. */
bool cli_png_drop_chunk (const char *path, const char type[4]);
/* Puts an iCCP chunk (profile name, the icc_len bytes of icc compressed) right after the
 * header of the PNG file at path, in place (file_parts.c).  False when the file cannot be
 * read or written back, or does not start as a PNG. */
bool cli_png_add_iccp (const char *path, const char *name, const void *icc, size_t icc_len);
/* Takes the ICC profile (its APP2 segments) out of the JPEG file at path, in place
 * (file_parts.c).  False when the file cannot be read or written back, or is not a JPEG
 * whose segments lead to a scan. */
bool cli_jpeg_drop_icc (const char *path);
/* The profile babl made for space, the one GEGL's savers embed, with every byte babl left
 * unset (stack garbage) made zero; profiles read from files are left as they are
 * (icc_tidy.c).  Before saving. */
void cli_icc_tidy (const Babl *space);

#endif
