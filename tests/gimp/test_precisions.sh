#!/bin/bash
# GIMP's precisions that no PNG or TIFF load gives (linear light; half, double and 32-bit
# integer): the core works in perceptual u8, u16 or float, and what a filter leaves as it
# was must keep its exact stored value.  Local enhance with its mask layer on gray16.png
# converted to each precision: every sample outside the mask is bit for bit the one
# before, the enhanced ones changed; halftone gives only black and white.  Exports
# are TIFF in the image's own sample type, read with tifffile.
source "$(dirname "$0")/lib.sh"
batch_setup gimp/precisions
precisions="U8-LINEAR U16-LINEAR U32-GAMMA U32-LINEAR HALF-GAMMA HALF-LINEAR FLOAT-LINEAR
  DOUBLE-GAMMA DOUBLE-LINEAR"

schemes=()
for p in $precisions; do
  schemes+=("(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"gray16.png\" \"gray16.png\")))
       (drw (car (gimp-image-get-active-drawable img))))
  (gimp-image-convert-precision img PRECISION-$p)
  (gimp-file-save RUN-NONINTERACTIVE img drw \"$p-before.tif\" \"$p-before.tif\")
  (plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4 1.0 0.02 0.8 0.4 0 5 0 1 1)
  ; the mask layer to an image of its own, so that each TIFF holds one layer
  (let* ((mask (aref (cadr (gimp-image-get-layers img)) 0))
         (alone (car (gimp-image-new 97 61 GRAY)))
         (copy (car (gimp-layer-new-from-drawable mask alone))))
    (gimp-image-insert-layer alone copy 0 0)
    (gimp-file-save RUN-NONINTERACTIVE alone copy \"$p-mask.tif\" \"$p-mask.tif\")
    (gimp-image-delete alone)
    (gimp-image-remove-layer img mask))
  (gimp-file-save RUN-NONINTERACTIVE img drw \"$p-enhanced.tif\" \"$p-enhanced.tif\")
  (plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 1 0 -1)
  (gimp-file-save RUN-NONINTERACTIVE img drw \"$p-halftone.tif\" \"$p-halftone.tif\")
  (gimp-image-delete img))")
done
gimp_batch "$work/prec.log" "${schemes[@]}"
batch_ok precisions-batch "$work/prec.log" $? || exit 0

for p in $precisions; do
  why=$("$py" - "$work" "$p" <<'PY' 2>&1
import sys
import numpy as np
import tifffile

work, p = sys.argv[1:3]
before, after, mask, halftone = (tifffile.imread(f"{work}/{p}-{s}.tif")
                                 for s in ("before", "enhanced", "mask", "halftone"))
if before.dtype != after.dtype or before.shape != after.shape:
    sys.exit(f"enhanced {after.dtype} {after.shape} vs before {before.dtype} {before.shape}")
mask = mask if mask.ndim == 2 else mask[..., 0]
kept = mask == 0
if kept.all() or not kept.any():
    sys.exit(f"the mask has {int((~kept).sum())} of {kept.size} pixels: the check proves little")
moved = (after != before) & kept  # bit for bit: NaN-free data, so != is exact
if moved.any():
    y, x = np.argwhere(moved)[0]
    sys.exit(f"{int(moved.sum())} samples outside the mask changed, first at x={x} y={y}: "
             f"{before[y, x]!r} -> {after[y, x]!r}")
if not (after[~kept] != before[~kept]).any():
    sys.exit("no enhanced sample changed")
# Two values, black and white; in float, white as babl's float transfer curves give it
# (1.00000004 in a linear double image).
levels = np.unique(halftone)
top = 1.0 if halftone.dtype.kind == "f" else np.iinfo(halftone.dtype).max
tol = 1e-6 if halftone.dtype.kind == "f" else 0
if len(levels) != 2 or levels[0] != 0 or abs(float(levels[1]) - top) > tol:
    sys.exit(f"halftone values {levels[:6]} (want 0 and {top})")
print(f"{before.dtype}: {int((~kept).sum())} enhanced, {int(kept.sum())} kept")
PY
  ) && pass "precision $p: samples outside the mask kept bit for bit ($why)" \
    || fail "precision $p: samples outside the mask kept bit for bit" "$why"
done
