#!/bin/bash
# The plug-ins under a locale whose decimal point is a comma (de_DE.UTF-8, compiled with
# localedef into the test's folder).  GTK sets the user's locale in the plug-in, but filter
# files keep C's numbers whatever it is (common/c_numbers.h), so that GIMP and gpufx read
# each other's files.  In real GIMP batch mode under that locale: deblur reads a filter
# file written with points and gives the CLI's result; identify writes a filter file that
# the CLI reads, equal to the CLI's own to the last digit.
source "$(dirname "$0")/lib.sh"
if [ ! -x "$build/gpufx-iir-deblur" ]; then
  skip gimp/comma-locale "$build/gpufx-iir-deblur not built"
  exit 0
fi
gimp_setup gimp/comma-locale
loc=$(comma_locale) || { skip gimp/comma-locale "$loc"; exit 0; }
cli=$build/gpufx
"$py" - "$work" <<'PY' || { fail inputs "could not write the inputs"; exit 1; }
import sys, numpy as np
from PIL import Image
from scipy import ndimage
sharp = np.asarray(Image.open("/usr/lib/python3/dist-packages/skimage/data/camera.png"))
blur = ndimage.gaussian_filter(sharp.astype(np.float64), 1.2, mode="nearest")
Image.fromarray(np.clip(blur + 0.5, 0, 255).astype(np.uint8)).save(f"{sys.argv[1]}/blurred.png")
PY
test_filter "$work/given.iir" -0.1
(export LOCPATH=$loc LC_ALL=de_DE.UTF-8
 gimp_batch "$work/run.log" \
   "$(scm_run blurred.png gimp-given.png '(plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img drw "given.iir" 1)')" \
   "$(scm_run blurred.png gimp-auto.png '(plug-in-gpufx-iir-identify RUN-NONINTERACTIVE img drw -1 3 3 0 "gimp-auto.iir")
     (plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img drw "gimp-auto.iir" 1)')") 2>/dev/null  # bash cannot load the locale: only its warning
if batch_ok comma-locale-batch "$work/run.log" $?; then
  "$cli" deblur "$work/blurred.png" "$work/cli-given.png" --filter "$work/given.iir" --backend cpu --quiet
  compare_images comma-locale-deblur-reads-points "$work/gimp-given.png" "$work/cli-given.png"
  "$cli" identify --blurred "$work/blurred.png" --auto --output "$work/cli-auto.iir" >/dev/null
  if diff <(grep -v '^#' "$work/gimp-auto.iir") <(grep -v '^#' "$work/cli-auto.iir") >/dev/null
  then pass comma-locale-identify-writes-points
  else fail comma-locale-identify-writes-points "$(diff <(grep -v '^#' "$work/gimp-auto.iir") <(grep -v '^#' "$work/cli-auto.iir") | head -3 | tr '\n' ' ')"; fi
  "$cli" deblur "$work/blurred.png" "$work/cli-auto.png" --filter "$work/cli-auto.iir" --backend cpu --quiet
  compare_images comma-locale-identified-deblur-equals-cli "$work/gimp-auto.png" "$work/cli-auto.png"
fi
