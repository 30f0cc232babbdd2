#!/bin/bash
# The "Identify" part of the deblur dialog, unattended under Xvfb: the dialog opens with an
# empty filter file, Identify is pressed (GPUFX_DIALOG_AUTO_IDENTIFY: automatic edges, 3x3,
# least squares), then OK.  The filter written (the default file in the GIMP profile) must
# be the CLI's `gpufx identify --auto`, and the deblurred layer the CLI's `gpufx deblur`.
# With SHOT=FILE, a screenshot of the dialog after identification is saved there.
source "$(dirname "$0")/lib.sh"
if [ ! -x "$build/gpufx-iir-deblur" ]; then
  skip gimp/identify-dialog "$build/gpufx-iir-deblur not built (the dialog is the deblur one)"
  exit 0
fi
XVFB_SCREEN=1600x1280x24 need_display gimp/identify-dialog "$@"   # room to see it too big
if ! grep -q gfx_identify_dialog_build "$top/plugins/iir-deblur.c" 2>/dev/null; then
  fail identify-dialog-wired "plugins/iir-deblur.c does not call gfx_identify_dialog_build (see plugins/iir_identify_glue.h)"
  exit 1
fi
gimp_setup gimp/identify-dialog
cli=$build/gpufx
"$py" - "$work" <<'PY' || { fail inputs "could not write the inputs"; exit 1; }
import sys, numpy as np
from PIL import Image
from scipy import ndimage
sharp = np.asarray(Image.open("/usr/lib/python3/dist-packages/skimage/data/camera.png"))
blur = ndimage.gaussian_filter(sharp.astype(np.float64), 1.2, mode="nearest")
Image.fromarray(np.clip(blur + 0.5, 0, 255).astype(np.uint8)).save(f"{sys.argv[1]}/blurred.png")
Image.fromarray(sharp).save(f"{sys.argv[1]}/sharp.png")
PY
call='(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 1)'
export GPUFX_DIALOG_AUTO_IDENTIFY=1 GPUFX_DIALOG_AUTO_OK=12
gimp_batch "$work/dlg.log" "$(scm_run blurred.png dialog.png "$call")" &
pid=$!
# The dialog fits a 1366x768 laptop screen less a title bar and a panel (1366x720), before
# and after Identify adds its report and fragments picture: its largest size is kept.
if wid=$(wait_window "IIR Deblur (quadrant filters)"); then
  size=0x0
  for _ in $(seq 10); do
    size=$(xwininfo -id "$wid" 2>/dev/null | awk -v was="$size" '/Width:/{w=$NF} /Height:/{h=$NF}
      END{split(was, p, "x"); if (w < p[1]) w = p[1]; if (h < p[2]) h = p[2]; print w "x" h}')
    sleep 1
  done
  [ -n "${SHOT:-}" ] && /usr/bin/import -window "$wid" "$SHOT" && echo "wrote $SHOT"
  read -r w h <<<"${size/x/ }"
  [ "$w" -le 1366 ] && [ "$h" -le 720 ] && [ "$h" -ge 400 ] && pass identify-dialog-fits-a-laptop-screen \
    || fail identify-dialog-fits-a-laptop-screen "the dialog grew to ${size} (at most 1366x720)"
else
  fail identify-dialog-fits-a-laptop-screen "no dialog window seen"
fi
wait $pid
if batch_ok identify-dialog-ok "$work/dlg.log" $?; then
  iir="$GIMP2_DIRECTORY/gpufx-identified.iir"
  "$cli" identify --blurred "$work/blurred.png" --auto --output "$work/cli.iir" >/dev/null
  "$cli" deblur "$work/blurred.png" "$work/cli.png" --filter "$work/cli.iir" --backend cpu --quiet
  if [ -f "$iir" ] && diff <(grep -v '^#' "$iir") <(grep -v '^#' "$work/cli.iir") >/dev/null
  then pass identify-dialog-filter-equals-cli
  else fail identify-dialog-filter-equals-cli "no $iir, or it differs from gpufx identify --auto"; fi
  grep -q '^# q1 stable margin' "$iir" 2>/dev/null && pass identify-dialog-report-in-file \
    || fail identify-dialog-report-in-file "no report comment in $iir"
  compare_images identify-dialog-deblur-equals-cli "$work/dialog.png" "$work/cli.png"
fi

# The same dialog with a sharp reference layer, as a user picks it: Automatic unticked, the
# image's other layer (the sharp photograph) chosen in the list that this makes usable
# (GPUFX_DIALOG_IDENTIFY_SHARP=1).  The filter must be `gpufx identify --sharp`'s.
unset SHOT
rm -f "$GIMP2_DIRECTORY/gpufx-identified.iir"
call='(let* ((sharp (car (gimp-file-load-layer RUN-NONINTERACTIVE img "'"$work"'/sharp.png"))))
        (gimp-image-insert-layer img sharp 0 1)
        (gimp-image-set-active-layer img drw)
        (plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 1)
        (gimp-image-remove-layer img sharp))'
# If Identify fails, OK is refused (no filter file) and Cancel ends the dialog.
GPUFX_DIALOG_IDENTIFY_SHARP=1 GPUFX_DIALOG_AUTO_CANCEL=20 gimp_batch "$work/dlg-sharp.log" "$(scm_run blurred.png dialog-sharp.png "$call")"
if batch_ok identify-dialog-sharp-ok "$work/dlg-sharp.log" $?; then
  iir="$GIMP2_DIRECTORY/gpufx-identified.iir"
  "$cli" identify --blurred "$work/blurred.png" --sharp "$work/sharp.png" \
    --output "$work/cli-sharp.iir" >/dev/null
  "$cli" deblur "$work/blurred.png" "$work/cli-sharp.png" --filter "$work/cli-sharp.iir" \
    --backend cpu --quiet
  if [ -f "$iir" ] && diff <(grep -v '^#' "$iir") <(grep -v '^#' "$work/cli-sharp.iir") >/dev/null
  then pass identify-dialog-sharp-filter-equals-cli
  else fail identify-dialog-sharp-filter-equals-cli "no $iir, or it differs from gpufx identify --sharp"; fi
  compare_images identify-dialog-sharp-deblur-equals-cli "$work/dialog-sharp.png" "$work/cli-sharp.png"
fi

# A sharp layer moved against the blurred one pairs different spots of the scene: the
# dialog refuses it as the procedure does and writes no filter file, so the OK that the
# hook presses later finds none (the last values name the file deleted here).
rm -f "$GIMP2_DIRECTORY/gpufx-identified.iir"
call='(let* ((sharp (car (gimp-file-load-layer RUN-NONINTERACTIVE img "'"$work"'/sharp.png"))))
        (gimp-image-insert-layer img sharp 0 1)
        (gimp-layer-set-offsets sharp 5 0)
        (gimp-image-set-active-layer img drw)
        (plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 1)
        (gimp-image-remove-layer img sharp))'
GPUFX_DIALOG_IDENTIFY_SHARP=1 GPUFX_DIALOG_AUTO_CANCEL=20 gimp_batch "$work/dlg-moved.log" "$(scm_run blurred.png dialog-moved.png "$call")"
if [ -e "$GIMP2_DIRECTORY/gpufx-identified.iir" ]; then
  fail identify-dialog-moved-sharp-refused "a sharp layer 5 px to the right was used"
elif grep -q "gpufx-identified.iir' cannot be read" "$work/dlg-moved.log"; then
  pass identify-dialog-moved-sharp-refused
else
  fail identify-dialog-moved-sharp-refused "not the OK without a filter: $(head -c 300 "$work/dlg-moved.log")"
fi

# Identify never replaces a filter file the user had: with Filter file naming an existing
# mine.iir (the last values of a run with it), the dialog writes mine-identified.iir beside
# it, points Filter file there, and OK deblurs with the new filter; mine.iir is untouched.
mine="$work/mine.iir"
cp "$work/cli-sharp.iir" "$mine" && printf '# the user'"'"'s own\n' >> "$mine" && cp "$mine" "$work/mine.orig"
rm -f "$work/mine-identified.iir"
last="(plug-in-gpufx-iir-deblur RUN-NONINTERACTIVE img drw \"$mine\" 1)"
call='(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 1)'
GPUFX_DIALOG_AUTO_IDENTIFY=1 GPUFX_DIALOG_AUTO_OK=12 gimp_batch "$work/dlg-mine.log" \
  "$(scm_run blurred.png discard.png "$last")" "$(scm_run blurred.png dialog-mine.png "$call")"
if batch_ok identify-dialog-keeps-user-file-ok "$work/dlg-mine.log" $?; then
  cmp -s "$mine" "$work/mine.orig" && pass identify-dialog-keeps-the-users-file \
    || fail identify-dialog-keeps-the-users-file "$mine was rewritten"
  new="$work/mine-identified.iir"
  if [ -f "$new" ] && diff <(grep -v '^#' "$new") <(grep -v '^#' "$work/cli.iir") >/dev/null
  then pass identify-dialog-writes-beside-it
  else fail identify-dialog-writes-beside-it "no $new, or it differs from gpufx identify --auto"; fi
  compare_images identify-dialog-ok-uses-the-new-file "$work/dialog-mine.png" "$work/cli.png"
fi

# Cancel while Identify runs (a 5000 x 5000 image: finding its edges alone takes seconds;
# Cancel pressed 0.3 s after Identify): the identification stops, no filter file is
# written, the dialog closes and the image is untouched.
"$py" - "$work" <<'PY' || fail inputs "could not write the large input"
import sys, numpy as np
from PIL import Image
small = np.asarray(Image.open(f"{sys.argv[1]}/blurred.png"))
Image.fromarray(np.pad(small, ((0, 5000 - small.shape[0]), (0, 5000 - small.shape[1])),
                       mode="symmetric")).save(f"{sys.argv[1]}/large.png")
PY
rm -f "$GIMP2_DIRECTORY/gpufx-identified.iir"
call='(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 1)'
GPUFX_DIALOG_AUTO_IDENTIFY=1 GPUFX_DIALOG_IDENTIFY_CANCEL=0.3 gimp_batch "$work/dlg-cancel.log" \
  "$(scm_run large.png large-out.png "$call")"
if batch_ok identify-dialog-cancel-ok "$work/dlg-cancel.log" $?; then
  [ ! -e "$GIMP2_DIRECTORY/gpufx-identified.iir" ] && pass identify-dialog-cancel-writes-no-file \
    || fail identify-dialog-cancel-writes-no-file "Cancel during Identify still wrote $GIMP2_DIRECTORY/gpufx-identified.iir"
  check_images identify-dialog-cancel-untouched same "$work/large-out.png" "$work/large.png"
fi

# Reset puts the Identify part back too: Automatic unticked and Mask rows 5 typed, then
# Reset (Alt+R); Identify (pressed later by the hook) must then find the edges itself with
# a 3x3 mask and write `gpufx identify --auto`'s filter.
if command -v xdotool >/dev/null; then
  rm -f "$GIMP2_DIRECTORY/gpufx-identified.iir"
  call='(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 1)'
  # Cancel at 30 s ends the dialog should OK be refused (no filter written).
  GPUFX_DIALOG_AUTO_IDENTIFY=8 GPUFX_DIALOG_AUTO_OK=14 GPUFX_DIALOG_AUTO_CANCEL=30 gimp_batch "$work/dlg-reset.log" \
    "$(scm_run blurred.png dialog-reset.png "$call")" &
  pid=$!
  if wid=$(wait_window "IIR Deblur (quadrant filters)"); then
    sleep 1
    for k in alt+a alt+w ctrl+a type:5 Tab alt+r; do
      if [[ $k == type:* ]]; then xdotool windowfocus --sync "$wid" type --delay 50 "${k#type:}"
      else xdotool windowfocus --sync "$wid" key --clearmodifiers "$k"; fi
      sleep 0.2
    done
  else
    fail identify-dialog-reset "no dialog window seen"
  fi
  wait $pid
  if batch_ok identify-dialog-reset-ok "$work/dlg-reset.log" $?; then
    iir="$GIMP2_DIRECTORY/gpufx-identified.iir"
    if [ -f "$iir" ] && diff <(grep -v '^#' "$iir") <(grep -v '^#' "$work/cli.iir") >/dev/null
    then pass identify-dialog-reset-restores-identify
    else fail identify-dialog-reset-restores-identify "after Reset, Identify did not write gpufx identify --auto's filter (Automatic or the mask kept?)"; fi
  fi
else
  skip identify-dialog-reset "xdotool not installed"
fi
