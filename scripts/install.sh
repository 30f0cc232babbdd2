#!/bin/bash
# Installs the plug-ins and the CLI from a build folder.
# Usage: scripts/install.sh [BUILD] [--plugins-only]
#   each BUILD/gpufx-NAME -> ${GIMP2_DIRECTORY:-~/.config/GIMP/2.10}/plug-ins/gpufx-NAME/gpufx-NAME
#   with its translations in plug-ins/gpufx-NAME/locale/<lang>/LC_MESSAGES/gimp-gpufx.mo
#   (the plug-ins bind gettext to the folder beside their executable) and its help pages
#   in plug-ins/gpufx-NAME/help/<lang>/ (what Help, F1, opens);
#   BUILD/gpufx -> /usr/local/bin when run as root, else ~/.local/bin (skipped with
#   --plugins-only, which the tests use so they never touch a real profile or PATH).
set -euo pipefail
build=build
plugins_only=0
for arg in "$@"; do
  case $arg in
    --plugins-only) plugins_only=1 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) build=$arg ;;
  esac
done
profile=${GIMP2_DIRECTORY:-$HOME/.config/GIMP/2.10}
shopt -s nullglob
plugins=("$build"/gpufx-*)
if [ ${#plugins[@]} -eq 0 ]; then
  echo "install.sh: no plug-ins in $build (run make first)" >&2
  exit 2
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
  if [ "$(id -u)" -eq 0 ]; then bindir=/usr/local/bin; else bindir=$HOME/.local/bin; fi
  mkdir -p "$bindir"
  install -m755 "$build/gpufx" "$bindir/gpufx"
  echo "installed $bindir/gpufx"
  case ":$PATH:" in *":$bindir:"*) ;; *) echo "note: $bindir is not on your PATH" ;; esac
fi
