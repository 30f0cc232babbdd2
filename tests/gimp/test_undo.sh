#!/bin/bash
# Undo in GIMP with its GUI (under Xvfb), as a user meets it after our plug-ins: a run is
# one undo step, so one Ctrl+Z (pressed with xdotool in the image window) gives the image
# back exactly and Ctrl+Y gives the result back; local enhance's mask layer goes with the
# same step; a failed run and a cancelled dialog run leave no step of their own (one Ctrl+Z
# then undoes the step before them); closing the image closes its open dialog quietly.
# GIMP runs its Script-Fu server, driven by
# tests/gimp/sfclient.py, so that keys can be pressed between the calls.
source "$(dirname "$0")/lib.sh"
need_display gimp/undo "$@"
GUI=${GIMP_GUI:-gimp-2.10}
for tool in xdotool "$GUI"; do
  command -v "$tool" >/dev/null || { skip gimp/undo "$tool not installed"; exit 0; }
done
batch_setup gimp/undo
port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Dialog runs (and only those) are cancelled after their OK, pressed 3 s after they open.
# --console-messages: GIMP's messages go to gui.log instead of message boxes.
GPUFX_TEST_CANCEL=dialog GPUFX_DIALOG_AUTO_OK=3 "$GUI" -n -s -d -f --console-messages \
  -b "(plug-in-script-fu-server RUN-NONINTERACTIVE \"127.0.0.1\" $port \"\")" >"$work/gui.log" 2>&1 &
gui=$!
trap 'kill $gui 2>/dev/null; wait $gui 2>/dev/null; rm -rf "$work"' EXIT
if ! "$py" "$top/tests/gimp/sfclient.py" "$port" wait 120; then
  fail gimp/undo "GIMP's Script-Fu server never answered: $(tail -3 "$work/gui.log" | tr '\n' ' ')"
  exit 1
fi

# sf SCRIPT: the reply of GIMP on stdout; status 1 when the command failed.
sf () { "$py" "$top/tests/gimp/sfclient.py" "$port" run "$1"; }

# open_image NAME: a copy of gray8.png as NAME.png in a display of its own, marked clean.
# Sets img, drw (its layer) and win (its window).
open_image () {
  cp "$work/gray8.png" "$work/$1.png"
  img=$(sf "(let ((img (car (gimp-file-load RUN-NONINTERACTIVE \"$work/$1.png\" \"$1.png\"))))
             (gimp-display-new img) (gimp-image-clean-all img) img)") || return 1
  drw=$(sf "(car (gimp-image-get-active-drawable $img))") || return 1
  win=
  for _ in $(seq 50); do
    win=$(xdotool search --onlyvisible --name "^\\*?$1\\.png-" | head -1)
    [ -n "$win" ] && return 0
    sleep 0.2
  done
  return 1
}

# press KEYS: KEYS in the image window, focused first as a click on it would.
press () { xdotool windowfocus --sync "$win" key --clearmodifiers "$1"; }

# until_dirty 0|1: waits (10 s at most) until the image's dirty flag is that; undo and redo
# run in GIMP's main loop, after the key event is read.
until_dirty () {
  for _ in $(seq 50); do
    [ "$(sf "(car (gimp-image-is-dirty $img))")" = "$1" ] && return 0
    sleep 0.2
  done
  return 1
}

# save_layer FILE: the layer drw as it is now, saved from a duplicate of the image (saving
# the image itself could change its dirty flag).
save_layer () {
  sf "(let* ((dup (car (gimp-image-duplicate $img)))
             (pos (car (gimp-image-get-item-position $img $drw)))
             (layer (aref (cadr (gimp-image-get-layers dup)) pos)))
        (gimp-file-save RUN-NONINTERACTIVE dup layer \"$work/$1\" \"$1\")
        (gimp-image-delete dup))" >/dev/null
}

layers () { sf "(car (gimp-image-get-layers $img))"; }

# undo_gives_back NAME WANT: one Ctrl+Z leaves a clean image whose layer equals WANT.
undo_gives_back () {
  press ctrl+z
  if ! until_dirty 0; then
    fail "$1" "still dirty after one Ctrl+Z (a second undo step?)"; return 1
  fi
  save_layer "$1.png" && compare_images "$1" "$work/$1.png" "$2"
}

# --- a halftone run is one undo step, and redo brings it back -----------------------------
if ! open_image undo-halftone; then
  fail "undo: halftone" "no image window: $(tail -2 "$work/gui.log" | tr '\n' ' ')"
elif ! sf "(plug-in-gpufx-halftone RUN-NONINTERACTIVE $img $drw 0 2 1 0 -1)" >"$work/ht.reply"; then
  fail "undo: halftone" "the run failed: $(cat "$work/ht.reply")"
else
  save_layer ht-run.png
  check_images "undo: halftone changed the layer" differ "$work/ht-run.png" "$work/gray8.png"
  if undo_gives_back "undo: one Ctrl+Z after halftone gives the image back" "$work/gray8.png"; then
    press ctrl+y
    until_dirty 1 || fail "undo: Ctrl+Y after the undo" "the image stayed clean"
    save_layer ht-redo.png
    compare_images "undo: Ctrl+Y gives the halftone back" "$work/ht-redo.png" "$work/ht-run.png"
  fi
fi

# --- local enhance with its mask layer: the merge and the new layer are one step ----------
if open_image undo-enhance; then
  sf "(plug-in-gpufx-local-enhance RUN-NONINTERACTIVE $img $drw 4 1.0 0.02 0.8 0.4 0 5 0 1 1)" >/dev/null
  n=$(layers)
  [ "$n" = 2 ] && pass "undo: enhance added its mask layer" \
    || fail "undo: enhance added its mask layer" "$n layers"
  if undo_gives_back "undo: one Ctrl+Z after enhance gives the layer back" "$work/gray8.png"; then
    n=$(layers)
    [ "$n" = 1 ] && pass "undo: the same Ctrl+Z removes the mask layer" \
      || fail "undo: the same Ctrl+Z removes the mask layer" "$n layers"
  fi
else
  fail "undo: enhance" "no image window"
fi

# --- a failed run and a cancelled dialog run add no undo step -----------------------------
# Invert first (an undo step of GIMP's own), then the run: the layer must still be the
# inverted one, and one Ctrl+Z must undo the invert.
after_invert () { # NAME WHAT PROC RUN-MODE ARGS REPLY: the run (PROC RUN-MODE img drw ARGS)
  # must be answered with a reply that matches REPLY
  local name=$1 what=$2 proc=$3 mode=$4 args=$5
  if ! open_image "undo-$name"; then fail "undo: $what" "no image window"; return; fi
  sf "(gimp-drawable-invert $drw FALSE)" >/dev/null && save_layer "$name-inverted.png"
  sf "($proc $mode $img $drw $args)" >"$work/$name.reply" 2>&1
  grep -qE "$6" "$work/$name.reply" && pass "undo: $what was reported" \
    || fail "undo: $what was reported" "GIMP said: $(tr '\n' ' ' <"$work/$name.reply")"
  save_layer "$name-after.png" \
    && compare_images "undo: $what left the layer as it was" "$work/$name-after.png" \
         "$work/$name-inverted.png"
  undo_gives_back "undo: $what left no undo step" "$work/gray8.png"
}
after_invert failed "a failed halftone run" plug-in-gpufx-halftone RUN-NONINTERACTIVE "0 2 1 33 -1" \
  'block-size = 33 .*multiple of 32'
# Script-Fu answers a cancelled procedure with #f and no error (#t is a success).
after_invert cancelled "a cancelled enhance dialog run" plug-in-gpufx-local-enhance \
  RUN-INTERACTIVE "4 1.0 0.02 0.8 0.4 0 5 0 1 1" '^\(#f\)$'

# --- the image closed while its dialog is open ---------------------------------------------
# Ctrl+W in the image window closes it (it is clean) before the dialog's OK: the dialog
# must close by itself (the run ends as cancelled, nothing to filter), without GIMP
# reporting calls on a drawable that no longer exists.
if open_image undo-closed; then
  sf "(plug-in-gpufx-local-enhance RUN-INTERACTIVE $img $drw 4 1.0 0.02 0.8 0.4 0 5 0 0 1)" \
    >"$work/closed.reply" 2>&1 &
  replier=$!
  for _ in $(seq 50); do
    xdotool search --onlyvisible --name '^Local Enhance' >/dev/null && break
    sleep 0.1
  done
  sleep 0.5 # the first preview
  press ctrl+w
  wait $replier
  grep -qx '(#f)' "$work/closed.reply" && pass "closed image: its dialog closes, nothing run" \
    || fail "closed image: its dialog closes, nothing run" "GIMP said: $(tr '\n' ' ' <"$work/closed.reply")"
  ! grep -q 'invalid ID' "$work/gui.log" && pass "closed image: no calls on the gone layer" \
    || fail "closed image: no calls on the gone layer" "$(grep -m2 'invalid ID' "$work/gui.log")"
else
  fail "undo: closed image" "no image window"
fi

sf "(gimp-quit 1)" >/dev/null 2>&1 || true  # GIMP closes the connection as it quits
