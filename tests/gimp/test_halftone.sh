#!/bin/bash
# plug-in-gpufx-halftone in real GIMP batch mode (throwaway profile): registration, every
# precision and layout against `gpufx halftone --backend cpu` (identical samples), the
# selection (box processed, the rest untouched), last values, bad parameters (the message
# names the parameter and its range), failure and cancel leave the image untouched,
# empty selection and indexed images refused, and a Russian message under LANGUAGE=ru.
# GIMP starts are the slow part: the checks share four GIMP sessions.
source "$(dirname "$0")/lib.sh"
gimp_setup gimp/halftone
cli=$build/gpufx
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
[ -x "$cli" ] || fail cli "$cli missing: comparisons against the CLI will fail"
run_cli () { "$cli" halftone "$@" --backend cpu --quiet; }
call () { echo "(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw $*)"; }

# ---- session 1: everything that must succeed -------------------------------------------
registration='(let ((info (gimp-procedural-db-proc-info "plug-in-gpufx-halftone")))
  (gimp-message (string-append "nargs=" (number->string (list-ref info 6))))
  (let loop ((i 3))
    (when (< i 8)
      (gimp-message (string-append "arg=" (cadr (gimp-procedural-db-proc-arg "plug-in-gpufx-halftone" i))))
      (loop (+ i 1)))))'
# Every precision/layout with different kernels and levels: name file kernel-index cli-kernel levels
cases=("gray8 gray8.png 0 fs 2" "rgba8 rgba8.png 1 jjn 3" "gray16 gray16.png 2 stucki 4"
       "rgb16 rgb16.png 7 atkinson 2" "grayf grayf.tif 4 sierra 3" "rgbf rgbf.tif 3 burkes 2")
schemes=("$registration")
for c in "${cases[@]}"; do
  read -r name file k kname levels <<<"$c"
  schemes+=("$(scm_run "$file" "gimp-$file" "$(call "$k" "$levels" 1 0 -1)")")
  run_cli "$work/$file" "$work/cli-$file" --kernel "$kname" --levels "$levels" \
    || fail "halftone-cli-$name" "gpufx failed"
done
# Automatic backend (GPU when usable, else the CPU with a note): the same pixels.
schemes+=("$(scm_run gray8.png auto.png "$(call 0 2 0 0 -1)")")
# Selection: only its box changes, and the box is halftoned on its own.
schemes+=("$(scm_run gray8.png sel.png "(gimp-image-select-rectangle img CHANNEL-OP-REPLACE 13 9 41 27) $(call 6 2 1 0 -1)")")
# Last values: RUN-WITH-LAST-VALS repeats the previous call's parameters (sierra2, 5).
schemes+=("$(scm_run gray8.png discard.png "$(call 5 5 1 0 -1)")"
          "$(scm_run rgba8.png last.png '(plug-in-gpufx-halftone RUN-WITH-LAST-VALS img drw 0 2 0 0 -1)')")
gimp_batch "$work/ok.log" "${schemes[@]}"
if batch_ok halftone-batch-runs "$work/ok.log" $?; then
  args=$(grep -o 'arg=[a-z-]*' "$work/ok.log" | tr '\n' ' ')
  [ "$(grep -o 'nargs=[0-9]*' "$work/ok.log")" = nargs=8 ] \
    && [ "$args" = "arg=kernel arg=levels arg=backend arg=block-size arg=margin " ] \
    && pass halftone-pdb-arguments || fail halftone-pdb-arguments "got $args"
  for c in "${cases[@]}"; do
    read -r name file k kname levels <<<"$c"
    compare_images "halftone-$name-equals-cli" "$work/gimp-$file" "$work/cli-$file"
  done
  check_images halftone-rgba8-alpha-kept alpha "$work/gimp-rgba8.png" "$work/rgba8.png"
  compare_images halftone-auto-equals-cpu "$work/auto.png" "$work/cli-gray8.png"
  run_cli "$work/gray8-box.png" "$work/cli-box.png" --kernel sierra-lite --levels 2
  compare_images halftone-selection-box-equals-cli "$work/sel.png" "$work/cli-box.png" "13 9 41 27"
  check_images halftone-selection-outside-untouched outside "$work/sel.png" "$work/gray8.png" 13 9 41 27
  run_cli "$work/rgba8.png" "$work/cli-last.png" --kernel sierra2 --levels 5
  compare_images halftone-last-values-used "$work/last.png" "$work/cli-last.png"
fi
rc="$GIMP2_DIRECTORY/pluginrc"
grep -q '"<Image>/Filters/Distorts"' "$rc" && pass halftone-menu-place \
  || fail halftone-menu-place "no <Image>/Filters/Distorts in pluginrc"
grep -q '(locale-def "gimp-gpufx" ".*/plug-ins/gpufx-halftone/locale")' "$rc" \
  && pass halftone-locale-domain || fail halftone-locale-domain "no locale-def beside the binary"

# ---- session 2: refusals: an error naming the parameter and its range, never a crash ----
bad=("0 1 1 0 -1" "0 257 1 0 -1" "8 2 1 0 -1" "0 2 1 33 -1" "0 2 1 0 -2" "0 2 3 0 -1")
outside='(gimp-layer-resize drw 20 20 0 0) (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 50 30 20 20)'
schemes=()
for b in "${bad[@]}"; do schemes+=("$(scm_run gray8.png bad.png "$(call $b)")"); done
schemes+=("$(scm_run gray8.png empty.png "$outside $(call 0 2 1 0 -1)")"
          "$(scm_run rgba8.png indexed.png "(gimp-image-convert-indexed img CONVERT-DITHER-NONE CONVERT-PALETTE-GENERATE 16 FALSE FALSE \"\") $(call 0 2 1 0 -1)")"
          "$(scm_run gray8.png failed.png "(catch #f $(call 0 1 1 0 -1))")")
gimp_batch "$work/bad.log" "${schemes[@]}"
grc=$?
n=$(grep -c 'batch command experienced an execution error' "$work/bad.log")
[ "$n" -eq $((${#bad[@]} + 2)) ] && pass halftone-bad-all-refused \
  || fail halftone-bad-all-refused "$n of $((${#bad[@]} + 2)) calls refused"
batch_error halftone-bad-levels-low "$work/bad.log" $grc 'levels = 1 .*2 to 256'
batch_error halftone-bad-levels-high "$work/bad.log" $grc 'levels = 257 .*2 to 256'
batch_error halftone-bad-kernel "$work/bad.log" $grc 'kernel = 8 .*fs .*atkinson'
batch_error halftone-bad-block-size "$work/bad.log" $grc 'block-size = 33 .*multiple of 32'
batch_error halftone-bad-margin "$work/bad.log" $grc 'margin = -2 .*-1 \(auto\)'
batch_error halftone-bad-backend "$work/bad.log" $grc 'backend = 3 .*auto .*cpu .*gpu'
batch_error halftone-empty-selection-refused "$work/bad.log" $grc 'selection does not intersect'
batch_error halftone-indexed-refused "$work/bad.log" $grc 'Indexed images are not supported'
check_images halftone-failure-untouched same "$work/failed.png" "$work/gray8.png"

# ---- session 3: cancel (GPUFX_TEST_CANCEL cancels as the run starts; Script-Fu carries
# on after a cancelled call, so the export shows whether the drawable changed) -----------
GPUFX_TEST_CANCEL=1 gimp_batch "$work/cancel.log" "$(scm_run rgb16.png cancelled.png "$(call 0 2 1 0 -1)")"
batch_ok halftone-cancel-batch "$work/cancel.log" $? \
  && check_images halftone-cancel-untouched same "$work/cancelled.png" "$work/rgb16.png"

# ---- session 4: translations: the plug-in's own refusal (empty selection) and the core's
# (a parameter out of range, its range text a second message) in Russian; the expected
# core texts are the built catalogue's, formatted here ---------------------------------------
LANGUAGE=ru gimp_batch "$work/ru.log" "$(scm_run gray8.png empty.png "$outside $(call 0 2 1 0 -1)")" \
  "$(scm_run gray8.png bad.png "$(call 0 2 1 33 -1)")" "$(scm_run gray8.png bad.png "$(call 0 1 1 0 -1)")"
grep -q 'Выделение не пересекается со слоем' "$work/ru.log" && pass halftone-message-in-russian \
  || fail halftone-message-in-russian "no Russian message: $(grep -A2 -i error "$work/ru.log" | tr '\n' ' ' | cut -c1-200)"
ru () { TEXTDOMAINDIR="$build/locale" LANGUAGE=ru gettext -d gimp-gpufx "$1"; }
block_en='block-size = %d is not allowed: 0 (auto) or a multiple of 32 from 32 to 1024'
# shellcheck disable=SC2059 # the formats are the catalogue's
block=$(printf "$(ru "$block_en")" 33)
# shellcheck disable=SC2059
levels=$(printf "$(ru '%s = %s is out of range: allowed %s')" levels 1 "$(printf "$(ru '%.0f to %.0f')" 2 256)")
for m in "core-block-size:$block" "core-range-text:$levels"; do
  if [ "${m#*:}" = "$(printf "$block_en" 33)" ] || [[ "${m#*:}" == *"out of range"* ]]; then
    fail "halftone-${m%%:*}-in-russian" "the catalogue has no Russian text: ${m#*:}"
  elif grep -qF -- "${m#*:}" "$work/ru.log"; then
    pass "halftone-${m%%:*}-in-russian"
  else
    fail "halftone-${m%%:*}-in-russian" "expected '${m#*:}'; got $(grep -A2 -i error "$work/ru.log" | tr '\n' ' ' | cut -c1-300)"
  fi
done

# ---- session 5: a layer mask and a channel are drawables like a layer: each result equals
# the CLI on the values they stored before the run.  A layer mask is stored linear ("Y u8")
# even in an 8-bit perceptual image, and every export converts it to Y', which 8 bits
# cannot undo near white; so a 16-bit copy of it is exported, and its stored bytes are
# recovered in Python (each within 0.02 of a whole number; 0.004 seen) ------------------
gimp_batch "$work/masks.log" "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"gray8.png\" \"gray8.png\")))
       (drw (car (gimp-image-get-active-drawable img)))
       (channel (car (gimp-channel-new-from-component img GRAY-CHANNEL \"copy\"))))
  (gimp-layer-add-alpha drw)
  (let ((mask (car (gimp-layer-create-mask drw ADD-MASK-COPY))))
    (gimp-layer-add-mask drw mask)
    (gimp-image-insert-channel img channel 0 0)
    (let* ((copy (car (gimp-image-duplicate img)))
           (copy-mask (car (gimp-layer-get-mask (vector-ref (cadr (gimp-image-get-layers copy)) 0)))))
      (gimp-image-convert-precision copy PRECISION-U16-GAMMA)
      (gimp-file-save RUN-NONINTERACTIVE copy copy-mask \"mask-before16.png\" \"mask-before16.png\")
      (gimp-image-delete copy))
    (gimp-file-save RUN-NONINTERACTIVE img channel \"channel-before.png\" \"channel-before.png\")
    $(call 0 2 1 0 -1 | sed 's/ drw / mask /')
    $(call 4 3 1 0 -1 | sed 's/ drw / channel /')
    (gimp-file-save RUN-NONINTERACTIVE img mask \"mask-after.png\" \"mask-after.png\")
    (gimp-file-save RUN-NONINTERACTIVE img channel \"channel-after.png\" \"channel-after.png\"))
  (gimp-image-delete img))"
if batch_ok halftone-mask-and-channel-batch "$work/masks.log" $?; then
  "$py" - "$work/mask-before16.png" "$work/mask-stored.pgm" <<'PY' || fail halftone-mask-stored-values "the 16-bit mask did not give whole 8-bit values"
import sys
import numpy as np
from PIL import Image
p = np.asarray(Image.open(sys.argv[1]), dtype=np.float64) / 65535
linear = np.where(p <= 0.04045, p / 12.92, ((p + 0.055) / 1.055) ** 2.4) * 255
stored = np.round(linear)
assert np.abs(linear - stored).max() < 0.02 and stored.ptp() > 100
Image.fromarray(stored.astype(np.uint8)).save(sys.argv[2])
PY
  "$cli" halftone "$work/mask-stored.pgm" "$work/cli-mask.png" --backend cpu --quiet
  "$cli" halftone "$work/channel-before.png" "$work/cli-channel.png" --kernel sierra \
    --levels 3 --backend cpu --quiet
  compare_images halftone-layer-mask-equals-cli "$work/mask-after.png" "$work/cli-mask.png"
  compare_images halftone-channel-equals-cli "$work/channel-after.png" "$work/cli-channel.png"
fi

# One undo step a run: test_undo.sh (GIMP with its GUI, Ctrl+Z pressed in the image window).

# ---- session 6: the CPU fall-back note is said once per GIMP session (SPEC section 0), not
# once per call: each call is a new plug-in process, and local enhance's shares the note ----
enhance_auto="(plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4.0 0.4 0.02 0.4 0.4 0 3 0 0 0)"
(unset GPUFX_BACKEND; gimp_batch "$work/note.log" "$(scm_run gray8.png n1.png "$(call 0 2 0 0 -1)")" \
   "$(scm_run rgba8.png n2.png "$(call 1 3 0 0 -1)")" "$(scm_run gray8.png n3.png "$enhance_auto")")
if batch_ok halftone-fallback-note-batch "$work/note.log" $?; then
  notes=$(grep -c 'GPU not used .*running on the CPU' "$work/note.log")
  if [ "$notes" -eq 1 ]; then pass halftone-fallback-note-once
  elif [ "$notes" -eq 0 ] && GPUFX_BACKEND= "$cli" halftone "$work/gray8.png" "$work/gpu.png" \
         --backend gpu --quiet 2>/dev/null; then
    skip halftone-fallback-note-once "a usable GPU here: no fall-back to note"
  else fail halftone-fallback-note-once "said $notes times in one session, want once"; fi
fi
