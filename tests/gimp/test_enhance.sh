#!/bin/bash
# plug-in-gpufx-local-enhance in real GIMP batch mode (throwaway profile): registration
# (SPEC section 4 argument order, menu place), every precision and layout against
# `gpufx enhance --backend cpu` (identical samples), luminance and per-channel modes, both
# rules, a window larger than the image, the mask layer against --mask-out, and bad
# parameters refused with a message naming the parameter.
source "$(dirname "$0")/lib.sh"
batch_setup gimp/enhance
proc=plug-in-gpufx-local-enhance
# call GAIN K0 K1 K2 K3 RULE WINDOW PER-CHANNEL MASK-LAYER BACKEND
call () { echo "($proc RUN-NONINTERACTIVE img drw $*)"; }
# cli_of the same values: IN OUT GAIN K0 K1 K2 K3 RULE WINDOW PER-CHANNEL
cli_run () {
  local in=$1 out=$2 rules=(3rd 4th); shift 2
  local pc=(); [ "$8" = 1 ] && pc=(--per-channel)
  "$cli" enhance "$in" "$out" --backend cpu --quiet --gain "$1" --k0 "$2" --k1 "$3" \
    --k2 "$4" --k3 "$5" --rule "${rules[$6]}" --window "$7" "${pc[@]}" "${@:9}"
}

# --- registration -------------------------------------------------------------------------
check_registration enhance "$proc" "<Image>/Filters/Enhance" gain k0 k1 k2 k3 rule window \
  per-channel mask-layer backend

# --- precisions, layouts, modes and rules against the CLI --------------------------------
# name file gain k0 k1 k2 k3 rule window per-channel (mask-layer 0, backend cpu)
case_call () { call "$@" 0 1; }
case_cli () { cli_run "$@"; }
against_cli enhance "gray8 gray8.png 4 1.0 0.02 0.8 0.4 0 5 0" \
  "rgba8 rgba8.png 2.5 1.0 0.02 0.8 0.4 0 3 0" "gray16 gray16.png 4 1.0 0.02 0.8 0.4 0 101 0" \
  "rgb16 rgb16.png 3 1.0 0.02 0.8 0.4 0 7 1" "grayf grayf.tif 4 1.0 0.02 0.8 0.4 0 9 0" \
  "rgbf rgbf.tif 2 0.1 0.9 0.05 1.0 1 5 0" "gray8-k-unbounded gray8.png 4 25 0.02 1e300 0.4 0 5 0"

# --- the mask layer: a new layer equal to the CLI's --mask-out -----------------------------
mask_scm="(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"rgba8.png\" \"rgba8.png\")))
       (drw (car (gimp-image-get-active-drawable img))))
  $(call 2.5 1.0 0.02 0.8 0.4 0 3 0 1 1)
  (gimp-message (string-append \"layers=\" (number->string (car (gimp-image-get-layers img)))))
  (gimp-message (if (= (car (gimp-image-get-active-drawable img)) drw) \"active=filtered\" \"active=other\"))
  (gimp-file-save RUN-NONINTERACTIVE img (aref (cadr (gimp-image-get-layers img)) 0) \"mask.png\" \"mask.png\")
  (gimp-image-delete img))"
gimp_batch "$work/mask.log" "$mask_scm"
if batch_ok enhance-mask-layer-batch "$work/mask.log" $?; then
  grep -q 'layers=2' "$work/mask.log" && pass enhance-mask-layer-added \
    || fail enhance-mask-layer-added "$(grep -o 'layers=[0-9]*' "$work/mask.log")"
  # The filtered layer stays active, so Repeat (Ctrl+F) filters it again, not the mask.
  grep -q 'active=filtered' "$work/mask.log" && pass enhance-mask-layer-keeps-active \
    || fail enhance-mask-layer-keeps-active "$(grep -o 'active=[a-z]*' "$work/mask.log")"
  cli_run "$work/rgba8.png" "$work/cli-m-out.png" 2.5 1.0 0.02 0.8 0.4 0 3 0 --mask-out "$work/cli-mask.png"
  why=$("$py" - "$work/mask.png" "$work/cli-mask.png" <<'PY'
import sys, cv2
g, c = (cv2.imread(p, cv2.IMREAD_UNCHANGED) for p in sys.argv[1:3])
g = g if g.ndim == 2 else g[..., 0]
if g.shape != c.shape or (g != c).any() or not (c == 255).any():
    sys.exit(f"mask layer {g.shape} vs --mask-out {c.shape}: {(g != c).sum() if g.shape == c.shape else '-'} differ, {(c == 255).sum()} enhanced")
PY
) && pass enhance-mask-layer-equals-cli || fail enhance-mask-layer-equals-cli "$why"
fi

# --- the mask layer under a feathered ellipse selection: decision x coverage -------------
# Image a: plasma, a feathered ellipse.  Image b: the same pixels with a rectangle on the
# ellipse's bounding box, so the same region and its decision d with coverage 1.  a's mask
# must be d times the selection (the pixels GIMP's merge changed, and by how much): black
# outside the ellipse.  Both the selection and the mask are exported through GIMP's own
# conversion of linear coverage, so where d fired they must match sample for sample.
sel_scm="(let* ((a (car (gimp-image-new 64 64 RGB)))
       (drw (car (gimp-layer-new a 64 64 RGB-IMAGE \"bg\" 100 LAYER-MODE-NORMAL))))
  (gimp-image-insert-layer a drw 0 0)
  (plug-in-plasma RUN-NONINTERACTIVE a drw 7 1.0)
  (let* ((b (car (gimp-image-duplicate a)))
         (bdrw (car (gimp-image-get-active-drawable b))))
    (gimp-context-set-feather TRUE)
    (gimp-context-set-feather-radius 8 8)
    (gimp-image-select-ellipse a CHANNEL-OP-REPLACE 0 0 48 40)
    (gimp-context-set-feather FALSE)
    (let* ((box (cdr (gimp-selection-bounds a)))
           (x1 (car box)) (y1 (cadr box)) (x2 (caddr box)) (y2 (cadddr box)))
      (gimp-message (string-append \"box=\" (number->string x1) \" \" (number->string y1)
                                   \" \" (number->string (- x2 x1)) \" \" (number->string (- y2 y1))))
      (gimp-image-select-rectangle b CHANNEL-OP-REPLACE x1 y1 (- x2 x1) (- y2 y1)))
    (let ((sel (car (gimp-image-get-selection a))))
      (file-png-save RUN-NONINTERACTIVE a sel \"sel.png\" \"sel.png\" 0 9 0 0 0 0 0))
    (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE a drw 4.0 1.0 0.02 0.8 0.0 0 3 0 1 1)
    (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE b bdrw 4.0 1.0 0.02 0.8 0.0 0 3 0 1 1)
    (let ((ma (aref (cadr (gimp-image-get-layers a)) 0))
          (mb (aref (cadr (gimp-image-get-layers b)) 0)))
      (gimp-message (string-append \"offsets=\" (number->string (car (gimp-drawable-offsets ma)))
                                   \" \" (number->string (cadr (gimp-drawable-offsets ma)))))
      (file-png-save RUN-NONINTERACTIVE a ma \"mask-ellipse.png\" \"mask-ellipse.png\" 0 9 0 0 0 0 0)
      (file-png-save RUN-NONINTERACTIVE b mb \"mask-box.png\" \"mask-box.png\" 0 9 0 0 0 0 0))
    (gimp-image-delete b))
  (gimp-image-delete a))"
gimp_batch "$work/mask-sel.log" "$sel_scm"
if batch_ok enhance-mask-selection-batch "$work/mask-sel.log" $?; then
  box=$(grep -o 'box=[0-9 ]*' "$work/mask-sel.log" | cut -d= -f2)
  offsets=$(grep -o 'offsets=[0-9 ]*' "$work/mask-sel.log" | cut -d= -f2)
  why=$("$py" - "$work" $box $offsets <<'PY'
import sys, cv2, numpy as np
work = sys.argv[1]
x, y, w, h, ox, oy = map(int, sys.argv[2:8])
def gray(name):
    g = cv2.imread(f"{work}/{name}", cv2.IMREAD_UNCHANGED)
    return g if g.ndim == 2 else g[..., 0]
sel = gray("sel.png")[y:y + h, x:x + w]
ma, d = gray("mask-ellipse.png"), gray("mask-box.png")
if (ox, oy) != (x, y) or ma.shape != (h, w) or d.shape != (h, w):
    sys.exit(f"mask at {ox},{oy} {ma.shape}, box {x},{y} {w}x{h}")
fired = d == 255
if not (fired & (sel == 0)).any() or not (fired & (sel > 0) & (sel < 255)).any():
    sys.exit("the rule fired nowhere outside or on the edge of the ellipse: the case proves little")
want = np.where(fired, sel, 0)
bad = ma != want
if bad.any():
    yy, xx = np.argwhere(bad)[0]
    sys.exit(f"{bad.sum()} mask pixels are not decision x selection, first at x={xx} y={yy}: "
             f"{ma[yy, xx]}, want {want[yy, xx]} (decision {d[yy, xx]}, selection {sel[yy, xx]})")
PY
) && pass enhance-mask-layer-times-selection || fail enhance-mask-layer-times-selection "$why"
fi

# --- where the mask layer goes: in the drawable's own image, directly above it ------------
# A group holds l2 over l1, a layer "top" over the group is active.  l1 is run with another
# image as the `image` argument, then l2's layer mask, then a channel (with l1 active: its
# mask layer goes to the top of the image, not into l1's group).  A script that filters a
# layer other than the active one keeps its active layer.
# above IMG ITEM says the name of the item directly above ITEM in its group ("none" at the
# top) and renames it, so that the next mask layer is told apart.
place_scm="(define (above img item)
  (let* ((parent (car (gimp-item-get-parent item)))
         (pos (car (gimp-image-get-item-position img item)))
         (siblings (cadr (if (= parent -1) (gimp-image-get-layers img)
                             (gimp-item-get-children parent)))))
    (if (= pos 0) \"none\"
        (let* ((it (aref siblings (- pos 1))) (name (car (gimp-item-get-name it))))
          (gimp-item-set-name it \"checked\")
          name))))
(let* ((a (car (gimp-image-new 32 32 RGB)))
       (b (car (gimp-image-new 8 8 RGB)))
       (bl (car (gimp-layer-new b 8 8 RGB-IMAGE \"b\" 100 LAYER-MODE-NORMAL)))
       (g (car (gimp-layer-group-new a)))
       (l1 (car (gimp-layer-new a 32 32 RGB-IMAGE \"l1\" 100 LAYER-MODE-NORMAL)))
       (l2 (car (gimp-layer-new a 32 32 RGB-IMAGE \"l2\" 100 LAYER-MODE-NORMAL)))
       (top (car (gimp-layer-new a 32 32 RGB-IMAGE \"top\" 100 LAYER-MODE-NORMAL)))
       (ch (car (gimp-channel-new a 32 32 \"ch\" 50 '(0 0 0)))))
  (gimp-image-insert-layer b bl 0 0)
  (gimp-image-insert-layer a g 0 0)
  (gimp-image-insert-layer a l2 g 0)
  (gimp-image-insert-layer a l1 g 1)
  (gimp-image-insert-layer a top 0 0)
  (gimp-image-insert-channel a ch 0 0)
  (plug-in-plasma RUN-NONINTERACTIVE a l1 7 1.0)
  (plug-in-plasma RUN-NONINTERACTIVE a l2 8 1.0)
  (gimp-layer-add-mask l2 (car (gimp-layer-create-mask l2 ADD-MASK-COPY)))
  (gimp-image-set-active-layer a top)
  (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE b l1 4.0 1.0 0.02 0.8 0.0 0 3 0 1 1)
  (gimp-message (string-append \"place-other-image=\" (above a l1) \" b-layers=\"
                               (number->string (car (gimp-image-get-layers b)))))
  (gimp-message (string-append \"active-after-other-layer=\"
                               (car (gimp-item-get-name (car (gimp-image-get-active-drawable a))))))
  (gimp-image-set-active-layer a top)
  (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE a (car (gimp-layer-get-mask l2)) 4.0 1.0 0.02 0.8 0.0 0 3 0 1 1)
  (gimp-message (string-append \"place-layer-mask=\" (above a l2)))
  (gimp-message (string-append \"active-after-layer-mask=\"
                               (car (gimp-item-get-name (car (gimp-image-get-active-drawable a))))))
  (gimp-image-set-active-layer a l1)
  (let ((before (car (gimp-image-get-layers a))))
    (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE a ch 4.0 1.0 0.02 0.8 0.0 0 3 0 1 1)
    (gimp-message (string-append \"place-channel=\" (car (gimp-item-get-name
                                   (aref (cadr (gimp-image-get-layers a)) 0)))
                                 \" top-level-added=\" (number->string
                                   (- (car (gimp-image-get-layers a)) before)))))
  (gimp-image-delete b)
  (gimp-image-delete a))"
gimp_batch "$work/place.log" "$place_scm"
if batch_ok enhance-mask-place-batch "$work/place.log" $?; then
  for want in "place-other-image=Local enhance mask b-layers=1" "place-layer-mask=Local enhance mask" \
              "place-channel=Local enhance mask top-level-added=1" \
              "active-after-other-layer=top" "active-after-layer-mask=top"; do
    name=enhance-mask-${want%%=*}
    grep -qF "$want" "$work/place.log" && pass "$name" \
      || fail "$name" "$(grep -o "${want%%=*}=.*" "$work/place.log"), want $want"
  done
fi

# --- bad parameters -------------------------------------------------------------------------
bad=("0 0.4 0.02 0.4 0.4 0 3 0 0 1" "4 0.4 0.02 0.4 0.4 0 4 0 0 1" "4 0.4 0.5 0.4 0.4 0 3 0 0 1"
     "4 0.4 0.02 0.4 0.4 1 3 0 0 1" "4 0.4 0.02 0.4 0.4 0 257 0 0 1" "4 0.4 0.02 0.4 -1 0 3 0 0 1"
     "4 0.4 0.02 0.4 0.4 0 3 0 0 3")
schemes=()
for b in "${bad[@]}"; do schemes+=("$(scm_run gray8.png bad.png "$(call $b)")"); done
gimp_batch "$work/bad.log" "${schemes[@]}"
n=$(grep -c 'batch command experienced an execution error' "$work/bad.log")
[ "$n" -eq ${#bad[@]} ] && pass enhance-bad-all-refused \
  || fail enhance-bad-all-refused "$n of ${#bad[@]} calls refused"
batch_error enhance-bad-gain "$work/bad.log" 0 'gain = 0 .*more than 0, up to 64'
batch_error enhance-bad-window-even "$work/bad.log" 0 'window = 4 .*odd'
batch_error enhance-bad-k1-above-k2 "$work/bad.log" 0 'k1 = 0.5 .*k1 <= k2'
batch_error enhance-bad-4th-k0-above-k1 "$work/bad.log" 0 'k0 = 0.4 .*k0 <= k1'
batch_error enhance-bad-window-large "$work/bad.log" 0 'window = 257 .*3 to 255'
batch_error enhance-bad-k3 "$work/bad.log" 0 'k3 = -1 .*0 or more'
batch_error enhance-bad-backend "$work/bad.log" 0 'backend = 3 .*auto .*cpu .*gpu'
