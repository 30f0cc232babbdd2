#!/bin/bash
# Last values outlive a GIMP session, as GIMP's own filters' settings do: a run stores its
# values for this session (gimp_set_data) and in the profile (a persistent parasite, saved
# in parasiterc), so a new GIMP's Repeat (RUN-WITH-LAST-VALS) and dialogs start from them;
# the deblur dialog used to forget its filter file at every restart.  Two GIMP processes,
# one profile: the second one's last-values runs must equal gpufx with the first one's
# settings.  A kept filter file that is gone since is refused with a message naming it.
source "$(dirname "$0")/lib.sh"
gimp_setup gimp/last-values
cd "$work"
"$py" -c 'import sys; from PIL import Image
Image.open(sys.argv[1]).resize((120, 90)).save("in.png")' "$(dirname "$("$py" -c 'import skimage; print(skimage.__file__)')")/data/camera.png" \
  || { fail last-values-input "making in.png failed"; exit 1; }
test_filter "$work/sharpen.iir" -0.1
ht=plug-in-gpufx-halftone db=plug-in-gpufx-iir-deblur

gimp_batch first.log "$(scm_run in.png first-ht.png "($ht RUN-NONINTERACTIVE img drw 1 3 1 0 -1)")" \
  "$(scm_run in.png first-db.png "($db RUN-NONINTERACTIVE img drw \"$work/sharpen.iir\" 1)")"
batch_ok last-values-first-session first.log $? || exit 0
grep -q 'plug-in-gpufx-halftone-last-values' profile/parasiterc \
  && pass last-values-kept-in-profile || fail last-values-kept-in-profile "not in parasiterc"

gimp_batch second.log "$(scm_run in.png second-ht.png "($ht RUN-WITH-LAST-VALS img drw 0 2 0 0 -1)")" \
  "$(scm_run in.png second-db.png "($db RUN-WITH-LAST-VALS img drw \"\" 0)")"
if batch_ok last-values-second-session second.log $?; then
  "$build/gpufx" halftone in.png cli-ht.png --kernel jjn --levels 3 --backend cpu --quiet
  "$build/gpufx" deblur in.png cli-db.png --filter "$work/sharpen.iir" --backend cpu --quiet
  compare_images last-values-halftone-after-restart second-ht.png cli-ht.png
  compare_images last-values-deblur-filter-file-after-restart second-db.png cli-db.png
fi

# The filter file is gone: deblur with the kept values refuses, naming the file.
rm "$work/sharpen.iir"
gimp_batch third.log "(catch #f $(scm_run in.png third-db.png "($db RUN-WITH-LAST-VALS img drw \"\" 0)"))"
grep -q "filter file '.*sharpen.iir' cannot be read" third.log && ! grep -qE 'crashed|Segmentation' third.log \
  && pass last-values-stale-file-refused-clearly \
  || fail last-values-stale-file-refused-clearly "$(grep -A1 -E 'Error|error' third.log | head -3 | tr '\n' ' ')"
