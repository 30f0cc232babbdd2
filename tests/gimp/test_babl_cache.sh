#!/bin/bash
# The plug-ins' start in batch mode (ui/pdb.c, gfx_ui_run_begin): without a dialog they
# neither read nor write babl's fish cache (BABL_INHIBIT_CACHE, ~0.2 s a run with babl
# 0.1.98 once GIMP's cache holds 8-bit conversions), and they load no GEGL module. A GIMP
# batch session runs each plug-in under strace; the plug-in processes must not open the
# cache (for reading or writing), nor rename anything onto it, nor open a GEGL module,
# while GIMP itself still reads it; and each result still equals the CLI's.
source "$(dirname "$0")/lib.sh"
if ! command -v strace >/dev/null; then skip gimp/babl-cache "strace not installed"; exit 0; fi
if ! strace -f -o /dev/null true 2>/dev/null; then skip gimp/babl-cache "ptrace is not permitted here"; exit 0; fi
batch_setup gimp/babl-cache
export XDG_CACHE_HOME=$work/cache
mkdir -p "$XDG_CACHE_HOME/babl"
# GIMP writes its fish cache as it quits; a first session fills it with its own entries.
gimp_batch "$work/fill.log" "$(scm_run rgba8.png fill.png "")"
[ -s "$XDG_CACHE_HOME/babl/babl-fishes" ] && pass babl-cache-filled-by-gimp \
  || fail babl-cache-filled-by-gimp "GIMP left no $XDG_CACHE_HOME/babl/babl-fishes"

calls="$(scm_run gray8.png ht.png "(plug-in-gpufx-halftone RUN-NONINTERACTIVE img drw 0 2 1 0 -1)")
$(scm_run rgba8.png en.png "(plug-in-gpufx-local-enhance RUN-NONINTERACTIVE img drw 4.0 0.4 0.02 0.4 0.4 0 3 0 0 1)")"
(cd "$work" && timeout "$GIMP_TIMEOUT" strace -f -qq -e trace=execve,openat,rename,renameat,renameat2 \
   -o "$work/strace.log" "$GIMP" -i -d -f -b "$calls" -b '(gimp-quit 0)' >"$work/run.log" 2>&1)
batch_ok babl-cache-batch-run "$work/run.log" $?

# PIDs that exec'd one of our plug-ins, and what they and GIMP did with the cache.
plugin_pids=$(grep -E 'execve\("[^"]*/gpufx-(halftone|local-enhance)"' "$work/strace.log" \
  | grep -v ENOENT | awk '{print $1}' | sort -u)
n=$(echo "$plugin_pids" | grep -c .)
[ "$n" -ge 2 ] && pass babl-cache-plugins-traced || fail babl-cache-plugins-traced "$n plug-in processes in the trace"
touched="" modules=""
for p in $plugin_pids; do
  touched+=$(grep -E "^$p +(openat|rename).*babl-fishes" "$work/strace.log")
  modules+=$(grep -E "^$p +openat\(.*gegl-0\.4/[^\"]*\.so\"" "$work/strace.log" | grep -v ENOENT)
done
[ -z "$touched" ] && pass babl-cache-untouched-by-plugins \
  || fail babl-cache-untouched-by-plugins "$(echo "$touched" | head -2 | tr '\n' ' ')"
[ -z "$modules" ] && pass gegl-modules-not-loaded-by-plugins \
  || fail gegl-modules-not-loaded-by-plugins "$(echo "$modules" | head -2 | tr '\n' ' ')"
others=$(grep -E 'openat\(.*babl-fishes", O_RDONLY' "$work/strace.log" | awk '{print $1}' | sort -u)
[ -n "$others" ] && pass babl-cache-read-by-gimp \
  || fail babl-cache-read-by-gimp "no process read the cache: the check above proves nothing"

"$cli" halftone "$work/gray8.png" "$work/ht-cli.png" --backend cpu --quiet
compare_images babl-cache-halftone-as-cli "$work/ht.png" "$work/ht-cli.png"
"$cli" enhance "$work/rgba8.png" "$work/en-cli.png" --backend cpu --quiet
compare_images babl-cache-enhance-as-cli "$work/en.png" "$work/en-cli.png"
