#!/bin/bash
# The halftone and deblur dialogs' previews show what OK will do, to the pixel.  A run
# filters the selection's bounding box as one image; error diffusion carries errors down
# and to the left, and the quadrant IIR filters recurse from every corner, so the visible
# part filtered on its own (what the preview did before) differs from the result.  The
# preview now filters what the visible pixels depend on and shows its visible part: the
# dump of each preview (GPUFX_DIALOG_PREVIEW_DUMP) must equal the CLI's result on the whole
# image at the preview's place, with and without a selection; the negative controls show
# the comparison can tell.  (Local enhance: test_enhance_preview.sh.)
source "$(dirname "$0")/lib.sh"
need_display gimp/preview-exact "$@"
gimp_setup gimp/preview-exact
cmp () { "$py" "$top/tests/gimp/preview_cmp.py" "$@" 2>&1; }
cli () { "$build/gpufx" "$@" --backend cpu --quiet; }
"$py" -c 'import sys, cv2; from skimage import data
cv2.imwrite(sys.argv[1], data.astronaut()[40:460, 20:500, ::-1])' "$work/big.png" \
  || { fail preview-exact-input "making the 480x420 RGB input failed"; exit 1; }
test_filter "$work/good.iir" -0.1
export GPUFX_DIALOG_PREVIEW_DUMP=$work/prev.pnm
export GPUFX_DIALOG_AREA_DUMP=$work/area.pnm # what the widget shows
select_box="60 50 250 200" # x y w h: inside the 300 x 300 preview, off the image's corner

# preview NAME LAST DIALOG [OUT]: a GIMP session runs LAST (which sets the last values;
# its result goes to OUT), then opens the dialog with DIALOG (cancelled after 3 s); the
# preview's dump must exist.
preview () {
  local name=$1 last=$2 dialog=$3 out=${4:-discard.png}
  rm -f "$work/prev.pnm" "$work/area.pnm"
  GPUFX_DIALOG_AUTO_CANCEL=3 gimp_batch "$work/$name.log" \
    "$(scm_run big.png "$out" "$last")" "$(scm_run big.png discard.png "$dialog")"
  batch_ok "$name-run" "$work/$name.log" $? || return 1
  [ -s "$work/prev.pnm" ] || { fail "$name" "no preview was drawn (no dump)"; return 1; }
}

# expect NAME REF: the preview equals REF (the result on the whole image) where it lies.
expect () {
  local why
  why=$(cmp same "$work/prev.pnm" "$2" 0) && pass "$1" || fail "$1" "$why"
}

# shown NAME REF: so does what the preview widget shows (GIMP's own drawing with a
# selection sheared it: it stepped through the rows at the selection's width).
shown () {
  local why
  why=$(cmp same "$work/area.pnm" "$2" 0) && pass "$1" || fail "$1" "$why"
}

# control NAME CMD ARGS...: the preview's area filtered alone differs from the preview.
control () {
  local name=$1 why; shift
  why=$(cmp crop "$work/prev.pnm" "$work/big.png" "$work/crop.png") \
    && cli "$@" "$work/crop.png" "$work/crop-alone.png" \
    && why=$(cmp differs "$work/prev.pnm" "$work/crop-alone.png" 0) \
    && pass "$name" || fail "$name" "$why"
}

# in_region CMD ARGS...: big.png with only the selected box filtered (what OK gives there).
in_region () {
  "$py" - "$work/big.png" "$work/box.png" $select_box <<'PY' || return 1
import sys, cv2
a = cv2.imread(sys.argv[1]); x, y, w, h = map(int, sys.argv[3:7])
cv2.imwrite(sys.argv[2], a[y:y + h, x:x + w])
PY
  cli "$@" "$work/box.png" "$work/box-out.png" || return 1
  "$py" - "$work/big.png" "$work/box-out.png" "$work/region.png" $select_box <<'PY'
import sys, cv2
a = cv2.imread(sys.argv[1]); b = cv2.imread(sys.argv[2]); x, y, w, h = map(int, sys.argv[4:8])
a[y:y + h, x:x + w] = b
cv2.imwrite(sys.argv[3], a)
PY
}

ht=plug-in-gpufx-halftone
sel="(gimp-image-select-rectangle img CHANNEL-OP-REPLACE ${select_box// / })"
if preview halftone-preview "($ht RUN-NONINTERACTIVE img drw 1 3 1 0 -1)" \
     "($ht RUN-INTERACTIVE img drw 0 2 0 0 -1)"; then
  cli halftone "$work/big.png" "$work/full.png" --kernel jjn --levels 3
  expect halftone-preview-equals-result "$work/full.png"
  shown halftone-preview-shows-result "$work/full.png"
  control halftone-preview-control-visible-part-alone-differs halftone --kernel jjn --levels 3
fi
if preview halftone-preview-selection "$sel ($ht RUN-NONINTERACTIVE img drw 0 2 1 0 -1)" \
     "$sel ($ht RUN-INTERACTIVE img drw 1 3 0 0 -1)"; then
  if in_region halftone; then
    expect halftone-preview-selection-equals-result "$work/region.png"
    shown halftone-preview-selection-shows-result "$work/region.png"
  else
    fail halftone-preview-selection-equals-result "the expected image could not be made"
  fi
fi

# A feathered ellipse: the preview blends the result in as OK does (GIMP's Replace mode in
# linear light); a blend of the 8-bit samples was up to 36 levels off in the soft edge.
# ok.png is the last run's OK result with the same selection.
fsel="(gimp-context-set-feather TRUE) (gimp-context-set-feather-radius 40 40)
  (gimp-image-select-ellipse img CHANNEL-OP-REPLACE ${select_box// / }) (gimp-context-set-feather FALSE)"
if preview halftone-preview-feathered "$fsel ($ht RUN-NONINTERACTIVE img drw 1 3 1 0 -1)" \
     "$fsel ($ht RUN-INTERACTIVE img drw 0 2 0 0 -1)" ok.png; then
  why=$(cmp within "$work/prev.pnm" "$work/ok.png" 1) \
    && pass "halftone-preview-feathered-as-ok ($why)" || fail halftone-preview-feathered-as-ok "$why"
fi

db=plug-in-gpufx-iir-deblur
if preview deblur-preview "($db RUN-NONINTERACTIVE img drw \"$work/good.iir\" 1)" \
     "($db RUN-INTERACTIVE img drw \"\" 0)"; then
  cli deblur "$work/big.png" "$work/full.png" --filter "$work/good.iir"
  expect deblur-preview-equals-result "$work/full.png"
  control deblur-preview-control-visible-part-alone-differs deblur --filter "$work/good.iir"
fi
if preview deblur-preview-selection "$sel ($db RUN-NONINTERACTIVE img drw \"$work/good.iir\" 1)" \
     "$sel ($db RUN-INTERACTIVE img drw \"\" 0)"; then
  if in_region deblur --filter "$work/good.iir"; then
    expect deblur-preview-selection-equals-result "$work/region.png"
    shown deblur-preview-selection-shows-result "$work/region.png"
  else
    fail deblur-preview-selection-equals-result "the expected image could not be made"
  fi
fi

# Moving the preview.  The last filtered source is kept: a preview moved where it needs the
# same source (the IIR filters always do: the whole region; error diffusion when moved
# sideways or up) cuts its pixels from it ("source reused" in the dump) instead of
# filtering again; one that needs more rows filters again; a change in the dialog (Reset) or
# turning Preview off and on drops it.  Each moved preview still equals the result.
# moved NAME THEN WANT X Y REF: the preview after GPUFX_DIALOG_PREVIEW_THEN=THEN lies at
# (X, Y), says "source WANT" and equals REF there.
moved () {
  local name=$1 then=$2 want=$3 x=$4 y=$5 ref=$6 head
  head=$(head -c 60 "$work/prev.pnm" | sed -n 2p)
  [ "$head" = "# at $x $y source $want" ] \
    || { fail "$name" "the last preview says '$head', wanted '# at $x $y source $want' after '$then'"; return; }
  expect "$name" "$ref"
}
# after NAME THEN LAST DIALOG WANT X Y REF
after () {
  local name=$1 then=$2; shift 2
  GPUFX_DIALOG_PREVIEW_THEN=$then preview "$name" "$1" "$2" && moved "$name" "$then" "$3" "$4" "$5" "$6"
}
jjn3="($ht RUN-NONINTERACTIVE img drw 1 3 1 0 -1)"
cli halftone "$work/big.png" "$work/ht-jjn3.png" --kernel jjn --levels 3
cli halftone "$work/big.png" "$work/ht-default.png"
cli deblur "$work/big.png" "$work/db.png" --filter "$work/good.iir"
dbf="($db RUN-NONINTERACTIVE img drw \"$work/good.iir\" 1)"
dbi="($db RUN-INTERACTIVE img drw \"\" 0)"
hti="($ht RUN-INTERACTIVE img drw 0 2 0 0 -1)"
after deblur-preview-moved-reuses-source "pan 100 80" "$dbf" "$dbi" reused 100 80 "$work/db.png"
after deblur-preview-toggled-filters-again toggle "$dbf" "$dbi" filtered 0 0 "$work/db.png"
after halftone-preview-moved-sideways-reuses-source "pan 90 0" "$jjn3" "$hti" reused 90 0 "$work/ht-jjn3.png"
after halftone-preview-moved-down-filters-again "pan 0 60" "$jjn3" "$hti" filtered 0 60 "$work/ht-jjn3.png"
after halftone-preview-moved-down-then-up-reuses-source "pan 0 60; pan 0 -40" "$jjn3" "$hti" \
  reused 0 20 "$work/ht-jjn3.png"
after deblur-preview-moved-twice-reuses-source "pan 50 0; pan 30 70" "$dbf" "$dbi" reused 80 70 \
  "$work/db.png"
after halftone-preview-after-reset-filters-again reset "$jjn3" "$hti" filtered 0 0 "$work/ht-default.png"
