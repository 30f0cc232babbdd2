#!/bin/bash
# plug-in-gpufx-iir-identify in real GIMP batch mode, then plug-in-gpufx-iir-deblur in the
# same script (issue 7): registration (SPEC's arguments, the residual returned), the filter
# files written from a sharp reference layer and from automatic fragments (-1) are the
# CLI's to the last digit, the deblurred layers equal `gpufx deblur`, the result is closer
# to the original than the blurred input, and bad inputs are errors that say why.
source "$(dirname "$0")/lib.sh"
if [ ! -x "$build/gpufx-iir-deblur" ]; then
  skip gimp/identify "$build/gpufx-iir-deblur not built (identify lives in its executable)"
  exit 0
fi
if ! grep -q gfx_identify_pdb_run "$top/plugins/iir-deblur.c" 2>/dev/null; then
  fail identify-wired "plugins/iir-deblur.c does not call gfx_identify_pdb_install/run (see plugins/iir_identify_glue.h)"
  exit 1
fi
gimp_setup gimp/identify
cli=$build/gpufx
"$py" - "$work" <<'PY' || { fail inputs "could not write the inputs"; exit 1; }
import sys, numpy as np
from PIL import Image
from scipy import ndimage
work = sys.argv[1]
sharp = np.asarray(Image.open("/usr/lib/python3/dist-packages/skimage/data/camera.png"))
blur = ndimage.gaussian_filter(sharp.astype(np.float64), 1.2, mode="nearest")
Image.fromarray(sharp).save(f"{work}/sharp.png")
Image.fromarray(np.clip(blur + 0.5, 0, 255).astype(np.uint8)).save(f"{work}/blurred.png")
Image.fromarray(np.full((64, 64), 100, np.uint8)).save(f"{work}/flat.png")
Image.fromarray(np.full((64, 64), 160, np.uint8)).save(f"{work}/flat2.png")
Image.fromarray(np.zeros((40, 50), np.uint8)).save(f"{work}/small.png")
PY

# --- registration: arguments in SPEC order and one return value ----------------------
gimp_batch "$work/reg.log" '(let ((info (gimp-procedural-db-proc-info "plug-in-gpufx-iir-identify")))
  (gimp-message (string-append "nargs=" (number->string (list-ref info 6)) " nret=" (number->string (list-ref info 7))))
  (let loop ((i 3))
    (when (< i 8)
      (gimp-message (string-append "arg=" (cadr (gimp-procedural-db-proc-arg "plug-in-gpufx-iir-identify" i))))
      (loop (+ i 1))))
  (gimp-message (string-append "ret=" (cadr (gimp-procedural-db-proc-val "plug-in-gpufx-iir-identify" 0)))))'
batch_ok identify-registered "$work/reg.log" $? \
  && { args=$(grep -o 'arg=[a-z-]*' "$work/reg.log" | tr '\n' ' ')
       [ "$(grep -o 'nargs=[0-9]* nret=[0-9]*' "$work/reg.log")" = "nargs=8 nret=1" ] \
         && [ "$args" = "arg=sharp-drawable arg=mask-rows arg=mask-cols arg=method arg=filter-file " ] \
         && grep -q 'ret=residual' "$work/reg.log" \
         && pass identify-pdb-arguments || fail identify-pdb-arguments "got $args"; }

# --- identify (reference layer, automatic) then deblur, in one script ----------------
step () { # MODE-ARG FILTER OUT: identify with sharp-drawable MODE-ARG, deblur, export OUT
  cat <<SCM
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE "blurred.png" "blurred.png")))
       (drw (car (gimp-image-get-active-drawable img)))
       (ref (car (gimp-file-load-layer RUN-NONINTERACTIVE img "sharp.png"))))
  (gimp-image-insert-layer img ref 0 -1)
  (gimp-image-set-active-layer img drw)
  (gimp-message (string-append "residual=" (number->string (car
    (plug-in-gpufx-iir-identify RUN-NONINTERACTIVE img drw $1 3 3 0 "$2")))))
  (plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img drw "$2" 1)
  (gimp-file-save RUN-NONINTERACTIVE img drw "$3" "$3")
  (gimp-image-delete img))
SCM
}
gimp_batch "$work/run.log" "$(step ref gimp-ref.iir gimp-ref.png)" \
  "$(step -1 gimp-auto.iir gimp-auto.png)"
if batch_ok identify-then-deblur-batch "$work/run.log" $?; then
  [ "$(grep -c 'residual=0\.0[0-9]*' "$work/run.log")" -eq 2 ] && pass identify-returns-residual \
    || fail identify-returns-residual "$(grep residual= "$work/run.log" | tr '\n' ' ')"
  for mode in ref auto; do
    arg=(--sharp "$work/sharp.png"); [ $mode = auto ] && arg=(--auto)
    "$cli" identify --blurred "$work/blurred.png" "${arg[@]}" --output "$work/cli-$mode.iir" >/dev/null
    "$cli" deblur "$work/blurred.png" "$work/cli-$mode.png" --filter "$work/cli-$mode.iir" \
      --backend cpu --quiet
    if diff <(grep -v '^#' "$work/gimp-$mode.iir") <(grep -v '^#' "$work/cli-$mode.iir") >/dev/null
    then pass "identify-$mode-filter-equals-cli"
    else fail "identify-$mode-filter-equals-cli" "the filter files differ"; fi
    compare_images "identify-$mode-deblur-equals-cli" "$work/gimp-$mode.png" "$work/cli-$mode.png"
    why=$("$py" - "$work/sharp.png" "$work/blurred.png" "$work/gimp-$mode.png" <<'PY'
import sys, numpy as np
from PIL import Image
from skimage.metrics import peak_signal_noise_ratio as psnr
s, b, o = (np.asarray(Image.open(p).convert("L")) for p in sys.argv[1:])
p0, p1 = psnr(s, b), psnr(s, o)
print(f"PSNR {p0:.2f} -> {p1:.2f} dB")
sys.exit(0 if p1 > p0 + 1.0 else 1)
PY
)   && pass "identify-$mode-deblur-closer-to-original ($why)" \
    || fail "identify-$mode-deblur-closer-to-original" "$why"
  done
fi

# --- errors: singular data, sizes that differ, a mask out of range, a moved layer -----
bad () { # IMAGE SHARP-LAYER-FILE ARGS [SCRIPT-FU RUN BEFORE THE CALL]
  cat <<SCM
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE "$1" "$1")))
       (drw (car (gimp-image-get-active-drawable img)))
       (ref (car (gimp-file-load-layer RUN-NONINTERACTIVE img "$2"))))
  (gimp-image-insert-layer img ref 0 -1)
  ${4:-}
  (plug-in-gpufx-iir-identify RUN-NONINTERACTIVE img drw $3 "bad.iir"))
SCM
}
gimp_batch "$work/e1.log" "$(bad flat.png flat2.png 'ref 3 3 0')"
batch_error identify-singular-error "$work/e1.log" $? 'singular'
gimp_batch "$work/e1b.log" "$(bad blurred.png blurred.png 'ref 3 3 0')"
batch_error identify-reference-is-the-blurred-picture "$work/e1b.log" $? 'same picture'
gimp_batch "$work/e2.log" "$(bad blurred.png small.png 'ref 3 3 1')"
batch_error identify-size-mismatch-error "$work/e2.log" $? 'same area'
gimp_batch "$work/e3.log" "$(bad blurred.png sharp.png '-1 8 3 0')"
batch_error identify-mask-range-error "$work/e3.log" $? 'mask-rows' '1 (to|and) 7'
gimp_batch "$work/e4.log" "$(bad blurred.png sharp.png 'ref 3 3 0' '(gimp-layer-set-offsets ref 3 2)')"
batch_error identify-offset-layer-error "$work/e4.log" $? 'at \(3, 2\)' 'same area'
[ ! -e "$work/bad.iir" ] && pass identify-errors-write-nothing \
  || fail identify-errors-write-nothing "bad.iir was written"

# --- last values naming a sharp layer deleted since: only the plug-in's own message ------
# (gimp-item-is-drawable asked about the gone layer made GIMP print a calling error of its
# own, "... out of range", before the plug-in's.)
gimp_batch "$work/gone.log" '(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE "blurred.png" "blurred.png")))
       (drw (car (gimp-image-get-active-drawable img)))
       (ref (car (gimp-file-load-layer RUN-NONINTERACTIVE img "sharp.png"))))
  (gimp-image-insert-layer img ref 0 -1)
  (plug-in-gpufx-iir-identify RUN-NONINTERACTIVE img drw ref 3 3 0 "gone.iir")
  (gimp-image-remove-layer img ref)
  (plug-in-gpufx-iir-identify RUN-WITH-LAST-VALS img drw -1 3 3 0 "gone.iir"))'
if batch_error identify-last-values-sharp-gone "$work/gone.log" $? \
     'sharp-drawable [0-9]+ is not a drawable'; then
  ! grep -q "procedure 'gimp-item-is-drawable'" "$work/gone.log" \
    && pass identify-last-values-sharp-gone-one-message \
    || fail identify-last-values-sharp-gone-one-message "$(grep -m1 'gimp-item-is-drawable' "$work/gone.log")"
fi
