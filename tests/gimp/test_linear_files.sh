#!/bin/bash
# Files that GIMP exports from linear-light images (PNG and TIFF with a linear-TRC ICC
# profile: "linear TRC from sRGB", or from Adobe RGB), as GIMP 2.10 loads them back and as
# gpufx reads them.  GIMP encodes such an image perceptually with sRGB's TRC on the
# profile's primaries (a 3-level halftone's middle level is 0.214 in the file, not 0.5);
# gpufx did the same only for EXR, and worked on the linear samples themselves in a PNG
# or TIFF.  Each filter's export from GIMP must equal gpufx's result on the same file,
# sample for sample (3-level halftone, local enhance, deblur), and gpufx must write a
# profile with the file's primaries and linear TRC back.
source "$(dirname "$0")/lib.sh"
batch_setup gimp/linear-files
icc=/usr/share/color/icc/ghostscript/a98.icc  # Debian's libgs-common
[ -f "$icc" ] || { skip linear-files "$icc missing (Debian's libgs-common)"; exit 0; }
"$py" - "$work" "$icc" <<'PY' || { fail inputs "cannot write the tagged PNG"; exit 1; }
import sys
import numpy as np
from PIL import Image
work, icc = sys.argv[1:3]
img = np.asarray(Image.open(f"{work}/rgba8.png"))[..., :3].copy()
img[:12, :20] = (20, 230, 40)  # outside sRGB when read as Adobe RGB
Image.fromarray(img).save(f"{work}/a98.png", icc_profile=open(icc, "rb").read())
PY
test_filter "$work/filter.iir" -0.1

# GIMP writes the linear files: each input converted to a linear precision and exported.
files=(lin-gray16.png lin-rgb16.png lin-rgba8.png lin-rgbf.tif lin-a98.png)
export_linear () { # SOURCE PRECISION OUT
  echo "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"$1\" \"$1\")))
               (drw (car (gimp-image-get-active-drawable img))))
          (gimp-image-convert-precision img PRECISION-$2)
          (gimp-file-save RUN-NONINTERACTIVE img drw \"$3\" \"$3\")
          (gimp-image-delete img))"
}
gimp_batch "$work/export.log" "$(export_linear gray16.png U16-LINEAR lin-gray16.png)" \
  "$(export_linear rgb16.png U16-LINEAR lin-rgb16.png)" \
  "$(export_linear rgba8.png U8-LINEAR lin-rgba8.png)" \
  "$(export_linear rgbf.tif FLOAT-LINEAR lin-rgbf.tif)" \
  "$(export_linear a98.png U16-LINEAR lin-a98.png)"
batch_ok linear-files-export "$work/export.log" $? || exit 0

declare -A call=(
  [halftone]='(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 3 1 0 -1)'
  [enhance]='(plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4 1.0 0.02 0.8 0.4 0 5 0 0 1)'
  [deblur]='(plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img drw "filter.iir" 1)'
)
declare -A cli_args=(
  [halftone]='halftone --levels 3'
  [enhance]='enhance --gain 4 --k0 1.0 --k1 0.02 --k2 0.8 --window 5'
  [deblur]='deblur --filter filter.iir'
)
schemes=()
for f in "${files[@]}"; do
  for op in halftone enhance deblur; do
    schemes+=("$(scm_run "$f" "gimp-$op-$f" "${call[$op]}")")
  done
done
gimp_batch "$work/runs.log" "${schemes[@]}"
batch_ok linear-files-batch "$work/runs.log" $? || exit 0
for f in "${files[@]}"; do
  for op in halftone enhance deblur; do
    read -r -a args <<<"${cli_args[$op]}"
    (cd "$work" && "$cli" "${args[0]}" "$f" "cli-$op-$f" "${args[@]:1}" --backend cpu --quiet) \
      || fail "linear-files-$op-$f-cli" "gpufx failed"
    compare_images "linear-files-$op-$f-equals-gimp" "$work/gimp-$op-$f" "$work/cli-$op-$f"
  done
done
# The middle level of the halftone is GIMP's perceptual 0.5, 0.214 in the linear file.
why=$("$py" - "$work/cli-halftone-lin-rgbf.tif" <<'PY'
import sys, numpy as np, tifffile
levels = np.unique(tifffile.imread(sys.argv[1])[..., :3])
print(levels)
sys.exit(0 if len(levels) == 3 and abs(levels[1] - 0.21404) < 1e-4 else 1)
PY
) && pass "linear-files-middle-level-is-perceptual ($why)" \
  || fail linear-files-middle-level-is-perceptual "levels $why"
# gpufx writes back a profile with the file's primaries and its linear TRC (the very bytes
# where GEGL kept them; for linear sRGB babl's own scRGB profile).
for f in lin-rgb16.png lin-a98.png; do
  why=$("$py" - "$work/$f" "$work/cli-enhance-$f" <<'PY'
import io, struct, sys
from PIL import Image, ImageCms
def trc_is_linear(icc):
    count = struct.unpack(">I", icc[128:132])[0]
    for i in range(count):
        sig, off, size = struct.unpack(">4sII", icc[132 + 12 * i:144 + 12 * i])
        if sig == b"rTRC":
            tag = icc[off:off + size]
            if tag[:4] == b"curv":
                n = struct.unpack(">I", tag[8:12])[0]
                return n == 0 or (n == 1 and tag[12:14] == b"\x01\x00")
            if tag[:4] == b"para":
                return struct.unpack(">H", tag[8:10])[0] == 0 and tag[12:16] == b"\x00\x01\x00\x00"
    return False
a, b = (Image.open(p).info.get("icc_profile") for p in sys.argv[1:])
if not a or not b:
    sys.exit(print("a profile is missing") or 1)
pa, pb = (ImageCms.ImageCmsProfile(io.BytesIO(x)).profile for x in (a, b))
near = all(abs(u - v) < 1e-4 for c in ("red", "green", "blue")
           for u, v in zip(getattr(pa, c + "_colorant")[0], getattr(pb, c + "_colorant")[0]))
print(f"{len(a)} and {len(b)} bytes, colorants {'equal' if near else 'differ'}, "
      f"TRC {'linear' if trc_is_linear(b) else 'not linear'}")
sys.exit(0 if near and trc_is_linear(a) and trc_is_linear(b) else 1)
PY
) && pass "linear-files-$f-profile-kept ($why)" || fail "linear-files-$f-profile-kept" "$why"
done
