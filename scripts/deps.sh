#!/bin/sh
# Installs the Debian 12 packages that the build, the tests, the demo and the benchmark
# need.  Idempotent and quiet when everything is present.
set -e
PACKAGES="build-essential pkg-config gettext libgimp2.0-dev gimp libgegl-dev libbabl-dev
  libgtk2.0-dev gegl imagemagick xvfb xauth x11-utils gtk2-engines-pixbuf librsvg2-common
  libgsl-dev liblapacke-dev libpng-dev zlib1g-dev python3-numpy python3-scipy python3-pil python3-opencv
  python3-skimage python3-matplotlib clang libclang-rt-14-dev strace xdotool libgs-common
  locales"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
