#!/bin/bash
# Regenerates the dialog screenshots in docs/ (English and Russian) under Xvfb.
# Usage: tests/gimp/shots.sh [OUTDIR]   (default docs; BUILD from GPUFX_BUILD or build/)
#        SHOTS=enhance tests/gimp/shots.sh   only the shots whose name matches
# Add a plug-in with one more `shot` line: output name, window title msgid, image, call.
# The virtual screen is tall (XVFB_SCREEN) so the deblur dialog is not cut off; a window
# that still reaches past the screen's edge is an error.  Look at every picture after.
source "$(dirname "$0")/lib.sh"
XVFB_SCREEN=${XVFB_SCREEN:-1600x1600x24} need_display shots "$@"
out=$(realpath -m "${1:-$top/docs}")
mkdir -p "$out"
gimp_setup shots >/dev/null
echo 'include "/usr/share/gimp/2.0/themes/Light/gtkrc"' >"$GIMP2_DIRECTORY/themerc"
data=$("$py" -c 'import skimage, os; print(os.path.join(os.path.dirname(skimage.__file__), "data"))')

# fits_screen WID: the whole window lies on the screen (else import captures garbage).
fits_screen () {
  local geo screen
  geo=$(xwininfo -id "$1" | awk '/Absolute upper-left X/{x=$NF} /Absolute upper-left Y/{y=$NF}
    /Width:/{w=$NF} /Height:/{h=$NF} END{print x + w, y + h}')
  screen=$(xwininfo -root | awk '/Width:/{w=$NF} /Height:/{h=$NF} END{print w, h}')
  read -r right bottom <<<"$geo"; read -r sw sh <<<"$screen"
  [ "$right" -le "$sw" ] && [ "$bottom" -le "$sh" ]
}

# with_last PROC ARGS: stores ARGS as PROC's last values (a run on a throwaway copy of the
# image), then opens PROC's dialog on the image: the dialog starts from the last values.
with_last () {
  echo "(let* ((copy (car (gimp-image-duplicate img))))
     ($1 RUN-NONINTERACTIVE copy (car (gimp-image-get-active-drawable copy)) $2)
     (gimp-image-delete copy))
   ($1 RUN-INTERACTIVE img drw $2)"
}

# shot NAME TITLE_MSGID IMAGE CALL: docs/dialog-NAME.png and docs/dialog-NAME-ru.png.
shot () {
  local name=$1 title_id=$2 image=$3 call=$4 lang suffix title wid pid
  [[ $name == *${SHOTS:-}* ]] || return 0
  for lang in en ru; do
    suffix=$([ $lang = en ] || echo "-$lang")
    title=$(TEXTDOMAINDIR="$build/locale" LANGUAGE=$lang gettext -d gimp-gpufx "$title_id")
    (export LANGUAGE=$lang GPUFX_DIALOG_EXPAND=1 GPUFX_DIALOG_AUTO_OK=6
     gimp_batch "$work/shot.log" "$(scm_run "$image" "$work/shot.png" "$call")") &
    pid=$!
    if ! wid=$(wait_window "$title"); then echo "shots: no window \"$title\"" >&2; wait $pid; exit 1; fi
    sleep 3   # first preview render
    if ! fits_screen "$wid"; then
      echo "shots: \"$title\" reaches past the screen: make XVFB_SCREEN larger" >&2
      wait $pid; exit 1
    fi
    /usr/bin/import -window "$wid" "$out/dialog-$name$suffix.png"
    wait $pid
    echo "wrote $out/dialog-$name$suffix.png"
  done
}

shot halftone "Halftone (error diffusion)" "$data/camera.png" \
  '(plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1)'

# Local enhance at its defaults (Gonzalez & Woods' E = 4, k0 = 0.4, k1 = 0.02, k2 = 0.4,
# n = 3): the dark coat's texture comes up in the preview.
shot enhance "Local Enhance (histogram statistics)" "$data/camera.png" \
  '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)'

# IIR deblur of a blurred photograph.  The filter is identified against the sharp original,
# which keeps a recursive part (root loci to show); automatic edges give an FIR fit on this
# photograph (empty loci) and are shown by test_identify_dialog.sh's SHOT instead.
"$py" - "$data/camera.png" "$work/camera-blurred.png" <<'PY'
import sys
import numpy as np
from PIL import Image
from scipy import ndimage
img = np.asarray(Image.open(sys.argv[1]).convert('L'), dtype=np.float64)
blur = ndimage.gaussian_filter(img, 1.2, mode='nearest')
Image.fromarray(np.clip(blur + 0.5, 0, 255).astype(np.uint8)).save(sys.argv[2])
PY
"$build/gpufx" identify --blurred "$work/camera-blurred.png" --sharp "$data/camera.png" --mask 3x3 \
  --output "$work/camera.iir" >/dev/null || { echo "shots: gpufx identify failed" >&2; exit 1; }
shot deblur "IIR Deblur (quadrant filters)" "$work/camera-blurred.png" \
  "$(with_last plug-in-gpufx-iir-deblur "\"$work/camera.iir\" 0")"
