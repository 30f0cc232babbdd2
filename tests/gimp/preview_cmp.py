"""Checks on the dialog preview dump (8-bit gray or RGB PNM written by GPUFX_DIALOG_PREVIEW_DUMP,
with a "# at X Y" comment giving its place in the drawable):
  preview_cmp.py crop DUMP IMAGE OUT        cuts the preview's area of IMAGE into OUT
  preview_cmp.py same|differs DUMP REF M    the preview against REF, the result on the
      whole drawable (or, if REF has the preview's size, on the preview's area alone),
      leaving out M pixels at the inner edges, where the preview's own border rule
      stands in for the neighbours outside it.
  preview_cmp.py within DUMP REF T          every pixel within T levels of REF, and the
      largest difference printed (babl's float to 8-bit paths may round apart by one).
Exit 0 when the claim holds, else 1 with why."""
import re
import sys

import cv2
import numpy as np


def read_dump(path):
    data = open(path, "rb").read()
    head = re.match(rb"P([56])\s*# at (\d+) (\d+)[^\n]*\s+(\d+) (\d+)\s+255\s", data)
    if not head:
        sys.exit(f"{path}: not a gray or RGB preview dump")
    c, x, y, w, h = (int(v) for v in head.groups())
    c = 1 if c == 5 else 3
    pix = np.frombuffer(data[head.end():], np.uint8, w * h * c).reshape(h, w, c)
    return x, y, pix if c == 3 else pix[..., 0]


def main(what, dump, ref_path, arg):
    x, y, prev = read_dump(dump)
    h, w = prev.shape[:2]
    ref = cv2.imread(ref_path, cv2.IMREAD_UNCHANGED)
    if ref is None or ref.ndim != prev.ndim or (ref.ndim == 3 and ref.shape[2] != 3):
        sys.exit(f"{ref_path}: not an 8-bit image of the preview's channels")
    if ref.ndim == 3:
        ref = ref[..., ::-1]  # OpenCV's BGR
    if what == "crop":
        crop = ref[y:y + h, x:x + w]
        if not cv2.imwrite(arg, crop[..., ::-1] if crop.ndim == 3 else crop):
            sys.exit(f"cannot write {arg}")
        return
    if ref.shape == prev.shape:  # the preview's area filtered on its own
        x = y = 0
    elif y + h > ref.shape[0] or x + w > ref.shape[1]:
        sys.exit(f"{ref_path} {ref.shape} does not hold the preview at ({x}, {y}) {w}x{h}")
    if what == "within":
        d = np.abs(prev.astype(int) - ref[y:y + h, x:x + w].astype(int))
        print(f"largest difference {d.max()}, {np.count_nonzero(d)} pixels differ")
        if d.max() > int(arg):
            sys.exit(f"preview at ({x}, {y}) {w}x{h}: {np.count_nonzero(d > int(arg))} samples "
                     f"more than {arg} from {ref_path} (up to {d.max()})")
        return
    m = int(arg)
    a = prev[m:h - m, m:w - m].astype(int)
    b = ref[y + m:y + h - m, x + m:x + w - m].astype(int)
    diff = int(np.count_nonzero(a != b))
    if (what == "same") != (diff == 0):
        sys.exit(f"preview at ({x}, {y}) {w}x{h}: {diff} of {a.size} inner pixels differ "
                 f"from {ref_path}; wanted {what}")


main(*sys.argv[1:5])
