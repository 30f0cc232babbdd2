"""The gpufx command line (SPEC section 4): exit statuses, one-line messages naming the
parameter and its range, --help generated from the tables, --compare, --quiet, progress,
precision and layout kept, and failures that leave no file behind."""
import os
import pty
import re
import subprocess

import numpy as np

import gfxtest as T


def one_line(r):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    return len(lines) == 1, r.stderr.strip()


def expect_error(name, args, code, *words):
    r = T.run_cli(*args)
    single, msg = one_line(r)
    T.check(r.returncode == code and single and all(w in msg for w in words), name,
            f"exit {r.returncode} (want {code}), stderr {msg!r}, want words {words}")


def check_usage_errors(src, out):
    expect_error("levels 300: exit 2, names levels and its range",
                 ["halftone", src, out, "--levels", "300"], 2,
                 "gpufx halftone:", "levels = 300", "2 to 256")
    expect_error("--levels=1 form parsed and refused", ["halftone", src, out, "--levels=1"], 2,
                 "levels", "2 to 256")
    expect_error("levels 2.5 refused", ["halftone", src, out, "--levels", "2.5"], 2, "levels")
    expect_error("a huge whole number is out of range, not 'not a whole number'",
                 ["halftone", src, out, "--levels", "99999999999999999999"], 2, "levels",
                 "out of range", "2 to 256")
    expect_error("--quiet=1: --quiet takes no value (not 'unknown option')",
                 ["halftone", src, out, "--quiet=1"], 2, "--quiet takes no value")
    expect_error("unknown kernel lists the choices", ["halftone", src, out, "--kernel", "dots"],
                 2, "kernel", "fs", "atkinson")
    expect_error("block-size 48 refused by the cross rule",
                 ["halftone", src, out, "--block-size", "48"], 2, "block-size", "32")
    expect_error("margin -2 refused", ["halftone", src, out, "--margin", "-2"], 2, "margin")
    expect_error("backend bogus refused", ["halftone", src, out, "--backend", "fpga"], 2,
                 "backend", "auto")
    expect_error("unknown option", ["halftone", src, out, "--dither"], 2, "--dither")
    iir = os.path.join(os.path.dirname(out), "none.iir")
    for args, words in ((["halftone", src, ""], "OUT is empty"),
                        (["halftone", "", out], "IN is empty"),
                        (["halftone", src, out, "--compare="], "--compare is empty"),
                        (["enhance", src, out, "--mask-out", ""], "--mask-out is empty"),
                        (["deblur", src, out, "--filter="], "--filter is empty"),
                        (["identify", "--blurred=", "--auto", "--output", iir], "--blurred is empty"),
                        (["identify", "--blurred", src, "--auto", "--mask=", "--output", iir],
                         "--mask is empty (--mask M1xM2"),
                        (["stability", ""], "FILE is empty"),
                        (["stability", iir, "--plot="], "--plot is empty")):
        expect_error(f"{args[0]} {words}: named, exit 2", args, 2, words)
    r = T.run_cli("halftone", src, out + ".auto.png", "--backend", "auto",
                  env={"GPUFX_BACKEND": "gpu"})
    T.check(r.returncode == 0, "an explicit --backend auto wins over GPUFX_BACKEND=gpu (with "
            "no GPU: the CPU, not 'no usable CUDA GPU')", r.stderr.strip())
    for mask, words in ((" 3x3", "expected M1xM2"), ("+3x+3", "expected M1xM2"),
                        ("99999999999x3", "must be 1 to 7 each"), ("3x8", "must be 1 to 7 each")):
        expect_error(f"identify --mask {mask!r}: refused, quoting what was given", ["identify",
                     "--blurred", src, "--auto", "--mask", mask, "--output", iir], 2,
                     f"--mask {mask}: ", words)
    expect_error("identify --mask 3X3: read (the sharp reference's size refused next)",
                 ["identify", "--blurred", src, "--sharp", out, "--mask", "3X3", "--output", iir],
                 2, os.path.basename(out))
    expect_error("k2 just below k1: both named, with their values as given (not 0.02 <= 0.02)",
                 ["enhance", src, out, "--k2", "0.0199999999"], 2, "k1 = 0.02 and",
                 "k2 = 0.0199999999", "k1 <= k2")
    expect_error("4th edition k2 above k3: both named",
                 ["enhance", src, out, "--rule", "4th", "--k0", "0", "--k3", "0.1"], 2,
                 "k2 = 0.4 and k3 = 0.1", "k2 <= k3")
    for cmd, args in (("halftone", [src, "-o", out]), ("enhance", [src, out, "-q"]),
                      ("identify", ["-x"]), ("stability", ["-p"])):
        flag = [a for a in args if a.startswith("-")][0]
        expect_error(f"{cmd} {flag}: an unknown short option, not a file name",
                     [cmd, *args], 2, f"unknown option '{flag}'", "--help", "after --")
        T.check(not os.path.exists(os.path.join(os.path.dirname(out), flag)),
                f"{cmd} {flag}: no file named {flag} written")
    expect_error("option without its value", ["halftone", src, out, "--levels"], 2,
                 "--levels", "value")
    expect_error("missing OUT", ["halftone", src], 2, "usage")
    expect_error("extra argument", ["halftone", src, out, "more"], 2, "more")
    expect_error("identify's extra argument: one space in its usage line",
                 ["identify", "stray"], 2, "'stray' (usage: gpufx identify [options])")
    expect_error("unknown command", ["sharpen", src, out], 2, "sharpen")
    expect_error("missing input file: exit 2 naming it",
                 ["halftone", "/nonexistent/in.png", out], 2, "/nonexistent/in.png")
    expect_error("missing filter file: exit 2 naming it (bad input, like a missing image)",
                 ["deblur", src, out, "--filter", "/nonexistent/f.iir"], 2, "/nonexistent/f.iir")
    expect_error("stability of a missing filter file: exit 2",
                 ["stability", "/nonexistent/f.iir"], 2, "/nonexistent/f.iir")
    expect_error("output extension without a saver: exit 2", ["halftone", src, out + ".xyz"], 2,
                 ".xyz")
    tmp = os.path.dirname(out)
    for name in ("junk.png", "junk.tif", "junk.xyz"):  # .xyz goes to GEGL's magick fallback
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write("not an image\n")
        expect_error(f"not an image ({name}): exit 2, one line naming it",
                     ["halftone", path, out], 2, name)
    T.check(not os.path.exists(out), "nothing written after usage errors", out)


def check_help():
    r = T.run_cli("--help")
    T.check(r.returncode == 0 and "halftone" in r.stdout, "gpufx --help lists halftone",
            r.stdout[:200])
    r = T.run_cli("halftone", "--help")
    text = r.stdout
    want = ["--kernel", "sierra-lite", "default fs", "--levels", "2 to 256", "default 2",
            "--backend", "--block-size", "--margin", "--compare", "--quiet", "--help"]
    missing = [w for w in want if w not in text]
    T.check(r.returncode == 0 and not missing, "halftone --help: every option, range, default",
            f"exit {r.returncode}, missing {missing}")
    r = T.run_cli("halftone", "in.png", "--help")
    T.check(r.returncode == 0 and "--kernel" in r.stdout, "--help after arguments")
    for cmd in ("halftone", "enhance", "deblur", "identify", "stability"):
        short, long = T.run_cli(cmd, "-h"), T.run_cli(cmd, "--help")
        T.check(short.returncode == 0 and short.stdout == long.stdout and "--" in short.stdout,
                f"{cmd} -h: the same help as --help", f"exit {short.returncode}: {short.stderr}")
    r = T.run_cli("identify", "--help")
    T.check(r.stdout.startswith("Usage: gpufx identify [options]\n")
            and "  --mask M1xM2\n" in r.stdout, "identify --help: one space in the usage line, "
            "--mask named by its value M1xM2 (SPEC section 4)", r.stdout[:400])
    r = T.run_cli()
    T.check(r.returncode == 2 and "Usage" in r.stderr, "no command: usage on stderr, exit 2")


def check_version(src, out):
    """--version: the build, the GPU verdict (with the reason --backend gpu gives when
    there is none), the thread count and the GEGL the binary runs with."""
    import re
    import subprocess
    r = T.run_cli("--version", env={"GPUFX_THREADS": "3"})
    lines = r.stdout.splitlines() + [""] * 4
    gegl = subprocess.run(["pkg-config", "--modversion", "gegl-0.4"], capture_output=True,
                          text=True).stdout.strip()
    T.check(r.returncode == 0 and re.fullmatch(r"gpufx \S+", lines[0]) and
            lines[1].startswith("GPU: ") and lines[2] == "CPU threads: 3" and
            lines[3].startswith(f"GEGL {gegl}, babl "),
            "--version: build, GPU, threads (GPUFX_THREADS), GEGL version", r.stdout)
    why = re.fullmatch(r"GPU: not usable \((.*)\): backend auto runs on the CPU", lines[1])
    if why:
        g = T.run_cli("halftone", src, out, "--backend", "gpu")
        T.check(g.returncode != 0 and why.group(1) in g.stderr,
                "--version gives the reason --backend gpu fails with", f"{why.group(1)!r} / {g.stderr!r}")
    else:
        T.skip("--version gives the reason --backend gpu fails with", lines[1])


def check_io(tmp):
    gray16 = T.noise(40, 30, 1, np.uint16, seed=1)
    src = os.path.join(tmp, "g16.png")
    T.save(src, gray16)
    out, cmp_path = os.path.join(tmp, "o16.png"), os.path.join(tmp, "cmp.png")
    r = T.run_cli("halftone", src, out, "--compare", cmp_path, "--backend", "cpu", "--quiet")
    T.check(r.returncode == 0 and r.stderr == "", "success with --quiet: exit 0, stderr empty",
            f"{r.returncode} {r.stderr!r}")
    o = T.load(out)
    T.check(o.dtype == np.uint16 and o.shape == gray16.shape
            and set(np.unique(o)) <= {0, 65535}, "16-bit gray stays 16-bit gray, two levels",
            f"{o.dtype} {o.shape}")
    c = T.load(cmp_path)
    T.check(c.shape == (30, 80) and np.array_equal(c[:, :40], gray16)
            and np.array_equal(c[:, 40:], o), "--compare: input left, result right", str(c.shape))

    g8 = T.noise(33, 20, 1, np.uint8, seed=8)
    src = os.path.join(tmp, "g8.png")
    T.save(src, g8)
    for levels, depth in ((2, 1), (3, 8)):
        out = os.path.join(tmp, f"o8-{levels}.png")
        r = T.run_cli("halftone", src, out, "--levels", levels, "--backend", "cpu", "--quiet")
        bits = open(out, "rb").read()[24] if r.returncode == 0 else None
        o = T.load(out) if r.returncode == 0 else None
        T.check(bits == depth and o is not None and o.dtype == np.uint8 and o.shape == g8.shape,
                f"8-bit gray, {levels} levels: a {depth}-bit PNG read back as 8-bit",
                f"bit depth {bits}, {r.stderr}")

    rgba = T.noise(21, 13, 4, np.uint8, seed=2)
    src = os.path.join(tmp, "rgba.png")
    T.save(src, rgba)
    out = os.path.join(tmp, "orgba.png")
    r = T.run_cli("halftone", src, out, "--levels", "3", "--backend", "cpu", "--quiet")
    o = T.load(out) if r.returncode == 0 else None
    T.check(o is not None and o.shape == rgba.shape and np.array_equal(o[:, :, 3], rgba[:, :, 3])
            and set(np.unique(o[:, :, :3])) <= {0, 128, 255}, "RGBA: alpha untouched, 3 levels",
            r.stderr)

    f = T.noise(17, 11, 3, np.float32, seed=3)
    src, out = os.path.join(tmp, "f.tif"), os.path.join(tmp, "of.tif")
    T.save(src, f)
    r = T.run_cli("halftone", src, out, "--backend", "cpu", "--quiet")
    o = T.load(out) if r.returncode == 0 else None
    T.check(o is not None and o.dtype == np.float32 and o.shape == f.shape,
            "float RGB TIFF stays float RGB", r.stderr)

    from PIL import Image
    pal = Image.fromarray(T.noise(16, 9, 3, np.uint8, seed=4)).convert("P")
    src, out = os.path.join(tmp, "pal.png"), os.path.join(tmp, "opal.png")
    pal.save(src)
    r = T.run_cli("halftone", src, out, "--backend", "cpu")
    o = T.load(out) if r.returncode == 0 else None
    T.check(o is not None and o.shape == (9, 16, 3) and "indexed" in r.stderr,
            "indexed PNG converted to RGB with a note", r.stderr)


def check_no_leftovers(tmp):
    src = os.path.join(tmp, "in.png")
    T.save(src, T.noise(30, 20, 1, np.uint8, seed=5))
    blocker = os.path.join(tmp, "blocked.png")
    os.mkdir(blocker)  # rename onto a folder fails after the image was computed and written
    before = set(os.listdir(tmp))
    r = T.run_cli("halftone", src, blocker, "--backend", "cpu", "--quiet")
    single, msg = one_line(r)
    T.check(r.returncode == 1 and single and "blocked.png" in msg,
            "unwritable output: exit 1, one line naming it", f"{r.returncode} {msg!r}")
    for folder in (tmp, tmp + "/"):  # a folder with no extension: said so, not "no saver"
        r = T.run_cli("halftone", src, folder, "--backend", "cpu", "--quiet")
        single, msg = one_line(r)
        T.check(r.returncode == 1 and single and msg.endswith(": cannot write: it is a folder"),
                f"a folder as OUT ({'with' if folder.endswith('/') else 'no'} slash) is named as "
                "one", f"{r.returncode} {msg!r}")
    T.check(set(os.listdir(tmp)) == before, "failed write leaves no file behind",
            str(set(os.listdir(tmp)) - before))
    r = T.run_cli("halftone", src, "/proc/gpufx-test.png", "--backend", "cpu", "--quiet")
    T.check(r.returncode == 1 and one_line(r)[0], "output folder not writable: exit 1",
            f"{r.returncode} {r.stderr!r}")
    existing = os.path.join(tmp, "keep.png")
    T.save(existing, np.zeros((3, 3), np.uint8))
    old = open(existing, "rb").read()
    r = T.run_cli("halftone", src, existing, "--levels", "999")
    T.check(r.returncode == 2 and open(existing, "rb").read() == old,
            "a failed run leaves an existing output untouched")


def check_progress(tmp):
    src = os.path.join(tmp, "p.png")
    T.save(src, T.noise(300, 200, 3, np.uint8, seed=6))
    out = os.path.join(tmp, "po.png")
    r = T.run_cli("halftone", src, out, "--backend", "cpu", env={"GPUFX_PROGRESS_AFTER": "0"})
    T.check(r.returncode == 0 and "gpufx halftone: 100%" in r.stderr,
            "progress line on stderr once the run is long enough", r.stderr)
    # Writing a large file can take longer than the filter: it is said too, after the 100%.
    T.check(r.stderr.endswith("gpufx halftone: 100%\ngpufx halftone: writing " + out + "\n"),
            "in a log: 'writing OUT' once the filter is done", r.stderr)
    r = T.run_cli("halftone", src, out, "--backend", "cpu", "--quiet",
                  env={"GPUFX_PROGRESS_AFTER": "0"})
    T.check(r.returncode == 0 and r.stderr == "", "--quiet: no progress", r.stderr)
    r = T.run_cli("halftone", src, out, "--backend", "cpu")
    T.check(r.returncode == 0 and "%" not in r.stderr, "short run: no progress line", r.stderr)
    # On a terminal the line is rewritten in place and ends with the time taken.
    master, slave = pty.openpty()
    env = dict(os.environ, GPUFX_PROGRESS_AFTER="0")
    proc = subprocess.Popen([T.GPUFX, "halftone", src, out, "--backend", "cpu"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                            env=env)
    os.close(slave)
    said = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal's other end is closed
            break
        if not chunk:
            break
        said += chunk
    os.close(master)
    rc = proc.wait(timeout=60)
    text = said.decode(errors="replace")
    erase = r"\r\x1b\[K"  # back to the line's start, the rest of it erased
    T.check(rc == 0 and re.search(erase + r"gpufx halftone: +\d+%", text)
            and re.search(erase + r"gpufx halftone: writing \S*po\.png" + erase
                          + r"gpufx halftone: done in \d+\.\d s\r?\n$", text)
            and "%\n" not in text.replace("\r\n", "\n"),
            "on a terminal: one line rewritten in place, 'writing OUT', ending 'done in N.N s' "
            "once written", repr(text))


def check_backend_gpu(tmp):
    src = os.path.join(tmp, "b.png")
    T.save(src, T.noise(20, 10, 1, np.uint8, seed=7))
    r = T.run_cli("halftone", src, os.path.join(tmp, "bo.png"), "--backend", "gpu")
    if r.returncode == 0:
        T.skip("--backend gpu without a GPU fails", "a GPU is usable here")
        return
    single, msg = one_line(r)
    T.check(r.returncode == 1 and single and "gpu" in msg.lower(),
            "--backend gpu without a usable GPU: exit 1 with the reason", msg)
    r = T.run_cli("halftone", src, os.path.join(tmp, "bo.png"), env={"GPUFX_BACKEND": "auto"})
    notes = [l for l in r.stderr.splitlines() if "note" in l]
    T.check(r.returncode == 0 and len(notes) == 1 and "CPU" in notes[0],
            "auto without a GPU: runs on the CPU and says so once", r.stderr)


def check_environment(src, out):
    """GPUFX_BACKEND and GPUFX_THREADS set to values that mean nothing are ignored with a
    note (--quiet: silently), not taken for something else ("1e3" was one thread)."""
    def threads(r):
        line = [x for x in r.stdout.splitlines() if x.startswith("CPU threads:")]
        return int(line[0].split(":")[1]) if line else None
    plain = threads(T.run_cli("--version", env={"GPUFX_THREADS": ""}))
    cases = [({"GPUFX_BACKEND": "gpus"}, "GPUFX_BACKEND=gpus is not auto, cpu or gpu: ignored",
              plain),
             ({"GPUFX_THREADS": "1e3"}, "GPUFX_THREADS=1e3 is not a whole number from 1: "
              "ignored", plain),
             ({"GPUFX_THREADS": "abc"}, "GPUFX_THREADS=abc is not a whole number from 1: "
              "ignored", plain),
             ({"GPUFX_THREADS": "99999"}, "GPUFX_THREADS=99999 is more than 256: 256 are used",
              256),
             ({"GPUFX_THREADS": "99999999999999999999"},
              "GPUFX_THREADS=99999999999999999999 is more than 256: 256 are used", 256),
             ({"GPUFX_THREADS": "3"}, None, 3)]
    for env, note, want in cases:
        r = T.run_cli("--version", env=env)
        said = [x for x in r.stderr.splitlines() if "note:" in x]
        T.check(r.returncode == 0 and threads(r) == want
                and (said == [f"gpufx: note: {note}"] if note else said == []),
                f"{env}: {note or 'no note'}, {want} threads", f"{r.stderr!r} {r.stdout!r}")
    r = T.run_cli("halftone", src, out, "--quiet", env={"GPUFX_BACKEND": "gpus"})
    T.check(r.returncode == 0 and r.stderr == "", "the note is quiet under --quiet", r.stderr)


def main():
    T.require_cli("gpufx CLI")
    with T.tmpdir() as tmp:
        src = os.path.join(tmp, "in.png")
        T.save(src, T.noise(12, 8, 1, np.uint8))
        check_usage_errors(src, os.path.join(tmp, "out.png"))
        check_help()
        check_version(src, os.path.join(tmp, "v.png"))
        check_io(tmp)
        check_no_leftovers(tmp)
        check_progress(tmp)
        check_backend_gpu(tmp)
        check_environment(src, os.path.join(tmp, "env.png"))
    T.finish()


if __name__ == "__main__":
    main()
