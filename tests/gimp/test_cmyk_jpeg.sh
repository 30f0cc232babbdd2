#!/bin/bash
# A CMYK JPEG without a profile reads in gpufx as GIMP reads it (README: "a CMYK file
# becomes sRGB, as GIMP loads it").  GEGL converted its inks to RGB in linear light, much
# lighter than GIMP (skimage's coffee: mean 150 against 99, up to 73 levels apart); GIMP's
# JPEG loader multiplies the inverted inks in 8 bits.  Two files: Pillow's (K = 0, Adobe
# marker) and ImageMagick's (-colorspace CMYK: K carries the grey).  Each one GIMP loads and
# exports as PNG must equal, sample for sample, what `gpufx enhance --gain 1` (every sample
# passed through) writes.
source "$(dirname "$0")/lib.sh"
gimp_setup gimp/cmyk-jpeg
cli=$build/gpufx
"$py" - "$work" <<'PY' || { fail cmyk-jpeg-inputs "could not write the inputs"; exit 1; }
import subprocess, sys
from PIL import Image
work = sys.argv[1]
coffee = Image.open("/usr/lib/python3/dist-packages/skimage/data/coffee.png").convert("RGB")
coffee.convert("CMYK").save(f"{work}/pillow.jpg", quality=90)
coffee.save(f"{work}/coffee.png")
subprocess.run(["/usr/bin/convert", f"{work}/coffee.png", "-colorspace", "CMYK",
                f"{work}/magick.jpg"], check=True)
PY
gimp_batch "$work/load.log" "$(scm_run pillow.jpg gimp-pillow.png '')" \
  "$(scm_run magick.jpg gimp-magick.png '')"
if batch_ok cmyk-jpeg-gimp-loads "$work/load.log" $?; then
  for f in pillow magick; do
    "$cli" enhance "$work/$f.jpg" "$work/cli-$f.png" --gain 1 --backend cpu --quiet
    compare_images "cmyk-jpeg-$f-reads-as-in-gimp" "$work/gimp-$f.png" "$work/cli-$f.png"
  done
fi
