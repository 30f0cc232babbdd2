"""The command line loads a subset of GEGL's modules (cli/gegl_modules.c): the loaders and
savers and GEGL's core, through a directory of links in the user's cache, and a filter
command only its input's loader (by the file's first bytes) and its outputs' savers, through
a directory per set. Checked: what the directories hold and which one each command uses,
that every format reads and writes the same pixels and every broken input gets the same
message as with all modules loaded, that a cache it cannot write or a user's GEGL_PATH
leaves GEGL as it was, and that runs racing to make the directories all succeed and leave
one of each behind."""
import glob
import os
import subprocess

import numpy as np

import gfxtest as T

PLUGINS = subprocess.run(["pkg-config", "--variable=pluginsdir", "gegl-0.4"],
                         capture_output=True, text=True).stdout.strip()


def run(cache, *args, env=None):
    full = {"XDG_CACHE_HOME": cache, "GPUFX_GEGL_ALL_MODULES": "0"}
    full.update(env or {})
    return T.run_cli(*args, env=full)


def module_dirs(cache):
    return sorted(glob.glob(os.path.join(cache, "gpufx", "gegl-modules-*")))


def gegl_path_used(stderr):
    """The directory of the last GEGL_PATH that GPUFX_DEBUG reported, or None."""
    said = [line.split("GEGL_PATH = ", 1)[1] for line in stderr.splitlines()
            if "GEGL_PATH = " in line]
    return os.path.basename(said[-1].split(":")[0]) if said else None


def check_directory(tmp, src):
    cache = os.path.join(tmp, "cache")
    r = run(cache, "halftone", src, os.path.join(tmp, "o.png"), "--backend", "cpu",
            env={"GPUFX_DEBUG": "1"})
    dirs = module_dirs(cache)
    T.check(r.returncode == 0 and len(dirs) == 2 and dirs[1] == dirs[0] + "+png-load+png-save",
            "first run makes the module directory and its PNG-to-PNG subset",
            f"exit {r.returncode}, {dirs}, {r.stderr.strip()}")
    if len(dirs) != 2:
        return
    names = set(os.listdir(dirs[0]))
    system = set(n for n in os.listdir(PLUGINS) if n.endswith(".so"))
    loaders = set(n for n in system if n.endswith(("-load.so", "-save.so"))
                  and not n.startswith("ff-"))
    T.check(loaders <= names, "every image loader and saver is linked",
            f"missing {sorted(loaders - names)}")
    T.check({"gegl-core.so", "gegl-common.so", "text.so"} <= names,
            "GEGL's core, common operations and gegl:text are linked", sorted(names))
    T.check(not names & {"ff-load.so", "ff-save.so", "transformops.so", "matting-levin.so"},
            "video and unused operations are not", sorted(names))
    T.check(all(os.path.realpath(os.path.join(dirs[0], n)) ==
                os.path.join(os.path.realpath(PLUGINS), n) for n in names),
            "each entry links to GEGL's own module", sorted(names))
    subset = set(os.listdir(dirs[1]))
    common = set(n for n in system  # core, and common at each x86-64 level
                 if n == "gegl-core.so" or n.startswith(("gegl-common.", "gegl-common-x86")))
    T.check(subset == common | {"png-load.so", "png-save.so"},
            "the subset holds GEGL's core and common operations, png-load and png-save",
            sorted(subset))
    T.check(gegl_path_used(r.stderr) == os.path.basename(dirs[1]),
            "GPUFX_DEBUG says which GEGL_PATH it set: the subset's", r.stderr.strip())
    r = run(cache, "halftone", src, os.path.join(tmp, "o2.png"), "--backend", "cpu")
    made = sorted(n for n in os.listdir(os.path.join(cache, "gpufx")) if n.startswith("gegl-"))
    T.check(r.returncode == 0 and module_dirs(cache) == dirs and
            made == [os.path.basename(d) for d in dirs],
            "a second run reuses them and leaves no temporary directory", f"{made}")


def check_subsets(tmp, src):
    """Which directory each command makes GEGL load."""
    cache = os.path.join(tmp, "subsets")
    jpg, junk = os.path.join(tmp, "in.jpg"), os.path.join(tmp, "junk.png")
    T.save(jpg, T.noise(40, 30, 3, np.uint8, seed=6))
    with open(junk, "wb") as f:
        f.write(b"no known first bytes\n")
    o = lambda name: os.path.join(tmp, "sub-" + name)  # noqa: E731
    filt = o("f.iir")
    with open(filt, "w") as f:
        f.write("gpufx-iir 1\nmask 1 2\n" + "".join(f"q{q} a 1 0\nq{q} b 1 -0.5\n"
                                                      for q in (1, 2, 3, 4)))
    cases = [
        ("JPEG in, TIFF out", ["halftone", jpg, o("a.tif")], "+jpg-load+tiff-save"),
        ("the content, not the name, picks the loader",
         ["halftone", o("a.tif"), o("b.png")], "+tiff-load+png-save"),
        ("every output's saver, once each",
         ["enhance", src, o("c.png"), "--compare", o("d.webp"), "--mask-out", o("e.png")],
         "+png-load+png-save+webp-save"),
        ("standard output's format", ["halftone", src, "jpg:-"], "+png-load+jpg-save"),
        ("standard input: every loader", ["halftone", "-", o("f.png")], ""),
        ("unknown first bytes: every loader", ["halftone", junk, o("g.png")], ""),
        ("bench --copy, the whole-process baseline, as a filter",
         ["bench", "--copy", src, o("h.tif")], "+png-load+tiff-save"),
        ("another command: every loader", ["stability", filt, "--plot", o("i.png")], ""),
    ]
    full = None
    for name, args, suffix in cases:
        with open(src, "rb") as stdin:
            r = subprocess.run([T.GPUFX, *args] + (["--backend", "cpu"] if args[0] in
                                                   ("halftone", "enhance") else []),
                               stdin=stdin, capture_output=True,
                               env=dict(os.environ, XDG_CACHE_HOME=cache,
                                        GPUFX_GEGL_ALL_MODULES="0", GPUFX_DEBUG="1"))
        err = r.stderr.decode(errors="replace")
        used = gegl_path_used(err)
        full = full or (used.split("+")[0] if used else None)
        T.check(used is not None and full is not None and used == full + suffix,
                f"{name}: GEGL loads {'the subset ' + suffix if suffix else 'every module'}",
                f"exit {r.returncode}, GEGL_PATH {used}, {err.strip()[-300:]}")


def check_formats(tmp, cache):
    """Each saver writes and each loader reads the same bytes as with every module."""
    gray8 = T.noise(37, 23, 1, np.uint8, seed=3)
    rgb16 = T.noise(31, 17, 3, np.uint16, seed=4)
    inputs = {"gray8.png": gray8, "rgb16.png": rgb16, "gray.pgm": gray8,
              "rgbf.tif": T.noise(19, 13, 3, np.float32, seed=5)}
    for name, img in inputs.items():
        T.save(os.path.join(tmp, name), img)
    for name in inputs:
        for ext in (".png", ".tif", ".exr", ".jpg", ".webp", ".ppm", ".npy"):
            outs = []
            for mode in ("0", "1"):
                out = os.path.join(tmp, f"{name}.{mode}{ext}")
                r = run(cache, "halftone", os.path.join(tmp, name), out, "--levels", "7",
                        "--backend", "cpu", env={"GPUFX_GEGL_ALL_MODULES": mode})
                outs.append((r.returncode, r.stderr.strip().replace(out, "OUT"),
                             open(out, "rb").read() if os.path.exists(out) else b""))
            T.check(outs[0] == outs[1] and outs[0][0] == 0,
                    f"{name} -> {ext}: same file with the subset as with all modules",
                    f"subset exit {outs[0][0]} {outs[0][1]!r}, all exit {outs[1][0]} "
                    f"{outs[1][1]!r}, bytes equal {outs[0][2] == outs[1][2]}")
            if ext in (".png", ".tif", ".exr"):  # and read back through the loaders
                back = []
                for mode in ("0", "1"):
                    out = os.path.join(tmp, f"{name}.back{mode}.tif")
                    r = run(cache, "halftone", os.path.join(tmp, f"{name}.0{ext}"), out,
                            "--levels", "256", "--backend", "cpu",
                            env={"GPUFX_GEGL_ALL_MODULES": mode})
                    back.append(open(out, "rb").read() if r.returncode == 0 else r.stderr)
                T.check(back[0] == back[1], f"{name}{ext} read back alike", "differs")


def check_errors(tmp, cache):
    """Broken inputs say the same thing either way. (With all modules GEGL's answer for an
    unknown extension is not even stable from run to run: at times a garbage size.)"""
    for name, data in (("junk.png", b"not an image\n"), ("junk.tif", b"II*\0junk"),
                       ("empty.jpg", b""), ("junk.xyz", b"\0\1\2")):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        said = []
        for mode in ("0", "1"):
            r = run(cache, "enhance", path, os.path.join(tmp, "e.png"),
                    env={"GPUFX_GEGL_ALL_MODULES": mode})
            said.append((r.returncode, r.stderr.strip()))
        same = said[0] == said[1] or name == "junk.xyz"
        T.check(same and all(c == 2 and name in m and "\n" not in m for c, m in said) and
                ("is empty" in said[0][1]) == (data == b""),
                f"{name}: exit 2 and one line naming it, the same with the subset", f"{said}")


def check_fallbacks(tmp, src, want):
    out = os.path.join(tmp, "f.png")
    blocked = os.path.join(tmp, "a-file")
    open(blocked, "w").close()
    r = run(blocked, "halftone", src, out, "--backend", "cpu", env={"GPUFX_DEBUG": "1"})
    T.check(r.returncode == 0 and open(out, "rb").read() == want and
            "GEGL_PATH =" not in r.stderr,
            "a cache it cannot write: all modules, same output", r.stderr.strip())
    cache = os.path.join(tmp, "c2")
    r = run(cache, "halftone", src, out, "--backend", "cpu",
            env={"GEGL_PATH": os.path.join(tmp, "no-modules")})
    T.check(r.returncode != 0 and not module_dirs(cache),
            "a user's GEGL_PATH is left alone (here it names no loaders, so loading fails)",
            f"exit {r.returncode}, {r.stderr.strip()}")
    r = run(cache, "halftone", src, out, "--backend", "cpu",
            env={"GPUFX_GEGL_ALL_MODULES": "1"})
    T.check(r.returncode == 0 and not module_dirs(cache),
            "GPUFX_GEGL_ALL_MODULES=1 makes no directory", r.stderr.strip())


def check_race(tmp, src):
    cache = os.path.join(tmp, "race")
    env = dict(os.environ, XDG_CACHE_HOME=cache, GPUFX_GEGL_ALL_MODULES="0")
    procs = [subprocess.Popen([T.GPUFX, "halftone", src, os.path.join(tmp, f"r{i}.png"),
                               "--backend", "cpu"], env=env, stderr=subprocess.PIPE)
             for i in range(8)]
    codes = [p.wait(timeout=300) for p in procs]
    outs = set(open(os.path.join(tmp, f"r{i}.png"), "rb").read() for i in range(8))
    left = [n for n in os.listdir(os.path.join(cache, "gpufx")) if n.startswith("gegl-")]
    T.check(codes == [0] * 8 and len(outs) == 1 and len(left) == 2,
            "8 runs racing on an empty cache all succeed and leave one directory of each",
            f"exits {codes}, {len(outs)} outputs, left {left}")


def main():
    T.require_cli("gpufx GEGL module subset")
    if not PLUGINS or not os.path.isdir(PLUGINS):
        T.skip("gpufx GEGL module subset", "pkg-config names no GEGL module directory")
        T.finish()
    with T.tmpdir() as tmp:
        src = os.path.join(tmp, "in.png")
        T.save(src, T.ramp(64, 48))
        check_directory(tmp, src)
        check_subsets(tmp, src)
        want_path = os.path.join(tmp, "want.png")
        T.run_cli("halftone", src, want_path, "--backend", "cpu",
                  env={"GPUFX_GEGL_ALL_MODULES": "1"})
        check_formats(tmp, os.path.join(tmp, "cache"))
        check_errors(tmp, os.path.join(tmp, "cache"))
        check_fallbacks(tmp, src, open(want_path, "rb").read())
        check_race(tmp, src)
    T.finish()


main()
