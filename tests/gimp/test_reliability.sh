#!/bin/bash
# Reliability of the PDB procedures in real GIMP batch mode (issue 8): every parameter of
# every procedure just outside its range (and NaN/inf for the FLOAT ones) is a calling or
# execution error that names the parameter, and the image stays exactly as it was; bad
# filter files (missing, a folder, a fifo, malformed, unstable); a selection that does not
# meet the layer; indexed images; a cancel (GPUFX_TEST_CANCEL hook) leaves the image
# untouched; Cancel pressed in the dialog in the middle of a long run (Xvfb) too.
# Each procedure's bad calls run in one script wrapped in (catch ...), so the image that is
# saved at the end has been through all of them.
source "$(dirname "$0")/lib.sh"
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then  # the dialog part needs X
  exec xvfb-run -n "${GPUFX_XVFB_FIRST:-99}" -a -s '-screen 0 1280x1024x24' bash "$0" "$@"
fi
gimp_setup gimp/reliability
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
mkdir "$work/folder.iir"; mkfifo "$work/fifo.iir"
printf 'gpufx-iir 1\nmask 1 1\nq1 a 1\nq1 b 1\nq2 a 1\nq2 b 2\n' >"$work/bad.iir"
{ echo 'gpufx-iir 1'; echo 'mask 1 2'; for q in 1 2 3 4; do echo "q$q a 1 0"; echo "q$q b 1 -2"; done; } >"$work/unstable.iir"
long_path='(make-string 5000 #\d)' # Script-Fu reads no string literal that long
NAN='(- (exp 1000.0) (exp 1000.0))'
INF='(exp 1000.0)'

# bad_calls NAME PROC "ARGS" REGEX ["ARGS" REGEX]...: one GIMP session runs PROC with each
# ARGS on gray8.png inside catch, saves the image; every REGEX must be reported, one error
# per call, and the saved image must equal the input.
bad_calls () {
  local name=$1 proc=$2; shift 2
  local calls="" regexes=() n=0
  while [ $# -ge 2 ]; do
    calls+="(catch #f ($proc RUN-NONINTERACTIVE img drw $1))"$'\n'
    regexes+=("$2"); n=$((n + 1)); shift 2
  done
  gimp_batch "$work/$name.log" "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"gray8.png\" \"gray8.png\")))
       (drw (car (gimp-image-get-active-drawable img))))
  $calls
  (gimp-file-save RUN-NONINTERACTIVE img drw \"$name.png\" \"$name.png\")
  (gimp-image-delete img))"
  local rc=$? re got
  if [ $rc -ne 0 ]; then fail "$name" "GIMP exited with $rc"; return; fi
  got=$(grep -cE 'Calling error for procedure|execution error for procedure|Procedure execution of' "$work/$name.log")
  [ "$got" -eq "$n" ] && pass "$name: $n bad calls, $n errors" \
    || fail "$name: $n bad calls, $n errors" "$got errors: $(grep -A1 -E 'GIMP-Error' "$work/$name.log" | head -6 | tr '\n' ' ')"
  if grep -qE 'crashed|Segmentation|terminated|GIMP-Critical' "$work/$name.log"; then
    fail "$name: no crash" "$(grep -E 'crashed|Segmentation|terminated|Critical' "$work/$name.log" | head -2)"
  else
    pass "$name: no crash"
  fi
  for re in "${regexes[@]}"; do
    grep -qE -- "$re" "$work/$name.log" && pass "$name: message /$re/" \
      || fail "$name: message /$re/" "not in the log: $(grep -A1 'GIMP-Error' "$work/$name.log" | head -4 | tr '\n' ' ')"
  done
  check_images "$name: image unchanged after the failed calls" same "$work/$name.png" "$work/gray8.png"
}

bad_calls bad-halftone plug-in-gpufx-halftone \
  "-1 2 0 0 -1" 'kernel = -1 .*fs' "8 2 0 0 -1" 'kernel = 8 .*atkinson' \
  "0 1 0 0 -1" 'levels = 1 .*2 to 256' "0 257 0 0 -1" 'levels = 257 .*2 to 256' \
  "0 2 -1 0 -1" 'backend = -1 .*auto' "0 2 3 0 -1" 'backend = 3 .*gpu' \
  "0 2 0 -1 -1" 'block-size = -1 ' "0 2 0 1056 -1" 'block-size = 1056 ' \
  "0 2 0 0 -2" 'margin = -2 .*-1 \(auto\)' "0 2 0 0 1048577" 'margin = 1048577 .*1048576'

bad_calls bad-local-enhance plug-in-gpufx-local-enhance \
  "0 0.4 0.02 0.4 0.4 0 3 0 0 0" 'gain = 0 .*more than 0, up to 64' \
  "64.01 0.4 0.02 0.4 0.4 0 3 0 0 0" 'gain = 64.01 .*more than 0, up to 64' \
  "$NAN 0.4 0.02 0.4 0.4 0 3 0 0 0" "value '-?nan' for argument 'gain'" \
  "$INF 0.4 0.02 0.4 0.4 0 3 0 0 0" "value 'inf' for argument 'gain'" \
  "4 -0.01 0.02 0.4 0.4 0 3 0 0 0" 'k0 = -0.01 .*0 or more' \
  "4 0.4 -1e-300 0.4 0.4 0 3 0 0 0" 'k1 = -1e-300 .*0 or more' \
  "4 0.4 0.02 $NAN 0.4 0 3 0 0 0" "value '-?nan' for argument 'k2'" \
  "4 0.4 0.02 0.4 -1 0 3 0 0 0" 'k3 = -1 .*0 or more' \
  "4 0.4 0.02 0.4 0.4 2 3 0 0 0" 'rule = 2 ' \
  "4 0.4 0.02 0.4 0.4 0 1 0 0 0" 'window = 1 .*3 to 255' \
  "4 0.4 0.02 0.4 0.4 0 257 0 0 0" 'window = 257 .*3 to 255' \
  "4 0.4 0.02 0.4 0.4 0 4 0 0 0" 'window = 4 .*odd' \
  "4 0.4 0.02 0.4 0.4 0 3 2 0 0" 'per-channel = 2 .*0 or 1' \
  "4 0.4 0.02 0.4 0.4 0 3 0 -1 0" 'mask-layer = -1 .*0 or 1' \
  "4 0.4 0.02 0.4 0.4 0 3 0 0 3" 'backend = 3 .*gpu'

bad_calls bad-iir-deblur plug-in-gpufx-iir-deblur \
  '"" 0' 'filter' \
  "\"$work/missing.iir\" 0" 'missing.iir.*(No such file|cannot be read)' \
  "\"$work/folder.iir\" 0" 'folder.iir.*(not a regular file|cannot be read)' \
  "\"$work/fifo.iir\" 0" 'fifo.iir.*not a regular file' \
  "\"$work/bad.iir\" 0" 'bad.iir:6: .*b\(0,0\) must be 1' \
  "\"$work/unstable.iir\" 0" 'unstable.iir.* unstable' \
  "\"$work/unstable.iir\" 3" 'backend = 3 .*gpu' \
  "$long_path 0" 'filter-file: the file name is too long \(5000 bytes; at most 4095\)'

bad_calls bad-iir-identify plug-in-gpufx-iir-identify \
  "-1 0 3 0 \"$work/never.iir\"" 'mask-rows = 0 .*1 to 7' \
  "-1 8 3 0 \"$work/never.iir\"" 'mask-rows = 8 .*1 to 7' \
  "-1 3 0 0 \"$work/never.iir\"" 'mask-cols = 0 .*1 to 7' \
  "-1 3 8 0 \"$work/never.iir\"" 'mask-cols = 8 .*1 to 7' \
  "-1 3 3 2 \"$work/never.iir\"" 'method = 2 .*ls' \
  "-1 3 3 0 \"\"" 'filter-file' \
  "-1 3 3 0 \"$work/no/such/dir/f.iir\"" 'iir-identify' \
  "-1 3 3 0 $long_path" 'filter-file: the file name is too long \(5000 bytes'
[ -e "$work/never.iir" ] && fail "identify: no filter file after bad calls" "written" \
  || pass "identify: no filter file after bad calls"

# A selection that does not meet the drawable: a 40 x 30 layer at (0, 0) of a 200 x 150
# image and a rectangle selected at (120, 90).  ("No selection" means the whole layer.)
for proc in "plug-in-gpufx-halftone|0 2 0 0 -1" "plug-in-gpufx-local-enhance|4 0.4 0.02 0.4 0.4 0 3 0 0 0"; do
  name=${proc%%|*}; args=${proc#*|}
  gimp_batch "$work/sel.log" "(let* ((img (car (gimp-image-new 200 150 RGB)))
       (bg (car (gimp-layer-new img 200 150 RGB-IMAGE \"bg\" 100 LAYER-MODE-NORMAL)))
       (drw (car (gimp-layer-new img 40 30 RGB-IMAGE \"small\" 100 LAYER-MODE-NORMAL))))
  (gimp-image-insert-layer img bg 0 0)
  (gimp-image-insert-layer img drw 0 0)
  (gimp-drawable-fill drw FILL-WHITE)
  (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 120 90 30 30)
  ($name RUN-NONINTERACTIVE img drw $args)
  (gimp-image-delete img))"
  batch_error "$name: selection outside the layer refused" "$work/sel.log" $? 'selection|select'
done

# A NaN sample is named where the pointer shows it, on the canvas: layer (7, 3) of a layer
# at offset (3, 4), inside a selection from (8, 5), is pixel (10, 7), not (7, 3) of the layer
# nor (2, 2) of the selected area.
gimp_batch "$work/nan.log" "(let* ((img (car (gimp-image-new 40 30 RGB)))
       (drw (car (gimp-layer-new img 30 20 RGB-IMAGE \"l\" 100 LAYER-MODE-NORMAL))))
  (gimp-image-insert-layer img drw 0 0)
  (gimp-image-convert-precision img PRECISION-FLOAT-GAMMA)
  (set! drw (car (gimp-image-get-active-drawable img)))
  (gimp-layer-set-offsets drw 3 4)
  (gimp-drawable-set-pixel drw 7 3 12 #(0 0 192 127 0 0 0 0 0 0 0 0))
  (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 8 5 10 10)
  (plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 0 0 -1)
  (gimp-image-delete img))"
batch_error "a NaN sample named at its canvas position" "$work/nan.log" $? \
  'pixel \(10, 7\) channel 0 = -?nan'

# A layer a script made but never added to its image: GIMP refuses it, and the message says
# why (it said the selection did not meet the layer, with no selection at all).
gimp_batch "$work/detached.log" "(let* ((img (car (gimp-image-new 40 30 RGB)))
       (drw (car (gimp-layer-new img 40 30 RGB-IMAGE \"x\" 100 LAYER-MODE-NORMAL))))
  (plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 0 0 -1)
  (gimp-image-delete img))"
batch_error "a layer not added to its image: said so" "$work/detached.log" $? \
  'failed: GIMP cannot use this drawable .*gimp-image-insert-layer' \
  && ! grep -q 'selection does not intersect' "$work/detached.log" \
  || fail "a layer not added to its image: not called a selection" "$(grep -A1 'execution error' "$work/detached.log" | tr '\n' ' ')"

# A run-mode out of range (it ran with the last values) and a drawable number that never
# named one (it was called "gone"): refused, each naming what is wrong; image unchanged.
gimp_batch "$work/modes.log" "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"gray8.png\" \"gray8.png\")))
       (drw (car (gimp-image-get-active-drawable img))))
  (catch #f (plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 0 0 -1))
  (catch #f (plug-in-gpufx-halftone 7 img drw 0 2 0 0 -1))
  (catch #f (plug-in-gpufx-local-enhance -1 img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0))
  (catch #f (plug-in-gpufx-halftone RUN-NONINTERACTIVE img -1 0 2 0 0 -1))
  (catch #f (plug-in-gpufx-iir-identify 5 img drw -1 3 3 0 \"modes.iir\"))
  (gimp-file-save RUN-NONINTERACTIVE img drw \"modes.png\" \"modes.png\")
  (gimp-image-delete img))"
for re in 'run-mode 7: 0 \(RUN-INTERACTIVE\), 1 \(RUN-NONINTERACTIVE\) or 2' 'run-mode -1: 0 ' \
          'run-mode 5: 0 ' \
          'drawable -1: no layer, layer mask or channel has this number'; do
  grep -qE -- "$re" "$work/modes.log" && pass "bad run-mode or drawable: message /$re/" \
    || fail "bad run-mode or drawable: message /$re/" "$(grep -A1 'GIMP-Error' "$work/modes.log" | head -6 | tr '\n' ' ')"
done
"$build/gpufx" halftone "$work/gray8.png" "$work/modes-cli.png" --backend cpu --quiet
check_images "bad run-mode or drawable: only the good call changed the image" same \
  "$work/modes.png" "$work/modes-cli.png"

# Indexed images: a clear error from every procedure, the image unchanged.
gimp_batch "$work/indexed.log" "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"rgba8.png\" \"rgba8.png\")))
       (drw (car (gimp-image-get-active-drawable img))))
  (gimp-layer-flatten drw) ; GIMP's PNG export leaves garbage colours under alpha 0
  (gimp-image-convert-indexed img CONVERT-DITHER-NONE CONVERT-PALETTE-GENERATE 16 FALSE FALSE \"\")
  (gimp-file-save RUN-NONINTERACTIVE img drw \"indexed-before.png\" \"indexed-before.png\")
  (catch #f (plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 0 0 -1))
  (catch #f (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0))
  (catch #f (plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img drw \"$work/unstable.iir\" 0))
  (catch #f (plug-in-gpufx-iir-identify RUN-NONINTERACTIVE img drw -1 3 3 0 \"$work/idx1.iir\"))
  (let* ((rgb (car (gimp-file-load RUN-NONINTERACTIVE \"rgba8.png\" \"rgba8.png\"))))
    ; an RGB blurred layer with the indexed one as its sharp reference
    (catch #f (plug-in-gpufx-iir-identify RUN-NONINTERACTIVE rgb
                (car (gimp-image-get-active-drawable rgb)) drw 3 3 0 \"$work/idx2.iir\"))
    (gimp-image-delete rgb))
  (gimp-file-save RUN-NONINTERACTIVE img drw \"indexed-after.png\" \"indexed-after.png\")
  (gimp-image-delete img))"
n=$(grep -ciE 'indexed.*not supported|not supported.*indexed' "$work/indexed.log")
[ "$n" -eq 5 ] && [ ! -e "$work/idx1.iir" ] && [ ! -e "$work/idx2.iir" ] \
  && pass "indexed image (or sharp reference): a clear error from each of 5 calls, no filter written" \
  || fail "indexed image (or sharp reference): a clear error from each of 5 calls, no filter written" "$n: $(grep -A1 GIMP-Error "$work/indexed.log" | head -10 | tr '\n' ' ')"
check_images "indexed image unchanged" same "$work/indexed-after.png" "$work/indexed-before.png"

# Pixels GIMP will not let a filter change: a layer group, a layer in a pixel-locked group,
# a pixel-locked layer and the mask of one.  Every procedure that writes (the dialog one
# too: it must be refused before the dialog opens; a dialog that opens anyway is cancelled
# after 5 s and gives no message) must say why, and leave every layer and the mask as they were.
test_filter "$work/good.iir" -0.1
unchangeable () { # DRAWABLE: the three writing procedures on it, each inside catch
  echo "(catch #f (plug-in-gpufx-halftone RUN-NONINTERACTIVE img $1 0 2 1 0 -1))
  (catch #f (plug-in-gpufx-local-enhance RUN-INTERACTIVE img $1 4 1.0 0.02 0.8 0.4 0 5 0 0 1))
  (catch #f (plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img $1 \"$work/good.iir\" 1))"
}
save_items () { # SUFFIX
  local item
  for item in bg inner msk; do
    echo "(gimp-file-save RUN-NONINTERACTIVE img $item \"locked-$item-$1.png\" \"locked-$item-$1.png\")"
  done
}
GPUFX_DIALOG_AUTO_CANCEL=5 gimp_batch "$work/locked.log" "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"rgba8.png\" \"rgba8.png\")))
       (bg (car (gimp-image-get-active-drawable img)))
       (grp (car (gimp-layer-group-new img)))
       (inner (car (gimp-layer-copy bg TRUE)))
       (msk (car (gimp-layer-create-mask bg ADD-MASK-ALPHA-TRANSFER))))
  (gimp-image-insert-layer img grp 0 0)
  (gimp-image-insert-layer img inner grp 0)
  (gimp-layer-add-mask bg msk)
  $(save_items before)
  $(unchangeable grp)
  (gimp-item-set-lock-content grp TRUE)
  $(unchangeable inner)
  (gimp-item-set-lock-content bg TRUE)
  $(unchangeable bg)
  (catch #f (plug-in-gpufx-halftone RUN-NONINTERACTIVE img msk 0 2 1 0 -1))
  $(save_items after)
  (gimp-image-delete img))"
groups=$(grep -c 'A layer group cannot be filtered' "$work/locked.log")
locked=$(grep -c 'The pixels are locked' "$work/locked.log")
[ "$groups" -eq 3 ] && [ "$locked" -eq 7 ] \
  && pass "layer group (3 calls) and locked pixels (7 calls): each refused with its reason" \
  || fail "layer group (3 calls) and locked pixels (7 calls): each refused with its reason" \
       "$groups group and $locked locked messages: $(grep -A1 GIMP-Error "$work/locked.log" | head -8 | tr '\n' ' ')"
! grep -q 'gimp-drawable-merge-shadow' "$work/locked.log" && pass "no write was attempted on them" \
  || fail "no write was attempted on them" "$(grep -A1 merge-shadow "$work/locked.log" | head -2 | tr '\n' ' ')"
for item in bg inner msk; do
  check_images "locked: $item unchanged" same "$work/locked-$item-after.png" "$work/locked-$item-before.png"
done

# RUN-INTERACTIVE where no display can be opened (gimp-console with DISPLAY unset): each
# dialog procedure returns an execution error saying so (GTK used to exit the plug-in,
# "Plug-in crashed"), and the image is unchanged.
interactive_calls="(catch #f (plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 1 0 -1))
  (catch #f (plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 1))
  (catch #f (plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw \"$work/good.iir\" 1))"
(unset DISPLAY; gimp_batch "$work/nodisplay.log" "$(scm_run gray8.png nodisplay.png "$interactive_calls")")
n=$(grep -c 'cannot open a display.*RUN-NONINTERACTIVE' "$work/nodisplay.log")
if [ "$n" -eq 3 ] && ! grep -qE 'crashed|Segmentation|terminated' "$work/nodisplay.log"; then
  pass "no display: RUN-INTERACTIVE is an error that says so (3 procedures), no crash"
else
  fail "no display: RUN-INTERACTIVE is an error that says so (3 procedures), no crash" \
    "$n messages: $(grep -m2 -E 'crashed|GIMP-Error' -A1 "$work/nodisplay.log" | tr '\n' ' ')"
fi
check_images "no display: image unchanged" same "$work/nodisplay.png" "$work/gray8.png"

# Cancel: the GPUFX_TEST_CANCEL hook cancels the run through the same flag as the Cancel
# button; the procedure ends as cancelled and the drawable is untouched.
GPUFX_TEST_CANCEL=1 gimp_batch "$work/cancel.log" \
  "$(scm_run rgb16.png cancel-halftone.png '(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 1 0 -1)')" \
  "$(scm_run rgb16.png cancel-enhance.png '(plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 31 1 1 1)')"
if grep -qE 'crashed|Segmentation|terminated' "$work/cancel.log"; then fail cancel-no-crash "$(grep -E 'crashed|terminated' "$work/cancel.log" | head -1)"; fi
check_images "cancelled halftone leaves the image untouched" same "$work/cancel-halftone.png" "$work/rgb16.png"
check_images "cancelled local enhance leaves the image untouched" same "$work/cancel-enhance.png" "$work/rgb16.png"

# Cancel pressed in the dialog while OK's run is in progress (GPUFX_DIALOG_AUTO_OK then
# GPUFX_DIALOG_AUTO_CANCEL): a 7x7 deblur of 5000 x 5000 RGB on the CPU takes several
# seconds (2400 x 2400 became too fast once the CPU path was vectorised), so Cancel lands
# in the middle; the image must come back untouched.  The last values (the
# filter file, backend cpu) come from a batch run on a small image in the same session.
if [ -n "${DISPLAY:-}" ]; then
  "$py" - "$work" <<'PY'
import sys, numpy as np, cv2
d = sys.argv[1]
cv2.imwrite(d + "/big.png", np.random.default_rng(3).integers(0, 256, (5000, 5000, 3), dtype=np.uint8))
a, b = [0.02] * 49, [1] + [0.001] * 48
with open(d + "/slow.iir", "w") as f:
    f.write("gpufx-iir 1\nmask 7 7\n" + "".join(
        f"q{q} a {' '.join(map(str, a))}\nq{q} b {' '.join(map(str, b))}\n" for q in range(1, 5)))
PY
  start=$SECONDS
  GPUFX_DIALOG_AUTO_OK=1 GPUFX_DIALOG_AUTO_CANCEL=3 gimp_batch "$work/dlg.log" \
    "$(scm_run gray8.png discard.png "(plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img drw \"$work/slow.iir\" 1)")" \
    "$(scm_run big.png dlg-cancel.png '(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 0)')"
  rc=$?
  if [ $rc -ne 0 ] || grep -qE 'crashed|Segmentation|terminated' "$work/dlg.log"; then
    fail "dialog: Cancel during the run" "GIMP rc $rc: $(grep -E 'Error|crashed' "$work/dlg.log" | head -2 | tr '\n' ' ')"
  else
    check_images "dialog: Cancel during a long run leaves the image untouched ($((SECONDS - start)) s)" \
      same "$work/dlg-cancel.png" "$work/big.png"
  fi
else
  skip "dialog: Cancel during the run" "no X server and no xvfb-run"
fi

# Out of memory where the drawable's precision is not the core's: a double-precision
# drawable's result needs two buffers of 8 bytes a sample besides the core's images.  With
# that allocation failing (tests/support/fail_malloc_size.c, in the plug-in only) the run
# must fail with the reason, not crash, and leave the image as it was.
if ldd "$build/gpufx-halftone" | grep -q libasan; then
  skip "out of memory in the drawable's precision" "the ASan runtime owns malloc here"
elif cc -shared -fPIC -O2 "$top/tests/support/fail_malloc_size.c" -o "$work/failmalloc.so"; then
  w=1237 h=611
  GPUFX_TEST_FAIL_MALLOC=$((w * h * 8)) LD_PRELOAD="$work/failmalloc.so" gimp_batch "$work/oom.log" \
    "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"gray16.png\" \"gray16.png\")))
            (drw (car (gimp-image-get-active-drawable img))))
       (gimp-image-scale img $w $h)
       (gimp-layer-flatten drw)
       (gimp-image-convert-precision img PRECISION-DOUBLE-GAMMA)
       (gimp-file-save RUN-NONINTERACTIVE img drw \"oom-before.tif\" \"oom-before.tif\")
       (catch #f (plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 1 0 -1))
       (gimp-file-save RUN-NONINTERACTIVE img drw \"oom-after.tif\" \"oom-after.tif\")
       (gimp-image-delete img))"
  rc=$?
  if [ $rc -ne 0 ] || grep -qE 'crashed|Segmentation|terminated' "$work/oom.log"; then
    fail "out of memory in the drawable's precision: the reason, no crash" \
      "GIMP rc $rc: $(grep -E 'Error|crashed|terminated' "$work/oom.log" | head -2 | tr '\n' ' ')"
  elif ! grep -q "error for procedure 'plug-in-gpufx-halftone'" "$work/oom.log" \
       || ! grep -q "out of memory for the result in the drawable's precision" "$work/oom.log"; then
    fail "out of memory in the drawable's precision: the reason, no crash" \
      "no such error: $(tail -3 "$work/oom.log" | tr '\n' ' ')"
  else
    pass "out of memory in the drawable's precision: the reason, no crash"
    check_images "out of memory in the drawable's precision: the image is as it was" same \
      "$work/oom-after.tif" "$work/oom-before.tif"
  fi
else
  fail "out of memory in the drawable's precision" "cannot build tests/support/fail_malloc_size.c"
fi

# Undo after a run, a failed run and a cancelled run: test_undo.sh (GIMP with its GUI).
