#!/bin/bash
# Regenerates the dialog screenshots in docs/ (English and Russian) under Xvfb.
# Usage: tests/gimp/shots.sh [OUTDIR]   (default docs; BUILD from GPUFX_BUILD or build/)
# Add a plug-in with one more `shot` line: output name, window title msgid, image, call.
source "$(dirname "$0")/lib.sh"
need_display shots "$@"
out=$(realpath -m "${1:-$top/docs}")
mkdir -p "$out"
gimp_setup shots >/dev/null
echo 'include "/usr/share/gimp/2.0/themes/Light/gtkrc"' >"$GIMP2_DIRECTORY/themerc"
data=$("$py" -c 'import skimage, os; print(os.path.join(os.path.dirname(skimage.__file__), "data"))')

# shot NAME TITLE_MSGID IMAGE CALL: docs/dialog-NAME.png and docs/dialog-NAME-ru.png.
shot () {
  local name=$1 title_id=$2 image=$3 call=$4 lang suffix title wid pid
  for lang in en ru; do
    suffix=$([ $lang = en ] || echo "-$lang")
    title=$(TEXTDOMAINDIR="$build/locale" LANGUAGE=$lang gettext -d gimp-gpufx "$title_id")
    (export LANGUAGE=$lang GPUFX_DIALOG_EXPAND=1 GPUFX_DIALOG_AUTO_OK=6
     gimp_batch "$work/shot.log" "$(scm_run "$image" "$work/shot.png" "$call")") &
    pid=$!
    wid=
    for _ in $(seq 150); do
      wid=$(xwininfo -root -tree | grep -F "\"$title\"" | awk '{print $1; exit}')
      [ -n "$wid" ] && break
      sleep 0.2
    done
    if [ -z "$wid" ]; then echo "shots: no window \"$title\"" >&2; wait $pid; return 1; fi
    sleep 3   # first preview render
    /usr/bin/import -window "$wid" "$out/dialog-$name$suffix.png"
    wait $pid
    echo "wrote $out/dialog-$name$suffix.png"
  done
}

shot halftone "Halftone (error diffusion)" "$data/camera.png" \
  '(plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1)'
