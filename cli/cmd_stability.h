/* gpufx stability: verdict, margins, root-locus picture, stabilisation (cmd_stability.c). */
#ifndef GFX_CLI_CMD_STABILITY_H
#define GFX_CLI_CMD_STABILITY_H

/* argv[0] is "stability"; returns the process exit status. */
int stability_main (int argc, char **argv);

#endif
