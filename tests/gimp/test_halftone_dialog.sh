#!/bin/bash
# The halftone dialog, run unattended under Xvfb (GPUFX_DIALOG_AUTO_* test hooks):
# OK starts from the last values and gives the same pixels as the CLI with them, Reset
# restores the declared defaults, Cancel (before or during the run) leaves the drawable
# untouched.
source "$(dirname "$0")/lib.sh"
if [ -z "${DISPLAY:-}" ]; then
  command -v xvfb-run >/dev/null || { skip gimp/halftone-dialog "xvfb-run not installed"; exit 0; }
  exec xvfb-run -a -s '-screen 0 1280x1024x24' bash "$0" "$@"
fi
gimp_setup gimp/halftone-dialog
cli=$build/gpufx
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
last_vals=$(scm_run gray8.png discard.png '(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 1 3 1 0 -1)')
interactive () { scm_run rgba8.png "$1" '(plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1)'; }

GPUFX_DIALOG_AUTO_OK=1.5 gimp_batch "$work/ok.log" "$last_vals" "$(interactive ok.png)"
if batch_ok halftone-dialog-ok "$work/ok.log" $?; then
  "$cli" halftone "$work/rgba8.png" "$work/cli-jjn3.png" --kernel jjn --levels 3 --backend cpu --quiet
  compare_images halftone-dialog-uses-last-values "$work/ok.png" "$work/cli-jjn3.png"
fi

GPUFX_DIALOG_AUTO_RESET=1 GPUFX_DIALOG_AUTO_OK=1.5 gimp_batch "$work/reset.log" "$last_vals" "$(interactive reset.png)"
if batch_ok halftone-dialog-reset-ok "$work/reset.log" $?; then
  "$cli" halftone "$work/rgba8.png" "$work/cli-default.png" --backend cpu --quiet
  compare_images halftone-dialog-reset-gives-defaults "$work/reset.png" "$work/cli-default.png"
fi

GPUFX_DIALOG_AUTO_CANCEL=1.5 gimp_batch "$work/cancel.log" "$(interactive cancel.png)"
if batch_ok halftone-dialog-cancel "$work/cancel.log" $?; then
  check_images halftone-dialog-cancel-untouched same "$work/cancel.png" "$work/rgba8.png"
fi

# OK then a cancelled run (GPUFX_TEST_CANCEL cancels the work as it starts): untouched.
GPUFX_TEST_CANCEL=1 GPUFX_DIALOG_AUTO_OK=1.5 gimp_batch "$work/runcancel.log" "$(interactive runcancel.png)"
if batch_ok halftone-dialog-run-cancelled "$work/runcancel.log" $?; then
  check_images halftone-dialog-run-cancel-untouched same "$work/runcancel.png" "$work/rgba8.png"
fi
