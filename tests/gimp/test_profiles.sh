#!/bin/bash
# An image with an Adobe RGB profile: GIMP keeps the profile and the plug-ins work on the
# layer's own samples, and the command line on the file's, so the two agree.  The greens
# of the test picture lie outside sRGB, so any trip through sRGB shows.  Halftone at 256
# levels gives every sample back; each filter's export equals the command line's result
# on the same file, bit for bit (2 fail with a command line that converts to sRGB first),
# and both keep a profile.
source "$(dirname "$0")/lib.sh"
batch_setup gimp/profiles

icc=/usr/share/color/icc/ghostscript/a98.icc  # Debian's libgs-common
[ -f "$icc" ] || { skip profiles "$icc missing (Debian's libgs-common)"; exit 0; }
"$py" - "$work" "$icc" <<'PY' || { fail inputs "cannot write the tagged PNG"; exit 1; }
import sys
import numpy as np
from PIL import Image
work, icc = sys.argv[1:3]
rng = np.random.default_rng(4)
img = rng.integers(0, 256, (23, 37, 3), dtype=np.uint8)
img[:12, :20] = (20, 230, 40)  # outside sRGB when read as Adobe RGB
Image.fromarray(img).save(f"{work}/a98.png", icc_profile=open(icc, "rb").read())
PY

declare -A call=(
  [copy]='(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 256 1 0 -1)'
  [halftone]='(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 5 1 0 -1)'
  [enhance]='(plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4 0.6 0.01 0.8 0.4 0 3 0 0 1)'
)
declare -A cli_args=(
  [copy]='halftone --levels 256'
  [halftone]='halftone --levels 5'
  [enhance]='enhance --gain 4 --k0 0.6 --k1 0.01 --k2 0.8 --window 3'
)
schemes=()
for f in copy halftone enhance; do
  schemes+=("$(scm_run a98.png "gimp-$f.png" "${call[$f]}")")
done
gimp_batch "$work/runs.log" "${schemes[@]}"
batch_ok "profiles-batch" "$work/runs.log" $? || exit 0

compare_images "a98: 256-level halftone in GIMP gives back every sample" \
  "$work/a98.png" "$work/gimp-copy.png"
for f in copy halftone enhance; do
  # shellcheck disable=SC2086  # the CLI arguments split on purpose
  "$cli" ${cli_args[$f]} "$work/a98.png" "$work/cli-$f.png" --backend cpu --quiet
  compare_images "a98 $f: GIMP's samples are the command line's" \
    "$work/gimp-$f.png" "$work/cli-$f.png"
done
why=$("$py" - "$work" <<'PY' 2>&1
import sys
from PIL import Image
for name in ("gimp-enhance", "cli-enhance"):
    if not Image.open(f"{sys.argv[1]}/{name}.png").info.get("icc_profile"):
        sys.exit(f"{name}.png has no colour profile")
PY
) && pass "a98: both results keep a colour profile" || fail "a98: both results keep a colour profile" "$why"
