#!/bin/bash
# GPU halftone on a lent GPU machine, in one call: the byte-exact test (full), the bench
# with the block-size x margin sweep, then compute-sanitizer memcheck / synccheck on the
# quick test and racecheck on the tiny one (GPUFX_TEST_QUICK=2); logs under $OUT.
#   here:  bench/halftone_gpu_session.sh prepare     (builds .gpurun_ht/runner, ~33 MiB;
#          BUILD=dir picks the build folder, build/h-ht by default)
#   there: run tool, command "bash bench/halftone_gpu_session.sh run", carry [".gpurun_ht"]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/gpu_session_lib.sh"
dir=$top/.gpurun_ht
build=${BUILD:-build/h-ht}
if [ "${1:-}" = prepare ]; then
  cd "$top" || exit 1
  session_exclude .gpurun_ht
  make -j2 BUILD="$build" core || exit 1
  mkdir -p "$dir"
  cc -O2 -std=c11 -D_GNU_SOURCE -pthread -ffp-contract=off -DGFX_HAVE_CUDA \
    bench/halftone_gpu_runner.c "$build/libgfxcore.a" -o "$dir/runner" $GPU_RUNNER_LIBS \
    && strip "$dir/runner" && du -sh "$dir"
  exit $?
fi
cd "$dir" || exit 1
out=${OUT:-/tmp}
session_device "$out"
echo "== test (full)"
timeout 200 ./runner > "$out/test.log" 2>&1; echo "test rc=$?"
session_log test "$out" 30
echo "== bench"
timeout 150 ./runner bench --sweep 2>&1 | tee "$out/bench.log"
# racecheck instruments every shared access of the spinning hand-offs: the tiny case set
GPUFX_TEST_QUICK=1 RACE_ENV=GPUFX_TEST_QUICK=2 session_sanitize "$out" 150 ./runner
cuobjdump -sass -fun _ZN5gfxht15halftone_kernelILi0ELb1ELi0ELi256EEEvNS_6ParamsE ./runner \
  > "$out/fs.sass" 2>&1; wc -l "$out/fs.sass"
