#!/bin/bash
# plug-in-gpufx-halftone in real GIMP batch mode (throwaway profile): registration, every
# precision and layout against `gpufx halftone --backend cpu` (identical samples), the
# selection (box processed, the rest untouched), last values, bad parameters (the message
# names the parameter and its range), failure and cancel leave the image untouched,
# empty selection and indexed images refused, and a Russian message under LANGUAGE=ru.
source "$(dirname "$0")/lib.sh"
gimp_setup gimp/halftone
cli=$build/gpufx
"$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
[ -x "$cli" ] || fail cli "$cli missing: comparisons against the CLI will fail"
run_cli () { "$cli" halftone "$@" --backend cpu --quiet; }
call () { echo "(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw $*)"; }

# --- registration: arguments in SPEC order, menu place, translation domain ------------
gimp_batch "$work/reg.log" '(let ((info (gimp-procedural-db-proc-info "plug-in-gpufx-halftone")))
  (gimp-message (string-append "nargs=" (number->string (list-ref info 6))))
  (let loop ((i 3))
    (when (< i 8)
      (gimp-message (string-append "arg=" (cadr (gimp-procedural-db-proc-arg "plug-in-gpufx-halftone" i))))
      (loop (+ i 1)))))'
batch_ok halftone-registered "$work/reg.log" $? \
  && { args=$(grep -o 'arg=[a-z-]*' "$work/reg.log" | tr '\n' ' ')
       [ "$(grep -o 'nargs=[0-9]*' "$work/reg.log")" = nargs=8 ] \
         && [ "$args" = "arg=kernel arg=levels arg=backend arg=block-size arg=margin " ] \
         && pass halftone-pdb-arguments || fail halftone-pdb-arguments "got $args"; }
rc="$GIMP2_DIRECTORY/pluginrc"
grep -q '"<Image>/Filters/Distorts"' "$rc" && pass halftone-menu-place \
  || fail halftone-menu-place "no <Image>/Filters/Distorts in pluginrc"
grep -q '(locale-def "gimp-gpufx" ".*/plug-ins/gpufx-halftone/locale")' "$rc" \
  && pass halftone-locale-domain || fail halftone-locale-domain "no locale-def beside the binary"

# --- every precision/layout, different kernels and levels, vs the CLI ------------------
# name  file  kernel-index  cli-kernel  levels
cases=("gray8 gray8.png 0 fs 2" "rgba8 rgba8.png 1 jjn 3" "gray16 gray16.png 2 stucki 4"
       "rgb16 rgb16.png 7 atkinson 2" "grayf grayf.tif 4 sierra 3" "rgbf rgbf.tif 3 burkes 2")
schemes=()
for c in "${cases[@]}"; do
  read -r name file k kname levels <<<"$c"
  schemes+=("$(scm_run "$file" "gimp-$file" "$(call "$k" "$levels" 1 0 -1)")")
  run_cli "$work/$file" "$work/cli-$file" --kernel "$kname" --levels "$levels" \
    || fail "halftone-cli-$name" "gpufx failed"
done
gimp_batch "$work/prec.log" "${schemes[@]}"
if batch_ok halftone-precisions-batch "$work/prec.log" $?; then
  for c in "${cases[@]}"; do
    read -r name file k kname levels <<<"$c"
    compare_images "halftone-$name-equals-cli" "$work/gimp-$file" "$work/cli-$file"
  done
  check_images halftone-rgba8-alpha-kept alpha "$work/gimp-rgba8.png" "$work/rgba8.png"
fi

# --- automatic backend (GPU when usable, else CPU with a note) gives the same pixels ----
gimp_batch "$work/auto.log" "$(scm_run gray8.png auto.png "$(call 0 2 0 0 -1)")"
batch_ok halftone-auto-backend "$work/auto.log" $? \
  && compare_images halftone-auto-equals-cpu "$work/auto.png" "$work/cli-gray8.png"

# --- selection: only its box changes, and the box is halftoned on its own --------------
gimp_batch "$work/sel.log" "$(scm_run gray8.png sel.png "(gimp-image-select-rectangle img CHANNEL-OP-REPLACE 13 9 41 27) $(call 6 2 1 0 -1)")"
if batch_ok halftone-selection-batch "$work/sel.log" $?; then
  run_cli "$work/gray8-box.png" "$work/cli-box.png" --kernel sierra-lite --levels 2
  compare_images halftone-selection-box-equals-cli "$work/sel.png" "$work/cli-box.png" "13 9 41 27"
  check_images halftone-selection-outside-untouched outside "$work/sel.png" "$work/gray8.png" 13 9 41 27
fi

# --- last values: RUN-WITH-LAST-VALS repeats the previous run's parameters --------------
gimp_batch "$work/last.log" "$(scm_run gray8.png discard.png "$(call 5 5 1 0 -1)")" \
  "$(scm_run rgba8.png last.png '(plug-in-gpufx-halftone RUN-WITH-LAST-VALS img drw 0 2 0 0 -1)')"
if batch_ok halftone-last-values-batch "$work/last.log" $?; then
  run_cli "$work/rgba8.png" "$work/cli-last.png" --kernel sierra2 --levels 5
  compare_images halftone-last-values-used "$work/last.png" "$work/cli-last.png"
fi

# --- bad parameters: an error naming the parameter and its range, never a crash --------
bad=("0 1 1 0 -1" "0 257 1 0 -1" "8 2 1 0 -1" "0 2 1 33 -1" "0 2 1 0 -2" "0 2 3 0 -1")
schemes=()
for b in "${bad[@]}"; do schemes+=("$(scm_run gray8.png bad.png "$(call $b)")"); done
gimp_batch "$work/bad.log" "${schemes[@]}"
n=$(grep -c 'batch command experienced an execution error' "$work/bad.log")
[ "$n" -eq ${#bad[@]} ] && pass halftone-bad-all-refused \
  || fail halftone-bad-all-refused "$n of ${#bad[@]} calls refused"
batch_error halftone-bad-levels-low "$work/bad.log" 0 'levels = 1 .*2 to 256'
batch_error halftone-bad-levels-high "$work/bad.log" 0 'levels = 257 .*2 to 256'
batch_error halftone-bad-kernel "$work/bad.log" 0 'kernel = 8 .*fs .*atkinson'
batch_error halftone-bad-block-size "$work/bad.log" 0 'block-size = 33 .*multiple of 32'
batch_error halftone-bad-margin "$work/bad.log" 0 'margin = -2 .*-1 \(auto\)'
batch_error halftone-bad-backend "$work/bad.log" 0 'backend = 3 .*auto .*cpu .*gpu'

# --- failure and cancel leave the drawable untouched (GPUFX_TEST_CANCEL cancels the run
# as it starts; Script-Fu carries on after a cancelled call, so the export shows it) -----
gimp_batch "$work/fail.log" "$(scm_run gray8.png failed.png "(catch #f $(call 0 1 1 0 -1))")"
grep -q 'batch command executed successfully' "$work/fail.log" \
  && check_images halftone-failure-untouched same "$work/failed.png" "$work/gray8.png" \
  || fail halftone-failure-untouched "batch did not complete: $(tail -2 "$work/fail.log")"
GPUFX_TEST_CANCEL=1 gimp_batch "$work/cancel.log" "$(scm_run rgb16.png cancelled.png "$(call 0 2 1 0 -1)")"
grep -q 'batch command executed successfully' "$work/cancel.log" \
  && check_images halftone-cancel-untouched same "$work/cancelled.png" "$work/rgb16.png" \
  || fail halftone-cancel-untouched "batch did not complete: $(tail -2 "$work/cancel.log")"

# --- unusable drawables: empty selection, indexed image ----------------------------------
outside='(gimp-layer-resize drw 20 20 0 0) (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 50 30 20 20)'
gimp_batch "$work/empty.log" "$(scm_run gray8.png empty.png "$outside $(call 0 2 1 0 -1)")" \
  "$(scm_run rgba8.png indexed.png "(gimp-image-convert-indexed img CONVERT-DITHER-NONE CONVERT-PALETTE-GENERATE 16 FALSE FALSE \"\") $(call 0 2 1 0 -1)")"
batch_error halftone-empty-selection-refused "$work/empty.log" $? 'selection does not intersect'
batch_error halftone-indexed-refused "$work/empty.log" 0 'Indexed images are not supported'

# --- translations: the same refusal in Russian --------------------------------------------
LANGUAGE=ru gimp_batch "$work/ru.log" "$(scm_run gray8.png empty.png "$outside $(call 0 2 1 0 -1)")"
grep -q 'Выделение не пересекается со слоем' "$work/ru.log" && pass halftone-message-in-russian \
  || fail halftone-message-in-russian "no Russian message: $(grep -A2 -i error "$work/ru.log" | tr '\n' ' ' | cut -c1-200)"

# --- undo ---------------------------------------------------------------------------------
skip halftone-one-undo-step "the 2.10 PDB has no call that undoes, so batch mode cannot check it (the plug-in merges the shadow with undo inside one undo group)"
