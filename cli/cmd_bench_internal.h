/* gpufx bench, inside (cmd_bench.c: options and dispatch; cmd_bench_time.c: timing and
 * the result rows; cmd_bench_suite.c: the synthetic suite; cmd_bench_file.c: filters,
 * their options, one real image and the I/O baseline). */
#ifndef GFX_CLI_CMD_BENCH_INTERNAL_H
#define GFX_CLI_CMD_BENCH_INTERNAL_H

#include "../common/filter.h"

#define BENCH_MAX_REPEAT 1000

/* The table's first two columns, filter and case ("2048x2048 32-bit float filter=..."),
 * wide enough for the longest case so that the times line up. */
#define BENCH_ROW_HEAD "%-9s %-40s "

typedef struct {
  int repeat;
  int tsv;
} bench_opts;

/* The filter called `name` in this build, or NULL. */
const gfx_filter *bench_find_filter (const char *name);

/* Sets one option of the filter's parameter set from "--name value" text. */
gfx_status bench_set_option (const gfx_filter *f, void *values, const char *name,
                             const char *text, gfx_error *err);

/* Sets the backend parameter, if the filter has one. */
void bench_set_backend (const gfx_filter *f, void *values, gfx_backend b);

/* Times one configuration and prints its row (table or TSV).  Returns 0 or 1. */
int bench_one (const gfx_filter *f, const gfx_image *in, void *values, const char *what,
               const bench_opts *o);

/* The synthetic suite: every filter, a table on stdout.  Returns the exit status. */
int bench_suite (int quick, const bench_opts *o);

/* One real image (decoded once) with the filter options argv; exit status. */
int bench_file (const gfx_filter *f, const char *input, int argc, char **argv,
                const bench_opts *o);

/* The I/O baseline: decode and encode only (--threshold: black and white); exit status. */
int bench_copy (const char *in_path, const char *out_path, int threshold);

#endif
