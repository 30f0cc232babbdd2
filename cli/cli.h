/* The gpufx command line: shared pieces for the sub-commands.
 *
 * A filter sub-command (halftone, enhance, deblur) is generated from its gfx_filter
 * descriptor: options from the parameter table, --help from the same table, image I/O via
 * GEGL.  A plain command (stability, identify, bench) is an int main(argc, argv) that may
 * use the helpers below.  Both kinds are listed in the tables in cli/main.c. */
#ifndef GFX_CLI_H
#define GFX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../common/filter.h"
#include "../common/image.h"
#include "../common/status.h"

/* Exit statuses (SPEC section 4). */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2, CLI_UNSTABLE = 3 };

typedef struct {
  const gfx_filter *filter;
  bool has_mask; /* the filter can write a decision mask (gfx_filter_run.mask): --mask-out */
} cli_filter;

typedef struct {
  const char *name;                   /* sub-command */
  const char *summary;                /* one line for `gpufx --help` */
  int (*main) (int argc, char **argv); /* argv[0] is the sub-command's name */
} cli_command;

/* What a (sub-)command accepts: positional arguments, options from a parameter table,
 * and for processing commands --compare FILE, --quiet (and --mask-out FILE); --backend is
 * the filter table's own parameter. */
typedef struct {
  const char *cmd;          /* "halftone": messages say "gpufx halftone: ..." */
  const char *blurb;        /* first line of --help */
  const gfx_param_set *set; /* options: --name value, --name=value, bools as flags; or NULL */
  const char *usage;        /* positionals for the usage line: "IN OUT" */
  int n_positionals;        /* exactly this many (at most 4) */
  bool processing;          /* --compare, --quiet */
  bool mask;                /* --mask-out */
} cli_spec;

typedef struct {
  const char *pos[4];
  const char *compare, *mask_out;
  bool quiet;
  bool backend_given; /* --backend on the command line: it wins over GPUFX_BACKEND */
} cli_args;

/* Parses argv[1..] (values must hold the set's defaults).  Returns -1 to go on, or the
 * exit status to return at once: 0 after --help (or --complete-words, alone), 2 after a
 * usage error (message printed). */
int cli_parse (const cli_spec *spec, int argc, char **argv, void *values, cli_args *args);
/* The --help text, generated from the table: every option with its range and default. */
void cli_help (const cli_spec *spec, FILE *out);
/* What `gpufx CMD --complete-words` prints (cli_parse answers it): one line an option,
 * "--name" then its choices, ":file" or ":value" (nothing for a flag); cli/gpufx.bash
 * completes from it. */
void cli_complete_words (const cli_spec *spec, FILE *out);

/* Runs `gpufx NAME IN OUT [options]` for a filter; returns the exit status. */
int cli_filter_main (const cli_filter *f, int argc, char **argv);

/* The sub-command running ("halftone"), for messages made away from it (a codec's exit);
 * NULL before one is chosen. */
void cli_set_command (const char *name);
const char *cli_command_running (void);
/* Prints "gpufx CMD: message" as one line on stderr and returns code. */
int cli_fail (const char *cmd, int code, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* The exit status for a core status: 2 bad parameter/input, 3 unstable, 1 otherwise. */
int cli_exit_code (gfx_status st);

/* Images through GEGL.  cli_load reads any format GEGL loads into the nearest core layout
 * (GRAY/GRAYA/RGB/RGBA; u8, u16 or float), converting indexed images to RGB(A) and
 * describing that in note (empty otherwise).  cli_save writes img to path in the format
 * the extension names, keeping the precision where the format can hold it (PNG and PPM:
 * 8 or 16 bits), through a private folder next to path whose file is renamed into place
 * at the end, so a failure (a write that stops part way included) never leaves a partial
 * file nor replaces an earlier one. */
gfx_status cli_load (const char *path, gfx_image *img, char *note, size_t note_len,
                     gfx_error *err);
gfx_status cli_save (const char *path, const gfx_image *img, gfx_error *err);

/* What cli_save_result needs of the file a filter read: its colour space (the core's
 * samples have its primaries: cli_load_source converts the encoding only), and
 * its own pixels where they are the core's samples in another encoding (linear light, as
 * EXR and HDR files hold), so that the samples a filter left alone are written back
 * exactly.  No buffer: nothing to keep. */
typedef struct
{
  struct _GeglBuffer *buffer;
  const union _Babl *space;      /* the file's */
  /* The core's samples' space: the file's, or for a file whose profile has a linear TRC
   * its twin with sRGB's (GIMP 2.10's perceptual encoding of such an image); buffer is
   * then labelled in it (the same linear samples). */
  const union _Babl *work_space;
} cli_source;
gfx_status cli_load_source (const char *path, gfx_image *img, cli_source *src, char *note,
                            size_t note_len, gfx_error *err);
/* cli_save of out, the result of a filter on in as cli_load_source read it with src, in
 * src's colour space.  in NULL: out is other pixels in that space (a comparison). */
gfx_status cli_save_result (const char *path, const gfx_image *in, const gfx_image *out,
                            const cli_source *src, gfx_error *err);
void cli_source_free (cli_source *src);
/* Removes the output being written, if any (async-signal-safe: a signal or a fatal error
 * ends the run). */
void cli_save_abandon_now (void);
/* Removes a folder and the files in it (one level). */
void cli_remove_dir (const char *dir);

/* The extension of path's file name, dot included (".png"), or NULL (savers.c). */
const char *cli_file_extension (const char *path);
/* Output formats (savers.c).  The GEGL saver that a file name's extension picks
 * ("gegl:png-save"), or NULL; GEGL need not run. */
const char *cli_saver_named (const char *path);
/* The same for an output named path ("-", "tif:-" or a file name). */
const char *cli_saver_for_output (const char *path);
/* What writing img as the output path loses (an alpha channel, bits a sample), as a note
 * naming the file, the format and what it holds; "" when nothing is lost. */
void cli_output_losses (const char *path, const gfx_image *img, char *note, size_t len);
/* Fails early (before any work) when path cannot be written: no saver for its extension
 * (GFX_ERR_INPUT) or a folder that is missing or not writable (GFX_ERR_IO). */
gfx_status cli_check_output (const char *path, gfx_error *err);

/* An option's path and what messages call it ("--compare", "OUT"). */
typedef struct {
  const char *name, *path; /* path NULL or "": not given */
} cli_named_path;
/* Refuses (GFX_ERR_INPUT, naming both) an output that is the same file as another output or
 * as an input, existing or to be made, through links too; the first output may be the first
 * input where first_may_be_input (a filter's OUT written over its IN, in place).  Standard
 * streams ("-") are never the same file (path_clash.c). */
gfx_status cli_outputs_apart (const cli_named_path *outs, int n_outs, const cli_named_path *ins,
                              int n_ins, bool first_may_be_input, gfx_error *err);

/* Before and after next to each other (a left, b right), in a's layout. */
gfx_status cli_side_by_side (const gfx_image *a, const gfx_image *b, gfx_image *out,
                             gfx_error *err);

/* Standard input and output as images (std_stream.c).  "-" as an input is standard input
 * (any format GEGL loads, told by its content; it can be read once); "-" as an output is
 * PNG on standard output, and "EXT:-" (tif:-, jpg:-, exr:-, ...) that format. */
bool cli_is_stdin (const char *path);
bool cli_is_stdout (const char *path);
/* What messages call path: "standard input", "standard output", or path itself. */
const char *cli_stream_name (const char *path);
/* Copies standard input into a memory file, open as *fd (close it after loading), whose
 * name for GEGL goes into file.  Refuses a terminal and a second read. */
gfx_status cli_stdin_open (char *file, size_t len, int *fd, gfx_error *err);
/* The temporary file name (in $TMPDIR) that an output for standard output is saved as
 * first: "stdout.png" for "-", "stdout.EXT" for "EXT:-". */
void cli_stdout_file (const char *path, char *file, size_t len);
/* Refuses standard output when it is a terminal. */
gfx_status cli_stdout_check (gfx_error *err);
/* Copies the finished file to standard output. */
gfx_status cli_stdout_send (const char *file, gfx_error *err);
/* Refuses standard output ("-", "EXT:-") for an output option (named in the message) of a
 * command that prints its report there: a picture or a filter file. */
gfx_status cli_stdout_reserved (const char *option, const char *path, gfx_error *err);

/* Called once before exiting when GEGL was used. */
void cli_io_shutdown (void);

#endif
