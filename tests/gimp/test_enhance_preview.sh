#!/bin/bash
# The local-enhance dialog's live preview shows what OK will do: it filters only the
# visible part of a drawable larger than the preview, but with the whole drawable's
# global mean and deviation, so its inner pixels equal the full result's, with the last
# values (per channel) and again after Reset (luminance: the dialog's change hooks must
# swap in the luminance statistics).  A negative
# control shows the comparison can tell: the visible part filtered alone differs.
source "$(dirname "$0")/lib.sh"
need_display gimp/enhance-preview "$@"
gimp_setup gimp/enhance-preview
proc=plug-in-gpufx-local-enhance
cmp () { "$py" "$top/tests/gimp/preview_cmp.py" "$@" 2>&1; }
margin=0 # the preview reads the window's neighbours around the visible part
"$py" -c 'import sys, cv2; from skimage import data
a = data.astronaut()[40:460, 20:500].copy(); a[..., 0] //= 4  # red far from the luminance
cv2.imwrite(sys.argv[1], a[..., ::-1])' "$work/big.png" \
  || { fail enhance-preview-input "making the 480x420 RGB input failed"; exit 1; }
last=$(scm_run big.png discard.png "($proc RUN-NONINTERACTIVE img drw 3 1.0 0.02 0.8 0.4 0 3 1 0 1)")
dialog=$(scm_run big.png discard.png "($proc RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)")
enhance () { "$build/gpufx" enhance "$@" --backend cpu --quiet; }

# preview_case NAME CLI-OPTIONS...: the dump of the run just made against the CLI's result.
preview_case () {
  local name=$1; shift
  [ -s "$work/prev.pnm" ] || { fail "$name" "no preview was drawn (no dump)"; return 1; }
  enhance "$work/big.png" "$work/full.png" "$@"
  why=$(cmp same "$work/prev.pnm" "$work/full.png" $margin) && pass "$name" || fail "$name" "$why"
}

export GPUFX_DIALOG_PREVIEW_DUMP=$work/prev.pnm
GPUFX_DIALOG_AUTO_CANCEL=3 gimp_batch "$work/last.log" "$last" "$dialog"
batch_ok enhance-preview-run "$work/last.log" $? \
  && preview_case enhance-preview-equals-result-last-values --gain 3 --k0 1.0 --k2 0.8 \
       --per-channel
rm -f "$work/prev.pnm"

GPUFX_DIALOG_AUTO_RESET=1 GPUFX_DIALOG_AUTO_CANCEL=3 gimp_batch "$work/reset.log" "$last" "$dialog"
if batch_ok enhance-preview-reset-run "$work/reset.log" $? \
   && preview_case enhance-preview-equals-result-after-reset; then
  why=$(cmp crop "$work/prev.pnm" "$work/big.png" "$work/crop.png") \
    && enhance "$work/crop.png" "$work/crop-alone.png" \
    && why=$(cmp differs "$work/prev.pnm" "$work/crop-alone.png" $margin) \
    && pass enhance-preview-control-own-statistics-differ \
    || fail enhance-preview-control-own-statistics-differ "$why"
fi

# Renders in flight (GPUFX_DIALOG_PREVIEW_HOLD keeps each one from finishing until it is
# cancelled): Reset cancels the stale render and starts another, OK cancels that one and
# waits for it, then runs the filter.  The result must be the defaults' (the CLI's), and
# the run must not sit out the hold (a minute).
# The status line says a render is under way once it has taken a quarter of a second.
unset GPUFX_DIALOG_PREVIEW_DUMP
t0=$SECONDS
GPUFX_DIALOG_STATUS_DUMP=$work/status.txt \
GPUFX_DIALOG_PREVIEW_HOLD=1 GPUFX_DIALOG_AUTO_RESET=1 GPUFX_DIALOG_AUTO_OK=2 \
  gimp_batch "$work/held.log" "$last" "$(scm_run big.png held.png \
    "($proc RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)")"
took=$((SECONDS - t0))
if batch_ok enhance-preview-ok-while-rendering "$work/held.log" $?; then
  enhance "$work/big.png" "$work/held-cli.png"
  compare_images enhance-preview-ok-while-rendering-gives-defaults "$work/held.png" "$work/held-cli.png"
  [ "$took" -lt 45 ] && pass "enhance-preview-ok-cancels-the-render ($took s)" \
    || fail enhance-preview-ok-cancels-the-render "the run took $took s: OK waited for the render"
  grep -q ' · computing the preview…$' "$work/status.txt" \
    && pass enhance-preview-status-says-computing \
    || fail enhance-preview-status-says-computing "status lines: $(tr '\n' '|' <"$work/status.txt" | cut -c1-200)"
fi
