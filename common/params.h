/* Parameter sets declared once.  Each algorithm declares a table of gfx_param_desc
 * (name, type, default, range, help); the PDB registration, the dialog builder, the CLI
 * option parser, the validator and the README table all walk that one table. */
#ifndef GFX_PARAMS_H
#define GFX_PARAMS_H

#include <stddef.h>

#include "status.h"

#ifndef N_
#define N_(s) (s) /* marks a string for gettext; translated where it is shown */
#endif

#define GFX_PATH_LEN 4096

typedef enum {
  GFX_PT_INT,      /* int field */
  GFX_PT_FLOAT,    /* double field */
  GFX_PT_ENUM,     /* int field, index into choices (PDB INT32) */
  GFX_PT_BOOL,     /* int field, 0 or 1 (PDB INT32) */
  GFX_PT_STRING,   /* char[GFX_PATH_LEN] field */
  GFX_PT_DRAWABLE  /* int field, a GIMP drawable id, -1 = none (PDB DRAWABLE) */
} gfx_param_type;

enum {
  GFX_PF_ADVANCED = 1 << 0,      /* dialog: inside the "Advanced" expander */
  GFX_PF_GPU = 1 << 1,           /* only matters on the GPU: greyed when none is usable */
  GFX_PF_NO_CLI = 1 << 2,        /* not a CLI option */
  GFX_PF_NO_DIALOG = 1 << 3,     /* not shown in the dialog */
  GFX_PF_MIN_EXCLUSIVE = 1 << 4, /* the minimum itself is not allowed (0 < E) */
  GFX_PF_REQUIRED = 1 << 5,      /* CLI: must be given */
  GFX_PF_NOT_FILE = 1 << 6       /* a string that names no file (identify's --mask 3x3) */
};

typedef struct {
  const char *name;   /* PDB and CLI name, e.g. "block-size" */
  const char *label;  /* dialog label, marked N_() */
  const char *help;   /* one line: PDB blurb, tooltip, --help text; marked N_() */
  gfx_param_type type;
  size_t offset;      /* of the field in the values struct */
  double def, min, max;   /* FLOAT max may be HUGE_VAL: no upper bound (SPEC: every k >= 0) */
  const char *const *choices;       /* ENUM: CLI spellings in PDB order, NULL-terminated */
  const char *const *choice_labels; /* ENUM: dialog labels, marked N_() */
  unsigned flags;
  const char *auto_label; /* INT, DRAWABLE: label of the value `min` when it means "auto"
                             (marked N_()), else NULL */
  double step;            /* dialog step; 0 = 1 for integers, 0.01 for floats; for an
                             integer also the grid of its allowed values from min */
  const char *cli_name;   /* CLI option when it differs from name (PDB filter-file is
                             --filter), else NULL */
  const char *used_if;    /* dialog: greyed unless the parameter of this name has the value;
                             a STRING of that name: used only with that file (the CLI
                             refuses the option without it: --margin needs --stabilise) */
  double used_if_value;   /* used_if_value (k3 means something under the 4th-edition rule only) */
  const char *cli_value;  /* CLI --help: the value's name (" M1xM2"); NULL: by type (" FILE") */
  double slider_max;      /* dialog: where the slider ends when max is HUGE_VAL; larger
                             values are typed into its spin button */
} gfx_param_desc;

typedef struct gfx_param_set {
  const char *name; /* "halftone" */
  const gfx_param_desc *params;
  int n_params;
  size_t size;      /* of the values struct */
  /* Cross-parameter rules (k1 <= k2, multiples of 32...), NULL if none. */
  gfx_status (*check) (const void *values, gfx_error *err);
} gfx_param_set;

/* The backend parameter, the same in every set. */
typedef enum { GFX_BACKEND_AUTO = 0, GFX_BACKEND_CPU, GFX_BACKEND_GPU } gfx_backend;

/* A choice table holds one entry per enum value, then NULL: checked where it is defined,
 * since a missing entry reads past the tables (a kernel named but not in gfx_kernels). */
#define GFX_CHOICES_MATCH(table, count)                                                    \
  _Static_assert (sizeof (table) / sizeof (table)[0] == (count) + 1,                       \
                  #table ": one entry per value, then NULL")
extern const char *const gfx_backend_choices[];
extern const char *const gfx_backend_labels[];
/* The backend a word names (gfx_backend_choices, any case: "GPU" is gpu), -1 for none. */
int gfx_backend_by_name (const char *name);

void gfx_params_defaults (const gfx_param_set *set, void *values);
/* Every range and the set's cross rules; the message names the parameter and its range. */
gfx_status gfx_params_validate (const gfx_param_set *set, const void *values, gfx_error *err);
const gfx_param_desc *gfx_params_find (const gfx_param_set *set, const char *name);
/* The option name the CLI uses: cli_name, or name. */
const char *gfx_param_cli_name (const gfx_param_desc *d);
/* The parameter whose CLI option is `name`, or NULL. */
const gfx_param_desc *gfx_params_find_cli (const gfx_param_set *set, const char *name);

double gfx_param_get (const gfx_param_desc *d, const void *values);
void gfx_param_put (const gfx_param_desc *d, void *values, double v);
const char *gfx_param_get_string (const gfx_param_desc *d, const void *values);
void gfx_param_put_string (const gfx_param_desc *d, void *values, const char *s);

/* Parses text (CLI spelling: number, choice name or index, true/false/1/0). */
gfx_status gfx_param_parse (const gfx_param_desc *d, void *values, const char *text,
                            gfx_error *err);
/* "2 to 256", "one of fs, jjn, ...", "0 (auto) or 32 to 1024"... */
void gfx_param_describe_range (const gfx_param_desc *d, char *buf, size_t len);
/* Whether d matters with these values: it has no used_if, or its used_if key is a STRING
 * that names a file, or another parameter at used_if_value (the dialog greys d otherwise,
 * and the CLI refuses a d given without its file option). */
int gfx_param_used (const gfx_param_set *set, const gfx_param_desc *d, const void *values);
/* Checks one value against its declared range. */
gfx_status gfx_param_check (const gfx_param_desc *d, const void *values, gfx_error *err);
/* v as the shortest text that reads back as v ("0.0199999999", not %g's "0.02"), in C's
 * syntax: messages quote a value as it was given. */
void gfx_param_value_text (double v, char *buf, size_t len);

#endif
