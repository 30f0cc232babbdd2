#!/bin/bash
# The README's before/after pictures: docs/before-after-{halftone,enhance,deblur}.png.
# Runs `make demo`'s script (scripts/demo.sh, without the scikit-image comparison) into a
# temporary folder, so the pictures are the product's own output (build/gpufx, the plug-ins'
# command-line twin) on scikit-image's photographs, then crops the same box out of the
# "before" and "after" halves of each --compare picture at 1:1 (a halftone must not be
# scaled) and puts them side by side: original left, result right.
# Usage: scripts/readme_pictures.sh [BUILD] [OUTDIR]   (defaults build, docs)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
out=${2:-$top/docs}
convert=/usr/bin/convert   # ImageMagick's own (a /usr/local/bin/convert may be a stand-in)
identify=/usr/bin/identify
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
(cd "$top" && DEMO_PEERS=0 scripts/demo.sh "$build" "$tmp") >"$tmp.log" 2>&1 \
  || { cat "$tmp.log" >&2; rm -f "$tmp.log"; exit 1; }
rm -f "$tmp.log"

# pair NAME COMPARE W H X Y: the box WxH+X+Y of both halves of COMPARE, 6 px apart.
pair () {
  local name=$1 compare=$2 w=$3 h=$4 x=$5 y=$6 half
  half=$(( $("$identify" -format '%w' "$compare") / 2 ))
  "$convert" "$compare" \
    \( -clone 0 -crop "${w}x${h}+${x}+${y}" +repage \) \
    \( -clone 0 -crop "${w}x${h}+$((half + x))+${y}" +repage -background white -splice 6x0 \) \
    -delete 0 +append -strip "$out/before-after-$name.png"
  echo "wrote $out/before-after-$name.png ($(stat -c %s "$out/before-after-$name.png") bytes)"
}

# camera.png, Floyd-Steinberg to black and white: face, camera and coat.
pair halftone "$tmp/halftone-camera-compare.png" 300 300 110 40
# camera.png, local enhance at the defaults (E 4, k0 0.4, k1 0.02, k2 0.4, n 3): the dark
# coat's texture is brought up, the bright sky and grass are left alone.
pair enhance "$tmp/enhance-camera-compare.png" 300 300 110 60
# camera.png blurred (Gaussian, sigma 1.2), then deblurred with a filter identified
# automatically from its own edges (no sharp reference).
pair deblur "$tmp/deblur-camera-compare.png" 300 300 150 40
