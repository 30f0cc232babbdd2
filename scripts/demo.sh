#!/bin/bash
# make demo: before/after comparisons of real photographs (from Debian's python3-skimage)
# for the three filters, written into OUT (default demo/).  Uses the installed plug-ins'
# command-line twin, build/gpufx, so the pictures are exactly what GIMP would produce.
# DEMO_PEERS=0 leaves out the (slow, minutes) comparison with scikit-image's deblurring.
set -euo pipefail
build=${1:-build}
out=${2:-demo}
gpufx="$build/gpufx"
data=$(/usr/bin/python3 -c 'import skimage, os; print(os.path.join(os.path.dirname(skimage.__file__), "data"))')
mkdir -p "$out"
run () { echo "  $*"; "$@"; }

echo "demo: halftone"
run "$gpufx" halftone "$data/camera.png" "$out/halftone-camera.png" --compare "$out/halftone-camera-compare.png" --quiet
run "$gpufx" halftone "$data/astronaut.png" "$out/halftone-astronaut.png" --kernel jjn --compare "$out/halftone-astronaut-compare.png" --quiet

echo "demo: local enhance"
run "$gpufx" enhance "$data/coffee.png" "$out/enhance-coffee.png" --window 7 --compare "$out/enhance-coffee-compare.png" --mask-out "$out/enhance-coffee-mask.png" --quiet
run "$gpufx" enhance "$data/camera.png" "$out/enhance-camera.png" --window 3 --compare "$out/enhance-camera-compare.png" --quiet

echo "demo: IIR deblur (filter identified automatically from the blurred photo's edges)"
/usr/bin/python3 - "$data/camera.png" "$out/camera-blurred.png" <<'PY'
import sys
import numpy as np
from PIL import Image
from scipy import ndimage
img = np.asarray(Image.open(sys.argv[1]).convert('L'), dtype=np.float64)
blur = ndimage.gaussian_filter(img, 1.2, mode='nearest')
Image.fromarray(np.clip(blur + 0.5, 0, 255).astype(np.uint8)).save(sys.argv[2])
PY
run "$gpufx" identify --blurred "$out/camera-blurred.png" --auto --mask 3x3 --output "$out/camera.iir" --fragments "$out/camera-fragments.png"
run "$gpufx" deblur "$out/camera-blurred.png" "$out/deblur-camera.png" --filter "$out/camera.iir" --compare "$out/deblur-camera-compare.png" --quiet
run "$gpufx" stability "$out/camera.iir" --plot "$out/camera-roots.png"
if [ "${DEMO_PEERS:-1}" != 0 ]; then
  echo "demo: deblur next to scikit-image Richardson-Lucy and Wiener"
  run /usr/bin/python3 bench/deblur_compare.py --build "$build" --out "$out/deblur-compare.png"
fi
echo "demo: before/after pictures are in $out/"
