#!/bin/bash
# Builds the libFuzzer harnesses into BUILD/fuzz (default build/fuzz) with clang,
# ASan and UBSan: fuzz_iir_file (the filter-file parser) and fuzz_cli_options (the CLI's
# option parser against every filter's parameter table; nothing is run) and
# fuzz_tiff_pages (the TIFF page count and the EXIF orientation, which follow offsets read
# from the file) and fuzz_rgbe (the Radiance HDR reader: sizes, runs and repeat counts).
# Also builds
# the replay programs (same harnesses, a plain main() that runs each file given) used by
# tests/unit/test_fuzz_regress.c's counterpart when clang's fuzzer runtime is missing.
# Exit 0 when built; 77 when clang or its fuzzer runtime is missing (the caller SKIPs).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/fuzz}
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null || { echo "clang not installed"; exit 77; }
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}' >"$probe/p.c"
"$CLANG" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null \
  || { echo "clang's libFuzzer runtime is missing (libclang-rt-14-dev)"; exit 77; }
mkdir -p "$out/obj"
FLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -pthread -ffp-contract=off -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
objs=()
for src in "$top"/common/*.c "$top"/cli/options.c "$top"/cli/tiff_pages.c \
    "$top"/cli/exif_orientation.c "$top"/cli/rgbe_read.c; do
  o="$out/obj/$(basename "$src" .c).o"
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find "$top/common" "$top/cli" -name '*.h' -newer "$o" 2>/dev/null | head -1)" ]; then
    "$CLANG" $FLAGS -c "$src" -o "$o" &
    [ "$(jobs -r | wc -l)" -ge 2 ] && wait -n
  fi
  objs+=("$o")
done
wait
LIBS="-llapacke -lgsl -lgslcblas -lm -pthread"
for h in fuzz_iir_file fuzz_cli_options fuzz_tiff_pages fuzz_rgbe; do
  "$CLANG" $FLAGS -fsanitize=fuzzer "$top/tests/fuzz/$h.c" "${objs[@]}" -o "$out/$h" $LIBS
done
