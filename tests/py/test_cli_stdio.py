"""gpufx with standard input and output ("-", "EXT:-"), and inputs told by their content.

- A filter between pipes writes the same bytes as between files, in every format the
  command line reads and writes; "EXT:-" picks the format written.
- An input's format comes from its first bytes: a file without an extension, or with a
  wrong one, reads as what it is (gegl:load alone had turned a PNG named "noext" into a
  picture of the words "Failed to detect content type", with exit status 0).
- What cannot work is refused with the reason, and leaves nothing behind: a terminal,
  an empty or unknown input, two outputs or two inputs on one stream, a report's stream,
  a reader that goes away."""
import os
import pty
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gfxtest as T  # noqa: E402

T.require_cli("cli-stdio")


def gpufx(*args, stdin=b"", tmp=None, stdout=subprocess.PIPE):
    """Runs gpufx on the CPU with stdin's bytes (or a file object); TMPDIR is tmp."""
    env = dict(os.environ, GPUFX_BACKEND="cpu", TMPDIR=tmp or os.environ.get("TMPDIR", "/tmp"))
    return subprocess.run([T.GPUFX, *map(str, args)], input=stdin if isinstance(stdin, bytes)
                          else None, stdin=None if isinstance(stdin, bytes) else stdin,
                          stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=300)


def read(path):
    with open(path, "rb") as f:
        return f.read()


with T.tmpdir() as d:
    spool = os.path.join(d, "tmp")
    os.mkdir(spool)

    def left_nothing(name):
        T.check(os.listdir(spool) == [], f"{name}: nothing left in TMPDIR", str(os.listdir(spool)))

    rng = np.random.default_rng(7)
    photo = T.load(T.photo("astronaut.png"))
    sources = {
        "gray8.png": T.load(T.photo("camera.png"))[:97, :131],
        "rgba16.png": np.dstack([photo[:61, :77].astype(np.uint16) * 257,
                                 rng.integers(0, 65536, (61, 77), dtype=np.uint16)]),
        "float.tif": T.noise(45, 33, 3, np.float32, seed=3),
    }
    for name, img in sources.items():
        T.save(os.path.join(d, name), img)
    # Formats the CLI writes itself become further inputs.
    for ext in ["jpg", "exr", "webp", "ppm", "hdr", "tif"]:
        r = gpufx("enhance", os.path.join(d, "gray8.png" if ext == "ppm" else "rgba16.png"),
                  os.path.join(d, "in." + ext), "--gain", "1")
        T.check(r.returncode == 0, f"made the {ext} input", r.stderr.decode())
        sources["in." + ext] = None

    # Pipes against files, byte for byte.
    for name in sources:
        src = os.path.join(d, name)
        for out in ["png", "tif", "exr", "jpg", "ppm"]:
            want = os.path.join(d, f"want.{out}")
            r1 = gpufx("halftone", src, want, "--levels", "3")
            r2 = gpufx("halftone", "-", "-" if out == "png" else f"{out}:-", "--levels", "3",
                       stdin=read(src), tmp=spool)
            T.check(r1.returncode == 0 and r2.returncode == 0 and r2.stdout == read(want),
                    f"halftone {name} to {out}: through pipes, the same bytes as through files",
                    f"{r1.stderr.decode()} {r2.stderr.decode()} {len(r2.stdout)} bytes")
        left_nothing(name)

    # A pipeline of two filters equals the same two filters through a file.
    src = os.path.join(d, "gray8.png")
    gpufx("enhance", src, os.path.join(d, "mid.png"), "--window", "5")
    gpufx("halftone", os.path.join(d, "mid.png"), os.path.join(d, "end.png"), "--kernel", "jjn")
    p1 = subprocess.Popen([T.GPUFX, "enhance", src, "-", "--window", "5"], stdout=subprocess.PIPE,
                          env=dict(os.environ, GPUFX_BACKEND="cpu", TMPDIR=spool))
    r = gpufx("halftone", "-", "-", "--kernel", "jjn", stdin=p1.stdout, tmp=spool)
    p1.wait()
    T.check(p1.returncode == 0 and r.returncode == 0 and r.stdout == read(os.path.join(d, "end.png")),
            "enhance | halftone equals the two runs through a file", r.stderr.decode())

    # --compare and --mask-out can take standard output too (one of them).
    want = os.path.join(d, "cmp.png")
    gpufx("enhance", src, os.path.join(d, "o.png"), "--compare", want)
    r = gpufx("enhance", src, os.path.join(d, "o.png"), "--compare", "-")
    T.check(r.returncode == 0 and r.stdout == read(want), "--compare - writes the comparison")
    gpufx("enhance", src, os.path.join(d, "o.png"), "--mask-out", os.path.join(d, "m.tif"))
    r = gpufx("enhance", src, os.path.join(d, "o.png"), "--mask-out", "tif:-")
    T.check(r.returncode == 0 and r.stdout == read(os.path.join(d, "m.tif")),
            "--mask-out tif:- writes the mask as TIFF")

    # Inputs told by their content, whatever their name.
    want = gpufx("halftone", src, "-").stdout
    for alias in ["noext", "photo.jpg", "photo.dat"]:
        shutil.copy(src, os.path.join(d, alias))
        r = gpufx("halftone", os.path.join(d, alias), "-")
        T.check(r.returncode == 0 and r.stdout == want, f"a PNG named {alias} reads as a PNG",
                f"status {r.returncode}: {r.stderr.decode()}")
    for alias in ["in.exr", "in.tif", "in.jpg", "in.hdr", "in.ppm", "in.webp"]:
        shutil.copy(os.path.join(d, alias), os.path.join(d, "noext"))
        r1, r2 = (gpufx("enhance", os.path.join(d, f), "-") for f in [alias, "noext"])
        T.check(r2.returncode == 0 and r2.stdout == r1.stdout,
                f"{alias[3:]} without an extension reads as {alias[3:]}", r2.stderr.decode())

    # An animated GIF: the first frame, and a note that says so.
    from PIL import Image
    frames = [Image.fromarray(T.noise(37, 23, 3, seed=s)).convert("P") for s in (4, 5, 6)]
    frames[0].save(os.path.join(d, "anim.gif"), save_all=True, append_images=frames[1:])
    frames[0].save(os.path.join(d, "still.gif"))
    r1 = gpufx("halftone", os.path.join(d, "anim.gif"), "-")
    r2 = gpufx("halftone", os.path.join(d, "still.gif"), "-")
    T.check(r1.returncode == 0 and r1.stdout == r2.stdout and "has 3 frames: the first is used"
            in r1.stderr.decode() and "frames" not in r2.stderr.decode(),
            "an animated GIF: its first frame, with a note", r1.stderr.decode())

    # A TIFF of several pages (a scanned document; classic and big-endian BigTIFF): the
    # first page, and a note; a page with its thumbnail (reduced-resolution directory)
    # is one page, without a note.
    import tifffile
    pages = [T.noise(37, 23, 1, seed=s) for s in (7, 8, 9)]
    Image.fromarray(pages[0]).save(os.path.join(d, "scan.tif"), save_all=True,
                                   append_images=[Image.fromarray(p) for p in pages[1:]])
    with tifffile.TiffWriter(os.path.join(d, "scan-big.tif"), bigtiff=True, byteorder=">") as w:
        for p in pages:
            w.write(p)
    with tifffile.TiffWriter(os.path.join(d, "thumbed.tif")) as w:
        w.write(pages[0])
        w.write(pages[1][:5, :5], subfiletype=1)
    Image.fromarray(pages[0]).save(os.path.join(d, "page.tif"))
    want = gpufx("halftone", os.path.join(d, "page.tif"), "-")
    for name, note in [("scan.tif", "has 3 pages: the first is used"),
                       ("scan-big.tif", "has 3 pages: the first is used"),
                       ("thumbed.tif", None), ("page.tif", None)]:
        r = gpufx("halftone", os.path.join(d, name), "-")
        said = r.stderr.decode()
        T.check(r.returncode == 0 and r.stdout == want.stdout
                and (note in said if note else "pages" not in said),
                f"{name}: its first page, {'with a note' if note else 'no note'}", said)

    # Refusals: exit status, the reason, nothing on standard output, nothing left.
    with open(os.path.join(d, "words"), "w") as f:
        f.write("not an image\n")
    cases = [
        ("empty input", ["halftone", "-", "-"], b"", 2, "standard input: it is empty"),
        ("text on standard input", ["halftone", "-", "-"], b"garbage\n", 2,
         "standard input: not an image format gpufx can tell"),
        ("a text file without an extension", ["halftone", os.path.join(d, "words"), "-"], b"", 2,
         "not an image format gpufx can tell"),
        ("a truncated PNG", ["halftone", "-", "-"], read(src)[:300], 2, "standard input:"),
        ("two outputs on standard output", ["enhance", src, "-", "--compare", "-"], b"", 2,
         "only one output can go to standard output"),
        ("an unknown format for standard output", ["enhance", src, "xyz:-"], b"", 2,
         "standard output: GEGL has no saver for \"xyz:-\""),
        ("stability --plot -", ["stability", os.path.join(d, "none.iir"), "--plot", "-"], b"", 2,
         "--plot -: standard output carries this command's report"),
        ("identify --fragments -", ["identify", "--blurred", src, "--auto", "--output",
                                    os.path.join(d, "f.iir"), "--fragments", "-"], b"", 2,
         "--fragments -: standard output carries this command's report"),
        ("identify --output -", ["identify", "--blurred", src, "--auto", "--output", "-"], b"",
         2, "--output -: standard output carries this command's report"),
        ("stability --stabilise -", ["stability", os.path.join(d, "none.iir"), "--stabilise",
                                     "-"], b"", 2, "--stabilise -: standard output carries"),
        ("a filter file from standard input", ["stability", "-"], b"gpufx-iir 1\n", 2,
         "not from standard input"),
        ("deblur --filter -", ["deblur", src, os.path.join(d, "o.png"), "--filter", "-"],
         b"gpufx-iir 1\n", 2, "not from standard input"),
        ("standard input twice", ["identify", "--blurred", "-", "--sharp", "-", "--output",
                                  os.path.join(d, "f.iir")], read(src), 2,
         "standard input: already read"),
    ]
    for name, args, data, status, words in cases:
        r = gpufx(*args, stdin=data, tmp=spool)
        err = r.stderr.decode()
        T.check(r.returncode == status and words in err and r.stdout == b""
                and len(err.strip().split("\n")) == 1,
                f"refused: {name}", f"status {r.returncode}, stdout {len(r.stdout)} bytes: {err}")
    left_nothing("the refusals")

    # Terminals: image bytes are not typed in nor shown.
    for name, which in [("standard input", 0), ("standard output", 1)]:
        master, slave = pty.openpty()
        streams = {"stdin": slave} if which == 0 else {"stdout": slave, "stdin": subprocess.DEVNULL}
        r = subprocess.run([T.GPUFX, "halftone", "-" if which == 0 else src, "-"],
                           stderr=subprocess.PIPE, timeout=60, **streams,
                           env=dict(os.environ, GPUFX_BACKEND="cpu"))
        os.close(slave)
        os.close(master)
        T.check(r.returncode == 2 and f"{name}: it is a terminal" in r.stderr.decode(),
                f"refused: {name} on a terminal", r.stderr.decode())

    # A reader that goes away: a message and status 1, not a silent death, nothing left.
    big = os.path.join(d, "big.png")
    T.save(big, T.noise(1500, 1000, 3, seed=1))
    p1 = subprocess.Popen([T.GPUFX, "halftone", big, "-"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=dict(os.environ, GPUFX_BACKEND="cpu",
                                                           TMPDIR=spool))
    p1.stdout.read(100)
    p1.stdout.close()
    err = p1.stderr.read().decode()
    p1.wait()
    T.check(p1.returncode == 1 and "standard output: cannot write: Broken pipe" in err,
            "a closed pipe: status 1 and why", f"status {p1.returncode}: {err}")
    left_nothing("a closed pipe")

    # A report that cannot be written (a full disk) fails: a verdict lost with status 0
    # would mislead a script.
    if os.path.exists("/dev/full"):
        filt = os.path.join(d, "f.iir")
        with open(filt, "w") as f:
            f.write("gpufx-iir 1\nmask 1 1\n" + "".join(f"q{q} a 1\nq{q} b 1\n"
                                                       for q in range(1, 5)))
        blurred, sharp = os.path.join(d, "blurred.png"), os.path.join(d, "sharp.png")
        T.save(blurred, np.round(T.box_blur(sources["gray8.png"], 1)).astype(np.uint8))
        T.save(sharp, sources["gray8.png"][1:-1, 1:-1])
        for args in (["stability", filt], ["identify", "--blurred", blurred, "--sharp", sharp,
                                           "--output",
                                           os.path.join(d, "id.iir")], ["--help"]):
            with open("/dev/full", "wb") as full:
                r = gpufx(*args, stdout=full)
            err = r.stderr.decode()
            T.check(r.returncode == 1 and "standard output: cannot write: No space left" in err,
                    f"{args[0]} into a full disk: status 1 and why", f"status {r.returncode}: "
                    f"{err[-300:]}")

    help_text = T.run_cli("enhance", "--help").stdout
    T.check("IN - reads standard input" in help_text and "tif:-" in help_text,
            "--help says what - means")

T.finish()
