#!/bin/bash
# plug-in-gpufx-iir-deblur in real GIMP batch mode (throwaway profile): registration
# (SPEC section 4 argument order, menu place), every precision and layout against
# `gpufx deblur --backend cpu` (identical samples), alpha kept, and a missing or unstable
# filter file refused with a message naming the file and the quadrant.
source "$(dirname "$0")/lib.sh"
gimp_setup gimp/deblur
cli=$build/gpufx
proc=plug-in-gpufx-iir-deblur
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
[ -x "$cli" ] || fail cli "$cli missing: comparisons against the CLI will fail"

# A stable 3x3 sharpening filter with unit DC gain, different in each quadrant, and an
# unstable one (q3's b(0,1) = -1.5 puts a root at z2 = 1.5).
filter () { # FILE Q3_B01
  { echo "gpufx-iir 1"; echo "mask 3 3"
    echo "q1 a 1.6 -0.35 0 -0.35 0.1 0 0 0 0";  echo "q1 b 1 -0.3 0 -0.3 0.1 0 0 0 0"
    echo "q2 a 1.5 -0.4 0.05 -0.3 0.05 0 0 0 0"; echo "q2 b 1 -0.35 0.05 -0.25 0.05 0 0 0 0"
    echo "q3 a 1.2 -0.1 0 -0.2 0 0 0 0 0";      echo "q3 b 1 $2 0 -0.2 0 0 0 0 0"
    echo "q4 a 1 0 0 0 0 0 0 0 0";              echo "q4 b 1 -0.2 0 -0.2 0.1 0 0 0 0"; } >"$1"
}
filter "$work/good.iir" -0.1
filter "$work/bad.iir" -1.5
call () { echo "($proc RUN-NONINTERACTIVE img drw \"$1\" ${2:-1})"; }

# --- registration -------------------------------------------------------------------------
gimp_batch "$work/reg.log" "(let ((info (gimp-procedural-db-proc-info \"$proc\")))
  (gimp-message (string-append \"nargs=\" (number->string (list-ref info 6))))
  (gimp-message (string-append \"arg=\" (cadr (gimp-procedural-db-proc-arg \"$proc\" 3))))
  (gimp-message (string-append \"arg=\" (cadr (gimp-procedural-db-proc-arg \"$proc\" 4)))))"
batch_ok deblur-registered "$work/reg.log" $? \
  && { args=$(grep -o 'arg=[a-z0-9-]*' "$work/reg.log" | tr '\n' ' ')
       [ "$(grep -o 'nargs=[0-9]*' "$work/reg.log")" = nargs=5 ] \
         && [ "$args" = "arg=filter-file arg=backend " ] && pass deblur-pdb-arguments \
         || fail deblur-pdb-arguments "got $(grep -o 'nargs=[0-9]*' "$work/reg.log") $args"; }
grep -q '"<Image>/Filters/Enhance"' "$GIMP2_DIRECTORY/pluginrc" && pass deblur-menu-place \
  || fail deblur-menu-place "no <Image>/Filters/Enhance in pluginrc"

# --- precisions and layouts against the CLI ----------------------------------------------
files=(gray8.png rgba8.png gray16.png rgb16.png grayf.tif rgbf.tif)
schemes=()
for f in "${files[@]}"; do
  schemes+=("$(scm_run "$f" "gimp-$f" "$(call "$work/good.iir")")")
  "$cli" deblur "$work/$f" "$work/cli-$f" --filter "$work/good.iir" --backend cpu --quiet \
    || fail "deblur-cli-$f" "gpufx deblur failed"
done
gimp_batch "$work/prec.log" "${schemes[@]}"
if batch_ok deblur-precisions-batch "$work/prec.log" $?; then
  for f in "${files[@]}"; do
    compare_images "deblur-$f-equals-cli" "$work/gimp-$f" "$work/cli-$f"
  done
  check_images deblur-rgba8-alpha-kept alpha "$work/gimp-rgba8.png" "$work/rgba8.png"
  "$py" - "$work/gimp-gray8.png" "$work/gray8.png" <<'PY' && pass deblur-gray8-changed \
    || fail deblur-gray8-changed "the plug-in changed nothing: the comparison proves little"
import sys, cv2
a, b = (cv2.imread(p, cv2.IMREAD_UNCHANGED) for p in sys.argv[1:3])
sys.exit(0 if (a != b).sum() > 50 else 1)
PY
fi

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
