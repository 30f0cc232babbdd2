/* gpufx bench: in-process timing of our CPU and GPU paths (see cmd_bench.c). */
#ifndef GFX_CLI_CMD_BENCH_H
#define GFX_CLI_CMD_BENCH_H

/* argv[0] is "bench"; returns the process exit status. */
int bench_main (int argc, char **argv);

#endif
