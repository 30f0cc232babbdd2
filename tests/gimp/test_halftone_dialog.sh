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

# A preview that fails says why on the dialog's status line: the GPU backend
# (GPUFX_BACKEND=gpu) where this machine has no usable GPU (GPUFX_DIALOG_PREVIEW_DUMP gets
# the line).  OK then fails too (caught), and the image is as it was.  The dialog starts
# from the defaults (backend auto), not from the checks' last values (backend cpu).
if "$build/gpufx" --version | grep -qE '^GPU: (none|not usable)'; then
  forget_last_values
  GPUFX_BACKEND=gpu GPUFX_DIALOG_PREVIEW_DUMP=$work/said.txt GPUFX_DIALOG_AUTO_OK=3 \
    gimp_batch "$work/nogpu.log" "$(scm_run rgba8.png nogpu.png \
      '(catch #f (plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1))')"
  said=$(cat "$work/said.txt" 2>/dev/null)
  [[ $said == "Preview failed: backend gpu: "?* ]] \
    && pass "halftone-preview-failed-says-why ($said)" \
    || fail halftone-preview-failed-says-why "status line: ${said:0:80}"
  grep -q 'backend gpu' "$work/nogpu.log" && pass halftone-preview-failed-ok-fails-too \
    || fail halftone-preview-failed-ok-fails-too "$(grep -i error "$work/nogpu.log" | head -2)"
  check_images halftone-preview-failed-image-untouched same "$work/nogpu.png" "$work/rgba8.png"
else
  skip halftone-preview-failed-says-why "this machine has a usable GPU"
fi
