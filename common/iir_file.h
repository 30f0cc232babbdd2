/* IIR filter files (SPEC section 3, format version 1): one text file holds the four
 * quadrants' a and b blocks.  The parser names the line and what it expected in every
 * message; the writer prints 17 significant digits, so write -> read is exact.
 *
 *   gpufx-iir 1
 *   mask M1 M2
 *   q1 a <M1*M2 numbers, row-major>      q1 b <M1*M2 numbers, b(0,0) = 1>
 *   ... q2 a, q2 b, q3 a, q3 b, q4 a, q4 b (in this order)
 *
 * Blank lines and `#` comments (to the end of the line) are allowed anywhere; tokens are
 * separated by any white space, so a block may span several lines. */
#ifndef GFX_IIR_FILE_H
#define GFX_IIR_FILE_H

#include "iir_filter.h"
#include "status.h"

#define GFX_IIR_FILE_MAGIC "gpufx-iir"
#define GFX_IIR_FILE_VERSION 1

/* Parses a whole file held in `text` (NUL-terminated).  `source` names it in messages
 * ("filter.iir", "<string>"); messages read "SOURCE:LINE: expected ..., found ...".
 * On failure *f is left unspecified and GFX_ERR_INPUT is returned. */
gfx_status gfx_iir_parse (const char *text, const char *source, gfx_iir_filter *f,
                          gfx_error *err);

/* Reads and parses a file: GFX_ERR_IO when it cannot be read, GFX_ERR_INPUT when it is
 * malformed. */
gfx_status gfx_iir_read (const char *path, gfx_iir_filter *f, gfx_error *err);

/* Checks a filter built in memory (mask 1..7, b(0,0) = 1, finite numbers): the same rules
 * the parser applies.  GFX_ERR_INPUT with a message naming the quadrant and coefficient. */
gfx_status gfx_iir_validate (const gfx_iir_filter *f, gfx_error *err);

/* The file text for f (malloc'd, NUL-terminated; the caller frees it), NULL when out of
 * memory.  `comment` (may be NULL or multi-line) is written as leading `#` lines. */
char *gfx_iir_format (const gfx_iir_filter *f, const char *comment);

/* Whether gfx_iir_write could write path now (a name, a folder that takes a new file, no
 * folder or device in its place), found by making and removing the temporary file it would
 * write first: a long job checks before it starts.  GFX_ERR_PARAM for an empty name,
 * GFX_ERR_IO with the system's reason otherwise. */
gfx_status gfx_iir_check_writable (const char *path, gfx_error *err);

/* Writes gfx_iir_format's text to path: GFX_ERR_IO with the system's reason on failure. */
gfx_status gfx_iir_write (const char *path, const gfx_iir_filter *f, const char *comment,
                          gfx_error *err);

#endif
