"""`gpufx halftone --backend cpu` against an independent reference written here from the
published kernels (not from common/halftone_kernels.c): the classic push-form loop in
plain Python with float32 arithmetic, on 8-bit and 16-bit PNG/PGM and float TIFF inputs,
every kernel; compared bit for bit.

The order of the error sum is part of SPEC ("fix the order of every sum"): a pixel starts
from its input value and adds the contributions in the order they arrived (the classic
in-place push: sources in raster order, so the left neighbour's share comes last), each
as v + w * err rounded once (fmaf: worked out here exactly with fractions).  The
quantiser: the level nearest to v in exact arithmetic, floor(v*(L-1) + 1/2) clipped, so a value
at a midpoint goes up and the float just below it goes down.  Output
samples: level * max + 0.5 truncated (integers).
"""
import math
import os
from fractions import Fraction

import numpy as np

import gfxtest as T

f32 = np.float32

# Published error-diffusion matrices: rows from the current one down, the current pixel
# at column `centre` of the first row (entries left of and at it are zero).
KERNELS = {
    "fs": ([[0, 0, 7], [3, 5, 1]], 1, 16),
    "jjn": ([[0, 0, 0, 7, 5], [3, 5, 7, 5, 3], [1, 3, 5, 3, 1]], 2, 48),
    "stucki": ([[0, 0, 0, 8, 4], [2, 4, 8, 4, 2], [1, 2, 4, 2, 1]], 2, 42),
    "burkes": ([[0, 0, 0, 8, 4], [2, 4, 8, 4, 2]], 2, 32),
    "sierra": ([[0, 0, 0, 5, 3], [2, 4, 5, 4, 2], [0, 2, 3, 2, 0]], 2, 32),
    "sierra2": ([[0, 0, 0, 4, 3], [1, 2, 3, 2, 1]], 2, 16),
    "sierra-lite": ([[0, 0, 2], [1, 1, 0]], 1, 4),
    "atkinson": ([[0, 0, 0, 1, 1], [0, 1, 1, 1, 0], [0, 0, 1, 0, 0]], 2, 8),
}


def fma32(w, e, v):
    """float32 w * e + v rounded once, to nearest even (exact rational arithmetic)."""
    exact = Fraction(float(w)) * Fraction(float(e)) + Fraction(float(v))
    if exact == 0:
        return f32(0)
    a = abs(exact)
    top = a.numerator.bit_length() - a.denominator.bit_length()  # 2^(top-1) < a < 2^(top+1)
    if Fraction(2) ** top > a:
        top -= 1  # now 2^top <= a < 2^(top+1)
    quantum = Fraction(2) ** max(top - 23, -149)  # 24-bit significand; subnormals
    n = round(a / quantum)  # Fraction rounds half to even
    return f32(math.copysign(float(n * quantum), exact))


def quantize(v, levels):
    """Index of the level nearest to v in exact arithmetic (a midpoint goes up), clipped."""
    if not math.isfinite(v):
        return 0 if not v > 0 else levels - 1  # NaN and -inf to 0
    t = math.floor(Fraction(float(v)) * (levels - 1) + Fraction(1, 2))
    return min(max(t, 0), levels - 1)


def halftone_plane(plane, kernel, levels):
    """plane: float32 HxW input values; returns level indices HxW (push form)."""
    matrix, centre, divisor = KERNELS[kernel]
    h, w = plane.shape
    received = [[[] for _ in range(w)] for _ in range(h)]  # contributions, arrival order
    q = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            v = f32(plane[y, x])
            for wgt, err in received[y][x]:  # in arrival order
                v = fma32(wgt, err, v)
            q[y, x] = quantize(v, levels)
            err = f32(v - f32(f32(q[y, x]) / f32(levels - 1)))
            for dy, row in enumerate(matrix):
                for i, wgt in enumerate(row):
                    tx, ty = x + i - centre, y + dy
                    if wgt and 0 <= tx < w and ty < h:  # error leaving the image is dropped
                        received[ty][tx].append((f32(f32(wgt) / f32(divisor)), err))
    return q


def to_unit(img):
    """Input samples as the core reads them (float32); float samples outside [0, 1] are
    clipped first, as GEGL's dither does."""
    if img.dtype == np.uint8:
        return img.astype(f32) * (f32(1) / f32(255))
    if img.dtype == np.uint16:
        return img.astype(f32) * (f32(1) / f32(65535))
    return np.clip(img.astype(f32), f32(0), f32(1))


def from_levels(q, levels, dtype):
    level = q.astype(f32) / f32(levels - 1)
    if dtype == np.uint8:
        return np.clip(np.floor(level * f32(255) + f32(0.5)), 0, 255).astype(np.uint8)
    if dtype == np.uint16:
        return np.clip(np.floor(level * f32(65535) + f32(0.5)), 0, 65535).astype(np.uint16)
    return level


def reference(img, kernel, levels, alpha):
    """Every colour plane halftoned; alpha (last channel) copied."""
    if img.ndim == 2:
        return from_levels(halftone_plane(to_unit(img), kernel, levels), levels, img.dtype)
    out = img.copy()
    colours = img.shape[2] - (1 if alpha else 0)
    for c in range(colours):
        q = halftone_plane(to_unit(img[:, :, c]), kernel, levels)
        out[:, :, c] = from_levels(q, levels, img.dtype)
    return out


def compare(name, src_img, ext, kernel, levels, alpha=False, tmp=None):
    src = os.path.join(tmp, f"in{ext}")
    dst = os.path.join(tmp, f"out{ext}")
    T.save(src, src_img)
    r = T.run_cli("halftone", src, dst, "--backend", "cpu", "--kernel", kernel,
                  "--levels", levels, "--quiet")
    if r.returncode != 0:
        T.check(False, name, f"exit {r.returncode}: {r.stderr.strip()}")
        return
    got = T.load(dst)
    want = reference(src_img, kernel, levels, alpha)
    if got.shape != want.shape or got.dtype != want.dtype:
        T.check(False, name, f"layout {got.shape} {got.dtype}, expected {want.shape} {want.dtype}")
        return
    bad = np.count_nonzero(got != want)
    T.check(bad == 0, name, f"{bad} of {want.size} samples differ")


def main():
    T.require_cli("halftone reference")
    with T.tmpdir() as tmp:
        for i, kernel in enumerate(KERNELS):
            compare(f"{kernel} 8-bit gray PNG 23x17 levels 2 == push-form reference",
                    T.noise(23, 17, 1, np.uint8, seed=i), ".png", kernel, 2, tmp=tmp)
            compare(f"{kernel} 16-bit gray PNG 19x11 levels 3 == reference",
                    T.noise(19, 11, 1, np.uint16, seed=10 + i), ".png", kernel, 3, tmp=tmp)
            compare(f"{kernel} float gray TIFF 13x9 levels 16 == reference",
                    T.noise(13, 9, 1, np.float32, seed=20 + i), ".tif", kernel, 16, tmp=tmp)
        compare("fs 8-bit PGM 1x1 == reference", T.noise(1, 1, 1, np.uint8, 3), ".pgm", "fs", 2,
                tmp=tmp)
        for w, h in T.ODD_SIZES:
            compare(f"jjn 8-bit gray PNG {w}x{h} == reference", T.noise(w, h, 1, np.uint8, w * h),
                    ".png", "jjn", 2, tmp=tmp)
        compare("fs 8-bit RGB PPM 15x12 levels 2 == reference",
                T.noise(15, 12, 3, np.uint8, 4), ".ppm", "fs", 2, tmp=tmp)
        compare("stucki 8-bit RGBA PNG 14x10 levels 4, alpha copied == reference",
                T.noise(14, 10, 4, np.uint8, 5), ".png", "stucki", 4, alpha=True, tmp=tmp)
        compare("atkinson 16-bit RGB PNG 12x9 levels 256 == reference",
                T.noise(12, 9, 3, np.uint16, 6), ".png", "atkinson", 256, tmp=tmp)
        compare("sierra float RGB TIFF 11x8 levels 2 == reference",
                T.noise(11, 8, 3, np.float32, 7), ".tif", "sierra", 2, tmp=tmp)
        wide = T.noise(17, 13, 3, np.float32, 8) * f32(2) - f32(0.5)
        compare("jjn float RGB TIFF 17x13 with samples in [-0.5, 1.5] (clipped) == reference",
                wide, ".tif", "jjn", 3, tmp=tmp)
        mid = np.full((9, 12), 0.5, dtype=np.float32)
        compare("fs float TIFF exact 0.5 (midpoint goes up) == reference", mid, ".tif", "fs", 2,
                tmp=tmp)
        below = np.full((9, 12), np.nextafter(f32(0.5), f32(0)), dtype=np.float32)
        compare("fs float TIFF just below 0.5 (first pixel goes down) == reference", below,
                ".tif", "fs", 2, tmp=tmp)
        below6 = np.full((5, 7), np.nextafter(f32(1 / 6), f32(0)), dtype=np.float32)
        compare("jjn float TIFF just below 1/6, levels 4 == reference", below6, ".tif", "jjn", 4,
                tmp=tmp)
    T.finish()


if __name__ == "__main__":
    main()
