#!/bin/bash
# The real gpufx command line on a lent GPU machine: every filter on real photographs and
# synthetic images (gray, RGB, RGBA of odd size, 16-bit, float) with --backend cpu and
# --backend gpu, the two outputs compared byte for byte, whole-process times beside them;
# then auto (which must say nothing and match), and an injected CUDA failure under auto
# (which must fall back with a note) and under gpu (which must fail with the message).
#   here:  bench/cli_gpu_session.sh prepare   (builds build/h/gpufx with CUDA, bundles it
#          with GEGL and babl by ../shared/tools/gpu-kit or $GPU_KIT into .gpurun_cli/kit,
#          and writes the images and an identified deblur filter into .gpurun_cli/img)
#   there: run tool, command "bash bench/cli_gpu_session.sh run", carry [".gpurun_cli"];
#          the last line is "N passed, N failed"
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/gpu_session_lib.sh"
dir=$top/.gpurun_cli
if [ "${1:-}" = prepare ]; then
  cd "$top" || exit 1
  session_exclude .gpurun_cli
  make -j2 BUILD=build/h build/h/gpufx || exit 1
  rm -rf "$dir" && mkdir -p "$dir/img" || exit 1
  # the kit packed (the binary alone is ~67 MiB of GPU code, over the carry limit); no EXR
  "${GPU_KIT:-$top/../shared/tools/gpu-kit}" "$dir/kit" build/h/gpufx && strip "$dir/kit/bin/gpufx" \
    && rm -f "$dir"/kit/gegl/exr-*.so "$dir"/kit/lib/lib{OpenEXR,OpenEXRCore,Iex,IlmThread,Imath}-* \
    && tar -C "$dir" -czf "$dir/kit.tar.gz" kit && rm -rf "$dir/kit" || exit 1
  /usr/bin/python3 "$top/bench/cli_gpu_images.py" "$dir/img" || exit 1
  build/h/gpufx identify --blurred "$dir/img/camera_blur.png" --sharp "$dir/img/camera.png" \
    --output "$dir/img/camera.iir" || exit 1
  du -sh "$dir"
  exit 0
fi
out=${OUT:-/tmp}
cd "$dir" || exit 1
[ -d kit ] || tar -xzf kit.tar.gz || exit 1
session_device "$out"
pass=0 fail=0
check () { # check NAME CONDITION-STATUS MESSAGE
  if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "PASS $1 $3"; else fail=$((fail + 1)); echo "FAIL $1 $3"; fi
}
now () { date +%s.%N; }
since () { awk "BEGIN{print $(now) - $1}"; } # seconds since the time $1 (from now)
# same NAME CMD ARGS... : the command on the CPU and on the GPU, outputs compared
same () {
  local name=$1 cmd=$2 in=$3 ext=${3##*.}; shift 3
  local t0 s_c s_g
  t0=$(now)
  kit/run gpufx "$cmd" "img/$in" "$out/$name.cpu.$ext" --backend cpu --quiet "$@" 2> "$out/$name.cpu.err"
  local rc_c=$?
  s_c=$(since "$t0") t0=$(now)
  kit/run gpufx "$cmd" "img/$in" "$out/$name.gpu.$ext" --backend gpu --quiet "$@" 2> "$out/$name.gpu.err"
  local rc_g=$?
  s_g=$(since "$t0")
  cmp -s "$out/$name.cpu.$ext" "$out/$name.gpu.$ext" && [ $rc_c = 0 ] && [ $rc_g = 0 ]
  check "$name" $? "$(printf 'cpu rc %d %.2f s, gpu rc %d %.2f s (whole process) %s' $rc_c "$s_c" \
    $rc_g "$s_g" "$(head -c 200 "$out/$name.gpu.err")")"
  rm -f "$out/$name.cpu.$ext" "$out/$name.gpu.$ext"
}
for img in camera.png astronaut.png coffee.png odd_rgba.png astronaut16.tif camera_float.tif \
           ramp_1xN.png noise_Nx1.png one.png; do
  b=${img%.*}
  same "halftone-fs-$b" halftone "$img"
  same "halftone-jjn-l4-$b" halftone "$img" --kernel jjn --levels 4
  same "halftone-atkinson-b64-m1-$b" halftone "$img" --kernel atkinson --block-size 64 --margin 1
  same "enhance-n3-$b" enhance "$img"
  same "enhance-n31-4th-perchannel-$b" enhance "$img" --window 31 --rule 4th --per-channel --k0 0 --k1 0.5 --k2 0.02 --k3 0.4
  same "deblur-$b" deblur "$img" --filter img/camera.iir
done
# standard input and output: a pipeline of two filters on the GPU equals it on the CPU
for b in cpu gpu; do
  kit/run gpufx enhance - - --backend $b --quiet < img/astronaut.png \
    | kit/run gpufx halftone - "$out/pipe.$b.png" --backend $b --quiet 2> "$out/pipe.$b.err"
done
cmp -s "$out/pipe.cpu.png" "$out/pipe.gpu.png"
check pipeline-stdin-stdout $? "$(head -c 200 "$out/pipe.gpu.err")"
# whole-process times on a larger image (decoding overlaps the GPU's start-up) and on 1x1
for r in 1 2 3; do
  for b in cpu gpu; do
    t0=$(now); kit/run gpufx halftone img/camera4096.png "$out/big.png" --backend $b --quiet
    echo "time halftone 4096^2 gray --backend $b: $(since "$t0") s (whole process)"
  done
  t0=$(now); kit/run gpufx halftone img/one.png "$out/one.png" --backend gpu --quiet
  echo "time halftone 1x1 --backend gpu: $(since "$t0") s (whole process)"
done
# --version names the GPU it will use
kit/run gpufx --version > "$out/version.txt" 2>&1
rc=$?; [ $rc = 0 ] && grep -q "^GPU: NVIDIA" "$out/version.txt"
check version $? "rc $rc: $(tr '\n' ' ' < "$out/version.txt")"
# gpufx bench (what make bench reads): the quick suite times every filter on the GPU too
kit/run gpufx bench --quick --repeat 3 > "$out/bench.txt" 2>&1
rc=$? ok=0; [ $rc = 0 ] || ok=1
for f in halftone enhance deblur; do
  grep -qE "^$f .* gpu +[0-9.]+ (us|ms|s) " "$out/bench.txt" || ok=1
done
check bench-quick-gpu-rows $ok "rc $rc"
sed 's/^/bench: /' "$out/bench.txt"
# early exits while the GPU is still starting: a clean message and status, no crash
for b in auto gpu; do
  kit/run gpufx halftone img/missing.png "$out/x.png" --backend $b 2> "$out/missing.err"
  rc=$?; [ $rc = 2 ] && grep -q "missing.png" "$out/missing.err"
  check "early-exit-$b" $? "rc $rc: $(head -c 200 "$out/missing.err")"
done
# auto: no note on a machine with a GPU, and the GPU's output
kit/run gpufx halftone img/astronaut.png "$out/auto.png" 2> "$out/auto.err"
rc=$?; kit/run gpufx halftone img/astronaut.png "$out/gpu.png" --backend gpu --quiet 2> /dev/null
cmp -s "$out/auto.png" "$out/gpu.png" && [ $rc = 0 ] && ! grep -qi "cpu" "$out/auto.err"
check auto-uses-gpu $? "$(head -c 200 "$out/auto.err")"
# an injected CUDA failure: auto falls back to the CPU with a note, gpu fails and says why
GPUFX_CUDA_FAIL=all kit/run gpufx enhance img/camera.png "$out/fb.png" 2> "$out/fb.err"
rc=$?; kit/run gpufx enhance img/camera.png "$out/cpu.png" --backend cpu --quiet
cmp -s "$out/fb.png" "$out/cpu.png" && [ $rc = 0 ] && grep -qi "cpu" "$out/fb.err"
check auto-falls-back $? "$(tr '\n' ' ' < "$out/fb.err" | head -c 300)"
GPUFX_CUDA_FAIL=all kit/run gpufx enhance img/camera.png "$out/gf.png" --backend gpu 2> "$out/gf.err"
rc=$?; [ $rc = 1 ] && [ ! -e "$out/gf.png" ] && grep -qi "cuda\|gpu" "$out/gf.err"
check gpu-failure-is-an-error $? "rc $rc: $(tr '\n' ' ' < "$out/gf.err" | head -c 300)"
rm -f "$out"/*.png
echo "$pass passed, $fail failed"
