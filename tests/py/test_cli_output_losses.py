"""What an output format cannot hold is said, and only then.  A filter's result keeps the
input's alpha channel and precision; an output format without alpha (JPEG, PNM, Radiance
HDR, NumPy) or with fewer bits a sample (PNG 16, JPEG and WebP 8) loses some of it, and
gpufx says so in a note naming the file.

The truth here is read back from the files GEGL wrote, not taken from gpufx's own table:
- alpha is lost where the result's alpha is not all opaque and the file has no alpha;
- samples are rounded where the file stores integers of b bits (its dtype) and the
  result's colour samples (read from a TIFF, which keeps everything) are not all on those
  b-bit levels; Radiance HDR's shared exponents always round;
- a result of 2 to 16 levels (a halftone's) is spoiled where the file holds integer
  samples that are off every one of those levels by more than half an 8-bit step (JPEG's and WebP's
  lossy compression); the note then says so, and says nothing of a photograph's loss."""
import os
import subprocess

import numpy as np

import gfxtest as T

os.environ["OPENCV_IO_ENABLE_OPENEXR"] = "1"  # before cv2 is imported
T.require_cli("output losses")

FORMATS = ["png", "jpg", "tif", "ppm", "webp", "exr", "hdr", "npy"]
ALPHA_NOTE = "the alpha channel is left out"
BITS_NOTE = "rounded"
LOSSY_NOTE = "compresses with loss"


def read_back(path):
    """The file's samples (colour channels, alpha last) and whether it has alpha."""
    if path.endswith(".npy"):
        img = np.load(path)
    else:
        img = T.load(path)
    channels = 1 if img.ndim == 2 else img.shape[2]
    return img, channels in (2, 4)


def bits_of(img, path):
    if path.endswith(".hdr"):
        return 0  # RGBE
    return {np.dtype(np.uint8): 8, np.dtype(np.uint16): 16}.get(img.dtype, 32)


def unit(img):
    if img.dtype == np.uint8:
        return img / 255.0
    if img.dtype == np.uint16:
        return img / 65535.0
    return img.astype(np.float64)


def colour(img, has_alpha):
    if img.ndim == 2:
        return img
    return img[..., :-1] if has_alpha else img


def on_levels(values, bits):
    if bits >= 32:
        return True
    if bits == 0:
        return False
    level = values * (2 ** bits - 1)
    return bool(np.all(np.abs(level - np.round(level)) <= 1e-3))


def levels_spoiled(ref_colour, back_colour):
    """The result has a few levels and the file holds samples off all of them."""
    levels = np.unique(ref_colour)
    if not 2 <= len(levels) <= 16:
        return False
    off = np.min(np.abs(back_colour.reshape(-1, 1) - levels.reshape(1, -1)), axis=1)
    return bool(np.any(off > 0.5 / 255 + 1e-6))


def cases(d):
    """(name, input file, gpufx arguments after IN OUT)."""
    rng = np.random.default_rng(11)
    h, w = 23, 37
    rgba16 = (rng.random((h, w, 4)) * 65535).astype(np.uint16)
    rgba16[..., 3] = np.linspace(0, 65535, w).astype(np.uint16)[None, :]
    opaque8 = (rng.random((h, w, 4)) * 255).astype(np.uint8)
    opaque8[..., 3] = 255
    gray16 = T.noise(w, h, 1, np.uint16, seed=3)
    grayf = T.noise(w, h, 1, np.float32, seed=4)
    files = {}
    for name, img in (("rgba16.png", rgba16), ("opaque8.png", opaque8), ("gray16.png", gray16),
                      ("grayf.tif", grayf)):
        files[name] = os.path.join(d, name)
        T.save(files[name], img)
    return [
        ("16-bit RGBA, alpha ramp, enhance", files["rgba16.png"], ["enhance"]),
        ("16-bit RGBA, alpha ramp, 2-level halftone", files["rgba16.png"], ["halftone"]),
        ("8-bit RGBA, opaque, enhance", files["opaque8.png"], ["enhance"]),
        ("16-bit gray, 2-level halftone", files["gray16.png"], ["halftone"]),
        ("16-bit gray, 5-level halftone", files["gray16.png"], ["halftone", "--levels", "5"]),
        ("float gray, enhance", files["grayf.tif"], ["enhance"]),
        ("float gray, 2-level halftone", files["grayf.tif"], ["halftone"]),
    ]


def main():
    with T.tmpdir() as d:
        said = {"alpha": 0, "bits": 0, "lossy": 0}
        for name, src, args in cases(d):
            cmd, rest = args[0], args[1:]
            ref_path = os.path.join(d, "ref.tif")
            r = T.run_cli(cmd, src, ref_path, *rest, "--backend", "cpu")
            if not T.check(r.returncode == 0 and "note" not in r.stderr, f"{name}: .tif keeps "
                           "everything, no note", f"status {r.returncode}: {r.stderr[-300:]}"):
                continue
            ref, ref_alpha = read_back(ref_path)
            alpha_varies = ref_alpha and not np.all(unit(ref)[..., -1] == 1.0)
            for ext in FORMATS:
                out = os.path.join(d, f"out.{ext}")
                r = T.run_cli(cmd, src, out, *rest, "--backend", "cpu")
                if not T.check(r.returncode == 0, f"{name} -> .{ext}: written",
                               r.stderr[-300:]):
                    continue
                img, has_alpha = read_back(out)
                alpha_lost = alpha_varies and not has_alpha
                bits = bits_of(img, out)
                rounded = not on_levels(unit(colour(ref, ref_alpha)), bits) or (
                    has_alpha and bits < 32 and not on_levels(unit(ref)[..., -1], bits))
                # Float files (OpenEXR, Radiance HDR, NumPy) hold linear light: their
                # samples are not the result's levels even where nothing is lost.
                spoiled = bits in (8, 16) and levels_spoiled(unit(colour(ref, ref_alpha)),
                                                             unit(colour(img, has_alpha)))
                notes = [line for line in r.stderr.splitlines() if "note:" in line]
                T.check(len(notes) <= 1 and all(f"out.{ext}" in n for n in notes),
                        f"{name} -> .{ext}: at most one note, naming the file", r.stderr)
                T.check((ALPHA_NOTE in r.stderr) == alpha_lost,
                        f"{name} -> .{ext}: alpha note {'given' if alpha_lost else 'not given'}",
                        f"file has alpha {has_alpha}, result's alpha varies {alpha_varies}: "
                        f"{r.stderr.strip()}")
                T.check((BITS_NOTE in r.stderr) == rounded,
                        f"{name} -> .{ext}: rounding note {'given' if rounded else 'not given'}",
                        f"file stores {bits or 'RGBE'} bits: {r.stderr.strip()}")
                T.check((LOSSY_NOTE in r.stderr) == spoiled,
                        f"{name} -> .{ext}: lossy-compression note "
                        f"{'given' if spoiled else 'not given'}", r.stderr.strip())
                said["alpha"] += alpha_lost
                said["bits"] += rounded
                said["lossy"] += spoiled
                q = T.run_cli(cmd, src, out, *rest, "--backend", "cpu", "--quiet")
                T.check(q.returncode == 0 and q.stderr == "", f"{name} -> .{ext}: --quiet "
                        "says nothing", q.stderr)
        # The truth above must have had both answers for both kinds of loss.
        T.check(said["alpha"] >= 3 and said["bits"] >= 5 and said["lossy"] >= 4,
                "the cases lose alpha, bits and levels somewhere", str(said))
        rgba = os.path.join(d, "rgba16.png")
        r = T.run_cli("enhance", rgba, os.path.join(d, "o.tif"), "--compare",
                      os.path.join(d, "c.jpg"), "--backend", "cpu")
        T.check(r.returncode == 0 and "c.jpg: JPEG holds" in r.stderr
                and "o.tif" not in r.stderr, "--compare gets its own note", r.stderr)
        r = subprocess.run([T.GPUFX, "enhance", rgba, "jpg:-", "--backend", "cpu"],
                           capture_output=True)
        err = r.stderr.decode(errors="replace")
        T.check(r.returncode == 0 and r.stdout[:2] == b"\xff\xd8"
                and "note: standard output: JPEG" in err,
                "standard output is named in the note", err[-300:])


main()
T.finish()
