"""Linear-light files (OpenEXR) through the command line: the core works in perceptual
float, so without care a sample that a filter leaves alone comes back from the round trip
a rounding away from what the file held.  `gpufx enhance IN.exr OUT.exr --mask-out MASK`:
every pixel outside the decision mask must be bit for bit the input's, the enhanced ones
changed; `gpufx bench --copy` must copy an EXR exactly; a PNG written from the EXR still
matches the perceptual rendering.  Files are read back with OpenCV's EXR reader."""
import os

os.environ["OPENCV_IO_ENABLE_OPENEXR"] = "1"  # before cv2 is imported

import numpy as np  # noqa: E402

import gfxtest as T  # noqa: E402

T.require_cli("linear files")
import cv2  # noqa: E402


def read_exr(path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise IOError(f"OpenCV cannot read {path}")
    return img


def main():
    rng = np.random.default_rng(11)
    h, w = 70, 90
    # A dark textured left half (low local mean, enough deviation: enhanced) and a bright
    # smooth right half (left alone), in linear light with values up to 1.
    img = 0.02 + 0.1 * rng.random((h, w, 3), dtype=np.float32)
    img[:, w // 2:] = 0.7 + 0.01 * rng.random((h, w - w // 2, 3), dtype=np.float32)
    with T.tmpdir() as d:
        tif, exr = os.path.join(d, "in.tif"), os.path.join(d, "in.exr")
        T.save(tif, img)
        r = T.run_cli("bench", "--copy", tif, exr)
        if r.returncode != 0:
            T.skip("linear files", f"this GEGL cannot write OpenEXR: {r.stderr.strip()}")
            return
        src = read_exr(exr)

        copy = os.path.join(d, "copy.exr")
        r = T.run_cli("bench", "--copy", exr, copy)
        T.check(r.returncode == 0 and np.array_equal(read_exr(copy), src),
                "bench --copy of an EXR keeps every sample", r.stderr.strip())

        out, mask = os.path.join(d, "out.exr"), os.path.join(d, "mask.png")
        r = T.run_cli("enhance", exr, out, "--mask-out", mask, "--k0", "0.4", "--k1", "0.02",
                      "--k2", "0.8", "--backend", "cpu", "--quiet")
        if not T.check(r.returncode == 0, "enhance EXR -> EXR runs", r.stderr.strip()):
            return
        res, m = read_exr(out), T.load(mask)
        kept = m == 0
        T.check(kept.any() and not kept.all(), "the decision mask has both kinds of pixel",
                f"{int((~kept).sum())} of {kept.size} enhanced")
        moved = (res != src) & kept[..., None]
        T.check(not moved.any(), "EXR: samples outside the mask bit for bit the input's",
                f"{int(moved.sum())} moved, the largest by "
                f"{float(np.abs(res - src)[moved].max()) if moved.any() else 0:g}")
        T.check((res != src)[~kept].any(), "EXR: the enhanced pixels changed")

        png, ref = os.path.join(d, "out.png"), os.path.join(d, "ref.png")
        r1 = T.run_cli("enhance", exr, png, "--backend", "cpu", "--quiet")
        r2 = T.run_cli("enhance", tif, ref, "--backend", "cpu", "--quiet")
        if T.check(r1.returncode == 0 and r2.returncode == 0, "enhance EXR -> PNG runs",
                   (r1.stderr + r2.stderr).strip()):
            a, b = T.load(png).astype(int), T.load(ref).astype(int)
            T.check(a.shape == b.shape and np.abs(a - b).max() <= 1,
                    "EXR -> PNG within one level of the same pixels from a TIFF",
                    f"max difference {np.abs(a - b).max() if a.shape == b.shape else a.shape}")


main()
T.finish()
