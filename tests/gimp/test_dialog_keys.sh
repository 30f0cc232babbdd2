#!/bin/bash
# The dialogs from the keyboard, as a user works them (under Xvfb).
# - No two labels of a dialog share an Alt+key, in English and in every catalogue, with
#   everything unfolded (GPUFX_DIALOG_MNEMONICS lists the keys shown; GTK only moves the
#   focus between labels that share a key, so the second field is out of reach).
# - Typed into (xdotool): Alt+key to a field, the value, Tab, Alt+O.  What was typed must
#   reach the filter: each result equals the command line's with the same values.  (The
#   other dialog tests set their values through last values and the Reset hook, so they
#   never pass through the widgets.)  Filters > Repeat (Ctrl+F) then repeats them.
source "$(dirname "$0")/lib.sh"
need_display gimp/dialog-keys "$@"
command -v xdotool >/dev/null || { skip gimp/dialog-keys "xdotool not installed"; exit 0; }
batch_setup gimp/dialog-keys
unset GPUFX_DIALOG_AUTO_OK GPUFX_DIALOG_AUTO_CANCEL GPUFX_DIALOG_AUTO_RESET

# keys_distinct NAME CALL: CALL's dialog (on rgba8.png) in each language, unfolded.
keys_distinct () {
  local name=$1 call=$2 lang dup
  for lang in en $(cd "$top/po" && ls *.po | sed 's/\.po$//'); do
    rm -f "$work/keys.txt"
    LANGUAGE=$lang GPUFX_DIALOG_MNEMONICS=$work/keys.txt GPUFX_DIALOG_EXPAND=1 \
      GPUFX_DIALOG_AUTO_CANCEL=2.5 gimp_batch "$work/keys.log" "$(scm_run rgba8.png keys.png "$call")"
    if [ ! -s "$work/keys.txt" ]; then
      fail "$name-$lang-alt-keys-distinct" "no key list: $(tail -2 "$work/keys.log" | tr '\n' ' ')"
      continue
    fi
    dup=$(cut -f1 "$work/keys.txt" | sort | uniq -d | tr '\n' ' ')
    [ -z "$dup" ] && pass "$name-$lang-alt-keys-distinct ($(wc -l <"$work/keys.txt") keys)" \
      || fail "$name-$lang-alt-keys-distinct" "shared: $(for k in $dup; do
           grep "^$k	" "$work/keys.txt" | cut -f2 | tr '\n' ' '; done)"
  done
}

keys_distinct halftone '(plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1)'
keys_distinct enhance '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)'
keys_distinct deblur '(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 0)'

# typed NAME TITLE IMAGE CALL KEYS...: opens the dialog of CALL (RUN-INTERACTIVE) on
# IMAGE in a batch GIMP, waits for the window titled TITLE, sends each of KEYS (xdotool
# "key" names, or "type:TEXT" for text), and expects GIMP to export the result to
# typed-NAME.png.  Then, in the same GIMP, the call once more as Filters > Repeat (Ctrl+F)
# runs it, RUN-WITH-LAST-VALS, exported to repeat-NAME.png.
typed () {
  local name=$1 title=$2 image=$3 call=$4 wid pid k; shift 4
  # Cancelled after 40 s should the keys not reach OK (it would wait for ever).  The keys
  # start from the defaults, not from an earlier case's values.
  forget_last_values
  GPUFX_DIALOG_AUTO_CANCEL=40 gimp_batch "$work/$name.log" \
    "$(scm_run "$image" "typed-$name.png" "$call")" \
    "$(scm_run "$image" "repeat-$name.png" "${call/RUN-INTERACTIVE/RUN-WITH-LAST-VALS}")" &
  pid=$!
  if ! wid=$(wait_window "$title"); then
    fail "$name" "no window \"$title\""; kill $pid; wait $pid; return 1
  fi
  sleep 1 # the first preview render
  for k in "$@"; do
    if [[ $k == type:* ]]; then
      xdotool windowfocus --sync "$wid" type --delay 50 "${k#type:}"
    else
      xdotool windowfocus --sync "$wid" key --clearmodifiers "$k"
    fi
    sleep 0.2
  done
  wait $pid
  batch_ok "$name" "$work/$name.log" $?
}

# field KEY TEXT: the keys that put TEXT into the field of mnemonic Alt+KEY.
field () { echo "alt+$1" ctrl+a "type:$2" Tab; }

# send_keys WID KEYS...: each of KEYS (xdotool "key" names, or "type:TEXT") to window WID.
send_keys () {
  local wid=$1 k; shift
  for k in "$@"; do
    if [[ $k == type:* ]]; then xdotool windowfocus --sync "$wid" type --delay 50 "${k#type:}"
    else xdotool windowfocus --sync "$wid" key --clearmodifiers "$k"; fi
  done
}

if typed halftone-typed "Halftone (error diffusion)" rgba8.png \
     '(plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1)' $(field l 5) alt+o; then
  "$cli" halftone "$work/rgba8.png" "$work/cli-halftone.png" --levels 5 --backend cpu --quiet
  compare_images halftone-typed-levels-reach-the-filter "$work/typed-halftone-typed.png" \
    "$work/cli-halftone.png"
  compare_images halftone-repeat-runs-the-typed-values "$work/repeat-halftone-typed.png" \
    "$work/cli-halftone.png"
fi

if typed enhance-typed "Local Enhance (histogram statistics)" rgba8.png \
     '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)' \
     $(field g 2.5) $(field 2 0.8) $(field w 7) alt+e alt+o; then
  "$cli" enhance "$work/rgba8.png" "$work/cli-enhance.png" --gain 2.5 --k2 0.8 --window 7 \
    --per-channel --backend cpu --quiet
  compare_images enhance-typed-values-reach-the-filter "$work/typed-enhance-typed.png" \
    "$work/cli-enhance.png"
  compare_images enhance-repeat-runs-the-typed-values "$work/repeat-enhance-typed.png" \
    "$work/cli-enhance.png"
fi

# k has no upper bound: values past the slider's end (10) are typed into its box.  The
# image is flat but for an 8x8 noisy spot whose local sigma is ~20 times the global one,
# so k2 = 25 enhances the spot and k2 = 10 (the old bound) would not.
"$py" - "$work/spot.png" <<'PY'
import sys, numpy as np, cv2
rng = np.random.default_rng(4)
img = (100 + rng.integers(-2, 3, (200, 200))).astype(np.uint8)
img[96:104, 96:104] = rng.integers(0, 201, (8, 8))
cv2.imwrite(sys.argv[1], img)
PY
if typed enhance-typed-large-k "Local Enhance (histogram statistics)" spot.png \
     '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)' \
     $(field 0 2) $(field 2 25) $(field w 7) alt+o; then
  for k2 in 25 10; do
    "$cli" enhance "$work/spot.png" "$work/cli-spot-$k2.png" --k0 2 --k2 $k2 --window 7 \
      --backend cpu --quiet
  done
  check_images enhance-large-k-matters differ "$work/cli-spot-25.png" "$work/cli-spot-10.png"
  compare_images enhance-typed-k-past-the-slider-reaches-the-filter \
    "$work/typed-enhance-typed-large-k.png" "$work/cli-spot-25.png"
fi

{ echo 'gpufx-iir 1'; echo 'mask 1 2'
  for q in 1 2 3 4; do echo "q$q a 0.7 0"; echo "q$q b 1 -0.3"; done; } >"$work/typed.iir"
if typed deblur-typed "IIR Deblur (quadrant filters)" rgba8.png \
     '(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 0)' $(field f "$work/typed.iir") alt+o; then
  "$cli" deblur "$work/rgba8.png" "$work/cli-deblur.png" --filter "$work/typed.iir" \
    --backend cpu --quiet
  compare_images deblur-typed-filter-file-reaches-the-filter "$work/typed-deblur-typed.png" \
    "$work/cli-deblur.png"
  compare_images deblur-repeat-runs-the-typed-values "$work/repeat-deblur-typed.png" \
    "$work/cli-deblur.png"
fi

# Values OK would refuse (k1 above k2): the preview shows the image unfiltered, not the
# last result (which OK would no longer give); a valid value again filters it.
forget_last_values
export GPUFX_DIALOG_AREA_DUMP=$work/area.pnm
GPUFX_DIALOG_AUTO_CANCEL=14 gimp_batch "$work/refused.log" "$(scm_run rgba8.png refused.png \
  '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)')" &
pid=$!
if wid=$(wait_window "Local Enhance (histogram statistics)"); then
  sleep 2
  first=$(sed -n 2p "$work/area.pnm" 2>/dev/null)
  send_keys "$wid" $(field 1 0.5)
  sleep 2
  refused=$(sed -n 2p "$work/area.pnm" 2>/dev/null)
  send_keys "$wid" $(field 1 0.02)
  sleep 3
  again=$(sed -n 2p "$work/area.pnm" 2>/dev/null)
  [[ $first == *"source filtered"* && $refused == *"source original"* \
     && ($again == *"source filtered"* || $again == *"source reused"*) ]] \
    && pass "enhance-preview-unfiltered-while-values-are-refused" \
    || fail enhance-preview-unfiltered-while-values-are-refused \
      "first '$first', with k1 0.5 '$refused', back to 0.02 '$again'"
else
  fail enhance-preview-unfiltered-while-values-are-refused "no window"
fi
wait $pid
unset GPUFX_DIALOG_AREA_DUMP

# A long filter-file path typed into the deblur dialog (no spaces: the messages naming it
# cannot wrap at a word) must not widen the dialog: it grew from ~830 to 2127 px, past a
# 1600 px screen, and OK and Cancel could no longer be reached.
forget_last_values
GPUFX_DIALOG_AUTO_CANCEL=25 gimp_batch "$work/wide.log" \
  "$(scm_run rgba8.png wide.png '(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 0)')" &
pid=$!
if wid=$(wait_window "IIR Deblur (quadrant filters)"); then
  sleep 1
  width_of () { xwininfo -id "$wid" | awk '/Width:/ { print $2 }'; }
  before=$(width_of)
  long=$work/$(printf 'averyveryverylongfoldername%.0s' 1 2 3 4 5 6 7 8)/filter.iir
  for k in alt+f ctrl+a "type:$long" Tab; do
    if [[ $k == type:* ]]; then xdotool windowfocus --sync "$wid" type --delay 5 "${k#type:}"
    else xdotool windowfocus --sync "$wid" key --clearmodifiers "$k"; fi
  done
  sleep 1.5
  after=$(width_of)
  [ -n "$after" ] && [ "$after" -le $((before + 120)) ] \
    && pass "deblur-dialog-long-path-keeps-its-width ($before -> $after px)" \
    || fail deblur-dialog-long-path-keeps-its-width "$before -> $after px"
else
  fail deblur-dialog-long-path-keeps-its-width "no window"
fi
wait $pid
batch_ok deblur-dialog-long-path-cancelled "$work/wide.log" $? \
  && check_images deblur-dialog-long-path-untouched same "$work/wide.png" "$work/rgba8.png"

# A message that wraps (the preview failing on the GPU backend where none is usable) makes
# the dialog taller; once it is gone (back to Automatic) the dialog gives the height back
# instead of keeping a blank band above the status line.
forget_last_values
GPUFX_DIALOG_AUTO_CANCEL=25 gimp_batch "$work/tall.log" \
  "$(scm_run rgba8.png tall.png '(plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1)')" &
pid=$!
if wid=$(wait_window "Halftone (error diffusion)"); then
  sleep 1.5
  height_of () { xwininfo -id "$wid" | awk '/Height:/ { print $2 }'; }
  before=$(height_of)
  send_keys "$wid" alt+b Down Down
  sleep 2
  during=$(height_of)
  send_keys "$wid" alt+b Up Up
  sleep 2
  after=$(height_of)
  if [ -n "$during" ] && [ "$during" -le "$before" ]; then
    skip halftone-dialog-height-given-back "no message grew the dialog ($before -> $during px: the GPU works here?)"
  elif [ -n "$after" ] && [ "$after" -le $((before + 4)) ]; then
    pass "halftone-dialog-height-given-back ($before -> $during -> $after px)"
  else
    fail halftone-dialog-height-given-back "$before -> $during -> $after px"
  fi
else
  fail halftone-dialog-height-given-back "no window"
fi
wait $pid

# Under a locale with a decimal comma (de_DE), a value typed with a point reaches the
# filter as typed, and one with a comma too (GTK's numeric spin buttons dropped the point:
# 2.5 became 25 and 0.725 became 725, clamped to 10).
if loc=$(comma_locale); then
  # (bash itself cannot load the locale: its warning goes to /dev/null)
  if { LOCPATH=$loc LC_ALL=de_DE.UTF-8 typed enhance-comma-locale \
         "Local Enhance (histogram statistics)" rgba8.png \
         '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)' \
         $(field g 2.5) $(field 0 0,55) $(field 2 0.725) alt+o; } 2>/dev/null; then
    "$cli" enhance "$work/rgba8.png" "$work/cli-comma.png" --gain 2.5 --k0 0.55 --k2 0.725 \
      --backend cpu --quiet
    compare_images enhance-point-and-comma-typed-under-de_DE "$work/typed-enhance-comma-locale.png" \
      "$work/cli-comma.png"
  fi
else
  skip enhance-comma-locale "$loc"
fi

# Under C's locale (a decimal point), a comma typed into a scale entry is a decimal comma
# too (2,5 was 2), and a word typed into one leaves the value as it was (abc made k0 its
# minimum, 0): --gain 2.5 --k0 0.4 --k2 0.65.
if typed enhance-comma-c-locale "Local Enhance (histogram statistics)" rgba8.png \
     '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)' \
     $(field g 2,5) $(field 0 abc) $(field 2 0,65) alt+o; then
  "$cli" enhance "$work/rgba8.png" "$work/cli-comma-c.png" --gain 2.5 --k0 0.4 --k2 0.65 \
    --backend cpu --quiet
  compare_images enhance-comma-and-word-typed-under-C "$work/typed-enhance-comma-c-locale.png" \
    "$work/cli-comma-c.png"
fi

# Values between the allowed ones: a window n typed even (4) and stepped up with the arrow
# key comes to the odd grid (7; it was 6, refused, and OK did nothing); k2 takes three
# decimals (0.025: the 4th edition's small sigma bound is of that size).  Both reach the
# filter: --window 7 --k2 0.025.
if typed enhance-grid "Local Enhance (histogram statistics)" rgba8.png \
     '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)' \
     alt+w ctrl+a type:4 Up Tab $(field 2 0.025) alt+o; then
  "$cli" enhance "$work/rgba8.png" "$work/cli-grid.png" --window 7 --k2 0.025 --backend cpu \
    --quiet
  compare_images enhance-even-window-moves-to-odd "$work/typed-enhance-grid.png" \
    "$work/cli-grid.png"
fi

# Switching Rule to the 4th edition keeps the test: the 3rd edition's k0, k1, k2 (0.4,
# 0.02 and a typed 0.1) become the 4th's 0, 0.4, 0.02, 0.1 (the preview does not stop on
# k0 > k1, and the typed 0.1 is not lost): OK then runs --rule 4th --k0 0 --k1 0.4
# --k2 0.02 --k3 0.1 (with the keys: Alt+U, Down).  It put in the 4th edition's example
# values, k3 0.4, which make another test.
if typed enhance-rule "Local Enhance (histogram statistics)" rgba8.png \
     '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)' \
     $(field 2 0.1) alt+u Down alt+o; then
  for k3 in 0.1 0.4; do
    "$cli" enhance "$work/rgba8.png" "$work/cli-rule-$k3.png" --rule 4th --k0 0 --k1 0.4 \
      --k2 0.02 --k3 $k3 --backend cpu --quiet
  done
  check_images enhance-rule-switch-k3-matters differ "$work/cli-rule-0.1.png" "$work/cli-rule-0.4.png"
  compare_images enhance-4th-rule-keeps-the-test "$work/typed-enhance-rule.png" \
    "$work/cli-rule-0.1.png"
fi
