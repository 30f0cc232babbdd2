"""A TIFF of 64-bit or 16-bit floats comes out of every filter in its own sample type.

The core computes in 32-bit float; gpufx wrote every float TIFF as 32-bit float, so a
double image lost the exact value of each sample, even those the filter left alone (the
README says TIFF holds everything).  Now the result is written in the file's own type:
a sample the filter left alone is the input's, to the last bit, and a changed one is the
filter's result for the same picture stored as 32-bit float, in the file's type.  Gray and RGBA, local enhance (some pixels changed, most not) and a 256-level
halftone."""
import os

import numpy as np

import gfxtest as T

T.require_cli("tiff types")


def picture(channels):
    """A dark textured left half (enhanced) and a bright smooth right half (left alone),
    with values that a 32-bit float cannot hold (so a float round trip would show)."""
    rng = np.random.default_rng(7)
    h, w = 36, 50
    img = np.empty((h, w, channels))
    img[:, : w // 2] = 0.05 + 0.1 * rng.random((h, w // 2, channels))
    img[:, w // 2:] = 0.7 + 1e-3 * rng.random((h, w - w // 2, channels))
    if channels == 4:
        img[..., 3] = np.linspace(0.2, 1.0, w)[None, :] + 1e-9
    return img[..., 0] if channels == 1 else img


def main():
    with T.tmpdir() as d:
        for channels in (1, 4):
            base = picture(channels)
            for dtype in (np.float64, np.float16):
                src = base.astype(dtype)
                src32 = src.astype(np.float32)
                for args in (["enhance", "--gain", "3", "--k0", "0.5"],
                             ["halftone", "--levels", "256"]):
                    what = f"{args[0]} {np.dtype(dtype).name} {channels}-channel"
                    path, path32 = os.path.join(d, "in.tif"), os.path.join(d, "in32.tif")
                    out, out32 = os.path.join(d, "out.tif"), os.path.join(d, "out32.tif")
                    T.save(path, src)
                    T.save(path32, src32)
                    r = T.run_cli(args[0], path, out, *args[1:], "--backend", "cpu", "--quiet")
                    r32 = T.run_cli(args[0], path32, out32, *args[1:], "--backend", "cpu",
                                    "--quiet")
                    if not T.check(r.returncode == 0 and r32.returncode == 0,
                                   f"{what}: runs", r.stderr + r32.stderr):
                        continue
                    got, res32 = T.load(out), T.load(out32)
                    T.check(got.dtype == src.dtype, f"{what}: written as {src.dtype}",
                            f"written as {got.dtype}")
                    if got.dtype != src.dtype:
                        continue
                    kept = res32 == src32
                    T.check(np.array_equal(got[kept], src[kept])
                            and (args[0] == "halftone" or np.count_nonzero(kept)),
                            f"{what}: the {np.count_nonzero(kept)} samples left alone are "
                            "the input's, to the last bit",
                            f"{np.count_nonzero(got[kept] != src[kept])} differ")
                    # A changed sample is the float result in the file's type: exactly for
                    # double; for half one of the two halves around it (babl rounds a
                    # float to half through its own path, not always to the nearest).
                    want = res32[~kept].astype(np.float64)
                    have = got[~kept].astype(np.float64)
                    ulp = np.spacing(res32[~kept].astype(dtype)).astype(np.float64)
                    ok = (np.array_equal(have, want) if dtype == np.float64
                          else bool(np.all(np.abs(have - want) <= ulp)))
                    T.check(ok, f"{what}: the {np.count_nonzero(~kept)} changed samples are "
                            "the 32-bit float result in the file's type",
                            f"largest difference {np.max(np.abs(have - want), initial=0):.3g}")
        signed_and_complex(d)
    T.finish()


def signed_and_complex(d):
    """GEGL's TIFF loader reads signed and complex samples as unsigned integers (an int8
    photo's dark half came out bright): such files are refused, naming what they hold;
    unsigned and float ones (also in several-sample pixels) still read."""
    import tifffile
    gray = T.noise(37, 23, 1)
    cases = [("int8", (gray.astype(np.int16) - 128).astype(np.int8), "signed integer"),
             ("int16 RGB", np.dstack([gray.astype(np.int16)] * 3), "signed integer"),
             ("complex64", gray.astype(np.complex64), "complex"),
             ("uint8", gray, None), ("float32 RGB", np.dstack([gray / 255.0] * 3).astype(np.float32), None)]
    for what, data, refused in cases:
        path = os.path.join(d, "typed.tif")
        tifffile.imwrite(path, data, photometric="rgb" if data.ndim == 3 else "minisblack")
        r = T.run_cli("halftone", path, os.path.join(d, "typed-out.tif"), "--backend", "cpu",
                      "--quiet")
        if refused:
            T.check(r.returncode == 2 and f"a TIFF of {refused} samples" in r.stderr,
                    f"{what} TIFF: refused, naming its samples", r.stderr.strip())
        else:
            T.check(r.returncode == 0, f"{what} TIFF: read", r.stderr.strip())


if __name__ == "__main__":
    main()
