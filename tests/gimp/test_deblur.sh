#!/bin/bash
# plug-in-gpufx-iir-deblur in real GIMP batch mode (throwaway profile): registration
# (SPEC section 4 argument order, menu place), every precision and layout against
# `gpufx deblur --backend cpu` (identical samples), alpha kept, and a missing or unstable
# filter file refused with a message naming the file and the quadrant.
source "$(dirname "$0")/lib.sh"
batch_setup gimp/deblur
proc=plug-in-gpufx-iir-deblur

test_filter "$work/good.iir" -0.1
test_filter "$work/bad.iir" -1.5
call () { echo "($proc RUN-NONINTERACTIVE img drw \"$1\" ${2:-1})"; }

# --- registration -------------------------------------------------------------------------
check_registration deblur "$proc" "<Image>/Filters/Enhance" filter-file backend

# --- precisions and layouts against the CLI ----------------------------------------------
case_call () { call "$work/good.iir"; }
case_cli () { "$cli" deblur "$1" "$2" --filter "$work/good.iir" --backend cpu --quiet; }
against_cli deblur "gray8 gray8.png" "rgba8 rgba8.png" "gray16 gray16.png" "rgb16 rgb16.png" \
  "grayf grayf.tif" "rgbf rgbf.tif"

# --- bad filter files -----------------------------------------------------------------------
gimp_batch "$work/bad.log" "$(scm_run gray8.png bad1.png "$(call "$work/bad.iir")")"
batch_error deblur-unstable-refused "$work/bad.log" $? 'unstable in q3' 'bad.iir'
gimp_batch "$work/missing.log" "$(scm_run gray8.png bad2.png "$(call "$work/none.iir")")"
batch_error deblur-missing-file-refused "$work/missing.log" $? 'none.iir' 'cannot be read'
gimp_batch "$work/backend.log" "$(scm_run gray8.png bad3.png "$(call "$work/good.iir" 3)")"
batch_error deblur-bad-backend-refused "$work/backend.log" $? 'backend'
"$cli" deblur "$work/gray8.png" "$work/x.png" --filter "$work/bad.iir" --quiet 2>"$work/cli.err"
rc=$?
[ $rc -eq 3 ] && grep -q 'unstable in q3' "$work/cli.err" && pass deblur-cli-unstable-exit-3 \
  || fail deblur-cli-unstable-exit-3 "exit $rc: $(cat "$work/cli.err")"
