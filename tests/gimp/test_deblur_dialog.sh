#!/bin/bash
# The IIR deblur dialog, run unattended under Xvfb (see dialog_checks in lib.sh): OK starts
# from the last values (a filter file, CPU) and gives the CLI's pixels for them; Reset
# empties the filter file, so OK is refused and the drawable stays as it was; Cancel
# (before or during the run) leaves the drawable untouched.  The Identify part of the
# same dialog: test_identify_dialog.sh.
source "$(dirname "$0")/lib.sh"
need_display gimp/deblur-dialog "$@"
gimp_setup gimp/deblur-dialog
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
test_filter "$work/good.iir" -0.1
DIALOG_RESET=refused dialog_checks deblur plug-in-gpufx-iir-deblur "\"$work/good.iir\" 1" \
  '"" 0' deblur --filter "$work/good.iir"
