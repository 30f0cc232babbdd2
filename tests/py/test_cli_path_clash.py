"""An output never silently replaces another output or an input.  --compare, --mask-out
and OUT must name three different files, and neither --compare nor --mask-out may name
IN (OUT may: it is written over IN in place, after IN was read).  identify's --output and
--fragments likewise, and neither may be --blurred or --sharp.  The same file is found
through another spelling of its path and through a symbolic link.  A clash is a usage
error (status 2) naming both, before any work: every file stays as it was."""
import os

import numpy as np

import gfxtest as T

T.require_cli("output path clashes")


def digest(paths):
    out = {}
    for p in paths:
        if os.path.exists(p):
            with open(p, "rb") as f:
                out[p] = f.read()
    return out


def main():
    with T.tmpdir() as d:
        src, other = os.path.join(d, "in.png"), os.path.join(d, "other.png")
        T.save(src, T.noise(40, 30, 1, np.uint8, seed=1))
        T.save(other, T.noise(40, 30, 1, np.uint8, seed=2))
        link = os.path.join(d, "link.png")
        os.symlink("in.png", link)
        out = os.path.join(d, "out.png")
        T.save(out, T.noise(40, 30, 1, np.uint8, seed=3))
        respelt = os.path.join(d, "..", os.path.basename(d), "in.png")
        new = os.path.join(d, "new.png")
        cases = [
            ("halftone --compare OUT", ["halftone", src, out, "--compare", out], ("--compare", "OUT")),
            ("enhance --mask-out OUT", ["enhance", src, out, "--mask-out", out], ("--mask-out", "OUT")),
            ("enhance --mask-out = --compare, not made yet",
             ["enhance", src, out, "--compare", new, "--mask-out", new], ("--mask-out", "--compare")),
            ("enhance --mask-out IN", ["enhance", src, out, "--mask-out", src], ("--mask-out", "IN")),
            ("halftone --compare IN spelt otherwise",
             ["halftone", src, out, "--compare", respelt], ("--compare", "IN")),
            ("halftone --compare a link to IN", ["halftone", src, out, "--compare", link],
             ("--compare", "IN")),
            ("identify --output --blurred",
             ["identify", "--blurred", src, "--sharp", other, "--output", src], ("--output", "--blurred")),
            ("identify --output --sharp",
             ["identify", "--blurred", src, "--sharp", other, "--output", other], ("--output", "--sharp")),
            ("identify --fragments --output",
             ["identify", "--blurred", src, "--auto", "--output", new, "--fragments", new],
             ("--fragments", "--output")),
        ]
        watched = [src, other, out, new]
        for name, args, names in cases:
            before = digest(watched)
            r = T.run_cli(*args, "--backend", "cpu") if args[0] != "identify" else T.run_cli(*args)
            line = r.stderr.strip()
            T.check(r.returncode == 2 and all(n in line for n in names)
                    and len(line.splitlines()) == 1, f"{name}: status 2, one line naming both",
                    f"status {r.returncode}: {line[-300:]}")
            T.check(digest(watched) == before and not os.path.exists(new),
                    f"{name}: every file as it was")
        r = T.run_cli("halftone", src, src, "--backend", "cpu", "--compare", out)
        T.check(r.returncode == 0, "OUT may be IN (in place), with --compare elsewhere",
                r.stderr[-300:])
        r = T.run_cli("halftone", src, os.path.join(d, "no1", "x.png"), "--backend", "cpu",
                      "--compare", os.path.join(d, "no2", "x.png"))
        T.check(r.returncode == 1 and "no1" in r.stderr and "same file" not in r.stderr,
                "one name in two missing folders is no clash: the missing folder is named",
                r.stderr[-300:])
        r = T.run_cli("enhance", other, out, "--backend", "cpu", "--compare", new,
                      "--mask-out", os.path.join(d, "mask.png"))
        T.check(r.returncode == 0 and os.path.exists(new), "three different names are fine",
                r.stderr[-300:])


main()
T.finish()
