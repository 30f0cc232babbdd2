/* Status codes and error messages shared by the core, the CUDA layer, the CLI and the
 * plug-ins.  The core never prints: it returns a status and fills a message buffer. */
#ifndef GFX_STATUS_H
#define GFX_STATUS_H

#include <stddef.h>

#ifdef __cplusplus /* the CUDA layer (C++) calls these */
extern "C" {
#endif

typedef enum {
  GFX_OK = 0,
  GFX_ERR_PARAM,     /* a parameter is out of range: the message names it and its range */
  GFX_ERR_INPUT,     /* bad image or file contents (the user's input) */
  GFX_ERR_UNSTABLE,  /* an IIR filter is unstable */
  GFX_ERR_NOMEM,     /* out of host memory */
  GFX_ERR_GPU,       /* a CUDA error (no device, launch failure, out of device memory) */
  GFX_ERR_CANCELLED, /* the user cancelled */
  GFX_ERR_IO,        /* a file could not be read or written */
  GFX_ERR_INTERNAL
} gfx_status;

/* Size of the message buffers passed around with a status (a translated message may take
 * twice the bytes of the English). */
#define GFX_MSG_LEN 1024

typedef struct {
  gfx_status status;
  char msg[GFX_MSG_LEN];
} gfx_error;

/* Translates a message (gettext's dgettext in the plug-ins); returns msgid where it has no
 * translation. */
typedef const char *(*gfx_translate_fn) (const char *msgid);

/* The plug-ins set their catalogue's lookup at run time, so that the core's messages reach
 * a GIMP user in the interface's language; the CLI sets none and stays in English.  Call
 * it before any thread starts. */
void gfx_set_translator (gfx_translate_fn tr);

/* msgid translated by that lookup, or msgid itself.  Marks a message for xgettext
 * (keyword gfx_tr) where it is built from parts; gfx_fail translates its own format. */
const char *gfx_tr (const char *msgid) __attribute__ ((format_arg (1)));

/* Sets err (if not NULL) and returns status; printf-style message, translated (gfx_tr) and
 * with numbers written as in C ("0.5" in every locale). */
gfx_status gfx_fail (gfx_error *err, gfx_status status, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

void gfx_error_clear (gfx_error *err);

const char *gfx_status_name (gfx_status status);

#ifdef __cplusplus
}
#endif

#endif
