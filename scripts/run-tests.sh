#!/bin/bash
# Runs every test suite and ends with "N passed, N failed, N skipped".
# Usage: scripts/run-tests.sh BUILD [SANITIZER_BUILD]
# Each test program prints one line per check: "PASS name", "FAIL name: why" or
# "SKIP name: why".  A program that exits non-zero without a FAIL line counts as one failure.
# Suites: BUILD/tests/test_* (C unit tests), tests/py/test_*.py (independent references,
# CLI), tests/gimp/test_*.sh (real GIMP in batch mode); the sanitizer build re-runs the
# C unit tests and, when its plug-ins are built, the GIMP tests.  TESTS=pattern runs only
# matching programs.
# The programs run JOBS at a time (default: the number of cores; most of a GIMP test is
# GIMP starting, or a dialog waiting for its timed clicks).  Each worker has its own X
# server numbers and cache folder, so two GIMPs never share a display or a babl cache file;
# the results are printed in the order above, whatever order they finish in.
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
san=${2:-}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "JOBS must be a positive whole number, not '$jobs'" >&2; exit 2; }
runs=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$runs"' EXIT

# The job list: "KIND PATH" lines; KIND sets the environment (run_job).
list=()
for t in "$top/$build"/tests/test_*; do [ -x "$t" ] && list+=("unit $t"); done
for t in "$top"/tests/py/test_*.py; do [ -f "$t" ] && list+=("py $t"); done
for t in "$top"/tests/gimp/test_*.sh; do [ -f "$t" ] && list+=("gimp $t"); done
if [ -n "$san" ]; then
  for t in "$top/$san"/tests/test_*; do [ -x "$t" ] && list+=("san-unit $t"); done
  # The plug-ins built with the sanitizers, in real GIMP: a report aborts the plug-in, which
  # GIMP reports as a crash and the test as a failure.
  if ls "$top/$san"/gpufx-* >/dev/null 2>&1; then
    for t in "$top"/tests/gimp/test_*.sh; do [ -f "$t" ] && list+=("san-gimp $t"); done
  fi
fi

label_of () { # KIND PATH
  local name=${2##*/}; name=${name%.py}; name=${name%.sh}
  case $1 in
    unit) echo "unit/$name" ;; py) echo "py/$name" ;; gimp) echo "gimp/$name" ;;
    san-unit) echo "asan+ubsan/$name" ;; san-gimp) echo "asan+ubsan/gimp/$name" ;;
  esac
}

# The GPU kernels' CPU emulators (tests/emu) run first, alone: hundreds of threads meeting
# at barriers, they slow down several times over beside another test.
solo=() shared=()
for job in "${list[@]}"; do
  label=$(label_of $job)
  [ -n "$TESTS" ] && [[ "$label" != *$TESTS* ]] && continue
  if [[ "$label" == *_emu ]]; then solo+=("$job"); else shared+=("$job"); fi
done
selected=("${solo[@]}" "${shared[@]}")

run_job () { # KIND PATH (in a subshell: the environment stays the job's)
  export GPUFX_BUILD="$top/$build"
  case $1 in
    unit) exec "$2" ;;
    py) exec /usr/bin/python3 "$2" ;;
    gimp) exec bash "$2" ;;
    san-unit)
      export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
      exec "$2" ;;
    san-gimp)
      # No leak check in GIMP: GLib, GTK and GEGL keep memory until exit (the unit tests
      # check the core's leaks).
      export GPUFX_BUILD="$top/$san" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
      exec bash "$2" ;;
  esac
}

# worker SLOT LIMIT: takes the next job number below LIMIT from the shared counter until
# none is left; job N leaves N.log, then N.rc and N.secs (N.rc last: the printer waits
# for it).
worker () {
  local slot=$1 limit=$2 n
  export GPUFX_XVFB_FIRST=$((99 + 100 * slot)) XDG_CACHE_HOME="$runs/cache-$slot"
  mkdir -p "$XDG_CACHE_HOME"
  while :; do
    n=$(flock "$runs/next" sh -c 'n=$(cat "$1"); [ "$n" -lt "$2" ] && echo $((n + 1)) >"$1" && echo "$n"' \
          sh "$runs/next" "$limit")
    [ -n "$n" ] || return 0
    local start=$SECONDS
    (run_job ${selected[$n]}) >"$runs/$n.log" 2>&1 </dev/null
    echo $? >"$runs/$n.rc.tmp"
    echo $((SECONDS - start)) >"$runs/$n.secs"
    mv "$runs/$n.rc.tmp" "$runs/$n.rc"
  done
}

echo 0 >"$runs/next"
( worker 0 "${#solo[@]}"
  for ((slot = 0; slot < jobs; slot++)); do worker "$slot" "${#selected[@]}" & done
  wait ) &

passed=0 failed=0 skipped=0
for ((n = 0; n < ${#selected[@]}; n++)); do
  while [ ! -f "$runs/$n.rc" ]; do sleep 0.5; done
  log=$runs/$n.log rc=$(cat "$runs/$n.rc")
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $(label_of ${selected[$n]}): exited with status $rc" >>"$log"; f=1
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  printf '%-40s %4d passed %3d failed %3d skipped  (%ds)\n' "$(label_of ${selected[$n]})" \
    "$p" "$f" "$s" "$(cat "$runs/$n.secs")"
  grep -E '^(FAIL|SKIP) ' "$log" | sed 's/^/    /' | head -40
  [ "$f" -gt 0 ] && tail -n 30 "$log" | grep -vE '^(PASS|FAIL|SKIP) ' | sed 's/^/    | /'
done
wait
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
