"""Files GEGL reads through ImageMagick (BMP, TGA, unknown ones) are this run's own.

GEGL's fallback loader, gegl:magick-load, has convert write one fixed name in the
temporary folder ($TMPDIR/gegl-magick.png) and loads that.  gpufx gives each run a
temporary folder of its own, so:
- a picture left under that name (by an earlier run, another program, another user) is
  never read: a file convert cannot read is an error, not that picture;
- a BMP (convert, run by gpufx, writes an untagged PNG there) gives the PNG's result
  exactly;
- the run's folder is gone afterwards, also after SIGTERM."""
import os
import shutil
import signal
import subprocess
import time

import numpy as np

import gfxtest as T

T.require_cli("private temporary folder")


def leftovers(tmp, planted):
    return sorted(set(os.listdir(tmp)) - planted)


def main():
    if not any(os.access(os.path.join(p, "convert"), os.X_OK)
               for p in os.environ.get("PATH", "").split(os.pathsep)):
        T.skip("private temporary folder", "no ImageMagick convert (make deps installs it)")
        return
    from PIL import Image
    with T.tmpdir() as d:
        tmp = os.path.join(d, "tmp")
        os.mkdir(tmp)
        env = {"TMPDIR": tmp, "GPUFX_BACKEND": "cpu"}
        stale = T.noise(41, 29, 1, np.uint8, seed=8)
        Image.fromarray(stale).save(os.path.join(tmp, "gegl-magick.png"))
        planted = {"gegl-magick.png"}

        junk = os.path.join(d, "junk.xyz")
        with open(junk, "w") as f:
            f.write("not an image\n")
        out = os.path.join(d, "out.png")
        r = T.run_cli("halftone", junk, out, env=env)
        T.check(r.returncode == 2 and "junk.xyz" in r.stderr and not os.path.exists(out),
                "a file convert cannot read is an error, not the picture left in $TMPDIR",
                f"status {r.returncode}: {r.stderr.strip()[-300:]}")

        # gpufx has convert write BMP, TGA and the like as an untagged PNG in its own
        # folder: the samples as they are (GEGL's own path took convert's gamma 2.2 tag
        # at its word and shifted the shadows by up to 9 levels, as float RGBA).
        pixels = T.noise(53, 37, 3, np.uint8, seed=9)
        png = os.path.join(d, "in.png")
        Image.fromarray(pixels).save(png)
        ref = os.path.join(d, "png.png")
        r2 = T.run_cli("halftone", png, ref, "--quiet", env=env)
        # A TGA as Pillow and GIMP write it (bottom-up: it came out upside down) and a PAM
        # (GEGL took it to its own ImageMagick path).
        for ext in (".bmp", ".tga", ".pam"):
            src, out = os.path.join(d, "in" + ext), os.path.join(d, ext[1:] + ".png")
            if ext == ".pam":
                subprocess.run(["convert", png, "-depth", "8", src], check=True)
            else:
                Image.fromarray(pixels).save(src)
            r1 = T.run_cli("halftone", src, out, "--quiet", env=env)
            same = (r1.returncode == 0 and r2.returncode == 0
                    and np.array_equal(T.load(out), T.load(ref)))
            T.check(same, f"a {ext[1:].upper()} (through ImageMagick) gives the PNG's result, "
                    "byte for byte", f"{r1.stderr.strip()[-200:]} {r2.stderr.strip()[-200:]}")
        # A BMP is told by its first bytes, as every input is: without an extension, named
        # .png, and on standard input it gives the same result (it went to GEGL's path, 9
        # levels off; was refused as a bad PNG; was refused as unknown).
        bmp = os.path.join(d, "in.bmp")
        for what, src in (("without an extension", "in_bmp"), ("named .png", "bmp.png"),
                          ("on standard input", "-")):
            out = os.path.join(d, "told.png")
            if src == "-":
                with open(bmp, "rb") as f:
                    r1 = subprocess.run([T.GPUFX, "halftone", "-", out, "--quiet"], stdin=f,
                                        capture_output=True, text=True, env={**os.environ, **env})
            else:
                shutil.copy(bmp, os.path.join(d, src))
                r1 = T.run_cli("halftone", os.path.join(d, src), out, "--quiet", env=env)
            same = (r1.returncode == 0 and np.array_equal(T.load(out), T.load(ref)))
            T.check(same, f"a BMP {what} is told by its first bytes: the PNG's result",
                    r1.stderr.strip()[-300:])
        # A PBM bitmap (P4): black and white in, the same out, as 1-bit gray (it came out
        # 16-bit RGBA through GEGL's path).
        bits = T.noise(61, 23, 1, np.uint8, seed=11) > 127
        pbm, out = os.path.join(d, "in.pbm"), os.path.join(d, "pbm.png")
        Image.fromarray(bits).convert("1").save(pbm)
        r = T.run_cli("halftone", pbm, out, "--quiet", env=env)
        got = Image.open(out) if r.returncode == 0 else None
        T.check(got is not None and got.mode in ("1", "L")
                and np.array_equal(np.array(got.convert("L")) > 127, bits),
                "a PBM bitmap halftones to itself, in gray", f"{r.stderr.strip()[-200:]} "
                f"{got.mode if got else ''}")
        with open(os.path.join(tmp, "gegl-magick.png"), "rb") as f:
            T.check(np.array_equal(np.array(Image.open(f)), stale),
                    "the file of that name in $TMPDIR is left as it was")
        T.check(leftovers(tmp, planted) == [], "nothing is left in $TMPDIR",
                str(leftovers(tmp, planted)))

        big = os.path.join(d, "big.bmp")
        Image.fromarray(T.noise(3000, 3000, 3, np.uint8, seed=10)).save(big)
        p = subprocess.Popen([T.GPUFX, "enhance", big, os.path.join(d, "big.png"), "--quiet"],
                             env={**os.environ, **env}, stderr=subprocess.PIPE)
        deadline = time.time() + 20
        while time.time() < deadline and not leftovers(tmp, planted):
            time.sleep(0.005)
        mid_run = bool(leftovers(tmp, planted))
        time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
        T.check(mid_run and p.returncode == -signal.SIGTERM,
                "SIGTERM landed while the run's folder existed",
                f"folder seen {mid_run}, status {p.returncode}")
        T.check(leftovers(tmp, planted) == [], "SIGTERM leaves nothing in $TMPDIR",
                str(leftovers(tmp, planted)))


main()
T.finish()
