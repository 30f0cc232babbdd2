#!/bin/bash
# The local-enhance dialog, run unattended under Xvfb (see dialog_checks in lib.sh): OK
# starts from the last values (E 3, k0 1.0, k2 0.8, n 5) and gives the CLI's pixels for
# them, Reset restores the declared defaults, Cancel (before or during the run) leaves the
# drawable untouched.  The preview itself: test_enhance_preview.sh.
source "$(dirname "$0")/lib.sh"
need_display gimp/enhance-dialog "$@"
gimp_setup gimp/enhance-dialog
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
DIALOG_OK_DELAY=2 dialog_checks enhance plug-in-gpufx-local-enhance \
  "3 1.0 0.02 0.8 0.4 0 5 0 0 1" "4 0.4 0.02 0.4 0.4 0 3 0 0 0" \
  enhance --gain 3 --k0 1.0 --k2 0.8 --window 5
