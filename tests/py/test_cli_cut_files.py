"""A file cut short (a download stopped part way, a full disk) is refused, not processed.

GEGL's JPEG, WebP, PNM and GIF loaders decode what there is of a cut file and fill the
rest with one colour; its TIFF loader repeats the last row read; none of them fails.  gpufx
checks a JPEG for a scan and its end marker after its last scan, a WebP against its RIFF
size, a PNG for its chunks up to IEND (GEGL fails there, but speaks of failing to open the
file), a PNM for the samples its header promises, a GIF for its blocks up to its trailer, and takes
the TIFF loader's warning of missing rows as the failure it is.  Whole files, progressive
JPEGs and JPEGs with bytes after their end still read."""
import os
import subprocess

import numpy as np

import gfxtest as T

T.require_cli("cut files")


def main():
    from PIL import Image
    with T.tmpdir() as d:
        img = Image.fromarray(T.noise(200, 150, 3, np.uint8, seed=4))
        files = {}
        for name, kw in (("base.jpg", {"quality": 85}), ("prog.jpg", {"progressive": True}),
                         ("strips.tif", {}), ("lossy.webp", {"quality": 80}),
                         ("lossless.webp", {"lossless": True}), ("whole.png", {})):
            path = os.path.join(d, name)
            img.save(path, **kw)
            files[name] = path
        # PNM (binary 8-bit colour and gray, 16-bit gray, plain gray) and GIF (one frame, three)
        for name in ("p6.ppm", "p5.pgm", "anim.gif", "still.gif"):
            files[name] = os.path.join(d, name)
        img.save(files["p6.ppm"])
        img.convert("L").save(files["p5.pgm"])
        img.convert("P").save(files["still.gif"])
        frames = [Image.fromarray(T.noise(200, 150, 3, np.uint8, seed=s)).convert("P") for s in (5, 6, 7)]
        frames[0].save(files["anim.gif"], save_all=True, append_images=frames[1:])
        gray16 = (T.noise(200, 150, 1, np.uint16, seed=8)).astype(">u2")
        files["p5-16.pgm"] = os.path.join(d, "p5-16.pgm")
        with open(files["p5-16.pgm"], "wb") as f:
            f.write(b"P5\n# a comment\n200 150\n65535\n" + gray16.tobytes())
        files["p2.pgm"] = os.path.join(d, "p2.pgm")
        with open(files["p2.pgm"], "w") as f:
            f.write("P2\n200 150\n255\n" + "\n".join(" ".join(str(v) for v in row)
                                                    for row in T.noise(200, 150, 1, seed=9)) + "\n")
        out = os.path.join(d, "out.png")
        for name, path in files.items():
            r = T.run_cli("halftone", path, out, "--backend", "cpu", "--quiet")
            T.check(r.returncode == 0, f"{name}: the whole file reads", r.stderr[-300:])
            data = open(path, "rb").read()
            last = (len(data) - 1) / len(data)  # plain PNM: that cuts a digit or a newline only
            for part in (0.5, 0.9) + (() if name == "p2.pgm" else (last,)):
                cut = os.path.join(d, f"cut-{name}")
                with open(cut, "wb") as f:
                    f.write(data[: int(len(data) * part)])
                if os.path.exists(out):
                    os.remove(out)
                r = T.run_cli("halftone", cut, out, "--backend", "cpu", "--quiet")
                said = "cut short" in r.stderr or name.endswith(".tif")
                T.check(r.returncode == 2 and f"cut-{name}" in r.stderr and said
                        and not os.path.exists(out),
                        f"{name} cut to {part:.3%}: refused (status 2, naming it, saying "
                        "why), nothing written", f"status {r.returncode}: {r.stderr.strip()[-300:]}")
        # A JPEG cut inside its header (before any scan): GEGL's loader read past the data
        # and said something different at each run.
        head = os.path.join(d, "head.jpg")
        with open(head, "wb") as f:
            f.write(open(files["base.jpg"], "rb").read()[:200])
        r = T.run_cli("halftone", head, out, "--backend", "cpu", "--quiet")
        T.check(r.returncode == 2 and "cut short" in r.stderr,
                "a JPEG cut inside its header: refused as cut short", r.stderr.strip())
        # A PNM header claiming more samples than any file could hold (2^32 x 2^32: the
        # product wrapped to 0 in the pre-check, signed overflow): refused as cut short.
        for magic, dims in ((b"P6", b"9999999999 9999999999"), (b"P5", b"4294967296 4294967296")):
            huge = os.path.join(d, "huge.pnm")
            with open(huge, "wb") as f:
                f.write(magic + b"\n" + dims + b"\n255\n" + bytes(64))
            r = T.run_cli("halftone", huge, out, "--backend", "cpu", "--quiet")
            T.check(r.returncode == 2 and "cut short" in r.stderr and "runtime error" not in r.stderr,
                    f"a {magic.decode()} header of {dims.decode()}: refused as cut short",
                    f"status {r.returncode}: {r.stderr.strip()}")
        trail = os.path.join(d, "trail.jpg")
        with open(trail, "wb") as f:
            f.write(open(files["prog.jpg"], "rb").read() + b"bytes after the end" * 20)
        r = T.run_cli("halftone", trail, out, "--backend", "cpu", "--quiet")
        T.check(r.returncode == 0, "a JPEG with bytes after its end still reads", r.stderr)
        # libjpeg exit()s on a broken header: the line still names the command.
        broken = T.photo("truncated.jpg")
        if broken:
            r = T.run_cli("enhance", broken, out, "--backend", "cpu")
            T.check(r.returncode == 2 and r.stderr.startswith("gpufx enhance: ")
                    and "truncated.jpg" in r.stderr, "a header libjpeg gives up on: status 2, "
                    "one line naming the command and the file", r.stderr)
        data = open(files["base.jpg"], "rb").read()
        r = subprocess.run([T.GPUFX, "halftone", "-", out, "--backend", "cpu"],
                           input=data[: len(data) // 2], capture_output=True)
        T.check(r.returncode == 2 and b"standard input: the file is cut short" in r.stderr,
                "a cut JPEG on standard input: refused", r.stderr.decode(errors="replace"))


main()
T.finish()
