# Shared by bench/*_gpu_session.sh (sourced): what every one-call GPU session does alike.
# Binaries are built here for sm_90 and linked with the static CUDA runtime, so the GPU
# machine (driver, no GIMP, no GEGL) runs them as they are.

# Link flags of a statically linked GPU runner.
GPU_RUNNER_LIBS="-L/usr/local/cuda/lib64 -lcudart_static -lstdc++ -ldl -lrt -llapacke -lgsl \
-lgslcblas -lm -pthread"

# session_exclude DIR: keeps the runner folder out of git.
session_exclude () {
  grep -qxF "/$1/" .git/info/exclude 2>/dev/null || grep -qx '/.gpurun\*/' .git/info/exclude \
    2>/dev/null || echo "/$1/" >> .git/info/exclude
}

# session_device OUT: the GPU's name, driver and clocks, on screen and in OUT/smi.txt.
session_device () {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$1/smi.txt"
}

# session_log NAME OUT LINES: PASS count and the other lines of OUT/NAME.log (the last LINES).
session_log () {
  echo "PASS: $(grep -c ^PASS "$2/$1.log")"; grep -v ^PASS "$2/$1.log" | tail -"$3"
}

# session_sanitize OUT LIMIT CMD...: compute-sanitizer memcheck, racecheck and synccheck on
# CMD, each within LIMIT seconds; RACE_ENV=VAR=VALUE narrows the racecheck run (it
# instruments every shared access and is the slowest).  memcheck runs with device buffers
# of the exact size asked for (GPUFX_EXACT_DEVICE_BUFFERS=1), so that it sees reads past an
# image's end that a larger, reused buffer would hide.
session_sanitize () {
  local out=$1 limit=$2 tool; shift 2
  for tool in memcheck racecheck synccheck; do
    echo "== $tool"
    if [ "$tool" = racecheck ] && [ -n "${RACE_ENV:-}" ]; then
      env "$RACE_ENV" timeout "$limit" compute-sanitizer --tool $tool "$@" > "$out/$tool.log" 2>&1
    elif [ "$tool" = memcheck ]; then
      GPUFX_EXACT_DEVICE_BUFFERS=1 timeout "$limit" compute-sanitizer --tool $tool "$@" \
        > "$out/$tool.log" 2>&1
    else
      timeout "$limit" compute-sanitizer --tool $tool "$@" > "$out/$tool.log" 2>&1
    fi
    echo "$tool rc=$?"; session_log "$tool" "$out" 5
  done
}
