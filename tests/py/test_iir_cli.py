"""`gpufx stability` and `gpufx deblur` from the outside (SPEC section 4): one line per
quadrant `qN stable margin 0.1234`, margins against the closed form of
B = 1 - a z1^-1 - b z2^-1 (1 - max(|a|/(1-|b|), |b|/(1-|a|))), exit 3 when a quadrant is
unstable, --plot writes the 2 x 2 panel picture, --stabilise writes a stable filter that
deblur then accepts, and malformed files exit 2 naming the line."""
import os
import re

import numpy as np

import gfxtest as T


def textbook(path, ab):
    """Each quadrant q gets B = 1 - a z1^-1 - b z2^-1 with (a, b) = ab[q]."""
    lines = ["gpufx-iir 1", "mask 2 2"]
    for q, (a, b) in enumerate(ab):
        lines += [f"q{q + 1} a {1 - a - b!r} 0 0 0", f"q{q + 1} b 1 {-b!r} {-a!r} 0"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def margin(a, b):
    return 1 - max(abs(a) / (1 - abs(b)), abs(b) / (1 - abs(a)))


def main():
    T.require_cli("py/test_iir_cli")
    with T.tmpdir() as d:
        stable = [(0.3, 0.4), (-0.2, 0.5), (0.1, -0.6), (0.45, 0.45)]
        path = os.path.join(d, "stable.iir")
        textbook(path, stable)
        r = T.run_cli("stability", path)
        lines = r.stdout.strip().splitlines()
        T.check(r.returncode == 0 and len(lines) == 4, "stable filter: exit 0, four lines",
                f"exit {r.returncode}: {r.stdout} {r.stderr}")
        for q, (a, b) in enumerate(stable):
            m = re.fullmatch(rf"q{q + 1} stable margin (-?\d+\.\d{{4}})", lines[q] if q < len(lines) else "")
            T.check(m and abs(float(m.group(1)) - margin(a, b)) <= 5e-5,
                    f"q{q + 1}: '{lines[q] if q < len(lines) else ''}' matches the closed form "
                    f"{margin(a, b):.4f}")
        # --samples reaches the root finder: q2's (a < 0) largest root lies at angle pi,
        # which 1440 points include and 5 points (72 degrees apart) miss, so 5 points
        # overestimate its margin.
        def q2_margin(samples):
            r = T.run_cli("stability", path, "--samples", samples)
            m = re.search(r"^q2 stable margin (\d+\.\d+)$", r.stdout, re.M)
            return float(m.group(1)) if r.returncode == 0 and m else None
        fine, coarse = q2_margin(1440), q2_margin(5)
        T.check(fine is not None and abs(fine - margin(-0.2, 0.5)) <= 5e-5,
                "--samples 1440: q2 matches the closed form", f"{fine}")
        T.check(coarse is not None and coarse > margin(-0.2, 0.5) + 0.01,
                "--samples 5: q2's margin overestimated (the points miss angle pi)",
                f"{coarse}")
        for bad_n in ("3", "0", "1048577"):
            r = T.run_cli("stability", path, "--samples", bad_n)
            T.check(r.returncode == 2 and f"samples = {bad_n}" in r.stderr
                    and "4 to 1048576" in r.stderr,
                    f"--samples {bad_n}: exit 2 naming samples and 4 to 1048576", r.stderr)
        bad = os.path.join(d, "unstable.iir")
        textbook(bad, [(0.3, 0.4), (0.6, 0.5), (0.3, 0.4), (0.3, 0.4)])
        png = os.path.join(d, "loci.png")
        r = T.run_cli("stability", bad, "--plot", png, "--plot-size", "128")
        want = f"q2 unstable margin {margin(0.6, 0.5):.4f}"
        T.check(r.returncode == 3 and want in r.stdout, f"unstable q2: exit 3 and '{want}'",
                f"exit {r.returncode}: {r.stdout}")
        lines = r.stderr.strip().splitlines()
        # (only the text after the file's name: a temporary folder may be called .../q1...)
        said = lines[0].split(bad, 1)[-1] if lines else ""
        T.check(len(lines) == 1 and "unstable in q2 (margin" in said and "q1" not in said
                and "--stabilise" in said,
                "exit 3 comes with one line on stderr naming q2 alone and --stabilise", r.stderr)
        if os.path.exists(png):
            img = T.load(png)
            T.check(img.shape[:2] == (256, 256), "--plot writes 2 x 2 panels of 128",
                    f"shape {img.shape}")
            red = img[..., 0].astype(int) - img[..., 1]
            T.check(red[1, 129] > 100 and red[1, 1] < 0, "q2's panel framed red, q1's green")
        else:
            T.check(False, "--plot writes the picture", r.stderr)
        fixed = os.path.join(d, "fixed.iir")
        r = T.run_cli("stability", bad, "--stabilise", fixed, "--margin", "0.05")
        T.check(r.returncode == 0 and "q2 stabilised" in r.stdout, "--stabilise reports the "
                "change", r.stdout + r.stderr)
        # An option that only matters with another is refused without it (ignored, it
        # would look applied): exit 2 before the verdict, naming both.
        for opt, needs in ((["--margin", "0.05"], "--stabilise FILE"),
                           (["--plot-size", "128"], "--plot PNG")):
            r = T.run_cli("stability", bad, *opt)
            T.check(r.returncode == 2 and not r.stdout
                    and f"{opt[0]} is used only with {needs}" in r.stderr,
                    f"{opt[0]} without {needs.split()[0]}: exit 2 naming both",
                    f"exit {r.returncode}: {r.stdout}{r.stderr}")
        # A long path (1,600 characters; PATH_MAX is 4096) is named whole in the stabilised
        # file's comment, with every quadrant's change after it (the comment overran a
        # 1024-byte buffer on the stack).
        long_bad = d + "/" + "./" * 800 + os.path.basename(bad)
        long_fixed = os.path.join(d, "fixed-long.iir")
        r = T.run_cli("stability", long_bad, "--stabilise", long_fixed)
        text = open(long_fixed).read() if os.path.exists(long_fixed) else ""
        T.check(r.returncode == 0 and f"from {long_bad} (margin 0.02)" in text
                and "# q2: r = " in text, "--stabilise from a 1,600-character path: the "
                "comment names it whole, then q2's change", f"exit {r.returncode}: "
                f"{r.stderr}{text[:200]}")
        r = T.run_cli("stability", fixed)
        m = re.search(r"q2 stable margin (\d+\.\d+)", r.stdout)
        T.check(r.returncode == 0 and m and float(m.group(1)) >= 0.0499,
                "the stabilised file is stable with the asked margin", r.stdout)
        wild = os.path.join(d, "wild.iir")
        textbook(wild, [(0.3, 0.4), (1e300, 0.0), (0.5, 1e308), (0.1, 0.2)])
        r = T.run_cli("stability", wild)
        T.check(r.returncode == 3 and r.stdout.split("\n")[1:3] ==
                ["q2 unstable margin -1e+300", "q3 unstable margin -inf"],
                "coefficients up to 1e308: exit 3, margins short ('-1e+300'; '-inf' for a root "
                "beyond double's range), no LAPACK failure", r.stdout + r.stderr)
        r = T.run_cli("stability", wild, "--stabilise", fixed)
        T.check(r.returncode == 0 and "q2 stabilised: b(k1,k2) scaled by r^(k1+k2) with r = 0, "
                "a scaled by -1e-300, margin -1e+300 -> 1.0000" in r.stdout,
                "--stabilise on them: r and the scale in %g", r.stdout + r.stderr)
        src = os.path.join(d, "in.png")
        T.save(src, T.noise(64, 48))
        out = os.path.join(d, "out.png")
        r = T.run_cli("deblur", src, out, "--filter", bad, "--backend", "cpu")
        T.check(r.returncode == 3 and "q2" in r.stderr and not os.path.exists(out),
                "deblur refuses the unstable filter with exit 3", r.stderr)
        r = T.run_cli("deblur", src, out, "--filter", fixed, "--backend", "cpu")
        T.check(r.returncode == 0 and os.path.exists(out), "deblur accepts the stabilised one",
                r.stderr)
        with open(bad) as f:
            text = f.read().replace("q3 b 1", "q3 b 2")
        with open(bad, "w") as f:
            f.write(text)
        r = T.run_cli("stability", bad)
        T.check(r.returncode == 2 and "unstable.iir:8:" in r.stderr and "b(0,0)" in r.stderr,
                "malformed file: exit 2 naming line 8 and b(0,0)", r.stderr)
        r = T.run_cli("deblur", src, out, "--backend", "cpu")
        T.check(r.returncode == 2 and "--filter" in r.stderr, "deblur without --filter: exit 2",
                r.stderr)
        r = T.run_cli("deblur", src, out, "--filter", "/d" * 2500, "--backend", "cpu")
        T.check(r.returncode == 2 and r.stderr.count("\n") == 1 and
                "filter-file: the file name is too long (5000 bytes; at most 4095)" in r.stderr,
                "a 5000-byte --filter: exit 2, one line with the length and the limit", r.stderr)
        # The filter file is an input: no output may replace it (it was overwritten with an
        # image, status 0), nor may stability's --plot replace FILE or --stabilise's file.
        keep = os.path.join(d, "keep.iir")
        textbook(keep, stable)
        before = open(keep, "rb").read()
        for args in (["deblur", src, out, "--filter", keep, "--compare", keep],
                     ["deblur", src, keep, "--filter", keep],
                     ["stability", keep, "--plot", keep],
                     ["stability", keep, "--stabilise", fixed, "--plot", fixed]):
            r = T.run_cli(*args, "--quiet") if args[0] == "deblur" else T.run_cli(*args)
            T.check(r.returncode == 2 and "is the same file as" in r.stderr
                    and open(keep, "rb").read() == before,
                    f"{' '.join(os.path.basename(a) for a in args[:1] + args[2:])}: "
                    "exit 2, the filter file kept", r.stderr)
        r = T.run_cli("stability", keep, "--stabilise", keep)
        T.check(r.returncode == 0, "--stabilise may rewrite FILE in place", r.stderr)
        outputs_checked_first(d, keep)
        readme_example(d)
    T.finish()


def outputs_checked_first(d, iir):
    """Outputs that cannot be written are refused before the work: identify's filter file
    before the images are read (the sharp reference here is of another size, which
    identification itself would refuse), stability's before its verdict is printed."""
    blurred, other = os.path.join(d, "b.png"), os.path.join(d, "s.png")
    T.save(blurred, T.noise(40, 30))
    T.save(other, T.noise(41, 30))
    for out, code, words in ((os.path.join(d, "no", "f.iir"), 1, "No such file"),
                             (d, 1, "Is a directory"), ("", 2, "--output is empty")):
        r = T.run_cli("identify", "--blurred", blurred, "--sharp", other, "--output=" + out)
        T.check(r.returncode == code and words in r.stderr and "area" not in r.stderr,
                f"identify --output={os.path.basename(out) or out!r}: exit {code} ({words}) "
                "before the images are compared", r.stderr.strip())
    for args, code in ((["--plot", os.path.join(d, "p.xyz")], 2),
                       (["--stabilise", os.path.join(d, "no", "s.iir")], 1)):
        r = T.run_cli("stability", iir, *args)
        T.check(r.returncode == code and r.stdout == "",
                f"stability {args[0]} that cannot be written: exit {code}, no verdict printed "
                "first", r.stdout + r.stderr)


def readme_example(d):
    """The README's filter-file example, its q1 blocks repeated for q2-q4, reads, is stable
    and keeps a flat image as it was (its a and b have equal sums, as it says)."""
    with open(os.path.join(T.ROOT, "README.md")) as f:
        readme = f.read()
    m = re.search(r"\n    (gpufx-iir 1\n(?:    .*\n)+?)    q2 a \.\.\.", readme)
    if not m:
        T.check(False, "README has the filter-file example")
        return
    lines = [re.sub(r"#.*", "", ln).strip() for ln in m.group(1).splitlines()]
    head, q1 = lines[:2], "\n".join(lines[2:])
    path = os.path.join(d, "readme.iir")
    with open(path, "w") as f:
        f.write("\n".join(head) + "\n" + "".join(q1.replace("q1 ", f"q{q} ") + "\n"
                                                  for q in range(1, 5)))
    r = T.run_cli("stability", path)
    T.check(r.returncode == 0 and r.stdout.count("stable margin") == 4,
            "the README's filter-file example reads and is stable", r.stdout + r.stderr)
    src, out = os.path.join(d, "flat.png"), os.path.join(d, "flat_out.png")
    T.save(src, np.full((9, 11), 100, np.uint8))
    r = T.run_cli("deblur", src, out, "--filter", path, "--backend", "cpu", "--quiet")
    T.check(r.returncode == 0 and np.all(T.load(out) == 100),
            "the README's example keeps a flat image as it was", r.stderr)


main()
