"""A file cut short (a download stopped part way, a full disk) is refused, not processed.

GEGL's JPEG and WebP loaders decode what there is of a cut file and fill the rest with
one colour; its TIFF loader repeats the last row read; none of them fails.  gpufx checks
a JPEG for its end marker after its last scan, a WebP against its RIFF size, a PNG for
its chunks up to IEND (GEGL fails there, but speaks of failing to open the file), and takes
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
        out = os.path.join(d, "out.png")
        for name, path in files.items():
            r = T.run_cli("halftone", path, out, "--backend", "cpu", "--quiet")
            T.check(r.returncode == 0, f"{name}: the whole file reads", r.stderr[-300:])
            data = open(path, "rb").read()
            for part in (0.5, 0.9, (len(data) - 1) / len(data)):
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
