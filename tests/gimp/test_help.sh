#!/bin/bash
# Help (F1): the pages each plug-in installs beside it (ui/help_pages.h), and GIMP opening
# them.
# - The pages of every language: well-formed, mapped by gimp-help.xml, the same settings
#   in every language under the catalogue's labels (tests/gimp/help_check.py).
# - Each filter's page shows its before/after picture.
# - A page's Script-Fu arguments are the procedure's, as GIMP's PDB lists them, and its
#   example call runs and gives the command line's result with the defaults.
# - F1 in each dialog, in GIMP with its interface under Xvfb, has GIMP ask the desktop's
#   web browser (recorded here: text/html's default application) for that procedure's
#   page, in the interface's language.
source "$(dirname "$0")/lib.sh"
need_display gimp/help "$@"
batch_setup gimp/help
GIMP_GUI=${GIMP_GUI:-gimp-2.10}
plugins=$GIMP2_DIRECTORY/plug-ins

for dir in "$plugins"/gpufx-*/; do
  name=$(basename "$dir")
  "$py" "$top/tests/gimp/help_check.py" pages "$dir/help" "$top/po" | sed "s/^\([A-Z]*\) /\1 $name-/"
done

# page PROC: the installed English page of PROC.
page () { ls "$plugins"/gpufx-*/help/en/"$1.html" 2>/dev/null | head -1; }

procs="plug-in-gpufx-halftone plug-in-gpufx-local-enhance plug-in-gpufx-iir-deblur
       plug-in-gpufx-iir-identify"
query=
for proc in $procs; do
  query+="(gimp-message (string-append \"$proc mode \" (caddr (gimp-procedural-db-proc-arg \"$proc\" 0))))
  (let* ((n (list-ref (gimp-procedural-db-proc-info \"$proc\") 6)))
    (let loop ((i 3)) (when (< i n)
      (gimp-message (string-append \"$proc arg \" (cadr (gimp-procedural-db-proc-arg \"$proc\" i))))
      (loop (+ i 1)))))"
done
gimp_batch "$work/args.log" "$query"
for proc in $procs; do
  want=$(grep -o "$proc arg [a-z0-9-]*" "$work/args.log" | awk '{print $3}' | tr '\n' ' ')
  got=$("$py" "$top/tests/gimp/help_check.py" args "$(page "$proc")" | tr '\n' ' ')
  [ -n "$want" ] && [ "$got" = "$want" ] && pass "$proc-page-lists-the-pdb-arguments" \
    || fail "$proc-page-lists-the-pdb-arguments" "page: $got; PDB: ${want:-nothing}"
  # The run mode's description names the three modes the plug-ins take.
  grep -q "$proc mode .*RUN-NONINTERACTIVE (1), RUN-WITH-LAST-VALS (2)" "$work/args.log" \
    && pass "$proc-run-mode-names-its-three-values" \
    || fail "$proc-run-mode-names-its-three-values" "$(grep -o "$proc mode .*" "$work/args.log")"
done

# A choice is written as its list in the dialog shows it: the rule's "m_S", "s_G" keep their
# underscores (subscripts, not mnemonics: they were stripped, "mS <= k0 mG").
grep -qF 'm_S &lt;= k0 m_G, k1 s_G &lt;= s_S &lt;= k2 s_G' "$(page plug-in-gpufx-local-enhance)" \
  && pass local-enhance-page-rule-as-the-dialog-shows-it \
  || fail local-enhance-page-rule-as-the-dialog-shows-it "$(grep -o '3rd edition[^<]*' "$(page plug-in-gpufx-local-enhance)" | head -1)"

# Each filter's page shows the README's before/after picture of it.
for pair in "plug-in-gpufx-halftone halftone" "plug-in-gpufx-local-enhance enhance" \
            "plug-in-gpufx-iir-deblur deblur"; do
  read -r proc sub <<<"$pair"
  pic=$(sed -n 's|.*<img src="\([^"]*\)".*|\1|p' "$(page "$proc")")
  cmp -s "$(dirname "$(page "$proc")")/$pic" "$top/docs/before-after-$sub.png" \
    && pass "$proc-page-shows-its-picture" \
    || fail "$proc-page-shows-its-picture" "page shows '${pic:-no picture}'"
done

# The example calls with the defaults, as a user would paste them (image drawable -> img drw;
# the filter file the deblur page leaves to the user as /path/to/filter-file: one here).
test_filter "$work/example.iir" -0.1
for pair in "plug-in-gpufx-halftone halftone" "plug-in-gpufx-local-enhance enhance" \
            "plug-in-gpufx-iir-deblur deblur"; do
  read -r proc sub <<<"$pair"
  call=$("$py" "$top/tests/gimp/help_check.py" example "$(page "$proc")")
  call=${call/image drawable/img drw}
  extra=()
  if [ "$sub" = deblur ]; then
    [[ $call == *'"/path/to/filter-file"'* ]] && pass "$proc-page-example-names-its-file" \
      || fail "$proc-page-example-names-its-file" "$call"
    call=${call/\/path\/to\/filter-file/$work/example.iir}
    extra=(--filter "$work/example.iir")
  fi
  gimp_batch "$work/example-$sub.log" "$(scm_run rgba8.png "example-$sub.png" "$call")"
  if batch_ok "$proc-page-example-runs" "$work/example-$sub.log" $?; then
    "$cli" "$sub" "$work/rgba8.png" "$work/cli-$sub.png" "${extra[@]}" --backend cpu --quiet
    compare_images "$proc-page-example-is-the-defaults" "$work/example-$sub.png" "$work/cli-$sub.png"
  fi
done

if ! command -v "$GIMP_GUI" >/dev/null || ! command -v xdotool >/dev/null; then
  skip help-f1 "$GIMP_GUI or xdotool not installed"
  exit 0
fi
# The desktop's browser for HTML pages: a script that writes down what it was asked to open.
mkdir -p "$work/xdg-data/applications" "$work/xdg-config"
printf '#!/bin/sh\necho "$1" >>"%s/opened.txt"\n' "$work" >"$work/browser.sh"
chmod +x "$work/browser.sh"
printf '[Desktop Entry]\nType=Application\nName=Test browser\nExec=%s %%u\nMimeType=text/html;\n' \
  "$work/browser.sh" >"$work/xdg-data/applications/test-browser.desktop"
printf '[Default Applications]\ntext/html=test-browser.desktop\n' >"$work/xdg-config/mimeapps.list"

# f1 NAME LANG TITLE_MSGID CALL PAGE: opens CALL's dialog in GIMP with its interface, in
# LANG, presses F1, and expects PAGE (under the plug-ins' folder) to be opened.
f1 () {
  local name=$1 lang=$2 title_id=$3 call=$4 want=$plugins/$5 title wid pid opened
  title=$(TEXTDOMAINDIR="$build/locale" LANGUAGE=$lang gettext -d gimp-gpufx "$title_id")
  rm -f "$work/opened.txt"
  (export LANGUAGE=$lang GPUFX_DIALOG_AUTO_CANCEL=30 XDG_DATA_HOME=$work/xdg-data \
     XDG_CONFIG_HOME=$work/xdg-config
   cd "$work" && timeout 120 "$GIMP_GUI" -d -f -s -b "$(scm_run rgba8.png f1.png "$call")" \
     -b '(gimp-quit 0)' >"$work/f1-$name.log" 2>&1) &
  pid=$!
  if ! wid=$(wait_window "$title" 60); then   # GIMP's whole interface starts first
    fail "$name" "no window \"$title\""; wait $pid; return
  fi
  sleep 1
  xdotool windowfocus --sync "$wid" key F1
  for _ in $(seq 50); do [ -s "$work/opened.txt" ] && break; sleep 0.2; done
  xdotool windowfocus --sync "$wid" key Escape 2>/dev/null
  wait $pid
  opened=$(head -1 "$work/opened.txt" 2>/dev/null)
  opened=${opened#file://}
  [ "$opened" = "$want" ] && [ -f "$opened" ] && pass "$name" \
    || fail "$name" "opened ${opened:-nothing}, want $want; $(tail -2 "$work/f1-$name.log" | tr '\n' ' ')"
}

f1 f1-halftone en "Halftone (error diffusion)" '(plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1)' \
  gpufx-halftone/help/en/plug-in-gpufx-halftone.html
f1 f1-enhance en "Local Enhance (histogram statistics)" \
  '(plug-in-gpufx-local-enhance RUN-INTERACTIVE img drw 4 0.4 0.02 0.4 0.4 0 3 0 0 0)' \
  gpufx-local-enhance/help/en/plug-in-gpufx-local-enhance.html
f1 f1-deblur en "IIR Deblur (quadrant filters)" '(plug-in-gpufx-iir-deblur RUN-INTERACTIVE img drw "" 0)' \
  gpufx-iir-deblur/help/en/plug-in-gpufx-iir-deblur.html
f1 f1-halftone-ru ru "Halftone (error diffusion)" '(plug-in-gpufx-halftone RUN-INTERACTIVE img drw 0 2 0 0 -1)' \
  gpufx-halftone/help/ru/plug-in-gpufx-halftone.html
