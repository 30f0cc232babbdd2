"""Photographs are read upright: the CLI turns an image as its EXIF orientation asks.

Cameras and phones store the sensor's rows as they came and say in EXIF (tag 0x0112) how
to turn them for viewing; GEGL's loaders leave the rows as stored, so a portrait photo
came out of every filter lying on its side (with no tag left to turn it back).  For all 8
orientations, in PNG (eXIf), TIFF (IFD0), WebP (EXIF chunk) and JPEG (APP1, little- and
big-endian), the image a filter sees must equal the stored pixels turned by EXIF's
definitions (numpy index maps written here, themselves checked against Pillow's
ImageOps.exif_transpose on the PNGs), and a note must say what was done.  Local enhance
with gain 1 passes every sample through, so its output is the image as read."""
import io
import os

import numpy as np
from PIL import Image, ImageOps

import gfxtest as T

T.require_cli("orientation")


def as_read(d, path):
    """The image gpufx read from path (enhance, gain 1), and what it said."""
    out = os.path.join(d, "read.png")
    if os.path.exists(out):
        os.remove(out)
    r = T.run_cli("enhance", path, out, "--gain", "1", "--backend", "cpu")
    return (T.load(out) if r.returncode == 0 else None), r.stderr


def upright(stored, orientation):
    """EXIF's definitions: the viewed image's [y, x] from the stored rows."""
    swap = (1, 0) + tuple(range(2, stored.ndim))
    return {1: stored, 2: stored[:, ::-1], 3: stored[::-1, ::-1], 4: stored[::-1],
            5: stored.transpose(swap), 6: stored[::-1].transpose(swap),
            7: stored[::-1, ::-1].transpose(swap), 8: stored[:, ::-1].transpose(swap)}[orientation]


def check_file(d, path, what, orientation, stored, exact=True):
    got, said = as_read(d, path)
    want = upright(stored, orientation)
    if got is None or got.shape != want.shape:
        T.check(False, f"{what}: read upright", f"shape {None if got is None else got.shape}, "
                f"expected {want.shape}: {said.strip()}")
        return
    worst = int(np.abs(got.astype(int) - want.astype(int)).max())
    noted = f"EXIF orientation ({orientation})" in said
    T.check((worst == 0 if exact else worst <= 3) and noted == (orientation > 1),
            f"{what}: read upright{'' if exact else ' (within 3)'}, "
            f"{'a note says so' if orientation > 1 else 'no note'}",
            f"largest difference {worst}, said: {said.strip()!r}")


def exif_bytes(orientation):
    ex = Image.Exif()
    ex[0x0112] = orientation
    return ex.tobytes()


def big_endian_jpeg(d, img, orientation):
    """A JPEG whose APP1 EXIF block is big-endian ("MM"), put after SOI by hand."""
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=95)
    data = buf.getvalue()
    ifd = (b"MM\x00\x2a\x00\x00\x00\x08" + b"\x00\x01"  # header, one entry
           + b"\x01\x12\x00\x03\x00\x00\x00\x01" + bytes([0, orientation, 0, 0])
           + b"\x00\x00\x00\x00")
    app1 = b"Exif\x00\x00" + ifd
    seg = b"\xff\xe1" + (len(app1) + 2).to_bytes(2, "big") + app1
    path = os.path.join(d, f"be{orientation}.jpg")
    with open(path, "wb") as f:
        f.write(data[:2] + seg + data[2:])
    return path


def main():
    with T.tmpdir() as d:
        pixels = T.noise(7, 5, 3, np.uint8, seed=11)  # no symmetry: every turn differs
        img = Image.fromarray(pixels)
        smooth = Image.fromarray(T.ramp(32, 24, 3, np.uint8))
        webp = True
        for o in range(1, 9):
            png = os.path.join(d, f"o{o}.png")
            img.save(png, exif=exif_bytes(o))
            T.check(np.array_equal(upright(pixels, o),
                                   np.asarray(ImageOps.exif_transpose(Image.open(png)))),
                    f"orientation {o}: the test's index map equals Pillow's exif_transpose")
            check_file(d, png, f"orientation {o}, PNG", o, pixels)
            tif = os.path.join(d, f"o{o}.tif")
            img.save(tif, exif=exif_bytes(o))
            check_file(d, tif, f"orientation {o}, TIFF", o, pixels)
            webp_path = os.path.join(d, f"o{o}.webp")
            try:
                img.save(webp_path, lossless=True, exif=exif_bytes(o))
                check_file(d, webp_path, f"orientation {o}, WebP", o, pixels)
            except (OSError, KeyError, ValueError):
                webp = False
            # JPEG is lossy: GEGL's and Pillow's decoders may differ by a level or so.
            jpg = os.path.join(d, f"o{o}.jpg")
            smooth.save(jpg, quality=95, exif=exif_bytes(o))
            check_file(d, jpg, f"orientation {o}, JPEG", o, np.asarray(Image.open(jpg)), False)
            be = big_endian_jpeg(d, smooth, o)
            check_file(d, be, f"orientation {o}, JPEG with a big-endian EXIF block", o,
                       np.asarray(Image.open(be)), False)
        if not webp:
            T.skip("orientation, WebP", "Pillow here cannot write WebP with EXIF")
        plain = os.path.join(d, "plain.png")
        img.save(plain)
        check_file(d, plain, "a PNG without EXIF: as stored", 1, pixels)
    T.finish()


if __name__ == "__main__":
    main()
