#!/bin/bash
# Installs the plug-ins and the CLI from a build folder, or takes them away again.
# Usage: scripts/install.sh [BUILD] [--plugins-only]
#        scripts/install.sh --uninstall
#   each BUILD/gpufx-NAME -> ${GIMP2_DIRECTORY:-~/.config/GIMP/2.10}/plug-ins/gpufx-NAME/gpufx-NAME
#   with its translations in plug-ins/gpufx-NAME/locale/<lang>/LC_MESSAGES/gimp-gpufx.mo
#   (the plug-ins bind gettext to the folder beside their executable) and its help pages
#   in plug-ins/gpufx-NAME/help/<lang>/ (what Help, F1, opens);
#   BUILD/gpufx -> $GPUFX_BINDIR, by default /usr/local/bin when run as root, else
#   ~/.local/bin, and its bash completion (cli/gpufx.bash) -> $GPUFX_COMPLETIONDIR, by
#   default /usr/local/share/bash-completion/completions, else the same under
#   ${XDG_DATA_HOME:-~/.local/share} (both skipped with --plugins-only, which the tests use
#   so they never touch a real profile or PATH).
#   --uninstall removes those plug-in folders, that gpufx, its completion, its cache
#   (~/.cache/gpufx) and the filters' last settings (in the profile's parasiterc); other
#   plug-ins, and filter files you identified into the profile, stay.
set -euo pipefail
build=build
plugins_only=0
uninstall=0
for arg in "$@"; do
  case $arg in
    --plugins-only) plugins_only=1 ;;
    --uninstall) uninstall=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) build=$arg ;;
  esac
done
profile=${GIMP2_DIRECTORY:-$HOME/.config/GIMP/2.10}
[[ $profile == /* ]] || profile=$HOME/$profile   # GIMP reads a relative one from $HOME
if [ "$(id -u)" -eq 0 ]; then
  bindir=${GPUFX_BINDIR:-/usr/local/bin}
  completions=${GPUFX_COMPLETIONDIR:-/usr/local/share/bash-completion/completions}
else
  bindir=${GPUFX_BINDIR:-$HOME/.local/bin}
  completions=${GPUFX_COMPLETIONDIR:-${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions}
fi
shopt -s nullglob

if [ "$uninstall" -eq 1 ]; then
  # The plug-ins this source tree makes (plugins/NAME.c -> gpufx-NAME), whatever is built.
  for src in "$(dirname "$0")"/../plugins/*.c; do
    name=gpufx-$(basename "$src" .c)
    dest="$profile/plug-ins/$name"
    if [[ $name == *_glue ]] || [ ! -f "$dest/$name" ]; then continue; fi
    rm -rf "$dest"
    echo "removed $dest"
  done
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpufx
  for path in "$bindir/gpufx" "$completions/gpufx" "$cache"; do
    [ -e "$path" ] || continue
    rm -rf "$path"
    echo "removed $path"
  done
  # The filters' last settings, kept in the profile (one line each in parasiterc).
  kept=$profile/parasiterc
  if [ -f "$kept" ] && grep -q '^(parasite "plug-in-gpufx-' "$kept"; then
    sed -i '/^(parasite "plug-in-gpufx-/d' "$kept"
    echo "removed the filters' last settings from $kept"
  fi
  exit 0
fi

plugins=("$build"/gpufx-*)
if [ ${#plugins[@]} -eq 0 ]; then
  echo "install.sh: no plug-ins in $build (run make first)" >&2
  exit 2
fi
# GIMP sets a profile up (brushes, gradients, palettes...) only where its folder does not
# exist yet: plug-ins/ made in a new one left it half made, and every GIMP run after said
# "Failed to save data".  So where there is none, GIMP makes it first.
gimp=${GIMP:-gimp-console-2.10}
if [ ! -d "$profile" ] && command -v "$gimp" >/dev/null; then
  (cd / && GIMP2_DIRECTORY=$profile timeout 120 "$gimp" -i -d -f -b '(gimp-quit 0)' \
     >/dev/null 2>&1) || true
  [ -d "$profile" ] && echo "made the GIMP profile $profile"
fi
for bin in "${plugins[@]}"; do
  [ -x "$bin" ] && [ -f "$bin" ] || continue
  name=$(basename "$bin")
  dest="$profile/plug-ins/$name"
  mkdir -p "$dest"
  install -m755 "$bin" "$dest/$name"
  for part in locale "help/$name"; do   # -> $dest/locale, $dest/help
    rm -rf "$dest/${part%%/*}"
    if [ -d "$build/$part" ]; then cp -r "$build/$part" "$dest/${part%%/*}"; fi
  done
  echo "installed $dest/$name"
done
[ "$plugins_only" -eq 1 ] && exit 0
if [ -x "$build/gpufx" ]; then
  mkdir -p "$bindir"
  install -m755 "$build/gpufx" "$bindir/gpufx"
  echo "installed $bindir/gpufx"
  mkdir -p "$completions"
  install -m644 "$(dirname "$0")/../cli/gpufx.bash" "$completions/gpufx"
  echo "installed $completions/gpufx (bash completion: new shells complete gpufx's words)"
  case ":$PATH:" in *":$bindir:"*) ;; *) echo "note: $bindir is not on your PATH" ;; esac
fi
