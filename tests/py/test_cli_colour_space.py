"""Files in a colour space other than sRGB (an ICC profile, an EXR's chromaticities): the
command line works on the file's own samples and writes the result in the same space, as
the plug-ins do with a layer.  Before, it converted to sRGB first: an Adobe RGB
photograph lost the greens outside sRGB, a halftone of an EXR was not pure black and
white, and writing such a PNG failed on a libpng warning.  Checked against the same
samples without a profile (the filters must see the numbers the file holds), and against
LittleCMS (Pillow's ImageCms) where a format cannot carry the space (PPM: sRGB).
The profiles babl makes for such spaces (and for sRGB) go into TIFF, JPEG and PNG files
without the stack bytes babl leaves in them (cli/icc_tidy.c)."""
import hashlib
import io
import os
import struct

os.environ["OPENCV_IO_ENABLE_OPENEXR"] = "1"  # before cv2 is imported

import numpy as np  # noqa: E402
import tifffile  # noqa: E402

import gfxtest as T  # noqa: E402

T.require_cli("colour spaces")
import cv2  # noqa: E402
from PIL import Image, ImageCms  # noqa: E402

ICC = "/usr/share/color/icc/ghostscript"  # Debian's libgs-common


def saturated(w, h, seed):
    """Noise with a block of green far outside sRGB when read as Adobe RGB."""
    img = T.noise(w, h, 3, np.uint8, seed=seed)
    img[: h // 2, : w // 3] = (20, 230, 40)
    return img


def save_png(path, img, profile=None):
    mode = "L" if img.ndim == 2 else "RGB"
    kw = {"icc_profile": open(profile, "rb").read()} if profile else {}
    Image.fromarray(img, mode).save(path, **kw)


def read(path):
    im = Image.open(path)
    return np.asarray(im), im.info.get("icc_profile")


def lcms_srgb(im, intent):
    """LittleCMS's rendering of a tagged image in sRGB, as RGB."""
    return np.asarray(ImageCms.profileToProfile(
        im, ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"])),
        ImageCms.createProfile("sRGB"), intent, outputMode="RGB"))


def run(*args):
    r = T.run_cli(*args, "--backend", "cpu", "--quiet")
    return r.returncode == 0, r.stderr.strip()


def check_tagged(d, name, img, profile):
    """Each filter on the tagged file equals it on the same samples untagged, and writes
    the PNG with the file's own profile (GEGL's PNG saver writes none for a gray image:
    gpufx adds the gray one, cli_png_add_iccp, also to a black-and-white one)."""
    want_icc = open(profile, "rb").read()
    tagged, plain = os.path.join(d, name + ".png"), os.path.join(d, name + "-plain.png")
    save_png(tagged, img, profile)
    save_png(plain, img)
    # 2 levels: a gray result is a black-and-white PNG, which gpufx writes itself.
    for cmd in (("halftone", "--levels", "7"), ("halftone",),
                ("enhance", "--k0", "0.6", "--k1", "0.01")):
        got = {}
        for src in (tagged, plain):
            out = src[:-4] + f"-{cmd[0]}.png"
            ok, why = run(cmd[0], src, out, *cmd[1:])
            got[src] = read(out) if ok else (None, why)
        (res, icc), (want, _) = got[tagged], got[plain]
        same = res is not None and want is not None and np.array_equal(res, want)
        T.check(same, f"{name}: {cmd[0]} works on the file's own samples (as untagged)",
                f"{icc if res is None else 'they differ'}")
        T.check(icc == want_icc, f"{name}: {cmd[0]} writes the PNG with the file's profile",
                f"{len(icc or b'')} bytes against {len(want_icc)}")
    out, cmp = os.path.join(d, name + "-copy.png"), os.path.join(d, name + "-cmp.png")
    ok, why = run("halftone", tagged, out, "--levels", "256", "--compare", cmp)
    T.check(ok and np.array_equal(read(out)[0], img),
            f"{name}: 256 levels give back every sample", why)
    cmp_img, cmp_icc = read(cmp) if ok else (None, None)
    T.check(ok and np.array_equal(cmp_img[:, : img.shape[1]], img) and cmp_icc == want_icc,
            f"{name}: --compare keeps the samples and the profile")
    return tagged


def check_pnm(d, tagged, ext):
    """PPM and PGM name no colour space: the samples go to sRGB, as LittleCMS converts
    them, and a gray image stays a graymap."""
    out = tagged[:-4] + ext
    ok, why = run("halftone", tagged, out, "--levels", "256")
    if not T.check(ok, f"{os.path.basename(out)}: written", why):
        return
    src = Image.open(tagged)
    want = lcms_srgb(src, ImageCms.Intent.RELATIVE_COLORIMETRIC)
    if src.mode == "L":
        want = want[..., 0]
    got = np.asarray(Image.open(out))
    err = np.abs(got.astype(int) - want).max() if got.shape == want.shape else got.shape
    T.check(open(out, "rb").read(2) == (b"P5" if src.mode == "L" else b"P6") and err <= 2,
            f"{os.path.basename(out)}: converted to sRGB (within 2 of LittleCMS), "
            f"{'a graymap' if src.mode == 'L' else 'a pixmap'}", f"off by {err}")
    T.check((got != np.asarray(src)).any(), f"{os.path.basename(out)}: the samples did change")


def check_cmyk(d):
    """CMYK has no R'G'B' of its own: the filters get sRGB (as GIMP 2.10 loads such a
    file), and a JPEG result is an RGB one."""
    # Flat 16x16 patches: JPEG decoders differ in their chroma upsampling at edges.
    colours = np.array([[200, 30, 40], [40, 120, 200], [230, 220, 60], [90, 90, 90]], np.uint8)
    rgb = np.kron(colours.reshape(2, 2, 3), np.ones((16, 16, 1), np.uint8))
    src = os.path.join(d, "cmyk.jpg")
    Image.fromarray(rgb).convert("CMYK").save(
        src, quality=95, icc_profile=open(os.path.join(ICC, "default_cmyk.icc"), "rb").read())
    cmyk = Image.open(src)
    want = lcms_srgb(cmyk, ImageCms.Intent.PERCEPTUAL)
    for ext in (".png", ".jpg"):
        out = os.path.join(d, "cmyk-out" + ext)
        ok, why = run("halftone", src, out, "--levels", "256")
        im = Image.open(out) if ok else None
        diff = np.abs(np.asarray(im).astype(int) - want) if im and im.mode == "RGB" else None
        err = None if diff is None else max(diff[y + 4:y + 12, x + 4:x + 12].max()
                                            for y in (0, 16) for x in (0, 16))
        T.check(ok and im.mode == "RGB" and err <= 8,
                f"CMYK JPEG -> {ext}: RGB, within 8 of LittleCMS's sRGB",
                f"{why if not ok else im.mode} off by {err}")


def check_exr(d):
    """GEGL writes an EXR's chromaticities, and reads them back as a colour space.  The
    EXR's path, or None where this GEGL cannot write one."""
    tif, exr = os.path.join(d, "f.tif"), os.path.join(d, "f.exr")
    T.save(tif, T.noise(33, 21, 3, np.float32, seed=5))
    ok, why = run("bench", "--copy", tif, exr)
    if not ok:
        T.skip("EXR halftone", f"this GEGL cannot write OpenEXR: {why}")
        return None
    for ext in (".exr", ".tif"):
        out = os.path.join(d, "h" + ext)
        ok, why = run("halftone", exr, out)
        got = cv2.imread(out, cv2.IMREAD_UNCHANGED) if ok else None
        levels = np.unique(got) if got is not None else why
        T.check(got is not None and list(levels) == [0.0, 1.0],
                f"EXR -> {ext}: a halftone is exactly 0 and 1", f"{levels}")
    return exr


def icc_faults(icc):
    """What in an ICC profile breaks the ICC specification's rules for bytes no field
    defines: reserved header bytes and the padding between tags are zero, the profile ID
    is zero or the profile's MD5, a text tag ends in NUL, a v2 description's ASCII part is
    followed by zeros (no Unicode or ScriptCode part).  babl sets no platform, flags,
    device or attributes: they must be zero too."""
    faults = []
    if len(icc) < 132 or struct.unpack(">I", icc[:4])[0] != len(icc):
        return ["not a whole profile"]
    for name, a, b in (("bytes 10-11", 10, 12), ("platform", 40, 44), ("flags", 44, 48),
                       ("device", 48, 56), ("attributes", 56, 64), ("reserved", 100, 128)):
        if any(icc[a:b]):
            faults.append(f"{name} {icc[a:b].hex()}")
    zeroed = bytearray(icc)
    zeroed[44:48] = zeroed[64:68] = bytes(4)
    zeroed[84:100] = bytes(16)
    if any(icc[84:100]) and icc[84:100] != hashlib.md5(zeroed).digest():
        faults.append(f"profile ID {icc[84:100].hex()} is not the MD5")
    n = struct.unpack(">I", icc[128:132])[0]
    covered = bytearray(len(icc))
    covered[: 132 + 12 * n] = b"\1" * (132 + 12 * n)
    for t in range(n):
        sig, at, size = struct.unpack(">4sII", icc[132 + 12 * t: 144 + 12 * t])
        tag = icc[at: at + size]
        covered[at: at + size] = b"\1" * len(tag)
        if tag[:4] == b"text" and tag[-1:] != b"\0":
            faults.append(f"{sig.decode()} text not closed by NUL: {tag[-4:]}")
        if tag[:4] == b"desc":
            count = struct.unpack(">I", tag[8:12])[0]
            if tag[11 + count: 12 + count] != b"\0" or any(tag[12 + count:]):
                faults.append(f"{sig.decode()} has bytes after its text: {tag[12 + count:][:8]}")
    gaps = [i for i in range(len(icc)) if not covered[i] and icc[i]]
    if gaps:
        faults.append(f"{len(gaps)} bytes outside every tag, at {gaps[:4]}")
    return faults


def embedded_icc(path):
    """The ICC profile a TIFF (Pillow reads no float RGB TIFF), JPEG or PNG carries."""
    if path.endswith(".tif"):
        tag = tifffile.TiffFile(path).pages[0].tags.get(34675)
        return bytes(tag.value) if tag else None
    return Image.open(path).info.get("icc_profile")


def check_babl_profiles(d, exr):
    """Files written from an EXR (its chromaticities) and from an sRGB PNG carry babl's
    profile for that space: valid, readable by LittleCMS, and the same bytes every run."""
    png = os.path.join(d, "srgb.png")
    save_png(png, T.noise(29, 17, 3, np.uint8, seed=4))
    cases = [(png, ".tif"), (png, ".jpg")] + [(exr, e) for e in (".tif", ".jpg", ".png")
                                              if exr]
    for src, ext in cases:
        name = f"{os.path.basename(src)} -> {ext}"
        outs = [os.path.join(d, f"icc{i}{ext}") for i in (1, 2)]
        ok = all(run("enhance", src, out)[0] for out in outs)
        icc = embedded_icc(outs[0]) if ok else None
        if not T.check(icc is not None, f"{name}: written with a colour profile"):
            continue
        faults = icc_faults(icc)
        T.check(not faults, f"{name}: the profile has no stray bytes", "; ".join(faults))
        desc = ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(icc)))
        T.check(desc.strip() == "babl profile", f"{name}: LittleCMS reads the profile", desc)
        T.check(open(outs[0], "rb").read() == open(outs[1], "rb").read(),
                f"{name}: the same bytes on a second run")


def check_gray_jpeg(d, can_exr):
    """A gray image goes to JPEG as a gray JPEG (a third of the data), without a profile:
    GEGL's saver would embed its space's RGB profile, which LittleCMS cannot apply to one
    channel.  A gray image in another space (an EXR's) stays an RGB JPEG with its profile."""
    png, out, ref = (os.path.join(d, n) for n in ("g.png", "g.jpg", "g-ref.png"))
    y, x = np.mgrid[0:48, 0:64]
    save_png(png, (x * 3 + y * 2 + 20).astype(np.uint8))
    ok = run("enhance", png, out)[0] and run("enhance", png, ref)[0]
    im = Image.open(out) if ok else None
    if not T.check(im is not None and im.mode == "L", "gray PNG -> .jpg: a gray JPEG",
                   im.mode if im else "not written"):
        return
    err = np.abs(np.asarray(im, float) - np.asarray(Image.open(ref), float)).mean()
    T.check("icc_profile" not in im.info and err < 2,
            "gray PNG -> .jpg: no profile, the result within JPEG's loss (mean < 2)",
            f"profile {len(im.info.get('icc_profile') or b'')} bytes, mean error {err:.2f}")
    rgb = os.path.join(d, "c.jpg")
    ok = run("enhance", os.path.join(d, "srgb.png"), rgb)[0]
    T.check(ok and Image.open(rgb).mode == "RGB" and Image.open(rgb).info.get("icc_profile"),
            "RGB PNG -> .jpg: RGB with its profile")
    if can_exr:
        tif, gexr, e = (os.path.join(d, n) for n in ("gf.tif", "gf.exr", "gf.jpg"))
        T.save(tif, T.noise(33, 21, 1, np.float32, seed=6))
        ok = run("bench", "--copy", tif, gexr)[0] and run("enhance", gexr, e)[0]
        im = Image.open(e) if ok else None
        T.check(im is not None and im.mode == "RGB" and im.info.get("icc_profile"),
                "gray EXR (its own space) -> .jpg: RGB with the space's profile",
                im.mode if im else "not written")


def main():
    with T.tmpdir() as d:
        if not os.path.exists(os.path.join(ICC, "a98.icc")):
            T.skip("ICC profiles", f"{ICC} missing (Debian's libgs-common)")
        else:
            a98 = check_tagged(d, "a98", saturated(41, 26, 1), os.path.join(ICC, "a98.icc"))
            sgray = check_tagged(d, "sgray", T.noise(37, 22, 1, np.uint8, seed=2),
                                 os.path.join(ICC, "sgray.icc"))
            check_pnm(d, a98, ".ppm")
            check_pnm(d, sgray, ".pgm")
            check_cmyk(d)
        exr = check_exr(d)
        check_babl_profiles(d, exr)
        check_gray_jpeg(d, exr is not None)
    T.finish()


if __name__ == "__main__":
    main()
