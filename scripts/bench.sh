#!/bin/bash
# make bench [QUICK=1]: ours against the peers (Pillow, ImageMagick, GEGL, numpy/scipy,
# OpenCV, scipy.signal, scikit-image), one table per plug-in, in-process and
# whole-process figures, then the plot.  Never fails because a peer or one of our
# sub-commands is missing: that row reads "n/a" with the reason.
# Usage: scripts/bench.sh [BUILD]   (QUICK=1: small sizes, fewer repeats;
#        BENCH_ONLY=halftone,enhance,iir,deblur; BENCH_PLOT=path of the PNG)
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
py=/usr/bin/python3
[ -x "$py" ] || { echo "bench: $py not found; nothing measured"; exit 0; }
quick=""
[ "${QUICK:-0}" != 0 ] && quick=--quick
args=(--build "$build" $quick)
[ -n "$BENCH_ONLY" ] && args+=(--only "$BENCH_ONLY")
# The plot stays in the build tree, so a run leaves the checkout clean; BENCH_PLOT=docs/bench.png
# refreshes the README's picture on purpose.
plot=${BENCH_PLOT:-$build/bench/bench.png}
cd "$top" || exit 0
# A cache of the bench's own, empty at the start, for every process (ours, GEGL's):
# babl's fish cache changes start-up times (babl 0.1.98 spends ~0.2 s at every start
# measuring lookup tables once its cache holds an 8-bit conversion), so whole-process
# figures should not depend on what GIMP or the tests left in ~/.cache.
export XDG_CACHE_HOME="$top/$build/bench/cache"
rm -rf "$XDG_CACHE_HOME" && mkdir -p "$XDG_CACHE_HOME"
if [ -x "$build/gpufx" ]; then
  echo "bench: in-process table of gpufx itself (gpufx bench${quick:+ $quick}):"
  "$build/gpufx" bench $quick 2>&1 | sed 's/^/  /' || echo "  (gpufx bench: n/a)"
fi
"$py" bench/bench.py "${args[@]}" || echo "bench: the driver stopped early (see above)"
"$py" bench/plot.py "$build/bench/results.json" "$plot" || echo "bench: no plot (see above)"
exit 0
