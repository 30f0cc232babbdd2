#!/bin/bash
# GPU local enhance on a lent GPU machine, in one call: the GPU tests (test_enhance's
# GPU = CPU sweep and test_enhance_gpu's knob sweep), the bench with the knob sweep,
# compute-sanitizer memcheck / racecheck / synccheck on the quick test, then ncu on one
# call per window; logs under $OUT.
#   here:  bench/enhance_gpu_session.sh prepare [BUILD]   (default build/h-enh; copies the
#          statically linked binaries into .gpurun_enh/)
#   there: run tool, command "bash bench/enhance_gpu_session.sh run [PARTS]", carry
#          [".gpurun_enh"]; PARTS: any of tests (both tests), gputest (the GPU test alone),
#          bench, san, ncu; default all but gputest (SKIP_NCU=1 or SKIP_SAN=1 leave those out;
#          SAN_LIMIT=S: seconds per sanitizer, default 90)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/gpu_session_lib.sh"
dir=$top/.gpurun_enh
if [ "${1:-}" = prepare ]; then
  build=${2:-build/h-enh}
  cd "$top" || exit 1
  session_exclude .gpurun_enh
  make -j2 BUILD="$build" core "$build/tests/test_enhance" "$build/tests/test_enhance_gpu" \
    "$build/bench/enhance_gpu" || exit 1
  mkdir -p "$dir"
  for f in tests/test_enhance tests/test_enhance_gpu bench/enhance_gpu; do
    cp "$build/$f" "$dir/" && strip "$dir/$(basename "$f")" || exit 1
  done
  du -sh "$dir"
  exit 0
fi
cd "$dir" || exit 1
out=${OUT:-/tmp}
shift # "run"; then the parts to run (default: all): tests bench san ncu
parts=" ${*:-tests bench san ncu} "
session_device "$out"
if [[ $parts == *" tests "* ]]; then
  for t in test_enhance test_enhance_gpu; do
    echo "== $t (full)"
    timeout 120 ./$t > "$out/$t.log" 2>&1; echo "$t rc=$?"
    session_log "$t" "$out" 20
  done
fi
if [[ $parts == *" gputest "* ]]; then # the GPU test alone
  echo "== test_enhance_gpu (full)"
  timeout 120 ./test_enhance_gpu > "$out/test_enhance_gpu.log" 2>&1; echo "test_enhance_gpu rc=$?"
  session_log test_enhance_gpu "$out" 20
fi
if [[ $parts == *" bench "* ]]; then
  echo "== bench"
  timeout 90 ./enhance_gpu --sweep 2>&1 | tee "$out/bench.log"
fi
if [[ $parts == *" san "* ]] && [ -z "${SKIP_SAN:-}" ]; then
  GFX_TEST_QUICK=1 session_sanitize "$out" "${SAN_LIMIT:-90}" ./test_enhance_gpu
fi
if [[ $parts == *" ncu "* ]] && [ -z "${SKIP_NCU:-}" ]; then
  echo "== ncu"
  timeout 150 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy \
    --section InstructionStats --import-source yes -o "$out/enh" \
    -k 'regex:strip_kernel|reduce_kernel|tile_kernel|win3_kernel|fused3_kernel' ./enhance_gpu --profile > "$out/ncu.log" 2>&1
  echo "ncu rc=$?"
  ncu -i "$out/enh.ncu-rep" > "$out/ncu.txt" 2>&1
  grep -E "strip_kernel|reduce_kernel|tile_kernel|win3_kernel|fused3_kernel|^    Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Executed Ipc A|Issue Slots Busy|Executed Instructions  " "$out/ncu.txt" | head -90
  # per-instruction counts and stall samples, SASS with source lines (if this ncu can print them)
  timeout 60 ncu -i "$out/enh.ncu-rep" --page source --csv --print-source sass > "$out/ncu_source.csv" 2>&1
  echo "ncu source page rc=$? ($(wc -l < "$out/ncu_source.csv") lines)"
fi
