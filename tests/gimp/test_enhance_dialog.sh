#!/bin/bash
# The local-enhance dialog, run unattended under Xvfb (GPUFX_DIALOG_AUTO_* test hooks): the
# preview (rendered with the whole region's statistics) and OK start from the last values
# and give the same pixels as the CLI with them, Reset restores the declared defaults,
# Cancel leaves the drawable untouched.
source "$(dirname "$0")/lib.sh"
if [ -z "${DISPLAY:-}" ]; then
  command -v xvfb-run >/dev/null || { skip gimp/enhance-dialog "xvfb-run not installed"; exit 0; }
  exec xvfb-run -a -s '-screen 0 1280x1024x24' bash "$0" "$@"
fi
gimp_setup gimp/enhance-dialog
cli=$build/gpufx
proc=plug-in-gpufx-local-enhance
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
last_vals=$(scm_run gray8.png discard.png "($proc RUN-NONINTERACTIVE img drw 3 1.0 0.02 0.8 0.4 0 5 0 0 1)")
interactive () { scm_run rgba8.png "$1" "($proc RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)"; }

GPUFX_DIALOG_AUTO_OK=2 gimp_batch "$work/ok.log" "$last_vals" "$(interactive ok.png)"
if batch_ok enhance-dialog-ok "$work/ok.log" $?; then
  "$cli" enhance "$work/rgba8.png" "$work/cli-last.png" --gain 3 --k0 1.0 --k2 0.8 --window 5 \
    --backend cpu --quiet
  compare_images enhance-dialog-uses-last-values "$work/ok.png" "$work/cli-last.png"
fi

GPUFX_DIALOG_AUTO_RESET=1 GPUFX_DIALOG_AUTO_OK=2 gimp_batch "$work/reset.log" "$last_vals" "$(interactive reset.png)"
if batch_ok enhance-dialog-reset-ok "$work/reset.log" $?; then
  "$cli" enhance "$work/rgba8.png" "$work/cli-default.png" --backend cpu --quiet
  compare_images enhance-dialog-reset-gives-defaults "$work/reset.png" "$work/cli-default.png"
fi

GPUFX_DIALOG_AUTO_CANCEL=2 gimp_batch "$work/cancel.log" "$(interactive cancel.png)"
if batch_ok enhance-dialog-cancel "$work/cancel.log" $?; then
  check_images enhance-dialog-cancel-untouched same "$work/cancel.png" "$work/rgba8.png"
fi
