#!/bin/bash
# The README's batch-mode examples, run as written (taken from README.md, not copied here)
# in real GIMP with a throwaway profile: the two-filter call writes out.png, and the folder
# loop halftones the good files into halftoned/, names and skips a broken file and an
# indexed image, and leaks no image.
source "$(dirname "$0")/lib.sh"
gimp_setup readme-batch
cd "$work"
mkdir -p photos
"$py" - "$top/README.md" <<'PY' || { fail readme-batch-setup "no examples"; exit 1; }
import sys, re
from PIL import Image
import numpy as np
text = open(sys.argv[1]).read()
section = text.split("## Batch mode", 1)[1].split("\n## ", 1)[0]
blocks, cur = [], []
for line in section.split("\n") + [""]:
    if line.startswith("    ") or (cur and line == ""):
        cur.append(line[4:])
    if not line.startswith("    ") and cur:
        blocks.append("\n".join(cur).strip() + "\n")
        cur = []
blocks = [b for b in blocks if "gimp-console-2.10" in b]
for i, b in enumerate(blocks):
    open(f"example{i}.sh", "w").write(b)
data = "/usr/lib/python3/dist-packages/skimage/data/"
cam = Image.open(data + "camera.png")
cam.resize((96, 80)).save("in.png")
cam.resize((120, 90)).save("photos/camera.png")
Image.open(data + "astronaut.png").resize((64, 64)).save("photos/astro.png")
cam.resize((50, 40)).convert("P").save("photos/indexed.png")
open("photos/broken.png", "wb").write(b"\x89PNG\r\n\x1a\nnot really")
sys.exit(0 if len(blocks) == 2 else 1)
PY
for i in 0 1; do timeout "$GIMP_TIMEOUT" bash "example$i.sh" >"example$i.log" 2>&1; echo "rc=$?" >>"example$i.log"; done

batch_ok readme-batch-two-filters example0.log "$(sed -n 's/^rc=//p' example0.log)" \
  && { [ -s out.png ] && pass readme-batch-out-written || fail readme-batch-out-written "no out.png"; }

log=example1.log
grep -q '^rc=0' $log && grep -q 'batch command executed successfully' $log \
  && pass readme-batch-folder-runs || fail readme-batch-folder-runs "$(tail -3 $log | tr '\n' ' ')"
for f in broken indexed; do
  grep -q "photos/$f.png: skipped" $log && [ ! -e "halftoned/$f.png" ] \
    && pass "readme-batch-folder-skips-$f" || fail "readme-batch-folder-skips-$f" "$(grep "$f" $log | head -2 | tr '\n' ' ')"
done
why=$("$py" - <<'PY'
import numpy as np
from PIL import Image
for f in ("camera", "astro"):
    out = np.array(Image.open(f"halftoned/{f}.png"))
    inp = np.array(Image.open(f"photos/{f}.png"))
    if out.shape != inp.shape or not set(np.unique(out)) <= {0, 255}:
        raise SystemExit(f"{f}: {out.shape} vs {inp.shape}, values {np.unique(out)[:6]}")
PY
) && pass readme-batch-folder-halftoned || fail readme-batch-folder-halftoned "$why"
grep -qE 'GeglBuffers leaked|crashed|Segmentation' $log \
  && fail readme-batch-folder-clean "$(grep -E 'leaked|crashed' $log | head -1)" || pass readme-batch-folder-clean
