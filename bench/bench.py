#!/usr/bin/python3
"""make bench: ours against the peers, one table per plug-in, in-process and
whole-process figures separately.  Never fails for a missing peer or sub-command: such a
row says "n/a" and why.  Writes results.json and tables.md next to the work images.

Usage: bench/bench.py --build build [--quick] [--only halftone,enhance,iir,deblur]
                      [--work DIR] [--repeat-in N] [--repeat-whole N]"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import images  # noqa: E402
import suites  # noqa: E402

SHORT = {"Pillow convert('1')": "Pillow", "ImageMagick FS -remap": "IMagick",
         "GEGL gegl:dither FS": "GEGL", "numpy/scipy uniform_filter": "numpy",
         "OpenCV cv2.blur": "OpenCV", "scipy.signal lfilter 1 quadrant": "lfilt1q",
         "scipy.signal lfilter 4 quadrants": "lfilt4q",
         "skimage richardson_lucy 30 it": "RL", "skimage wiener": "Wiener"}


def fmt_time(s):
    if s is None:
        return "n/a"
    if s < 0:
        return "-" + fmt_time(-s)
    if s < 1e-3:
        return "%.1f us" % (s * 1e6)
    if s < 1.0:
        return "%.3g ms" % (s * 1e3)
    return "%.3g s" % s


def _cmd_line(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=30)
        return p.stdout.strip().splitlines()[0] if p.stdout.strip() else "unknown"
    except Exception as e:  # only informative
        return "unknown (%s)" % e.__class__.__name__


def machine(top, build):
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    osname = ""
    try:
        with open("/etc/os-release") as f:
            osname = next((ln.split("=", 1)[1].strip().strip('"') for ln in f
                           if ln.startswith("PRETTY_NAME")), "")
    except OSError:
        pass
    vers = {}
    for mod in ("numpy", "scipy", "PIL", "cv2", "skimage"):
        try:
            vers[mod] = __import__(mod).__version__
        except Exception:
            vers[mod] = "missing"
    vers["ImageMagick"] = _cmd_line(["/usr/bin/convert", "-version"])
    vers["gegl"] = _cmd_line(["dpkg-query", "-W", "-f=${Version}", "gegl"])
    return dict(cpu=cpu, cores=os.cpu_count(), os=osname, python=platform.python_version(),
                versions=vers, commit=_cmd_line(["git", "-C", top, "rev-parse", "--short",
                                                 "HEAD"]),
                load_start=os.getloadavg()[0],
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


def ratio_cell(ours, peer, whole):
    """peer / ours; whole-process: "net / whole" (net where both have a baseline)."""
    if not ours["time"] or peer["time"] is None:
        return ""
    if not whole:
        return "%.2fx" % (peer["time"] / ours["time"])
    net = "-"
    if ours.get("net") and peer.get("net") and ours["net"] > 0 and peer["net"] > 0:
        net = "%.2fx" % (peer["net"] / ours["net"])
    return "%s / %.2fx" % (net, peer["time"] / ours["time"])


def render(table, mode):
    """The table as markdown lines; ratio = peer time / our time (> 1: ours faster)."""
    rows = table[mode]
    whole = mode == "whole"
    peers = []
    for r in rows:
        if r["kind"] == "peer" and r["impl"] not in peers:
            peers.append(r["impl"])
    head = ["size", "implementation", "time"]
    if whole:
        head += ["baseline", "net"]
    head += ["vs %s%s" % (SHORT.get(p, p), " (net / whole)" if whole else "") for p in peers]
    head += ["check / note"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        thr = r.get("threads")
        tcell = "-" if r["kind"] == "base" and r["time"] is None else fmt_time(r["time"])
        if r.get("min") is not None and r["time"] and r["min"] < 0.9 * r["time"]:
            tcell += " (min %s)" % fmt_time(r["min"])  # a noisy median: say how noisy
        cells = [r["group"], r["impl"] + (" (%d threads)" % thr if thr and thr > 1 and
                                          r["backend"] == "cpu" else ""), tcell]
        if whole:
            cells += [fmt_time(r["passthru"]) if r["passthru"] is not None else "-",
                      fmt_time(r["net"]) if r["net"] is not None else "-"]
        for p in peers:
            cell = ""
            if r["kind"] == "ours" and r["time"] is not None:
                pr = next((x for x in rows if x["group"] == r["group"] and x["impl"] == p), None)
                if pr is not None:
                    cell = ratio_cell(r, pr, whole)
            cells.append(cell)
        note = r["check"] or ""
        if r["na"]:
            note = "n/a: " + r["na"]
        cells.append(note.replace("|", "/"))
        out.append("| " + " | ".join(cells) + " |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="halftone,enhance,iir,deblur")
    ap.add_argument("--work", default=None)
    ap.add_argument("--repeat-in", type=int, default=None)
    ap.add_argument("--repeat-whole", type=int, default=None)
    a = ap.parse_args()
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.abspath(a.build)
    work = images.Workdir(a.work or os.path.join(build, "bench"))
    rin = a.repeat_in or (3 if a.quick else 5)
    rwhole = a.repeat_whole or (1 if a.quick else 3)
    t0 = time.time()

    def log(msg):
        print("bench: %5.0f s  %s" % (time.time() - t0, msg), file=sys.stderr, flush=True)

    info = machine(top, build)
    ctx = suites.Ctx(os.path.join(build, "gpufx"), work, a.quick, rin, rwhole, log)
    info["gpu"] = ctx.probe_gpu()
    tables = []
    for name in [s.strip() for s in a.only.split(",") if s.strip()]:
        fn = suites.SUITES.get(name)
        if fn is None:
            log("unknown suite %s (have %s)" % (name, ", ".join(suites.SUITES)))
            continue
        try:
            tables += fn(ctx)
        except Exception as e:  # a broken suite must not take the others down
            log("suite %s failed: %s: %s" % (name, e.__class__.__name__, e))
            tables.append({"title": name, "in": [], "whole": [], "in_note": "", "whole_note":
                           "suite failed: %s: %s" % (e.__class__.__name__, e)})
    info["load_end"] = os.getloadavg()[0]
    info["seconds"] = round(time.time() - t0)
    info["repeats"] = dict(in_process=rin, whole_process=rwhole, quick=a.quick)
    md = ["Machine: %s, %s cores, %s; GPU: %s; load average %.2f at start, %.2f at end; "
          "gpufx %s; medians of %d in-process and %d whole-process runs; %s." % (
              info["cpu"], info["cores"], info["os"], info["gpu"], info["load_start"],
              info["load_end"], info["commit"], rin, rwhole, info["date"]), ""]
    for t in tables:
        for mode, label in (("in", "in-process"), ("whole", "whole-process")):
            if not t[mode] and not t[mode + "_note"]:
                continue
            md += ["### %s — %s" % (t["title"], label), "",
                   "%s. Ratio = peer time / our time (> 1: ours faster)%s." % (
                       t[mode + "_note"], "; net ratio / whole ratio" if mode == "whole"
                       else ""), ""]
            md += render(t, mode) + [""]
    text = "\n".join(md)
    print(text)
    with open(work.file("tables.md"), "w") as f:
        f.write(text)
    with open(work.file("results.json"), "w") as f:
        json.dump(dict(machine=info, tables=tables), f, indent=1)
    log("done; results in %s" % work.file("results.json"))


if __name__ == "__main__":
    main()
