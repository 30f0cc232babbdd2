#!/bin/bash
# Runs every test suite and ends with "N passed, N failed, N skipped".
# Usage: scripts/run-tests.sh BUILD [SANITIZER_BUILD]
# Each test program prints one line per check: "PASS name", "FAIL name: why" or
# "SKIP name: why".  A program that exits non-zero without a FAIL line counts as one failure.
# Suites: BUILD/tests/test_* (C unit tests), tests/py/test_*.py (independent references,
# CLI), tests/gimp/test_*.sh (real GIMP in batch mode); the sanitizer build re-runs the
# C unit tests and, when its plug-ins are built, the GIMP tests.  TESTS=pattern runs only
# matching programs.
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
san=${2:-}
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one () { # label command...
  local label=$1; shift
  [ -n "$TESTS" ] && [[ "$label" != *$TESTS* ]] && return
  local start=$SECONDS
  "$@" >"$log" 2>&1
  local rc=$?
  local p f s
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $label: exited with status $rc" >>"$log"; f=1
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  printf '%-40s %4d passed %3d failed %3d skipped  (%ds)\n' "$label" "$p" "$f" "$s" $((SECONDS - start))
  grep -E '^(FAIL|SKIP) ' "$log" | sed 's/^/    /' | head -40
  [ "$f" -gt 0 ] && tail -n 30 "$log" | grep -vE '^(PASS|FAIL|SKIP) ' | sed 's/^/    | /'
}

export GPUFX_BUILD="$top/$build"
for t in "$top/$build"/tests/test_*; do
  [ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
for t in "$top"/tests/py/test_*.py; do
  [ -f "$t" ] && run_one "py/$(basename "$t" .py)" /usr/bin/python3 "$t"
done
for t in "$top"/tests/gimp/test_*.sh; do
  [ -f "$t" ] && run_one "gimp/$(basename "$t" .sh)" bash "$t"
done
if [ -n "$san" ]; then
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  for t in "$top/$san"/tests/test_*; do
    [ -x "$t" ] && run_one "asan+ubsan/$(basename "$t")" "$t"
  done
  # The plug-ins built with the sanitizers, in real GIMP: a report aborts the plug-in, which
  # GIMP reports as a crash and the test as a failure.  No leak check there: GLib, GTK and
  # GEGL keep memory until exit (the unit tests check the core's leaks).
  if ls "$top/$san"/gpufx-* >/dev/null 2>&1; then
    export GPUFX_BUILD="$top/$san" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
    for t in "$top"/tests/gimp/test_*.sh; do
      [ -f "$t" ] && run_one "asan+ubsan/gimp/$(basename "$t" .sh)" bash "$t"
    done
  fi
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
