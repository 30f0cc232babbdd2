"""Pixel comparisons for the GIMP tests, at the files' own depth (8/16-bit, float).

  imgcmp.py same A B               A and B have identical samples
  imgcmp.py crop A B X Y W H       A's box (X, Y, W, H) equals the whole of B
  imgcmp.py outside A B X Y W H    A and B are identical outside that box
  imgcmp.py alpha A B              A and B have the same last (alpha) channel
  imgcmp.py differ A B [N]         more than N (default 50) samples of A and B differ
Exit 0 when the claim holds, else 1 with one line saying where it fails."""
import sys

import cv2
import numpy as np


def load(path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        sys.exit(f"cannot read {path}")
    return img


def describe(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"shape/type {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    diff = np.argwhere(a != b)
    if len(diff) == 0:
        return None
    y, x = diff[0][:2]
    return f"{len(diff)} samples differ, first at x={x} y={y}: {a[y, x]} vs {b[y, x]}"


def main(argv):
    mode, a, b = argv[1], load(argv[2]), load(argv[3])
    if mode == "same":
        why = describe(a, b)
    elif mode == "differ":
        least = int(argv[4]) if len(argv) > 4 else 50
        n = int((a != b).sum()) if a.shape == b.shape else a.size
        why = None if n > least else f"only {n} samples differ (need more than {least})"
    elif mode == "alpha":
        why = describe(a[..., -1], b[..., -1]) if a.ndim == 3 and b.ndim == 3 else "no alpha"
    else:
        x, y, w, h = map(int, argv[4:8])
        if mode == "crop":
            why = describe(a[y:y + h, x:x + w], b)
        else:
            keep = np.ones(a.shape[:2], bool)
            keep[y:y + h, x:x + w] = False
            why = describe(a[keep], b[keep]) if a.shape == b.shape else describe(a, b)
    if why:
        sys.exit(why)


if __name__ == "__main__":
    main(sys.argv)
