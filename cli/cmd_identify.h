/* gpufx identify: the four quadrant filters from a blurred image and a sharp reference or
 * automatic edge fragments (cmd_identify.c). */
#ifndef GFX_CLI_CMD_IDENTIFY_H
#define GFX_CLI_CMD_IDENTIFY_H

/* argv[0] is "identify"; returns the process exit status. */
int identify_main (int argc, char **argv);

#endif
