/* gpufx --version (cmd_version.c). */
#ifndef GFX_CLI_CMD_VERSION_H
#define GFX_CLI_CMD_VERSION_H

int version_main (void);

#endif
