"""Reliability: the gpufx CLI fed bad input, as a user would hit it (issue 8, SPEC 0 and 4).

Every case asserts the documented exit status (0 ok, 2 bad usage or input, 3 unstable
filter, 1 other), exactly one line on stderr that names the parameter or file, no traceback
or sanitizer report, and that outputs (new or pre-existing) are untouched.  The parameter
cases are generated from each sub-command's --help (every option, just outside its range,
NaN/inf, wrong types, missing values), so a new parameter is covered without editing this
file.  Cases run concurrently (each CLI start waits on GEGL more than it computes).

GPUFX_RELIABILITY_CLI=path runs the matrix against another binary (e.g. the ASan build);
by default build/gpufx, then build/asan/gpufx again when it exists."""
import concurrent.futures
import os
import re
import shutil
import stat
import struct
import subprocess
import time
import zlib

import numpy as np

import gfxtest as T

CRASH_WORDS = ("Traceback", "AddressSanitizer", "runtime error:", "LeakSanitizer",
               "Segmentation", "core dumped", "Assertion", "CRITICAL", "WARNING **")


class Case:
    def __init__(self, name, args, code, words=(), env=None, keep=(), timeout=60,
                 lines=1, stdout_words=()):
        self.name, self.args, self.code, self.words = name, [str(a) for a in args], code, words
        self.env, self.keep, self.timeout, self.lines = env or {}, keep, timeout, lines
        self.stdout_words = stdout_words


def snapshot(paths):
    """Contents (bytes, or a folder listing) of every path, None when absent."""
    out = {}
    for p in paths:
        if os.path.isdir(p):
            out[p] = ("dir", tuple(sorted(os.listdir(p))))
        elif os.path.exists(p):
            out[p] = open(p, "rb").read()
        else:
            out[p] = None
    return out


def run_case(cli, case):
    env = dict(os.environ, GPUFX_BACKEND="cpu", GPUFX_PROGRESS_AFTER="1e9")  # counted lines
    env.pop("GPUFX_CUDA_FAIL", None)
    env.update(case.env)
    start = time.monotonic()
    try:
        r = subprocess.run([cli, *case.args], capture_output=True, text=True, env=env,
                           timeout=case.timeout, errors="replace")
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", f"no answer within {case.timeout} s"
    finally:
        case.seconds = time.monotonic() - start


def judge(tag, case, result, before, after):
    rc, out, err = result
    lines = [l for l in err.splitlines() if l.strip()]
    why = []
    if rc != case.code and not (case.code is None and rc in (1, 2)):
        why.append(f"exit {rc}, want {case.code or '1 or 2'}")
    if case.lines is not None and len(lines) != case.lines:
        why.append(f"{len(lines)} stderr lines, want {case.lines}")
    missing = [w for w in case.words if w.lower() not in err.lower()]
    if missing:
        why.append(f"stderr lacks {missing}")
    missing = [w for w in case.stdout_words if w not in out]
    if missing:
        why.append(f"stdout lacks {missing}")
    crash = [w for w in CRASH_WORDS if w in err]
    if crash:
        why.append(f"crash/noise {crash}")
    changed = [p for p in before if before[p] != after[p]]
    if changed:
        why.append(f"touched {changed}")
    T.check(not why, f"{tag}{case.name}", "; ".join(why) + f"; stderr {err.strip()[:300]!r}")


def run_matrix(cli, tag, cases, workers=8):
    """Runs the cases concurrently; cases that share kept paths must not overlap."""
    for i, c in enumerate(cases):  # every case its own never-written outputs
        c.args = [a.replace("never.", f"never{i}.") for a in c.args]
        c.keep = [k.replace("never.", f"never{i}.") for k in c.keep]
    snaps = {id(c): snapshot(c.keep) for c in cases}
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda c: run_case(cli, c), cases))
    for c, r in zip(cases, results):
        judge(tag, c, r, snaps[id(c)], snapshot(c.keep))
    if os.environ.get("GPUFX_RELIABILITY_TIMES"):
        for c in sorted(cases, key=lambda c: -c.seconds)[:15]:
            print(f"  {c.seconds:6.2f} s  {c.name}")
    return results


# Inputs --------------------------------------------------------------------------------

def png_chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_claiming(width, height, color_type=0, depth=8):
    """A well-formed PNG whose header claims width x height but holds almost no data."""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
            + png_chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + png_chunk(b"IEND", b""))


def tiff_claiming(width, height):
    """A little-endian 8-bit gray TIFF whose header claims width x height, one strip of
    1 KiB of data."""
    tags = [(256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1), (262, 3, 1),
            (273, 4, 8 + 2 + 12 * 10 + 4), (277, 3, 1), (278, 4, height), (279, 4, 1024),
            (284, 3, 1)]
    ifd = struct.pack("<H", len(tags)) + b"".join(
        struct.pack("<HHI", tag, kind, 1) + (struct.pack("<HH", value, 0) if kind == 3
                                              else struct.pack("<I", value))
        for tag, kind, value in tags) + struct.pack("<I", 0)
    return b"II*\0" + struct.pack("<I", 8) + ifd + bytes(1024)


FILTER_IDENTITY = """gpufx-iir 1
mask 1 1
q1 a 1
q1 b 1
q2 a 1
q2 b 1
q3 a 1
q3 b 1
q4 a 1
q4 b 1
"""


def filter_text(m1, m2, a, b):
    blocks = "".join(f"q{q} a {' '.join(map(str, a))}\nq{q} b {' '.join(map(str, b))}\n"
                     for q in range(1, 5))
    return f"gpufx-iir 1\nmask {m1} {m2}\n{blocks}"


# 1x2 masks, b = [1, -2]: y = x + 2 y(left): a root at z = 2, outside the unit circle.
FILTER_UNSTABLE = filter_text(1, 2, [1, 0], [1, -2])
# A smoothing filter with b = [1, -0.5] (stable, unit DC gain: a sums to 0.5).
FILTER_SMOOTH = filter_text(1, 2, [0.5, 0], [1, -0.5])

MALFORMED = {
    "empty": ("", ["expected", "gpufx-iir"]),
    "wrong magic": ("gpufx-fir 1\n", ["gpufx-iir", "line 1", ":1:"]),
    "version 2": (FILTER_IDENTITY.replace("gpufx-iir 1", "gpufx-iir 2"), ["version"]),
    "mask 0": (FILTER_IDENTITY.replace("mask 1 1", "mask 0 1"), ["mask", "1 to 7"]),
    "mask 8": (FILTER_IDENTITY.replace("mask 1 1", "mask 1 8"), ["mask", "1 to 7"]),
    "mask 2.5": (FILTER_IDENTITY.replace("mask 1 1", "mask 2.5 1"), ["mask"]),
    "too few numbers": (FILTER_IDENTITY.replace("mask 1 1", "mask 1 2"), [":4:", "q1 a"]),
    "nan coefficient": (FILTER_IDENTITY.replace("q3 a 1", "q3 a nan"), [":7:", "finite"]),
    "inf coefficient": (FILTER_IDENTITY.replace("q2 a 1", "q2 a -inf"), [":5:", "finite"]),
    "overflowing number": (FILTER_IDENTITY.replace("q2 a 1", "q2 a 1e999"), ["finite"]),
    "b00 not 1": (FILTER_IDENTITY.replace("q4 b 1", "q4 b 0.5"), ["q4 b", "b(0,0)"]),
    "blocks out of order": (FILTER_IDENTITY.replace("q2 a 1\nq2 b 1", "q2 b 1\nq2 a 1"),
                            ["q2 a"]),
    "trailing garbage": (FILTER_IDENTITY + "q5 a 1\n", ["end of the file"]),
    "cut in the middle": (FILTER_IDENTITY[:60], ["expected"]),
    "NUL byte": (FILTER_IDENTITY.replace("q1 b 1", "q1 b 1\0"), ["NUL"]),
    "binary garbage": (bytes(range(1, 256)).decode("latin-1") * 4, ["expected"]),
    "huge token": ("gpufx-iir 1\nmask " + "9" * 5000 + " 1\n", ["mask"]),
}


def make_inputs(d):
    p = lambda name: os.path.join(d, name)
    T.save(p("in.png"), T.noise(40, 30, 1, np.uint8, seed=11))
    T.save(p("rgb.png"), T.noise(33, 21, 3, np.uint8, seed=12))
    T.save(p("const.png"), np.full((96, 96), 128, np.uint8))
    T.save(p("const2.png"), np.full((96, 96), 100, np.uint8))
    T.save(p("big.png"), T.noise(96, 96, 1, np.uint8, seed=13))
    T.save(p("big2.png"), T.noise(96, 96, 1, np.uint8, seed=14))
    good = open(p("in.png"), "rb").read()
    open(p("empty.png"), "wb").close()
    open(p("sig-only.png"), "wb").write(good[:8])
    open(p("header-only.png"), "wb").write(good[:33])          # signature + IHDR
    open(p("cut-idat.png"), "wb").write(good[:len(good) // 2])  # stops inside IDAT
    open(p("garbage.png"), "wb").write(bytes((i * 97 + 13) & 255 for i in range(4000)))
    open(p("garbage.tif"), "wb").write(b"II*\0" + bytes((i * 31) & 255 for i in range(999)))
    open(p("garbage.jpg"), "wb").write(b"\xff\xd8\xff\xe0" + b"\x13" * 500)
    open(p("text.png"), "w").write("this is not an image\n")
    open(p("notes.txt"), "w").write("hello world\n" * 50)
    open(p("random.dat"), "wb").write(bytes((i * 7919 + 17) * 31 & 255 for i in range(5000)))
    open(p("huge.png"), "wb").write(png_claiming(100000, 100000))
    open(p("huge-rgba16.png"), "wb").write(png_claiming(65000, 65000, 6, 16))
    open(p("cols.png"), "wb").write(png_claiming(2**31 - 1, 1))
    open(p("tall.tif"), "wb").write(tiff_claiming(1, 2**28 + 1))
    from PIL import Image
    Image.fromarray(T.noise(16, 9, 3, np.uint8, seed=4)).convert("P").save(p("indexed.png"))
    os.mkdir(p("a-folder.png"))
    os.mkfifo(p("fifo.png"))
    os.mkfifo(p("fifo.iir"))
    os.mkdir(p("folder.iir"))
    for name, text in (("identity.iir", FILTER_IDENTITY), ("unstable.iir", FILTER_UNSTABLE),
                       ("smooth.iir", FILTER_SMOOTH)):
        open(p(name), "w").write(text)
    for i, (text, _) in enumerate(MALFORMED.values()):
        open(p(f"bad{i}.iir"), "w", encoding="latin-1").write(text)
    T.save(p("keep.png"), np.full((5, 7), 77, np.uint8))  # a pre-existing output


# Cases ---------------------------------------------------------------------------------

def image_cases(d):
    p = lambda name: os.path.join(d, name)
    out = p("never.png")
    cases = []
    for name, words in (("empty.png", ["empty.png"]), ("sig-only.png", ["sig-only.png"]),
                        ("header-only.png", ["header-only.png"]),
                        ("cut-idat.png", ["cut-idat.png"]),
                        ("garbage.png", ["garbage.png"]), ("garbage.tif", ["garbage.tif"]),
                        ("garbage.jpg", ["garbage.jpg", "cut short"]), ("text.png", ["text.png"]),
                        ("a-folder.png", ["a-folder.png"]), ("fifo.png", ["fifo.png"]),
                        ("missing.png", ["missing.png"])):
        for cmd in ("halftone", "enhance"):
            cases.append(Case(f"{cmd} input {name}: exit 2, one line naming it",
                              [cmd, p(name), out], 2, words, keep=[out], timeout=30))
    # Files GEGL would hand to its ImageMagick fallback, whose box after a failed convert
    # is garbage: every run must say the same true thing, not "N x M pixels is too large".
    for name in ("notes.txt", "random.dat"):
        for run in range(3):
            for cmd in ("halftone", "enhance"):
                cases.append(Case(f"{cmd} input {name} (run {run + 1}): exit 2, cannot read it",
                                  [cmd, p(name), out], 2, [name, "cannot read"], keep=[out],
                                  timeout=30))
    cases.append(Case("deblur input truncated: exit 2",
                      ["deblur", p("cut-idat.png"), out, "--filter", p("identity.iir")], 2,
                      ["cut-idat.png"], keep=[out]))
    cases.append(Case("identify --blurred garbage: exit 2",
                      ["identify", "--blurred", p("garbage.png"), "--auto", "--output",
                       p("never.iir")], 2, ["garbage.png"], keep=[p("never.iir")]))
    # 1e10 pixels: refused from the header; 65000^2 RGBA16 (32 GiB) with no data: refused
    # by the decoder's error; 2^31-1 columns: libpng's own limit.
    # 1 x 2^28+1 (the core's longest side is 2^28): refused from the header, before GEGL
    # decodes it (minutes).
    for name, words in (("huge.png", ["too large"]), ("huge-rgba16.png", []),
                        ("cols.png", ["width"]), ("tall.tif", ["a side may be at most"])):
        cases.append(Case(f"header claiming a huge image ({name}): exit 2, no allocation",
                          ["halftone", p(name), out], 2, [name, *words], keep=[out],
                          timeout=30))
    cases.append(Case("indexed PNG: converted, one note line naming it",
                      ["halftone", p("indexed.png"), p("indexed-out.png")], 0,
                      ["indexed.png", "indexed", "RGB"]))
    return cases


def help_options(cli, cmd):
    """(option, metavar, range text) for every option listed by `gpufx CMD --help`."""
    r = subprocess.run([cli, cmd, "--help"], capture_output=True, text=True)
    opts = []
    for m in re.finditer(r"^  --([\w-]+)( \w+)?\n {6}(.*)$", r.stdout, re.M):
        rng = re.search(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*$", m.group(3))
        opts.append((m.group(1), (m.group(2) or "").strip(), rng.group(1) if rng else ""))
    return opts


def bad_values(meta, rng):
    """Values just outside the range, non-finite and of the wrong type."""
    rng = rng.split(";")[0]
    if rng.startswith("one of"):
        n = len(rng[len("one of"):].split(","))
        return ["bogus", "-1", str(n), "1.5", ""]
    m = re.match(r"(above )?(-?[\d.e+]+)(?: \(\w+\) or -?[\d.e+]+)? to (-?[\d.e+]+)", rng)
    open_top = re.fullmatch(r"(more than )?(-?[\d.e+]+)(?: or more)?", rng)  # no upper bound
    above = re.fullmatch(r"more than (-?[\d.e+]+), up to (-?[\d.e+]+)", rng)  # gain
    if above:
        lo, hi = float(above.group(1)), float(above.group(2))
        return [f"{lo:g}", f"{hi * (1 + 1e-6) + 1e-6:.9g}", "nan", "-nan", "inf", "-inf",
                "1e999", "abc", "", "4,5"]
    if open_top:
        lo = float(open_top.group(2))
        below = f"{lo:g}" if open_top.group(1) else f"{lo - max(1e-6, abs(lo) * 1e-6):.9g}"
        return [below, "nan", "-nan", "inf", "-inf", "1e999", "abc", "", "4,5"]
    if not m:
        return []
    lo, hi = float(m.group(2)), float(m.group(3))
    if meta == "N":
        return [f"{lo - 1:.0f}", f"{hi + 1:.0f}", "1.5", "nan", "inf", "abc", "", "12abc",
                "99999999999999999999"]
    below = f"{lo:g}" if m.group(1) else f"{lo - max(1e-6, abs(lo) * 1e-6):.9g}"
    return [below, f"{hi * (1 + 1e-6) + 1e-6:.9g}", "nan", "-nan", "inf", "-inf", "1e999",
            "abc", "", "4,5"]


def param_cases(cli, d):
    p = lambda name: os.path.join(d, name)
    out = p("never.png")
    cases = []
    base = {"halftone": [], "enhance": [], "deblur": ["--filter", p("identity.iir")]}
    for cmd, extra in base.items():
        opts = help_options(cli, cmd)
        T.check(len(opts) >= 4, f"{cmd} --help lists its options", str(opts))
        for opt, meta, rng in opts:
            if opt in ("help", "quiet"):
                continue
            for v in bad_values(meta, rng):
                for form in ("sep", "eq"):
                    args = [f"--{opt}", v] if form == "sep" else [f"--{opt}={v}"]
                    cases.append(Case(f"{cmd} --{opt} {v!r} ({form}): exit 2 naming it",
                                      [cmd, p("in.png"), out, *extra, *args], 2, [opt],
                                      keep=[out], timeout=20))
            if meta:
                cases.append(Case(f"{cmd} --{opt} without a value: exit 2",
                                  [cmd, p("in.png"), out, *extra, f"--{opt}"], 2,
                                  [opt, "value"], keep=[out], timeout=20))
            elif opt != "quiet":
                cases.append(Case(f"{cmd} flag --{opt}=maybe: exit 2",
                                  [cmd, p("in.png"), out, *extra, f"--{opt}=maybe"], 2,
                                  [opt], keep=[out], timeout=20))
        for junk in ("--bogus", "--bogus=1", "--", "-x", "---levels=3"):
            args = [cmd, p("in.png"), out, *extra, junk]
            if junk == "--":  # "--" then a third positional
                args += ["extra.png"]
            cases.append(Case(f"{cmd} unknown option {junk}: exit 2", args, 2, [],
                              keep=[out], timeout=20))
        cases.append(Case(f"{cmd} missing OUT: exit 2", [cmd, p("in.png")], 2, ["usage"]))
        cases.append(Case(f"{cmd} no arguments: exit 2", [cmd], 2, ["usage"]))
    cases.append(Case("deblur without --filter: exit 2 naming it",
                      ["deblur", p("in.png"), out], 2, ["--filter", "required"], keep=[out]))
    cases.append(Case("halftone block-size 48 (not a multiple of 32): exit 2",
                      ["halftone", p("in.png"), out, "--block-size", "48"], 2,
                      ["block-size"], keep=[out]))
    cases.append(Case("unknown command: exit 2", ["sharpen", p("in.png"), out], 2,
                      ["sharpen"]))
    cases.append(Case("option value with a newline stays one line",
                      ["halftone", p("in.png"), out, "--kernel", "f\ns"], 2, ["kernel"],
                      keep=[out]))
    return cases


def command_cases(d):
    """identify and stability: hand-written (their options are not a filter's)."""
    p = lambda name: os.path.join(d, name)
    iir = p("never.iir")
    idf = ["identify", "--blurred", p("big.png")]
    cases = []
    for mask in ("0x3", "3x8", "3", "axb", "3x3x3", "-1x2", "nanxnan", "x"):
        cases.append(Case(f"identify --mask {mask!r}: exit 2 naming it",
                          [*idf, "--auto", "--mask", mask, "--output", iir], 2, ["mask"],
                          keep=[iir]))
    cases += [
        Case("identify --method foo: exit 2", [*idf, "--auto", "--method", "foo", "--output",
                                               iir], 2, ["method"], keep=[iir]),
        Case("identify without --output: exit 2", [*idf, "--auto"], 2, ["output"]),
        Case("identify with neither --sharp nor --auto: exit 2", [*idf, "--output", iir], 2,
             ["--auto"], keep=[iir]),
        Case("identify with both --sharp and --auto: exit 2",
             [*idf, "--sharp", p("in.png"), "--auto", "--output", iir], 2, ["--auto"],
             keep=[iir]),
        Case("identify --sharp of another size: exit 2",
             [*idf, "--sharp", p("in.png"), "--output", iir], 2, ["same area"], keep=[iir]),
        Case("identify unknown option: exit 2", [*idf, "--auto", "--fast", "--output", iir],
             2, ["--fast"], keep=[iir]),
        Case("identify singular data (constant image): exit 2, names the singularity",
             ["identify", "--blurred", p("const.png"), "--sharp", p("const2.png"), "--output",
              iir], 2, ["singular"], keep=[iir]),
        Case("identify --auto on a constant image: exit 2",
             ["identify", "--blurred", p("const.png"), "--auto", "--output", iir], 2,
             ["edges"], keep=[iir]),
        Case("identify singular data keeps an existing filter file",
             ["identify", "--blurred", p("const.png"), "--sharp", p("const2.png"), "--output",
              p("smooth.iir")], 2, ["singular"], keep=[p("smooth.iir")]),
        Case("identify --output into a missing folder: fails, nothing written",
             [*idf, "--sharp", p("big2.png"), "--mask", "1x1", "--output", p("no/such/dir/f.iir")],
             None,
             ["f.iir"],
             keep=[p("no")]),
        Case("identify --output onto a folder: exit 1, folder untouched, no temp file",
             [*idf, "--sharp", p("big2.png"), "--mask", "1x1", "--output", p("folder.iir")], 1,
             ["folder.iir"], keep=[p("folder.iir")]),
        Case("stability without a file: exit 2", ["stability"], 2, ["usage"]),
        Case("stability of an unstable filter: exit 3, one line per quadrant on stdout and "
             "one on stderr naming them",
             ["stability", p("unstable.iir")], 3, ["unstable in q1", "q4 (margin"],
             stdout_words=["q1 unstable", "q4 unstable"]),
        Case("stability unknown option: exit 2", ["stability", p("identity.iir"), "--x"], 2,
             ["--x"]),
        Case("stability --plot into a missing folder: exit 1 or 2 naming it",
             ["stability", p("identity.iir"), "--plot", p("no/p.png")], None, ["p.png"],
             lines=None, keep=[p("no")]),
    ]
    return cases


def filter_file_cases(d):
    p = lambda name: os.path.join(d, name)
    out = p("never.png")
    cases = []
    # bad input, as for an unreadable input image: exit 2 (SPEC section 4)
    for name, code in (("missing.iir", 2), ("folder.iir", 2), ("fifo.iir", 2)):
        cases.append(Case(f"deblur --filter {name}: exit {code}, one line naming it",
                          ["deblur", p("in.png"), out, "--filter", p(name)], code, [name],
                          keep=[out], timeout=20))
        cases.append(Case(f"stability {name}: exit {code}, one line naming it",
                          ["stability", p(name)], code, [name], timeout=20))
    for i, (label, (_, words)) in enumerate(MALFORMED.items()):
        words = [w for w in words if not w.startswith("line")]
        # ":N:" words name the line: "FILE:N:".
        want = [f"bad{i}.iir"] + [w if not w.startswith(":") else f"bad{i}.iir{w}"
                                  for w in words]
        cases.append(Case(f"deblur malformed filter ({label}): exit 2, file:line and what",
                          ["deblur", p("in.png"), out, "--filter", p(f"bad{i}.iir")], 2, want,
                          keep=[out]))
        cases.append(Case(f"stability malformed filter ({label}): exit 2",
                          ["stability", p(f"bad{i}.iir")], 2, [f"bad{i}.iir"]))
    cases.append(Case("deblur unstable filter: exit 3, one line, existing output intact",
                      ["deblur", p("in.png"), p("keep.png"), "--filter", p("unstable.iir")], 3,
                      ["unstable.iir", "unstable"], keep=[p("keep.png")]))
    return cases


def output_cases(d):
    p = lambda name: os.path.join(d, name)
    cases = [
        Case("output in a missing folder: exit 1 naming it, nothing created",
             ["halftone", p("in.png"), p("nowhere/out.png")], 1, ["nowhere"],
             keep=[p("nowhere")]),
        Case("output path is a folder: exit 1, folder untouched, no temp file",
             ["halftone", p("in.png"), p("a-folder.png")], 1, ["a-folder.png"],
             keep=[p("a-folder.png")]),
        Case("output extension without a saver: exit 2", ["halftone", p("in.png"),
                                                          p("out.xyz")], 2, ["out.xyz"],
             keep=[p("out.xyz")]),
        Case("--compare into a missing folder: refused before work, OUT not written",
             ["halftone", p("in.png"), p("cmp-out.png"), "--compare", p("nowhere/c.png")], 1,
             ["c.png"], keep=[p("cmp-out.png")]),
        Case("--mask-out into a folder: refused before work, OUT not written",
             ["enhance", p("in.png"), p("mask-out.png"), "--mask-out", p("a-folder.png")], 1,
             ["a-folder.png"], keep=[p("mask-out.png")]),
        Case("pre-existing output kept when the input is garbage",
             ["halftone", p("garbage.png"), p("keep.png")], 2, ["garbage.png"],
             keep=[p("keep.png")]),
    ]
    return cases


def check_no_temp_files(d):
    left = [f for root, dirs, files in os.walk(d) for f in files + dirs
            if f.startswith((".gpufx-", ".goutputstream-"))]
    T.check(not left, "no temporary files left anywhere", str(left))


def signal_checks(cli, d):
    """A signal while the output is being written (cli/image_save.c) removes the temporary
    file and leaves a pre-existing OUT as it was; the process still dies of that signal.
    `bench --copy` runs the same cli_save as the filters, without their compute; the image
    is large enough (3000 x 3000 RGB 16-bit noise, ~2 s to encode) for the signal to land
    while GEGL writes."""
    import signal
    src = os.path.join(d, "big16.png")
    if not os.path.exists(src):
        T.save(src, T.noise(3000, 3000, 3, np.uint16, seed=1))
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # HUP: the terminal closed
        name = signal.Signals(sig).name
        out = os.path.join(d, f"kept-{name}.png")
        with open(out, "wb") as f:
            f.write(b"the user's earlier result")
        proc = subprocess.Popen([cli, "bench", "--copy", src, out], stderr=subprocess.PIPE)
        temp, deadline = None, time.monotonic() + 60
        while temp is None and proc.poll() is None and time.monotonic() < deadline:
            temp = next((f for f in os.listdir(d) if f.startswith(".gpufx-")), None)
            time.sleep(0.002)
        if temp is None:
            proc.kill()
            proc.wait()
            T.check(False, f"{name} while saving: a temporary file appeared", "none seen")
            continue
        time.sleep(0.2)  # well inside the encode
        proc.send_signal(sig)
        rc = proc.wait(timeout=60)
        proc.stderr.close()
        left = [f for f in os.listdir(d) if f.startswith(".gpufx-")]
        with open(out, "rb") as f:
            kept = f.read() == b"the user's earlier result"
        T.check(rc == -sig and not left and kept,
                f"{name} while saving: dies of it, temporary {temp} removed, OUT untouched",
                f"rc {rc}, left {left}, OUT kept {kept}")


def write_failure_checks(cli, d):
    """A write that fails part way (here: the file size limit, as ulimit -f sets it; a full
    disk shows the same way) is an error for every format, even where GEGL's saver says
    nothing: exit 1 with one line naming OUT, a pre-existing OUT keeps its bytes, and no
    temporary file or folder is left (savers that write through GIO leave their own)."""
    import resource
    import signal
    src = os.path.join(d, "wf-in.png")
    T.save(src, T.noise(200, 150, 3, seed=4))

    def limited():  # as a shell's ulimit -f: SIGXFSZ as it comes (gpufx itself ignores it)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    for ext in ("png", "tif", "jpg", "webp", "exr", "hdr", "npy", "ppm"):
        out = os.path.join(d, f"wf-out.{ext}")
        free = subprocess.run([cli, "enhance", src, out, "--backend", "cpu"],
                              capture_output=True, text=True)
        if free.returncode != 0:
            T.skip(f"write failure .{ext}", f"this GEGL cannot save .{ext}: {free.stderr.strip()}")
            continue
        if os.path.getsize(out) <= 1000:
            T.check(False, f"write failure .{ext}: the image is larger than the limit")
            continue
        with open(out, "wb") as f:
            f.write(b"the user's earlier result")
        r = subprocess.run([cli, "enhance", src, out, "--backend", "cpu"], capture_output=True,
                           text=True, preexec_fn=limited)
        with open(out, "rb") as f:
            kept = f.read() == b"the user's earlier result"
        left = [f for f in os.listdir(d) if f.startswith((".gpufx-", ".goutputstream-"))]
        err = r.stderr.strip()
        T.check(r.returncode == 1 and kept and not left and "\n" not in err
                and f"wf-out.{ext}" in err,
                f"write failure .{ext}: exit 1, one line naming OUT, OUT kept, nothing left",
                f"rc {r.returncode}, kept {kept}, left {left}: {err!r}")


def gpu_cases(cli, d):
    """GPU faults: auto falls back (one note, same result as cpu); gpu is a clear error."""
    p = lambda name: os.path.join(d, name)
    runs = {"halftone": [], "enhance": ["--window", "5"],
            "deblur": ["--filter", p("smooth.iir")]}
    cases = []
    for cmd, extra in runs.items():
        src = p("rgb.png")
        cases.append(Case(f"{cmd} cpu reference", [cmd, src, p(f"{cmd}-cpu.png"), *extra,
                                                   "--backend", "cpu"], 0, [], lines=0))
        for fail in ("", "all", "gfx_cuda_halftone", "gfx_cuda_enhance", "gfx_cuda_iir"):
            env = {"GPUFX_CUDA_FAIL": fail} if fail else {}
            tagname = f"GPUFX_CUDA_FAIL={fail}" if fail else "no fault injected"
            cases.append(Case(f"{cmd} --backend auto, {tagname}: exit 0, at most one note",
                              [cmd, src, p(f"{cmd}-auto-{fail or 'none'}.png"), *extra,
                               "--backend", "auto"], 0, [], env=dict(env, GPUFX_BACKEND=""),
                              lines=None))
            cases.append(Case(f"{cmd} GPUFX_BACKEND=auto, {tagname}: exit 0",
                              [cmd, src, p(f"{cmd}-env-{fail or 'none'}.png"), *extra], 0, [],
                              env=dict(env, GPUFX_BACKEND="auto"), lines=None))
    return cases


def check_gpu_results(cli, d, cases, results):
    p = lambda name: os.path.join(d, name)
    probe = run_case(cli, Case("probe", ["halftone", p("rgb.png"), p("probe.tif"), "--backend",
                                         "gpu", "--quiet"], 0, []))
    gpu_present = probe[0] == 0
    for c, (rc, _, err) in zip(cases, results):
        notes = [l for l in err.splitlines() if "note" in l]
        if "auto" not in c.name:
            continue
        own = {"halftone": "gfx_cuda_halftone", "enhance": "gfx_cuda_enhance",
               "deblur": "gfx_cuda_iir"}[c.args[0]]
        falls_back = not gpu_present or "=all" in c.name or f"={own}" in c.name
        ok = len(err.splitlines()) == (1 if falls_back else 0) and (
            not falls_back or (len(notes) == 1 and "CPU" in notes[0]))
        T.check(ok, f"{c.name}: " + ("one note saying it ran on the CPU" if falls_back
                                     else "no note (computed on the GPU)"), err)
    for cmd in ("halftone", "enhance", "deblur"):
        ref = p(f"{cmd}-cpu.png")
        if not os.path.exists(ref):
            T.check(False, f"{cmd} cpu reference written", "missing")
            continue
        want = T.load(ref)
        for name in os.listdir(d):
            if name.startswith(f"{cmd}-") and name.endswith(".png") and name != f"{cmd}-cpu.png":
                got = T.load(p(name))
                T.check(np.array_equal(got, want), f"{name}: same pixels as --backend cpu")
    # --backend gpu: a clear error when there is no GPU or a fault is injected.
    faults = ["all", "gfx_cuda_halftone"] if gpu_present else ["", "all"]
    out = p("gpu-never.png")
    gpu_cases_ = []
    for fail in faults:
        env = {"GPUFX_CUDA_FAIL": fail} if fail else {}
        gpu_cases_.append(Case(f"halftone --backend gpu, GPUFX_CUDA_FAIL={fail or 'unset'}: "
                               "exit 1, one line naming the GPU problem",
                               ["halftone", p("rgb.png"), out, "--backend", "gpu"], 1,
                               ["gpu"], env=env, keep=[out]))
        gpu_cases_.append(Case(f"halftone GPUFX_BACKEND=gpu, GPUFX_CUDA_FAIL={fail or 'unset'}"
                               ": exit 1", ["halftone", p("rgb.png"), out], 1, ["gpu"],
                               env=dict(env, GPUFX_BACKEND="gpu"), keep=[out]))
    if gpu_present:
        gpu_cases_.append(Case("enhance --backend gpu with GPUFX_CUDA_FAIL=all: exit 1",
                               ["enhance", p("rgb.png"), out, "--backend", "gpu"], 1, ["gpu"],
                               env={"GPUFX_CUDA_FAIL": "all"}, keep=[out]))
    run_matrix(cli, "", gpu_cases_)
    if not gpu_present:
        T.skip("GPU fault injection under auto", "no usable GPU here: auto fell back "
               "before any CUDA call (the no-GPU fallback was checked instead)")


def main():
    T.require_cli("reliability")
    clis = [(os.environ.get("GPUFX_RELIABILITY_CLI") or T.GPUFX, "")]
    asan = os.path.join(T.ROOT, "build", "asan", "gpufx")
    if "GPUFX_RELIABILITY_CLI" not in os.environ:
        if os.access(asan, os.X_OK):
            clis.append((asan, "asan: "))
        else:
            T.skip("asan: the bad-input matrix under ASan/UBSan",
                   "build/asan/gpufx not built (make SAN=1 cli)")
    clis = [(os.path.abspath(c), tag) for c, tag in clis]
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1")
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    for cli, tag in clis:
        with T.tmpdir() as d:
            # A private copy: others may be relinking build/gpufx meanwhile.
            shutil.copy2(cli, os.path.join(d, "gpufx-under-test"))
            cli = os.path.join(d, "gpufx-under-test")
            make_inputs(d)
            cases = (image_cases(d) + param_cases(cli, d) + command_cases(d)
                     + filter_file_cases(d) + output_cases(d))
            if tag:  # the sanitizer pass: every input case, a third of the parameter cases
                cases = [c for i, c in enumerate(cases) if " --" not in c.name or i % 3 == 0]
            run_matrix(cli, tag, cases)
            if not tag:
                gcases = gpu_cases(cli, d)
                res = run_matrix(cli, tag, gcases)
                check_gpu_results(cli, d, gcases, res)
            if not tag:
                signal_checks(cli, d)
                write_failure_checks(cli, d)
            check_no_temp_files(d)
            T.check(not os.path.exists(os.path.join(d, "never.png")),
                    f"{tag}no output written by any failing case")
    T.finish()


if __name__ == "__main__":
    main()
