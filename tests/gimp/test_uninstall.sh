#!/bin/bash
# make install / make uninstall as a user runs them, into a throwaway profile, bin folder,
# completion folder and cache: uninstall takes away the three plug-in folders, gpufx, its
# bash completion, its cache and the filters' kept settings, and
# nothing else (another plug-in and a filter file identified into the profile stay); GIMP
# then starts without the procedures.
source "$(dirname "$0")/lib.sh"
gimp_setup gimp/uninstall
export GPUFX_BINDIR=$work/bin GPUFX_COMPLETIONDIR=$work/completions XDG_CACHE_HOME=$work/cache
plugins=$GIMP2_DIRECTORY/plug-ins
mkdir -p "$plugins/other" && cp /bin/true "$plugins/other/other"
echo "gpufx-iir 1" >"$GIMP2_DIRECTORY/gpufx-identified.iir"

"$top/scripts/install.sh" "$build" >"$work/install.log" 2>&1
"$work/bin/gpufx" --version >/dev/null 2>&1   # makes its cache
installed=$(ls -d "$plugins"/gpufx-*/ "$work/bin/gpufx" "$work/completions/gpufx" \
  "$work/cache/gpufx" 2>/dev/null | wc -l)
[ "$installed" -eq 6 ] && pass install-places-six-things \
  || fail install-places-six-things "$installed of 6 (3 plug-in folders, gpufx, its completion, its cache): $(ls "$plugins" "$work/bin" "$work/cache" 2>&1 | tr '\n' ' ')"

# The filters' kept settings go too; another parasite stays.
kept=$GIMP2_DIRECTORY/parasiterc
printf '%s\n' '(parasite "plug-in-gpufx-halftone-last-values" 1 4 "\1\0\0\0")' \
  '(parasite "someone-else" 1 1 "x")' >>"$kept"
make -s -C "$top" uninstall >"$work/uninstall.log" 2>&1
! grep -q 'gpufx' "$kept" && grep -q 'someone-else' "$kept" \
  && pass uninstall-drops-kept-settings || fail uninstall-drops-kept-settings "$(cat "$kept")"
left=$(ls -d "$plugins"/gpufx-* "$work/bin/gpufx" "$work/completions/gpufx" "$work/cache/gpufx" \
  2>/dev/null | tr "\n" " ")
[ -z "$left" ] && pass uninstall-removes-them || fail uninstall-removes-them "left: $left"
[ -x "$plugins/other/other" ] && [ -f "$GIMP2_DIRECTORY/gpufx-identified.iir" ] \
  && pass uninstall-keeps-the-rest || fail uninstall-keeps-the-rest "another plug-in or the filter file went"
[ "$(grep -c '^removed' "$work/uninstall.log")" -eq 7 ] && pass uninstall-says-what-it-removed \
  || fail uninstall-says-what-it-removed "$(tr '\n' ' ' <"$work/uninstall.log")"

# Installed into a profile that does not exist yet (GIMP never run): GIMP makes it whole
# first, so later runs neither complain ("Failed to save data": a data folder missing)
# nor miss the plug-ins.
fresh=$work/fresh-profile
GIMP2_DIRECTORY=$fresh "$top/scripts/install.sh" "$build" --plugins-only >"$work/fresh.log" 2>&1
(export GIMP2_DIRECTORY=$fresh; gimp_batch "$work/fresh-run.log" '(gimp-message (string-append
  "exists=" (number->string (car (gimp-procedural-db-proc-exists "plug-in-gpufx-halftone")))))')
grep -q "exists=1" "$work/fresh-run.log" && [ -d "$fresh/gradients" ] \
  && ! grep -q "Failed to save data" "$work/fresh-run.log" \
  && pass install-into-a-new-profile-makes-it-whole \
  || fail install-into-a-new-profile-makes-it-whole "$(ls "$fresh" | tr '\n' ' '); $(grep -E 'exists=|Failed' "$work/fresh-run.log" | head -3)"

# A relative GIMP2_DIRECTORY is read from $HOME, as GIMP reads it: one profile, the
# plug-ins in it (they went to ./relative under the current folder).
mkdir -p "$work/home" "$work/cwd"
(cd "$work/cwd" && HOME=$work/home GIMP2_DIRECTORY=relative "$top/scripts/install.sh" \
   "$build" --plugins-only >"$work/relative.log" 2>&1)
[ -x "$work/home/relative/plug-ins/gpufx-halftone/gpufx-halftone" ] && [ ! -e "$work/cwd/relative" ] \
  && pass install-relative-profile-under-home \
  || fail install-relative-profile-under-home "$(ls "$work/home/relative" "$work/cwd" 2>&1 | tr '\n' ' ')"

rm -rf "$plugins/other"   # not a real plug-in: GIMP would complain about it
gimp_batch "$work/after.log" '(gimp-message (string-append "exists="
  (number->string (car (gimp-procedural-db-proc-exists "plug-in-gpufx-halftone")))
  (number->string (car (gimp-procedural-db-proc-exists "plug-in-gpufx-iir-identify")))))'
grep -q "exists=00" "$work/after.log" && pass uninstall-gimp-forgets-the-procedures \
  || fail uninstall-gimp-forgets-the-procedures "$(grep -o 'exists=[0-9]*' "$work/after.log" || tail -2 "$work/after.log")"
make -s -C "$top" uninstall >"$work/again.log" 2>&1 && [ ! -s "$work/again.log" ] \
  && pass uninstall-twice-is-harmless || fail uninstall-twice-is-harmless "$(cat "$work/again.log")"
