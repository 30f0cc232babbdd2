#!/bin/bash
# GPU halftone on a lent GPU machine, in one call: the byte-exact test (full), the bench
# with the block-size x margin sweep, then compute-sanitizer memcheck / synccheck on the
# quick test and racecheck on the tiny one (GPUFX_TEST_QUICK=2); logs under $OUT.
#   here:  bench/halftone_gpu_session.sh prepare     (builds .gpurun_ht/runner.gz, ~18 MiB:
#          the runner itself, ~61 MiB, is too close to the carry limit; BUILD=dir picks the
#          build folder, build/h-ht by default)
#   there: run tool, command "bash bench/halftone_gpu_session.sh run [PARTS]", carry
#          [".gpurun_ht"]; PARTS (default "test bench sanitize"): any of test, test-nolarge,
#          bench, table (main table and strip shapes, no sweep), sanitize, res (registers and
#          spills of the kernels), ncu (stall reasons by SASS line of the rows kernel, FS
#          8192^2: ncu.txt, ncu_sass.csv), trace (per-chunk clocks of every strip), sass, old
#          (main table of runner_old.gz); T_TEST, T_BENCH, T_SAN, T_NCU: time limits (s)
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
  rm -f "$dir/runner" "$dir/runner.gz"
  cc -O2 -std=c11 -D_GNU_SOURCE -pthread -ffp-contract=off -DGFX_HAVE_CUDA \
    bench/halftone_gpu_runner.c "$build/libgfxcore.a" -o "$dir/runner" $GPU_RUNNER_LIBS \
    && strip "$dir/runner" && gzip -6 "$dir/runner" && du -sh "$dir"
  exit $?
fi
shift
parts=${*:-test bench sanitize}
out=${OUT:-/tmp}
bin=$(mktemp -d)/runner
gzip -dc "$dir/runner.gz" > "$bin" && chmod +x "$bin" || exit 1
cd "$(dirname "$bin")" || exit 1
session_device "$out"
for part in $parts; do
  case $part in
    test|test-nolarge)
      echo "== $part"
      lg=1; [ "$part" = test-nolarge ] && lg=0
      GPUFX_TEST_LARGE=$lg timeout ${T_TEST:-200} ./runner > "$out/$part.log" 2>&1; echo "$part rc=$?"
      session_log "$part" "$out" 30 ;;
    bench)
      echo "== bench"
      timeout ${T_BENCH:-150} ./runner bench --sweep 2>&1 | tee "$out/bench.log" ;;
    sanitize)
      # racecheck instruments every shared access of the spinning hand-offs: tiny cases
      GPUFX_TEST_QUICK=1 RACE_ENV=GPUFX_TEST_QUICK=2 session_sanitize "$out" ${T_SAN:-150} ./runner ;;
    ncu)
      # where the rows kernel's one warp stalls (FS 8192^2 gray, default K and block): the
      # sections, then the stall samples of every SASS instruction (source page, csv)
      timeout ${T_NCU:-150} ncu --clock-control none --import-source yes --section SchedulerStats \
        --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis \
        -k regex:"halftone_(pair|rows)_kernel" -c 1 -f -o "$out/ncu" ./runner bench --one 8192 8192 1 0 0 -1 1 \
        > "$out/ncu_run.txt" 2>&1
      echo "ncu rc=$?"
      ncu -i "$out/ncu.ncu-rep" > "$out/ncu.txt" 2>&1
      ncu -i "$out/ncu.ncu-rep" --page source --csv --print-source sass > "$out/ncu_sass.csv" 2>&1
      grep -i "stall\|issue\|warp cycles\|eligible" "$out/ncu.txt" | head -40 ;;
    table)
      # the main table only, and shapes that split per-step from per-strip cost
      timeout ${T_BENCH:-150} ./runner bench 2>&1 | tee "$out/table.log"
      for s in "8192 64" "8192 128" "8192 1024" "1024 8192" "2048 8192"; do
        timeout 30 ./runner bench --one $s 1 0 0 -1 9 2>&1 | tee -a "$out/table.log"
      done ;;
    trace)
      # per-chunk clocks of every warp (GPUFX_HALFTONE_TRACE), FS 8192^2 and 2048^2:
      # trace_N.bin, read by bench/halftone_gpu_trace.py (chunk times, lag between strips)
      for n in 8192 2048; do
        GPUFX_HALFTONE_TRACE="$out/trace_$n.bin" timeout 30 ./runner bench --one $n $n 1 0 0 -1 1
      done 2>&1 | tee "$out/trace.log" ;;
    sass)
      # SASS of the FS levels 2 u8 K = 2 kernel
      cuobjdump -sass ./runner 2>/dev/null | awk '/Function : /{p = /halftone_rows_kernelILi0ELb1ELi0ELi2E/} p' \
        > "$out/fs2.sass"; grep -c . "$out/fs2.sass" ;;
    old)
      # the main table with runner_old.gz (a runner built from another commit, copied into
      # .gpurun_ht by hand): before / after in one session
      gzip -dc "$dir/runner_old.gz" > "${bin}_old" && chmod +x "${bin}_old" \
        && timeout ${T_BENCH:-150} "${bin}_old" bench 2>&1 | tee "$out/old.log" ;;
    res)
      cuobjdump -res-usage ./runner 2>/dev/null | grep -A1 'halftone_rows_kernel' \
        | grep -o 'Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*' | paste - - - - \
        | sed 's/Function //' > "$out/res.txt"
      grep 'ILi0ELb1ELi0E' "$out/res.txt" | head; wc -l "$out/res.txt"
      cuobjdump -sass -fun _ZN5gfxht20halftone_rows_kernelILi0ELb1ELi0ELi3EEEvNS_7RParamsE \
        ./runner > "$out/fs_rows3.sass" 2>&1; wc -l "$out/fs_rows3.sass" ;;
  esac
done
