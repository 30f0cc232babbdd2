#include "params.h"

#include "c_numbers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const gfx_backend_choices[] = { "auto", "cpu", "gpu", NULL };
const char *const gfx_backend_labels[] = { N_("Automatic"), N_("CPU"), N_("GPU (CUDA)"), NULL };
GFX_CHOICES_MATCH (gfx_backend_choices, GFX_BACKEND_GPU + 1);
GFX_CHOICES_MATCH (gfx_backend_labels, GFX_BACKEND_GPU + 1);

int
gfx_backend_by_name (const char *name)
{
  for (int i = 0; name && gfx_backend_choices[i]; i++)
    if (!strcasecmp (name, gfx_backend_choices[i]))
      return i;
  return -1;
}

static void *
field (const gfx_param_desc *d, void *values)
{
  return (char *) values + d->offset;
}

double
gfx_param_get (const gfx_param_desc *d, const void *values)
{
  const void *p = (const char *) values + d->offset;
  switch (d->type)
    {
    case GFX_PT_FLOAT: return *(const double *) p;
    case GFX_PT_STRING: return 0.0;
    default: return *(const int *) p;
    }
}

void
gfx_param_put (const gfx_param_desc *d, void *values, double v)
{
  switch (d->type)
    {
    case GFX_PT_FLOAT: *(double *) field (d, values) = v; break;
    case GFX_PT_STRING: break;
    default: *(int *) field (d, values) = (int) v; break;
    }
}

const char *
gfx_param_get_string (const gfx_param_desc *d, const void *values)
{
  return d->type == GFX_PT_STRING ? (const char *) values + d->offset : "";
}

void
gfx_param_put_string (const gfx_param_desc *d, void *values, const char *s)
{
  if (d->type == GFX_PT_STRING)
    snprintf ((char *) field (d, values), GFX_PATH_LEN, "%s", s ? s : "");
}

void
gfx_params_defaults (const gfx_param_set *set, void *values)
{
  memset (values, 0, set->size);
  for (int i = 0; i < set->n_params; i++)
    gfx_param_put (&set->params[i], values, set->params[i].def);
}

const gfx_param_desc *
gfx_params_find (const gfx_param_set *set, const char *name)
{
  for (int i = 0; i < set->n_params; i++)
    if (strcmp (set->params[i].name, name) == 0)
      return &set->params[i];
  return NULL;
}

const char *
gfx_param_cli_name (const gfx_param_desc *d)
{
  return d->cli_name ? d->cli_name : d->name;
}

const gfx_param_desc *
gfx_params_find_cli (const gfx_param_set *set, const char *name)
{
  for (int i = 0; i < set->n_params; i++)
    if (strcmp (gfx_param_cli_name (&set->params[i]), name) == 0)
      return &set->params[i];
  return NULL;
}

static int
choice_count (const gfx_param_desc *d)
{
  int n = 0;
  while (d->choices && d->choices[n])
    n++;
  return n;
}

void
gfx_param_describe_range (const gfx_param_desc *d, char *buf, size_t len)
{
  switch (d->type)
    {
    case GFX_PT_ENUM:
      {
        char list[256] = "";
        size_t used = 0;
        for (int i = 0; d->choices[i] && used < sizeof list; i++)
          used += (size_t) snprintf (list + used, sizeof list - used, "%s%s (%d)",
                                     i ? ", " : "", d->choices[i], i);
        snprintf (buf, len, gfx_tr ("one of %s"), list);
        break;
      }
    case GFX_PT_BOOL: snprintf (buf, len, "%s", gfx_tr ("0 or 1")); break;
    case GFX_PT_STRING: snprintf (buf, len, "%s", gfx_tr ("a file name")); break;
    case GFX_PT_DRAWABLE: snprintf (buf, len, "%s", gfx_tr ("a drawable, or -1")); break;
    case GFX_PT_INT:
      {
        /* `min` may mean "auto"; the allowed values then start one step above it.  Whole
         * sentences, one per case, so that a translation may order them its own way. */
        const double step = d->step > 1 ? d->step : 1, lo = d->auto_label ? d->min + step : d->min;
        const char *auto_text = d->auto_label ? gfx_tr (d->auto_label) : "";
        if (d->auto_label && step > 1)
          snprintf (buf, len, gfx_tr ("%.0f (%s) or %.0f to %.0f in steps of %.0f"), d->min,
                    auto_text, lo, d->max, step);
        else if (d->auto_label)
          snprintf (buf, len, gfx_tr ("%.0f (%s) or %.0f to %.0f"), d->min, auto_text, lo,
                    d->max);
        else if (step > 1)
          snprintf (buf, len, gfx_tr ("%.0f to %.0f in steps of %.0f"), lo, d->max, step);
        else
          snprintf (buf, len, gfx_tr ("%.0f to %.0f"), lo, d->max);
        break;
      }
    case GFX_PT_FLOAT:
      {
        const int exclusive = (d->flags & GFX_PF_MIN_EXCLUSIVE) != 0;
        if (isinf (d->max)) /* no upper bound */
          gfx_snprintf_c (buf, len, exclusive ? gfx_tr ("more than %g") : gfx_tr ("%g or more"),
                          d->min);
        else /* as the values are written */
          gfx_snprintf_c (buf, len, exclusive ? gfx_tr ("more than %g, up to %g")
                                              : gfx_tr ("%g to %g"),
                          d->min, d->max);
        break;
      }
    }
}

void
gfx_param_value_text (double v, char *buf, size_t len)
{
  for (int digits = 10; digits <= 17; digits++)
    if (gfx_snprintf_c (buf, len, "%.*g", digits, v) > 0
        && (isnan (v) || gfx_strtod_c (buf, NULL) == v))
      break;
}

int
gfx_param_used (const gfx_param_set *set, const gfx_param_desc *d, const void *values)
{
  const gfx_param_desc *key = d->used_if ? gfx_params_find (set, d->used_if) : NULL;
  if (!key)
    return 1;
  if (key->type == GFX_PT_STRING)
    return gfx_param_get_string (key, values)[0] != '\0';
  return gfx_param_get (key, values) == d->used_if_value;
}

gfx_status
gfx_param_check (const gfx_param_desc *d, const void *values, gfx_error *err)
{
  char range[256];
  gfx_param_describe_range (d, range, sizeof range);
  if (d->type == GFX_PT_STRING || d->type == GFX_PT_DRAWABLE)
    return GFX_OK;
  double v = gfx_param_get (d, values);
  double lo = d->type == GFX_PT_ENUM ? 0 : d->type == GFX_PT_BOOL ? 0 : d->min;
  double hi = d->type == GFX_PT_ENUM ? choice_count (d) - 1 : d->type == GFX_PT_BOOL ? 1 : d->max;
  int below = (d->flags & GFX_PF_MIN_EXCLUSIVE) ? !(v > lo) : !(v >= lo);
  if (!(isnan (v) || isinf (v) || below || !(v <= hi)))
    return GFX_OK;
  /* The value as given, to the digit that puts it out of range: %.10g would call
   * 64.0000000001 "64" and then say 64 is not allowed. */
  char text[40];
  gfx_param_value_text (v, text, sizeof text);
  return isfinite (v)
           ? gfx_fail (err, GFX_ERR_PARAM, "%s = %s is out of range: allowed %s", d->name, text,
                       range)
           : gfx_fail (err, GFX_ERR_PARAM, "%s = %s is not a finite number: allowed %s", d->name,
                       text, range);
}

gfx_status
gfx_params_validate (const gfx_param_set *set, const void *values, gfx_error *err)
{
  for (int i = 0; i < set->n_params; i++)
    {
      gfx_status st = gfx_param_check (&set->params[i], values, err);
      if (st != GFX_OK)
        return st;
    }
  return set->check ? set->check (values, err) : GFX_OK;
}

enum { NOT_A_NUMBER, A_NUMBER, BEYOND_DOUBLE };

/* BEYOND_DOUBLE: a number no double holds, 1e400 or 1e-400 (strtod's inf or 0 would be
 * quoted back to the user in place of what was typed). */
static int
parse_number (const char *text, double *out)
{
  char *end;
  int beyond;
  if (!*text)
    return NOT_A_NUMBER;
  *out = gfx_strtod_c_held (text, &end, &beyond);
  if (*end != '\0')
    return NOT_A_NUMBER;
  return beyond ? BEYOND_DOUBLE : A_NUMBER;
}

gfx_status
gfx_param_parse (const gfx_param_desc *d, void *values, const char *text, gfx_error *err)
{
  char range[256];
  double v;
  int kind;
  gfx_param_describe_range (d, range, sizeof range);
  switch (d->type)
    {
    case GFX_PT_STRING:
      if (strlen (text) >= GFX_PATH_LEN)
        return gfx_fail (err, GFX_ERR_PARAM, "%s: the file name is too long (%zu bytes; at most %d)",
                         d->name, strlen (text), GFX_PATH_LEN - 1);
      gfx_param_put_string (d, values, text);
      return GFX_OK;
    case GFX_PT_ENUM:
      for (int i = 0; d->choices[i]; i++)
        if (strcasecmp (text, d->choices[i]) == 0)
          {
            gfx_param_put (d, values, i);
            return GFX_OK;
          }
      if (parse_number (text, &v) == A_NUMBER && v == floor (v) && v >= 0
          && v < choice_count (d))
        {
          gfx_param_put (d, values, v);
          return GFX_OK;
        }
      return gfx_fail (err, GFX_ERR_PARAM, "%s: '%s' is not allowed: %s", d->name, text, range);
    case GFX_PT_BOOL:
      if (!strcasecmp (text, "true") || !strcasecmp (text, "yes") || !strcmp (text, "1"))
        v = 1;
      else if (!strcasecmp (text, "false") || !strcasecmp (text, "no") || !strcmp (text, "0"))
        v = 0;
      else
        return gfx_fail (err, GFX_ERR_PARAM, "%s: '%s' is not allowed: %s", d->name, text, range);
      gfx_param_put (d, values, v);
      return GFX_OK;
    case GFX_PT_INT:
    case GFX_PT_DRAWABLE:
      kind = parse_number (text, &v); /* 1e400 is out of range, 1e-400 not whole */
      if (kind == NOT_A_NUMBER || v != floor (v) || (kind == BEYOND_DOUBLE && v == 0))
        return gfx_fail (err, GFX_ERR_PARAM, "%s: '%s' is not a whole number: allowed %s",
                         d->name, text, range);
      if (fabs (v) > 2e9)
        return gfx_fail (err, GFX_ERR_PARAM, "%s: '%s' is out of range: allowed %s", d->name,
                         text, range);
      gfx_param_put (d, values, v);
      return gfx_param_check (d, values, err);
    case GFX_PT_FLOAT:
      switch (parse_number (text, &v))
        {
        case NOT_A_NUMBER:
          return strchr (text, ',')
                   ? gfx_fail (err, GFX_ERR_PARAM, "%s: '%s' is not a number (numbers take a "
                               "decimal point, not a comma): allowed %s", d->name, text, range)
                   : gfx_fail (err, GFX_ERR_PARAM, "%s: '%s' is not a number: allowed %s",
                               d->name, text, range);
        case BEYOND_DOUBLE:
          return v == 0 ? gfx_fail (err, GFX_ERR_PARAM, "%s: '%s' is too close to 0 for a "
                                    "double: allowed %s", d->name, text, range)
                        : gfx_fail (err, GFX_ERR_PARAM, "%s: '%s' is beyond the range of a "
                                    "double: allowed %s", d->name, text, range);
        }
      gfx_param_put (d, values, v);
      return gfx_param_check (d, values, err);
    }
  return GFX_OK;
}
