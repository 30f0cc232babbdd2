#!/bin/bash
# What starting GEGL costs each plug-in run, in real GIMP: one batch session that runs
# plug-in-gpufx-halftone N times on a 64x64 image (a fresh plug-in process each time),
# timed with the plug-ins' own GEGL start (no modules) and with GEGL_PATH naming GEGL's
# module folder (every module, as before), alternating, ROUNDS each.
#   bash bench/plugin_startup.sh [N=20] [ROUNDS=3]
set -u
n=${1:-20}
rounds=${2:-3}
source "$(dirname "$0")/../tests/gimp/lib.sh"
gimp_setup plugin-startup >/dev/null
$py -c "import numpy as np, cv2; cv2.imwrite('$work/small.png', (np.arange(64*64) % 251).astype('uint8').reshape(64, 64))"
calls=""
for _ in $(seq "$n"); do calls="$calls (plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 1 0 -1)"; done
scheme="(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"small.png\" \"small.png\")))
               (drw (car (gimp-image-get-active-drawable img)))) $calls (gimp-image-delete img))"
all_modules=$(pkg-config --variable=pluginsdir gegl-0.4)
session () {  # prints the session's seconds; FAILs loudly if GIMP did not succeed
  local t0 t1 rc
  t0=$(date +%s.%N)
  gimp_batch "$work/run.log" "$scheme"; rc=$?
  t1=$(date +%s.%N)
  batch_ok "session" "$work/run.log" $rc >/dev/null || { echo "FAIL: $(tail -3 "$work/run.log")" >&2; exit 1; }
  echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}'
}
printf "%d plug-in runs a GIMP session (GIMP's own start included), seconds:\n" "$n"
for r in $(seq "$rounds"); do
  without=$(session)
  with=$(GEGL_PATH=$all_modules session)
  printf "  round %d: plug-ins without GEGL modules %s, with every module %s\n" "$r" "$without" "$with"
done
