#!/bin/bash
# The halftone dialog, run unattended under Xvfb (see dialog_checks in lib.sh): OK starts
# from the last values (jjn, 3 levels) and gives the CLI's pixels for them, Reset restores
# the declared defaults, Cancel (before or during the run) leaves the drawable untouched.
source "$(dirname "$0")/lib.sh"
need_display gimp/halftone-dialog "$@"
gimp_setup gimp/halftone-dialog
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
dialog_checks halftone plug-in-gpufx-halftone "1 3 1 0 -1" "0 2 0 0 -1" \
  halftone --kernel jjn --levels 3
