#!/bin/bash
# A batch run gives the same result every time on a float or linear-light image, however
# busy the machine (ui/pdb.c).  A plug-in without a dialog reads no babl fish cache, so
# babl times its conversion chains in each plug-in process and takes the fastest within
# its tolerance; the chains differ in the last bits of float samples and error diffusion
# carries such a bit far.  GIMP runs here with babl's clock replaced by a coin that is new
# in every process (tests/support/babl_ticks_shuffle.c): five runs of each filter on an
# OpenEXR (linear float in GIMP) must export the same samples, in colour the ones the
# command line gives for the same file.
source "$(dirname "$0")/lib.sh"
batch_setup gimp/reproducible

cc -shared -fPIC -O2 "$top/tests/support/babl_ticks_shuffle.c" -o "$work/shuffle.so" \
  || { fail shuffle "cannot build tests/support/babl_ticks_shuffle.c"; exit 1; }
for n in grayf rgbf; do
  "$cli" bench --copy "$work/$n.tif" "$work/$n.exr" >"$work/cli.log" 2>&1 \
    || { skip reproducible "this GEGL cannot write OpenEXR: $(tail -1 "$work/cli.log")"; exit 0; }
done

declare -A call=(
  [halftone]='(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 256 1 0 -1)'
  [enhance]='(plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4 1.0 0.02 0.8 0.4 0 5 0 0 1)'
)
declare -A cli_args=(
  [halftone]='halftone --levels 256'
  [enhance]='enhance --gain 4 --k0 1.0 --k1 0.02 --k2 0.8 --window 5'
)
schemes=()
for n in grayf rgbf; do
  for f in halftone enhance; do
    for i in 1 2 3 4 5; do
      schemes+=("$(scm_run "$n.exr" "$n-$f-$i.tif" "${call[$f]}")")
    done
  done
done
# (Plug-ins built with ASan want its runtime first among their libraries; this one only
# adds babl_ticks, so the order does not matter.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
  LD_PRELOAD="$work/shuffle.so" gimp_batch "$work/runs.log" "${schemes[@]}"
batch_ok "reproducible-batch" "$work/runs.log" $? || exit 0

for n in grayf rgbf; do
  for f in halftone enhance; do
    for i in 2 3 4 5; do
      compare_images "$n.exr $f: run $i exports what run 1 did" \
        "$work/$n-$f-1.tif" "$work/$n-$f-$i.tif"
    done
    # The command line's EXR: it keeps the file's linear light, as GIMP does.  In colour
    # the two are bit for bit alike.  (Not in gray: GIMP's layer is plain "Y float" while
    # GEGL's loader gives the file's chromaticities as its colour space, and babl's exact
    # chains for the two differ by an ulp, which enhance's gain then multiplies.)
    if [ $n = rgbf ]; then
      # shellcheck disable=SC2086  # the CLI arguments split on purpose
      "$cli" ${cli_args[$f]} "$work/$n.exr" "$work/$n-$f-cli.exr" --backend cpu --quiet
      OPENCV_IO_ENABLE_OPENEXR=1 compare_images \
        "$n.exr $f: the plug-in's samples are the command line's" \
        "$work/$n-$f-1.tif" "$work/$n-$f-cli.exr"
    fi
  done
done
