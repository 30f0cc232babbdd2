"""Float images with a NaN or an infinity are refused, by every filter, before any work.

One such sample used to spread through the halftone's error diffusion (every pixel it
reached became 0, or 1 for +inf) and through the deblur's recursion (every sample
non-finite), with exit status 0; local enhance already refused it.  Now each command
exits 2 with one line naming the pixel, its channel and value, and writes nothing.  Large
finite values are still filtered (GIMP's float images may leave [0, 1]), and local
enhance decides a dark float picture as a bright one; alpha is not checked (it is
copied)."""
import os

import numpy as np

import gfxtest as T

T.require_cli("float range")

FILTER_3X3 = "gpufx-iir 1\nmask 1 1\n" + "".join(f"q{q} a 1\nq{q} b 1\n" for q in range(1, 5))


def refused(r, out, what, needle):
    lines = r.stderr.strip().splitlines()
    T.check(r.returncode == 2 and len(lines) == 1 and needle in lines[0]
            and "pixel (4, 3) channel 0" in lines[0] and not os.path.exists(out),
            f"{what}: exit 2, one line naming pixel (4, 3) and '{needle}', no output",
            f"exit {r.returncode}: {r.stderr.strip()}")


def dark_like_bright(d):
    """Local enhance decides a float picture 10^4 or 10^6 times darker as the 8-bit one:
    its rule is scale-invariant and the float keys have 24 bits whatever the brightness
    (in a fixed 2^-20 step the 10^-6 picture had every pixel enhanced, none)."""
    cam = T.load(T.photo("camera.png"))
    masks = {}
    for name, img in (("8-bit", cam), ("1e-4", (cam / np.float32(255) * np.float32(1e-4))),
                      ("1e-6", (cam / np.float32(255) * np.float32(1e-6)))):
        src, mask = os.path.join(d, "dark.tif"), os.path.join(d, "mask.png")
        T.save(src, img.astype(np.float32) if name != "8-bit" else img)
        r = T.run_cli("enhance", src, os.path.join(d, "dark_out.tif"), "--backend", "cpu",
                      "--quiet", "--mask-out", mask)
        masks[name] = T.load(mask) if r.returncode == 0 else None
    base = masks["8-bit"]
    for name in ("1e-4", "1e-6"):
        m = masks[name]
        T.check(base is not None and m is not None and np.array_equal(base, m)
                and 0 < np.count_nonzero(base) < base.size,
                f"enhance: camera as float times {name} enhances the 8-bit image's pixels",
                "" if m is None or base is None else f"{np.count_nonzero(m != base)} differ")


def main():
    with T.tmpdir() as d:
        filt = os.path.join(d, "identity.iir")
        with open(filt, "w") as f:
            f.write(FILTER_3X3)
        out = os.path.join(d, "out.tif")
        commands = {
            "halftone": ["halftone", None, out],
            "deblur": ["deblur", None, out, "--filter", filt],
            "enhance": ["enhance", None, out],
        }
        for bad, label in ((np.nan, "NaN"), (np.inf, "+inf"), (-np.inf, "-inf")):
            img = T.noise(10, 8, 1, np.float32, seed=3)
            img[3, 4] = bad
            src = os.path.join(d, "bad.tif")
            T.save(src, img)
            for name, argv in commands.items():
                argv = [a if a is not None else src for a in argv]
                r = T.run_cli(*argv, "--backend", "cpu", "--quiet")
                refused(r, out, f"{name} of a float image with {label}", "finite values")
            r = T.run_cli("identify", "--blurred", src, "--auto", "--output",
                          os.path.join(d, "f.iir"))
            refused(r, os.path.join(d, "f.iir"), f"identify of a float image with {label}",
                    "finite values")
        big = T.noise(10, 8, 1, np.float32, seed=4) * 1e6
        src = os.path.join(d, "big.tif")
        T.save(src, big)
        for name in ("halftone", "deblur"):
            argv = [a if a is not None else src for a in commands[name]]
            r = T.run_cli(*argv, "--backend", "cpu", "--quiet")
            T.check(r.returncode == 0 and os.path.exists(out),
                    f"{name}: large finite float values are filtered", r.stderr.strip())
            if os.path.exists(out):
                os.remove(out)
        # Finite samples near the largest float overflow a sharpening filter (2x - left
        # neighbour): inf, and inf - inf = NaN, was written with exit status 0.
        sharpen = os.path.join(d, "sharpen.iir")
        with open(sharpen, "w") as f:
            f.write("gpufx-iir 1\nmask 1 2\n" + "".join(f"q{q} a 2 -1\nq{q} b 1 0\n"
                                                      for q in range(1, 5)))
        huge = T.noise(10, 8, 1, np.float32, seed=7)
        huge[:, 5:] = 3e38
        T.save(src, huge)
        r = T.run_cli("deblur", src, out, "--filter", sharpen, "--backend", "cpu")
        T.check(r.returncode == 2 and "sharpen.iir' takes the image" in r.stderr
                and "past the largest 32-bit float" in r.stderr
                and not os.path.exists(out),
                "deblur whose result overflows floats: exit 2, said, nothing written",
                f"status {r.returncode}: {r.stderr.strip()}")
        T.save(src, huge / 1e30)
        r = T.run_cli("deblur", src, out, "--filter", sharpen, "--backend", "cpu", "--quiet")
        T.check(r.returncode == 0 and np.all(np.isfinite(T.load(out))),
                "the same picture scaled down deblurs to finite values", r.stderr.strip())
        os.remove(out)
        img = T.noise(10, 8, 1, np.float32, seed=5)
        img[3, 4] = 1e30
        T.save(src, img)
        r = T.run_cli("enhance", src, out, "--backend", "cpu", "--quiet")
        T.check(r.returncode == 0, "enhance takes a float image holding 1e30", r.stderr.strip())
        dark_like_bright(d)
        rgba = T.noise(10, 8, 4, np.float32, seed=6)
        rgba[3, 4, 3] = np.nan
        T.save(src, rgba)
        r = T.run_cli("halftone", src, out, "--backend", "cpu", "--quiet")
        T.check(r.returncode == 0, "halftone: a NaN in alpha alone is copied, not refused",
                r.stderr.strip())
    T.finish()


if __name__ == "__main__":
    main()
