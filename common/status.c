#include "status.h"

#include <stdarg.h>
#include <stdio.h>

#include "c_numbers.h"

static gfx_translate_fn translator;

void
gfx_set_translator (gfx_translate_fn tr)
{
  translator = tr;
}

const char *
gfx_tr (const char *msgid)
{
  return translator && msgid && *msgid ? translator (msgid) : msgid;
}

gfx_status
gfx_fail (gfx_error *err, gfx_status status, const char *fmt, ...)
{
  if (err)
    {
      /* Numbers as Script-Fu, the CLI and filter files write them, whatever the locale
       * ("k1 = 0.5 ... (k2 = 0.4)"; a decimal comma made "k0 = 0, k1 = 0,4" unreadable). */
      va_list ap;
      va_start (ap, fmt);
      gfx_vsnprintf_c (err->msg, sizeof err->msg, gfx_tr (fmt), ap);
      va_end (ap);
      err->status = status;
    }
  return status;
}

void
gfx_error_clear (gfx_error *err)
{
  if (err)
    {
      err->status = GFX_OK;
      err->msg[0] = '\0';
    }
}

const char *
gfx_status_name (gfx_status status)
{
  switch (status)
    {
    case GFX_OK: return "ok";
    case GFX_ERR_PARAM: return "bad parameter";
    case GFX_ERR_INPUT: return "bad input";
    case GFX_ERR_UNSTABLE: return "unstable filter";
    case GFX_ERR_NOMEM: return "out of memory";
    case GFX_ERR_GPU: return "GPU error";
    case GFX_ERR_CANCELLED: return "cancelled";
    case GFX_ERR_IO: return "I/O error";
    case GFX_ERR_INTERNAL: return "internal error";
    }
  return "unknown error";
}
