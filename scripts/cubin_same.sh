#!/bin/sh
# Does a change alter the GPU machine code?  Builds the sm_90 cubins of the given .cu files
# at REV (in a temporary git worktree) and in the working tree, and compares every section
# that holds code or launch data (.text.*, .nv.info*, .nv.constant0.*, .nv.shared.*) byte
# for byte.  Line tables are left out, and so is the hash in the names of anonymous
# namespaces (nvcc derives it from the source's path).  Identical sections mean the
# kernels run exactly as before, so a refactor needs no GPU run to show it changed nothing.
#
#   scripts/cubin_same.sh REV cuda/halftone_k_fs.cu [more .cu files]
#
# Exit status 0: all identical; 1: a section differs (listed); 2: usage or build failure.
# Needs nvcc (PATH or CUDA_HOME) and binutils' readelf; no GPU.  The flags that shape the
# code are the Makefile's (-O3 -fmad=false, C++17, GFX_HAVE_CUDA), for sm_90 alone.
set -eu

usage () { echo "usage: $0 REV FILE.cu [FILE.cu ...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
rev=$1; shift
root=$(git rev-parse --show-toplevel)
nvcc=$(command -v nvcc 2>/dev/null || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
[ -x "$nvcc" ] || { echo "$0: no nvcc (PATH or CUDA_HOME)" >&2; exit 2; }
git -C "$root" rev-parse --verify -q "$rev^{commit}" > /dev/null ||
  { echo "$0: '$rev' is not a commit" >&2; exit 2; }

work=$(mktemp -d)
cleanup () { git -C "$root" worktree remove --force "$work/rev" 2> /dev/null || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM
git -C "$root" worktree add -q --detach "$work/rev" "$rev"

# One line a section: cubin, section name (anonymous-namespace hash removed), sha1 of its
# bytes (of its size for NOBITS sections, which have none in the file).
sections () {
  readelf -S --wide "$1" 2> /dev/null | sed -n 's/^ *\[ *[0-9]*\] //p' |
    while read -r name type addr off size rest; do
      case $name in .text.* | .nv.info* | .nv.constant0.* | .nv.shared.*) ;; *) continue ;; esac
      if [ "$type" = NOBITS ]; then
        sum=$(printf 'nobits %s' "$size" | sha1sum)
      else
        sum=$(tail -c +$((0x$off + 1)) "$1" | head -c $((0x$size)) | sha1sum)
      fi
      echo "$(basename "$1") $(echo "$name" | sed 's/_GLOBAL__N__[0-9a-f]*_/_ANON_/') ${sum%% *}"
    done
}

for side in rev tree; do
  src=$root; [ $side = rev ] && src=$work/rev
  mkdir -p "$work/$side.out"
  for f in "$@"; do
    [ -f "$src/$f" ] || { echo "$0: $f: not in the $side" >&2; exit 2; }
    out=$work/$side.out/$(echo "$f" | tr / _).cubin
    (cd "$src" && "$nvcc" -O3 -std=c++17 -arch=sm_90 -fmad=false -DGFX_HAVE_CUDA -cubin "$f" \
       -o "$out") || { echo "$0: $f does not build in the $side" >&2; exit 2; }
    sections "$out" >> "$work/$side.txt"
  done
done

n=$(grep -c ' \.text\.' "$work/tree.txt" || true)
if diff "$work/rev.txt" "$work/tree.txt" > "$work/diff.txt"; then
  echo "identical: $(wc -l < "$work/tree.txt") sections ($n kernels' code) of $# file(s) against $rev"
else
  echo "differs from $rev (< at $rev, > in the working tree):"
  cat "$work/diff.txt"
  exit 1
fi
