"""`gpufx bench` from the outside (cli/cmd_bench*.c): `make bench` reads its TSV rows and its
I/O baseline, so a broken row format or a wrong size would silently spoil the benchmark
tables.  Checked: the synthetic suite prints one row per case with a parseable time for the
CPU (and the GPU where one is usable); FILTER --input FILE --tsv prints the seven fields
for the image's real size, the repeats asked for, and takes the filter's own options
(validated with the parameter's range in the message); --copy writes the image back
unchanged (--threshold: black and white at 0.5); bad usage exits 2 with one line naming
what is wrong."""
import os
import re
import subprocess

import numpy as np

import gfxtest as T

TIME = re.compile(r"^([0-9.]+) (us|ms|s)$")


def gpu_usable():
    r = T.run_cli("bench", "--gpu-name")
    line = r.stdout.strip()
    T.check(r.returncode == 0 and line and "\n" not in line,
            "bench --gpu-name: one line, exit 0", f"rc {r.returncode}: {r.stdout!r}")
    return r.returncode == 0 and not line.startswith("none (")


def seconds(text):
    m = TIME.match(text.strip())
    if not m:
        return None
    return float(m.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)]


def suite(gpu):
    r = T.run_cli("bench", "--quick", "--repeat", "1")
    T.check(r.returncode == 0, "bench --quick: exit 0", r.stderr.strip())
    rows = [l for l in r.stdout.splitlines() if re.match(r"^(halftone|enhance|deblur) ", l)]
    seen = {}
    for l in rows:
        # filter, image (free text), path, median, min, Mpixel/s: fixed columns at the end
        parts = l.rsplit(None, 6)
        path, med, mn = parts[1], seconds(" ".join(parts[2:4])), seconds(" ".join(parts[4:6]))
        ok = path in ("cpu", "gpu") and med and mn and 0 < mn <= med
        T.check(ok, f"bench --quick row has a path and times: {l.split()[0]} {path}", l)
        seen.setdefault(l.split()[0], set()).add(path)
    header = [l for l in r.stdout.splitlines() if l.startswith("filter ")]
    cols = {l.index(" path ") + 1 for l in header}
    cols |= {re.search(r" (cpu|gpu) ", l).start() + 1 for l in rows if "n/a" not in l}
    T.check(len(header) == 1 and len(cols) == 1, "bench --quick: every row's path lines up "
            "under the header's", f"columns {sorted(cols)}")
    for f in ("halftone", "enhance", "deblur"):
        want = {"cpu", "gpu"} if gpu else {"cpu"}
        T.check(want <= seen.get(f, set()), f"bench --quick times {f} on {sorted(want)}",
                f"rows: {rows}")


def tsv(src, h, w, d, gpu):
    r = T.run_cli("bench", "halftone", "--input", src, "--tsv", "--repeat", "3",
                  "--backend", "cpu", "--levels", "4")
    f = r.stdout.strip().split("\t")
    ok = (r.returncode == 0 and len(f) == 7 and f[0] == "halftone" and f[1] == f"{w}x{h}"
          and f[2] == "cpu" and f[5] == "3" and int(f[6]) >= 1
          and 0 < float(f[4]) <= float(f[3]))
    T.check(ok, "bench halftone --input --tsv: filter, WxH, cpu, median >= min > 0, "
            "3 repeats, threads", f"rc {r.returncode}: {r.stdout!r} {r.stderr!r}")

    filt = os.path.join(d, "f.iir")
    with open(filt, "w") as fh:  # B = 1 - 0.3 z1^-1 - 0.2 z2^-1 in every quadrant
        fh.write("gpufx-iir 1\nmask 2 2\n" + "".join(
            f"q{q} a 0.5 0 0 0\nq{q} b 1 -0.2 -0.3 0\n" for q in range(1, 5)))
    r = T.run_cli("bench", "deblur", "--input", src, "--tsv", "--repeat", "1",
                  "--backend=cpu", "--filter", filt)
    f = r.stdout.strip().split("\t")
    T.check(r.returncode == 0 and f[:3] == ["deblur", f"{w}x{h}", "cpu"],
            "bench deblur --input --filter FILE --tsv", f"rc {r.returncode}: {r.stderr!r}")

    # Without --backend: GPUFX_BACKEND picks, as for the filters; unset, both rows, the
    # GPU's "n/a" (where none is usable) being no failure.
    r = T.run_cli("bench", "halftone", "--input", src, "--tsv", "--repeat", "1",
                  env={"GPUFX_BACKEND": "cpu"})
    rows = [line.split("\t")[2] for line in r.stdout.strip().splitlines()]
    T.check(r.returncode == 0 and rows == ["cpu"], "bench FILTER --input with GPUFX_BACKEND=cpu: "
            "the CPU row alone", f"rc {r.returncode}: {r.stdout!r} {r.stderr!r}")
    env = dict(os.environ)
    env.pop("GPUFX_BACKEND", None)
    r = subprocess.run([T.GPUFX, "bench", "halftone", "--input", src, "--tsv", "--repeat", "1"],
                       capture_output=True, text=True, env=env, timeout=300)
    rows = [line.split("\t")[2] for line in r.stdout.strip().splitlines()]
    T.check(r.returncode == 0 and rows == (["cpu", "gpu"] if gpu else ["cpu"])
            and (gpu or "gpu  n/a" in r.stderr), "bench FILTER --input, GPUFX_BACKEND unset: "
            "both rows, or the CPU's and the GPU's n/a", f"rc {r.returncode}: {r.stdout!r} "
            f"{r.stderr!r}")

    # --backend takes any case, as the filters' does: CPU is the CPU row alone.
    r = subprocess.run([T.GPUFX, "bench", "halftone", "--input", src, "--tsv", "--repeat", "1",
                        "--backend", "CPU"], capture_output=True, text=True, env=env,
                       timeout=300)
    rows = [line.split("\t")[2] for line in r.stdout.strip().splitlines()]
    T.check(r.returncode == 0 and rows == ["cpu"] and "gpu" not in r.stderr,
            "bench FILTER --input --backend CPU: the CPU row alone",
            f"rc {r.returncode}: {r.stdout!r} {r.stderr!r}")

    r = T.run_cli("bench", "enhance", "--input", src, "--tsv", "--window", "4")
    T.check(r.returncode == 2 and r.stdout == "" and "window" in r.stderr
            and "3 to 255" in r.stderr,
            "bench enhance --window 4: exit 2 naming window and its range", r.stderr)


def copy(src, img, d):
    out = os.path.join(d, "copy.png")
    r = T.run_cli("bench", "--copy", src, out)
    T.check(r.returncode == 0 and np.array_equal(T.load(out), img),
            "bench --copy writes the image back unchanged", r.stderr.strip())
    out = os.path.join(d, "bw.png")
    r = T.run_cli("bench", "--copy", src, out, "--threshold")
    want = np.where(img >= 128, 255, 0).astype(np.uint8)  # 8-bit: v / 255 >= 0.5
    T.check(r.returncode == 0 and np.array_equal(T.load(out), want),
            "bench --copy --threshold: black and white at one half", r.stderr.strip())


def usage(src):
    cases = [
        (("--repeat", "0"), "--repeat = 0 is not allowed: a whole number from 1 to 1000"),
        (("--repeat", "1e3"), "--repeat = 1e3 is not allowed"),  # atoi ran it once
        (("--repeat=5x",), "--repeat = 5x is not allowed"),      # and this 5 times
        (("--quick=1",), "--quick takes no value"),
        (("enhance", "--input="), "--input is empty"),
        (("--repeat",), "--repeat needs a value"),
        (("--frob",), "unknown option --frob"),
        (("nope", "--input", src), "no filter nope"),
        (("enhance",), "--input FILE is required"),
        (("enhance", "--input", src, "--frob", "3"), "enhance has no option --frob"),
    ]
    for args, said in cases:
        r = T.run_cli("bench", *args)
        err = r.stderr.strip()
        T.check(r.returncode == 2 and said in err and "\n" not in err,
                f"bench {' '.join(args)}: exit 2, one line: {said}",
                f"rc {r.returncode}: {err!r}")
    r = T.run_cli("bench", "enhance", "--input", "/nonexistent/x.png", "--backend", "cpu")
    T.check(r.returncode != 0 and "/nonexistent/x.png" in r.stderr,
            "bench with a missing input names the file", r.stderr.strip())
    r = T.run_cli("bench", "enhance", f"--input={src}", "--repeat=2", "--tsv", "--backend",
                  "cpu")
    fields = r.stdout.strip().split("\t")
    T.check(r.returncode == 0 and len(fields) == 7 and fields[5] == "2",
            "bench --input=FILE --repeat=2: the equals form, 2 repeats", r.stdout + r.stderr)
    r = T.run_cli("bench", "--help")
    T.check(r.returncode == 0 and r.stdout.startswith("Usage: gpufx bench"),
            "bench --help", r.stdout[:80])


def main():
    T.require_cli("py/test_cli_bench")
    gpu = gpu_usable()
    suite(gpu)
    h, w = 37, 53  # odd, so a swapped or rounded size shows
    img = T.noise(w, h, seed=5)
    with T.tmpdir() as d:
        src = os.path.join(d, "in.png")
        T.save(src, img)
        tsv(src, h, w, d, gpu)
        copy(src, img, d)
        usage(src)
    T.finish()


main()
