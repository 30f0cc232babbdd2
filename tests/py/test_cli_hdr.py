"""Radiance HDR inputs are read whole and exactly (cli/rgbe_read.c).

GEGL 0.4's loader gave an all-black, transparent picture for run-length-encoded scanlines
(what Radiance, Photoshop, OpenCV and ImageMagick write) and read a cut file without a
word.  Files are written here byte by byte (flat pixels, old-style repeat markers,
new-style runs and dumps, all eight orientations) and by OpenCV; the samples gpufx reads
must equal m * 2^(e - 136) of the stored bytes, decoded by numpy here, and OpenCV's own
reading.  Local enhance with k0 = 0 passes every sample through (only an all-black
window passes its test; gain 1 leaves even that) and .npy keeps the floats, so its output
is the image as read, values above 1 included.  Cut and damaged files are refused with a
message naming the file, and no output is written."""
import os
import subprocess

import cv2
import numpy as np

import gfxtest as T

T.require_cli("Radiance HDR")


def as_read(d, path, stdin=None):
    out = os.path.join(d, "read.npy")
    if os.path.exists(out):
        os.remove(out)
    args = ["enhance", "-" if stdin else path, out, "--k0", "0", "--gain", "1", "--backend", "cpu",
            "--quiet"]
    if stdin:
        with open(path, "rb") as f:
            r = subprocess.run([T.GPUFX] + args, stdin=f, capture_output=True, text=True,
                               timeout=120)
    else:
        r = T.run_cli(*args)
    got = np.load(out) if r.returncode == 0 and os.path.exists(out) else None
    return got, r


def decode(rgbe):
    """The floats the bytes stand for (Ward's rgbe.c, GEGL's loader)."""
    e = rgbe[..., 3:4].astype(np.int64)
    v = rgbe[..., :3].astype(np.float64) * np.ldexp(1.0, e - 136)
    return np.where(e > 0, v, 0.0).astype(np.float32)


def header(res, extra=b""):
    return b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n" + extra + b"\n" + res + b"\n"


def flat(lines):
    return b"".join(line.tobytes() for line in lines)


def rle_component(c):
    """New-style runs (128 + n, byte) and dumps (n, bytes) of one component of a line."""
    out, i, n = bytearray(), 0, len(c)
    while i < n:
        run = 1
        while i + run < n and run < 127 and c[i + run] == c[i]:
            run += 1
        if run >= 3:
            out += bytes([128 + run, c[i]])
            i += run
            continue
        j = i
        while j < n and j - i < 128:
            if j + 2 < n and c[j] == c[j + 1] == c[j + 2]:
                break
            j += 1
        out += bytes([j - i]) + bytes(c[i:j])
        i = j
    return bytes(out)


def rle(lines):
    out = bytearray()
    for line in lines:
        w = line.shape[0]
        out += bytes([2, 2, w >> 8, w & 255])
        for k in range(4):
            out += rle_component(line[:, k])
    return bytes(out)


def old_rle(lines):
    """Old-style: a pixel, then 1, 1, 1, n markers (n << 8 for the second in a row)."""
    out = bytearray()
    for line in lines:
        i = 0
        while i < len(line):
            out += line[i].tobytes()
            run = 0
            while i + 1 + run < len(line) and (line[i + 1 + run] == line[i]).all():
                run += 1
            shift = 0
            left = run
            while left:
                out += bytes([1, 1, 1, left & 255])
                left >>= 8
                shift += 8
            i += 1 + run
    return bytes(out)


def picture(h, w, seed, runs=False):
    """RGBE bytes: mantissas 3..255 (no 1, 1, 1 or 2, 2 to mistake for a marker), exponents
    around 128 and some zeros; runs=True repeats pixels in blocks."""
    rng = np.random.default_rng(seed)
    px = rng.integers(3, 256, size=(h, w, 4)).astype(np.uint8)
    px[..., 3] = rng.integers(110, 150, size=(h, w))
    px[rng.random((h, w)) < 0.05, 3] = 0
    if runs:
        px = np.repeat(px[:, ::37], 37, axis=1)[:, :w]
        px[:, : w // 3] = px[:, :1]
    return np.ascontiguousarray(px)


def check_read(d, name, data, want, what, stdin=False):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    got, r = as_read(d, path, stdin)
    ok = got is not None and got.shape == want.shape and np.array_equal(got, want)
    T.check(ok, f"{what}: read exactly",
            f"got {None if got is None else got.shape}, want {want.shape}; rc {r.returncode}: "
            f"{r.stderr.strip()[-300:]}")
    return path


def test_encodings(d):
    for h, w in [(1, 1), (3, 7), (5, 8), (17, 513), (40, 300), (2, 32767), (1, 32768)]:
        px = picture(h, w, h * 1000 + w, runs=w > 8)
        want = decode(px)
        res = f"-Y {h} +X {w}".encode()
        check_read(d, "flat.hdr", header(res) + flat(px), want, f"{w}x{h} flat pixels")
        check_read(d, "old.hdr", header(res) + old_rle(px), want, f"{w}x{h} old-style runs")
        if 8 <= w <= 32767:
            check_read(d, "rle.hdr", header(res) + rle(px), want, f"{w}x{h} new-style runs")


def test_orientations(d):
    h, w = 5, 11
    px = picture(h, w, 7)
    want = decode(px)
    swap = (1, 0, 2)
    orders = {  # resolution line -> the scanlines, in file order, of the upright picture
        "-Y 5 +X 11": px, "+Y 5 +X 11": px[::-1], "-Y 5 -X 11": px[:, ::-1],
        "+Y 5 -X 11": px[::-1, ::-1], "+X 11 -Y 5": px.transpose(swap),
        "+X 11 +Y 5": px[::-1].transpose(swap), "-X 11 -Y 5": px[:, ::-1].transpose(swap),
        "-X 11 +Y 5": px[::-1, ::-1].transpose(swap)}
    for res, lines in orders.items():
        check_read(d, "turned.hdr", header(res.encode()) + flat(np.ascontiguousarray(lines)),
                   want, f"orientation {res}")


def test_opencv(d):
    """OpenCV writes new-style runs; its own reading is the reference."""
    img = T.load(T.photo("astronaut.png")).astype(np.float32) / 255.0 * 3.0
    path = os.path.join(d, "cv.hdr")
    cv2.imwrite(path, img[..., ::-1])
    want = cv2.imread(path, cv2.IMREAD_UNCHANGED)[..., ::-1]
    with open(path, "rb") as f:
        head = f.read(200)
    T.check(b"\n\n-Y " in head or b"\n-Y " in head, "OpenCV wrote a Radiance file")
    got, r = as_read(d, path)
    T.check(got is not None and np.array_equal(got, want),
            "OpenCV's HDR (run-length encoded): the samples OpenCV reads, values above 1 kept",
            r.stderr.strip()[-300:])
    got, r = as_read(d, path, stdin=True)
    T.check(got is not None and np.array_equal(got, want), "the same file on standard input",
            r.stderr.strip()[-300:])


def refused(d, name, data, what, words):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    got, r = as_read(d, path)
    out = os.path.join(d, "read.npy")
    T.check(r.returncode == 2 and name in r.stderr and words in r.stderr
            and not os.path.exists(out),
            f"{what}: refused (exit 2, '{words}'), nothing written",
            f"rc {r.returncode}: {r.stderr.strip()[-300:]}")


def test_refusals(d):
    px = picture(6, 20, 3, runs=True)
    res = b"-Y 6 +X 20"
    good = header(res) + rle(px)
    for cut in (len(good) - 1, len(good) // 2, len(header(res)) + 2, 12):
        refused(d, f"cut{cut}.hdr", good[:cut], f"cut after {cut} of {len(good)} bytes",
                "cut short")
    refused(d, "oldcut.hdr", (header(res) + old_rle(px))[:-3], "old-style runs cut",
            "cut short")
    body = bytearray(rle(px))
    body[4] = 128 + 127  # the first run of R longer than the line
    refused(d, "overrun.hdr", header(res) + bytes(body), "a run past the end of its line",
            "damaged")
    bad_len = bytearray(rle(px))
    bad_len[3] = 21  # the line says 21 pixels, the header 20
    refused(d, "length.hdr", header(res) + bytes(bad_len), "a line of the wrong length",
            "damaged")
    lead = flat(px[:1, :1]) + b"\x01\x01\x01\x05"
    refused(d, "repeat.hdr", header(b"-Y 1 +X 3") + b"\x01\x01\x01\x05" + lead,
            "a repeat marker before any pixel", "damaged")
    refused(d, "xyze.hdr", header(res).replace(b"rgbe", b"xyze") + rle(px), "XYZE pixels",
            "32-bit_rle_xyze")
    for line in (b"-Y 0 +X 20", b"-Y 6 -Y 20", b"Y 6 X 20", b"-Y 6 +X"):
        refused(d, "res.hdr", header(line) + rle(px), f"resolution line {line.decode()!r}",
                "resolution line")


def main():
    with T.tmpdir() as d:
        test_encodings(d)
        test_orientations(d)
        test_opencv(d)
        test_refusals(d)
    T.finish()


if __name__ == "__main__":
    main()
