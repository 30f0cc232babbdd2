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
  # The whole file, its report in the comments too ("# residual (RMS): 0.0474267").
  if cmp -s "$work/gimp-auto.iir" "$work/cli-auto.iir"
  then pass comma-locale-identify-writes-points
  else fail comma-locale-identify-writes-points "$(diff "$work/gimp-auto.iir" "$work/cli-auto.iir" | head -3 | tr '\n' ' ')"; fi
  "$cli" deblur "$work/blurred.png" "$work/cli-auto.png" --filter "$work/cli-auto.iir" --backend cpu --quiet
  compare_images comma-locale-identified-deblur-equals-cli "$work/gimp-auto.png" "$work/cli-auto.png"
fi

# Messages write numbers as Script-Fu does ("gain = 100.5", "(k2 = 0.4)", "margin -1.5"):
# with the locale's comma the 4th edition's "k0 = 0, k1 = 0,4, ..." could not be read.
test_filter "$work/unstable.iir" -1.5
(export LOCPATH=$loc LC_ALL=de_DE.UTF-8
 gimp_batch "$work/errors.log" \
   "$(scm_run blurred.png e1.png '(catch #f (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 100.5 0.4 0.02 0.4 0.4 0 3 0 0 1))')" \
   "$(scm_run blurred.png e2.png '(catch #f (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4 0.4 0.5 0.4 0.4 0 3 0 0 1))')" \
   "$(scm_run blurred.png e3.png '(catch #f (plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img drw "unstable.iir" 1))')") 2>/dev/null
for re in 'gain = 100\.5 .*more than 0, up to 64' 'k1 = 0\.5 .*k2 = 0\.4' 'q3 \(margin -[0-9]\.[0-9]+\)'; do
  grep -qE -- "$re" "$work/errors.log" && pass "comma-locale-message /$re/" \
    || fail "comma-locale-message /$re/" "$(grep -A1 'GIMP-Error' "$work/errors.log" | head -6 | tr '\n' ' ')"
done
