# Shared helpers for the GIMP batch tests (sourced by tests/gimp/test_*.sh).
# Every test runs real GIMP (gimp-console-2.10 -i) against a throwaway profile that GIMP
# creates itself, with the plug-ins installed there by scripts/install.sh --plugins-only.
# A GIMP run passes only if GIMP exits 0 within the timeout, says "batch command executed
# successfully" and prints no error line (GIMP's exit status is 0 even when a procedure
# fails).  Output: one "PASS name" / "FAIL name: why" / "SKIP name: why" line per check.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${GPUFX_BUILD:-$top/build}
py=/usr/bin/python3
GIMP=${GIMP_CONSOLE:-gimp-console-2.10}
GIMP_TIMEOUT=${GIMP_TIMEOUT:-300}
ERROR_LINES='execution error|Calling error|GIMP-Error|GIMP-Critical|CRITICAL|crashed|Segmentation|terminated|GeglBuffers leaked'

pass () { echo "PASS $1"; }
fail () { echo "FAIL $1: $2"; }
skip () { echo "SKIP $1: $2"; }

# gimp_setup NAME: a fresh profile in $work with the plug-ins installed; SKIPs the whole
# test (exit 0) when GIMP is missing, FAILs (exit 1) when the plug-ins were not built.
gimp_setup () {
  if ! command -v "$GIMP" >/dev/null; then skip "$1" "$GIMP not installed"; exit 0; fi
  if ! ls "$build"/gpufx-* >/dev/null 2>&1; then fail "$1" "no plug-ins in $build (make)"; exit 1; fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  export GIMP2_DIRECTORY="$work/profile" LANG=C.UTF-8 LC_ALL=C.UTF-8
  unset LANGUAGE GPUFX_DIALOG_AUTO_OK GPUFX_TEST_CANCEL
  # GIMP must create the profile itself (a folder we make leads to "Failed to save data").
  (cd "$work" && timeout 120 "$GIMP" -i -d -f -b '(gimp-quit 0)' >"$work/init.log" 2>&1)
  "$top/scripts/install.sh" "$build" --plugins-only >"$work/install.log" 2>&1 \
    || { fail "$1" "install.sh failed: $(tail -1 "$work/install.log")"; exit 1; }
}

# forget_last_values: the plug-ins' values kept from earlier GIMP sessions of this profile
# (persistent parasites in parasiterc) are dropped, so the next session's dialogs open
# with the declared defaults.
forget_last_values () { rm -f "$GIMP2_DIRECTORY/parasiterc"; }

# gimp_batch LOG SCHEME...: runs each SCHEME as a batch command (one GIMP session, so
# last values carry over), then (gimp-quit 0), in $work; stdout+stderr -> LOG.
gimp_batch () {
  local log=$1; shift
  local args=() s
  for s in "$@"; do args+=(-b "$s"); done
  (cd "$work" && timeout "$GIMP_TIMEOUT" "$GIMP" -i -d -f "${args[@]}" -b '(gimp-quit 0)' \
     >"$log" 2>&1)
}

# batch_ok NAME LOG RC: PASS/FAIL by exit status, the success line and no error lines.
batch_ok () {
  local name=$1 log=$2 rc=$3
  if [ "$rc" -ne 0 ]; then fail "$name" "GIMP exited with $rc: $(tail -3 "$log" | tr '\n' ' ')"; return 1; fi
  if grep -qE "$ERROR_LINES" "$log"; then fail "$name" "$(grep -E "$ERROR_LINES" "$log" -A1 | head -3 | tr '\n' ' ')"; return 1; fi
  if ! grep -q 'batch command executed successfully' "$log"; then fail "$name" "no success line"; return 1; fi
  pass "$name"
}

# batch_error NAME LOG RC REGEX...: the run must report an execution error whose text
# matches every REGEX (e.g. the parameter name and its range).
batch_error () {
  local name=$1 log=$2 rc=$3; shift 3
  if [ "$rc" -ne 0 ]; then fail "$name" "GIMP exited with $rc"; return 1; fi
  if ! grep -q 'execution error' "$log"; then fail "$name" "no error reported: $(tr '\n' ' ' <"$log" | cut -c1-200)"; return 1; fi
  if grep -qE 'crashed|Segmentation|terminated' "$log"; then fail "$name" "plug-in crashed"; return 1; fi
  local re
  for re in "$@"; do
    grep -qE -- "$re" "$log" || { fail "$name" "message lacks '$re': $(grep -A2 'execution error' "$log" | tr '\n' ' ')"; return 1; }
  done
  pass "$name"
}

# scm_run IN OUT CALL: Script-Fu that loads IN (any format GIMP reads), applies CALL with
# `img` and `drw` bound, and exports the drawable to OUT (PNG or TIFF, by extension).
scm_run () {
  local in=$1 out=$2 call=$3
  cat <<SCM
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE "$in" "$in")))
       (drw (car (gimp-image-get-active-drawable img))))
  $call
  (gimp-file-save RUN-NONINTERACTIVE img drw "$out" "$out")
  (gimp-image-delete img))
SCM
}

# compare_images NAME A B ["X Y W H"]: identical samples (any depth).  With a box, only
# that box of A is compared with the whole of B.
compare_images () {
  local name=$1 a=$2 b=$3 box=${4:-}
  local why mode=same
  [ -n "$box" ] && mode=crop
  why=$("$py" "$top/tests/gimp/imgcmp.py" $mode "$a" "$b" $box 2>&1) && pass "$name" \
    || fail "$name" "$why"
}

# check_images NAME MODE A B [ARGS]: any imgcmp.py claim (same, crop, outside, alpha).
check_images () {
  local name=$1; shift
  local why
  why=$("$py" "$top/tests/gimp/imgcmp.py" "$@" 2>&1) && pass "$name" || fail "$name" "$why"
}

# batch_setup NAME: gimp_setup, make_inputs.py's files in $work, and $cli (build/gpufx,
# a FAIL line when it is missing: the comparisons against it will fail too).
batch_setup () {
  gimp_setup "$1"
  cli=$build/gpufx
  "$py" "$top/tests/gimp/make_inputs.py" "$work" || { fail inputs "make_inputs.py failed"; exit 1; }
  [ -x "$cli" ] || fail cli "$cli missing: comparisons against the CLI will fail"
}

# check_registration PREFIX PROC MENU ARG...: PROC takes run-mode, image, drawable and then
# exactly the arguments named ARG... in that order (SPEC section 4), and sits in MENU.
check_registration () {
  local prefix=$1 proc=$2 menu=$3; shift 3
  local log=$work/reg-$prefix.log expect got nargs
  expect=$(printf 'arg=%s ' "$@")
  gimp_batch "$log" "(let* ((info (gimp-procedural-db-proc-info \"$proc\"))
       (n (list-ref info 6)))
  (gimp-message (string-append \"nargs=\" (number->string n)))
  (let loop ((i 3))
    (when (< i n)
      (gimp-message (string-append \"arg=\" (cadr (gimp-procedural-db-proc-arg \"$proc\" i))))
      (loop (+ i 1)))))"
  if batch_ok "$prefix-registered" "$log" $?; then
    got=$(grep -o 'arg=[a-z0-9-]*' "$log" | tr '\n' ' ')
    nargs=$(grep -o 'nargs=[0-9]*' "$log")
    [ "$nargs" = "nargs=$(($# + 3))" ] && [ "$got" = "$expect" ] && pass "$prefix-pdb-arguments" \
      || fail "$prefix-pdb-arguments" "got $nargs $got, want nargs=$(($# + 3)) $expect"
  fi
  # pluginrc: (proc-def "PROC" ... (menu-path "MENU") ...) before the next proc-def.
  got=$(awk -v p="(proc-def \"$proc\"" 'on && /\(proc-def / { exit }
          index($0, p) { on = 1 } on && /\(menu-path / { print; exit }' "$GIMP2_DIRECTORY/pluginrc")
  [[ "$got" == *"(menu-path \"$menu\")"* ]] && pass "$prefix-menu-place" \
    || fail "$prefix-menu-place" "pluginrc has ${got:-no menu-path} for $proc, want $menu"
}

# against_cli PREFIX CASE...: each CASE is "NAME FILE [PARAMS...]" (FILE from
# make_inputs.py).  The caller defines `case_call PARAMS...` (prints the plug-in call,
# Script-Fu with img and drw bound) and `case_cli IN OUT PARAMS...` (runs gpufx with the
# same values on the CPU).  All calls run in one GIMP session; each result must equal the
# CLI's (identical samples), the rgba8.png case must keep its alpha, and the gray8.png
# case must have changed the image (else equality with the CLI proves little).
against_cli () {
  local prefix=$1; shift
  local c name file params why schemes=()
  for c in "$@"; do
    read -r name file params <<<"$c"
    schemes+=("$(scm_run "$file" "gimp-$file" "$(case_call $params)")")
    case_cli "$work/$file" "$work/cli-$file" $params || fail "$prefix-cli-$name" "gpufx failed"
  done
  gimp_batch "$work/$prefix-prec.log" "${schemes[@]}"
  batch_ok "$prefix-precisions-batch" "$work/$prefix-prec.log" $? || return 1
  for c in "$@"; do
    read -r name file params <<<"$c"
    compare_images "$prefix-$name-equals-cli" "$work/gimp-$file" "$work/cli-$file"
  done
  check_images "$prefix-rgba8-alpha-kept" alpha "$work/gimp-rgba8.png" "$work/rgba8.png"
  why=$("$py" "$top/tests/gimp/imgcmp.py" differ "$work/gimp-gray8.png" "$work/gray8.png" 2>&1) \
    && pass "$prefix-gray8-changed" \
    || fail "$prefix-gray8-changed" "the plug-in changed nothing, the comparison proves little: $why"
}

# test_filter FILE Q3_B01: a 3x3 gpufx-iir filter file, a different sharpening filter in
# each quadrant (not of unit DC gain: sum a / sum b is 2, 1.8, 1.29 and 1.43 with -0.1, so
# a flat area changes too, which the tests' comparisons want); stable with Q3_B01 = -0.1,
# unstable with -1.5 (q3's b(0,1) = -1.5 puts a root at z2 = 1.5).
test_filter () {
  { echo "gpufx-iir 1"; echo "mask 3 3"
    echo "q1 a 1.6 -0.35 0 -0.35 0.1 0 0 0 0";  echo "q1 b 1 -0.3 0 -0.3 0.1 0 0 0 0"
    echo "q2 a 1.5 -0.4 0.05 -0.3 0.05 0 0 0 0"; echo "q2 b 1 -0.35 0.05 -0.25 0.05 0 0 0 0"
    echo "q3 a 1.2 -0.1 0 -0.2 0 0 0 0 0";      echo "q3 b 1 $2 0 -0.2 0 0 0 0 0"
    echo "q4 a 1 0 0 0 0 0 0 0 0";              echo "q4 b 1 -0.2 0 -0.2 0.1 0 0 0 0"; } >"$1"
}

# comma_locale: compiles de_DE.UTF-8 (a decimal comma) into $work/locale with localedef
# (Debian package locales) and prints that folder, for LOCPATH=... LC_ALL=de_DE.UTF-8;
# fails, printing why, when it cannot.
comma_locale () {
  local loc=$work/locale
  mkdir -p "$loc"
  localedef -c -i de_DE -f UTF-8 "$loc/de_DE.UTF-8" >"$work/localedef.log" 2>&1
  if [ "$(LOCPATH=$loc LC_ALL=de_DE.UTF-8 locale decimal_point 2>/dev/null)" != "," ]; then
    echo "could not make a de_DE.UTF-8 locale (Debian package locales): $(tail -1 "$work/localedef.log")"
    return 1
  fi
  echo "$loc"
}

# wait_window TITLE [SECONDS]: prints the id of the window titled TITLE once it is shown
# (tries for SECONDS, default 30; prints nothing and fails if it never is).
wait_window () {
  local wid
  for _ in $(seq $((${2:-30} * 5))); do
    wid=$(xwininfo -root -tree | grep -F "\"$1\"" | awk '{print $1; exit}')
    [ -n "$wid" ] && { echo "$wid"; return 0; }
    sleep 0.2
  done
  return 1
}

# need_display NAME ARGS...: without $DISPLAY, re-runs the calling test under Xvfb (or
# SKIPs it when xvfb-run is missing), with a screen of XVFB_SCREEN (default 1280x1024x24).
# Call it first, with "$@".
need_display () {
  local name=$1; shift
  [ -n "${DISPLAY:-}" ] && return 0
  command -v xvfb-run >/dev/null || { skip "$name" "xvfb-run not installed"; exit 0; }
  exec xvfb-run -n "${GPUFX_XVFB_FIRST:-99}" -a -s "-screen 0 ${XVFB_SCREEN:-1280x1024x24}" bash "$0" "$@"
}

# dialog_checks PREFIX PROC LAST_ARGS DIALOG_ARGS CLI_SUBCOMMAND [CLI_ARGS...]
# The shared dialog run unattended (GPUFX_DIALOG_AUTO_* hooks) on rgba8.png, after a
# RUN-NONINTERACTIVE call of PROC with LAST_ARGS on gray8.png set the last values:
#   OK starts from the last values (= the CLI with CLI_ARGS, the same values), Reset
#   gives the declared defaults (= the CLI without options; with DIALOG_RESET=refused,
#   defaults that cannot run: OK refused, drawable untouched), Cancel before the run and
#   a run cancelled after OK (GPUFX_TEST_CANCEL) leave the drawable untouched.
# Needs gimp_setup and make_inputs.py's files in $work.
dialog_checks () {
  local prefix=$1 proc=$2 last_args=$3 dialog_args=$4 sub=$5; shift 5
  local ok=${DIALOG_OK_DELAY:-1.5} last interactive
  last=$(scm_run gray8.png discard.png "($proc RUN-NONINTERACTIVE img drw $last_args)")
  interactive () { scm_run rgba8.png "$1" "($proc RUN-INTERACTIVE img drw $dialog_args)"; }
  run_cli_ref () { "$build/gpufx" "$sub" "$work/rgba8.png" "$@" --backend cpu --quiet; }

  GPUFX_DIALOG_AUTO_OK=$ok gimp_batch "$work/dlg-ok.log" "$last" "$(interactive dlg-ok.png)"
  if batch_ok "$prefix-dialog-ok" "$work/dlg-ok.log" $?; then
    run_cli_ref "$work/dlg-cli-last.png" "$@"
    compare_images "$prefix-dialog-uses-last-values" "$work/dlg-ok.png" "$work/dlg-cli-last.png"
  fi
  if [ "${DIALOG_RESET:-}" = refused ]; then
    # The defaults cannot run (deblur: no filter file): OK after Reset must be refused
    # (the dialog stays open until Cancel) and the drawable stay as it was.
    GPUFX_DIALOG_AUTO_RESET=1 GPUFX_DIALOG_AUTO_OK=$ok \
      GPUFX_DIALOG_AUTO_CANCEL=$(awk -v s="$ok" 'BEGIN { print s + 3 }') gimp_batch "$work/dlg-reset.log" "$last" \
      "$(interactive dlg-reset.png)"
    batch_ok "$prefix-dialog-reset-ok-refused" "$work/dlg-reset.log" $? \
      && check_images "$prefix-dialog-reset-gives-defaults" same "$work/dlg-reset.png" "$work/rgba8.png"
  else
    GPUFX_DIALOG_AUTO_RESET=1 GPUFX_DIALOG_AUTO_OK=$ok gimp_batch "$work/dlg-reset.log" "$last" \
      "$(interactive dlg-reset.png)"
    if batch_ok "$prefix-dialog-reset-ok" "$work/dlg-reset.log" $?; then
      run_cli_ref "$work/dlg-cli-default.png"
      compare_images "$prefix-dialog-reset-gives-defaults" "$work/dlg-reset.png" "$work/dlg-cli-default.png"
    fi
  fi
  GPUFX_DIALOG_AUTO_CANCEL=$ok gimp_batch "$work/dlg-cancel.log" "$(interactive dlg-cancel.png)"
  batch_ok "$prefix-dialog-cancel" "$work/dlg-cancel.log" $? \
    && check_images "$prefix-dialog-cancel-untouched" same "$work/dlg-cancel.png" "$work/rgba8.png"
  # GPUFX_TEST_CANCEL=dialog cancels only the dialog's run, not the batch call before it
  # that stores the last values (needed where the defaults cannot run, e.g. deblur's).
  GPUFX_TEST_CANCEL=dialog GPUFX_DIALOG_AUTO_OK=$ok gimp_batch "$work/dlg-runcancel.log" \
    "$last" "$(interactive dlg-runcancel.png)"
  batch_ok "$prefix-dialog-run-cancelled" "$work/dlg-runcancel.log" $? \
    && check_images "$prefix-dialog-run-cancel-untouched" same "$work/dlg-runcancel.png" "$work/rgba8.png"
}
