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
  "rgbf rgbf.tif 2 0.1 0.9 0.05 1.0 1 5 0"

# --- the mask layer: a new layer equal to the CLI's --mask-out -----------------------------
mask_scm="(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"rgba8.png\" \"rgba8.png\")))
       (drw (car (gimp-image-get-active-drawable img))))
  $(call 2.5 1.0 0.02 0.8 0.4 0 3 0 1 1)
  (gimp-message (string-append \"layers=\" (number->string (car (gimp-image-get-layers img)))))
  (gimp-file-save RUN-NONINTERACTIVE img (aref (cadr (gimp-image-get-layers img)) 0) \"mask.png\" \"mask.png\")
  (gimp-image-delete img))"
gimp_batch "$work/mask.log" "$mask_scm"
if batch_ok enhance-mask-layer-batch "$work/mask.log" $?; then
  grep -q 'layers=2' "$work/mask.log" && pass enhance-mask-layer-added \
    || fail enhance-mask-layer-added "$(grep -o 'layers=[0-9]*' "$work/mask.log")"
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
batch_error enhance-bad-gain "$work/bad.log" 0 'gain = 0 .*above 0 to 64'
batch_error enhance-bad-window-even "$work/bad.log" 0 'window = 4 .*odd'
batch_error enhance-bad-k1-above-k2 "$work/bad.log" 0 'k1 = 0.5 .*k1 <= k2'
batch_error enhance-bad-4th-k0-above-k1 "$work/bad.log" 0 'k0 = 0.4 .*k0 <= k1'
batch_error enhance-bad-window-large "$work/bad.log" 0 'window = 257 .*3 to 255'
batch_error enhance-bad-k3 "$work/bad.log" 0 'k3 = -1 .*0 to 10'
batch_error enhance-bad-backend "$work/bad.log" 0 'backend = 3 .*auto .*cpu .*gpu'
