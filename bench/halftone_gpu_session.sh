#!/bin/bash
# GPU halftone on a lent GPU machine, in one call: the byte-exact test (full), the bench
# with the block-size x margin sweep, then compute-sanitizer memcheck / synccheck on the
# quick test and racecheck on the tiny one (GPUFX_TEST_QUICK=2); logs under $OUT.
#   here:  bench/halftone_gpu_session.sh prepare     (builds .gpurun_ht/runner, ~33 MiB;
#          BUILD=dir picks the build folder, build/h-ht by default)
#   there: run tool, command "bash bench/halftone_gpu_session.sh run", carry [".gpurun_ht"]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/.gpurun_ht
build=${BUILD:-build/h-ht}
if [ "${1:-}" = prepare ]; then
  cd "$top" || exit 1
  grep -qx '/.gpurun_ht/' .git/info/exclude 2>/dev/null || echo '/.gpurun_ht/' >> .git/info/exclude
  make -j2 BUILD="$build" core || exit 1
  mkdir -p "$dir"
  cc -O2 -std=c11 -D_GNU_SOURCE -pthread -ffp-contract=off -DGFX_HAVE_CUDA \
    bench/halftone_gpu_runner.c "$build/libgfxcore.a" -o "$dir/runner" \
    -L/usr/local/cuda/lib64 -lcudart_static -lstdc++ -ldl -lrt -llapacke -lgsl -lgslcblas -lm \
    -pthread && strip "$dir/runner" && du -sh "$dir"
  exit $?
fi
cd "$dir" || exit 1
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/smi.txt"
echo "== test (full)"
timeout 200 ./runner > "$out/test.log" 2>&1; echo "test rc=$?"
echo "PASS: $(grep -c ^PASS "$out/test.log")"; grep -v ^PASS "$out/test.log" | head -30
echo "== bench"
timeout 150 ./runner bench --sweep 2>&1 | tee "$out/bench.log"
# racecheck instruments every shared access of the spinning hand-offs: the tiny case set
for tool in memcheck:1:90 racecheck:2:150 synccheck:1:90; do
  IFS=: read -r name quick limit <<< "$tool"
  echo "== $name (GPUFX_TEST_QUICK=$quick)"
  GPUFX_TEST_QUICK=$quick timeout "$limit" compute-sanitizer --tool "$name" ./runner \
    > "$out/$name.log" 2>&1
  echo "$name rc=$? PASS: $(grep -c ^PASS "$out/$name.log")"
  grep -v ^PASS "$out/$name.log" | tail -5
done
cuobjdump -sass -fun _ZN5gfxht15halftone_kernelILi0ELb1ELi0ELi256EEEvNS_6ParamsE ./runner \
  > "$out/fs.sass" 2>&1; wc -l "$out/fs.sass"
