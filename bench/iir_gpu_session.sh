#!/bin/bash
# GPU IIR filter on a lent GPU machine, in one call: the bit-exact test (full), then
# compute-sanitizer memcheck / racecheck / synccheck on the small test, the bench with the
# tuning sweep, and an ncu profile of the 8192 x 8192 kernels; logs under $OUT.
#   here:  bench/iir_gpu_session.sh prepare   (builds .gpurun_iir/runner from build/h-iir;
#          NOMAKE=1: link the library as it is)
#   there: run tool, command "bash bench/iir_gpu_session.sh run [PARTS]", carry [".gpurun_iir"]
#          PARTS: any of test san bench quick trace ncu sass (default: test san bench ncu, in
#          that order); quick: the short bench of this runner and of every .gpurun_iir/*/runner
#          carried along (older or variant builds), and of this runner under each
#          QUICK_ENVS word (VAR=VALUE,VAR=VALUE: GPUFX_IIR_* knobs), interleaved (A/B);
#          trace: per-chunk clocks of the split kernel (bench/iir_gpu_trace.py reads them)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/gpu_session_lib.sh"
dir=$top/.gpurun_iir
build=${BUILD:-build/h-iir}
if [ "${1:-}" = prepare ]; then
  cd "$top" || exit 1
  session_exclude .gpurun_iir
  [ -n "${NOMAKE:-}" ] || make -j2 BUILD="$build" core || exit 1
  mkdir -p "$dir"
  flags="-O2 -std=c11 -D_GNU_SOURCE -pthread -ffp-contract=off -DGFX_HAVE_CUDA"
  cc $flags -Dmain=test_main -c tests/unit/test_iir_gpu.c -o "$dir/test.o" &&
  cc $flags -Dmain=bench_main -c bench/iir_gpu.c -o "$dir/bench.o" &&
  printf '%s\n' '#include <string.h>' 'int test_main (int, char **);' \
    'int bench_main (int, char **);' \
    'int main (int argc, char **argv) { if (argc > 1 && !strcmp (argv[1], "bench"))' \
    '  return bench_main (argc - 1, argv + 1); return test_main (argc, argv); }' \
    > "$dir/main.c" &&
  cc $flags "$dir/main.c" "$dir/test.o" "$dir/bench.o" "$build/libgfxcore.a" -o "$dir/runner" \
    $GPU_RUNNER_LIBS && strip "$dir/runner" && rm -f "$dir"/*.o && du -sh "$dir"
  exit $?
fi
cd "$dir" || exit 1
export PATH=$PATH:/usr/local/cuda/bin
out=${OUT:-/tmp}
shift
parts=${*:-test san bench ncu}
session_device "$out"
for part in $parts; do
  case $part in
    test)
      echo "== test (full)"
      timeout ${TEST_LIMIT:-100} ./runner > "$out/test.log" 2>&1; echo "test rc=$?"
      session_log test "$out" 40 ;;
    san)
      session_sanitize "$out" "${SAN_LIMIT:-90}" ./runner --small ;;
    quick)
      echo "== quick"
      for i in 1 2; do
        timeout 40 ./runner bench --quick 2>&1 | sed 's/^/new: /' | tee -a "$out/quick.log"
        for e in ${QUICK_ENVS:-}; do # VAR=VALUE,VAR=VALUE: this runner with those knobs
          timeout 40 env ${e//,/ } ./runner bench --quick 2>&1 | sed "s|^|$e: |" |
            tee -a "$out/quick.log"
        done
        for d in */; do
          [ -x "$d/runner" ] && timeout 40 "$d/runner" bench --quick 2>&1 |
            sed "s|^|${d%/}: |" | tee -a "$out/quick.log"
        done
      done ;;
    trace)
      echo "== trace"
      GPUFX_IIR_TRACE=$out/trace.bin timeout 40 ./runner bench --ncu
      GPUFX_IIR_TRACE=$out/trace256.bin timeout 20 ./runner bench --ncu 8192 256
      ls -la "$out"/trace*.bin ;;
    sass)
      cuobjdump -sass ./runner | gzip -9 > "$out/runner.sass.gz"; ls -la "$out/runner.sass.gz" ;;
    bench)
      echo "== bench"
      timeout 120 ./runner bench 2>&1 | tee "$out/bench.log"
      echo "== bench 2048"
      timeout 40 ./runner bench 2048 2048 2>&1 | tee "$out/bench2048.log" ;;
    ncu)
      echo "== ncu"
      timeout ${NCU_LIMIT:-120} ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section SchedulerStats --section Occupancy \
        --section LaunchStats --section ComputeWorkloadAnalysis --section InstructionStats \
        --section SourceCounters -k regex:iir_ -c ${NCU_COUNT:-4} -o "$out/iir" ./runner bench --ncu \
        > "$out/ncu_run.log" 2>&1; echo "ncu rc=$?"; tail -5 "$out/ncu_run.log"
      ncu -i "$out/iir.ncu-rep" --print-summary none > "$out/ncu.txt" 2>&1
      ncu -i "$out/iir.ncu-rep" --page source --csv --print-source sass \
        --kernel-name regex:iir_split --launch-count 1 > "$out/source.csv" 2>&1
      gzip -9 "$out/source.csv"; ls -la "$out"
      rm -f "$out/iir.ncu-rep"
      grep -E "iir_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Registers|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy|L1/TEX Hit|L2 Hit|Executed Ipc A" \
        "$out/ncu.txt" | head -80 ;;
  esac
done
