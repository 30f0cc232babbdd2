#!/usr/bin/python3
"""Plots bench results: time against image size (megapixels), log-log, ours against
the peers, one panel per plug-in.  Solid lines: in-process (compute only); dashed:
whole process (decode + filter + encode, as a user waits for it).  A plug-in measured at
one size only (deblur) gets horizontal bars instead; local enhance is plotted against
the window n (one image size).

Usage: bench/plot.py results.json out.png"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

COLOURS = {"ours cpu": "#d62728", "ours cpu, 1 thread": "#ff9896", "ours gpu": "#9467bd"}
PALETTE = ["#1f77b4", "#2ca02c", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f", "#bcbd22"]


def _series(rows):
    """impl -> [(x, seconds)], with the plotted x per row."""
    series = {}
    for r in rows:
        if r["kind"] == "base" or r["time"] is None:
            continue
        x = r["mpix"]
        if " n=" in r["group"]:  # local enhance: one size, two windows; plot against n
            x = int(r["group"].rsplit("n=", 1)[1])
        key = r["impl"].split(" (")[0]
        series.setdefault(key, []).append((x, r["time"]))
    return series


MODES = (("in", "-", "o", "in-process"), ("whole", "--", "s", "whole process"))


def _bars(ax, table, colour_of):
    labels, values, colours, hatches = [], [], [], []
    for mode, _, _, name in MODES:
        for impl, pts in _series(table[mode]).items():
            labels.append("%s (%s)" % (impl, name))
            values.append(pts[0][1])
            colours.append(colour_of(impl))
            hatches.append("//" if mode == "whole" else None)
    ys = range(len(labels))
    for y, v, c, h in zip(ys, values, colours, hatches):
        ax.barh(y, v, color=c, hatch=h, edgecolor="white" if h else c, alpha=0.85)
        ax.text(v, y, " %.3g s" % v, va="center", fontsize=7)
    ax.set_yticks(list(ys))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("seconds")
    ax.grid(True, axis="x", which="both", alpha=0.3)


def panel(ax, table, colour_of):
    enhance = any(" n=" in r["group"] for r in table["in"] + table["whole"])
    groups = {r["group"] for r in table["in"] + table["whole"] if r["kind"] != "base"}
    title = table["title"].split(":")[0]
    if len(groups) < 2:
        _bars(ax, table, colour_of)
        size = next(iter(groups)) if groups else ""
        ax.set_title("%s, %s" % (title, size), fontsize=10)
        return
    for mode, style, mark, name in MODES:
        for impl, pts in _series(table[mode]).items():
            pts.sort()
            xs, ys = zip(*pts)
            ax.plot(xs, ys, style, marker=mark, color=colour_of(impl),
                    lw=2.2 if impl.startswith("ours") else 1.2,
                    mfc="none" if mode == "whole" else None, label="%s (%s)" % (impl, name))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    xs = sorted({x for mode in ("in", "whole") for pts in _series(table[mode]).values()
                 for x, _ in pts})
    ax.set_xticks(xs)
    ax.set_xticklabels(["%.3g" % x for x in xs])
    ax.set_xlabel("window n (3241x3685 image)" if enhance else "megapixels")
    ax.set_ylabel("seconds")
    ax.set_title(title + ("" if enhance else ": time vs size"), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6.5, loc="best")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        res = json.load(f)
    tables = [t for t in res["tables"] if any(r["time"] is not None for r in t["in"] + t["whole"])]
    if not tables:
        print("plot: no figures to draw")
        return
    colours = {}

    def colour_of(impl):
        if impl in COLOURS:
            return COLOURS[impl]
        if impl not in colours:
            colours[impl] = PALETTE[len(colours) % len(PALETTE)]
        return colours[impl]

    cols = 2 if len(tables) > 1 else 1
    rows = (len(tables) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7.2 * cols, 5.0 * rows), squeeze=False)
    for ax, t in zip(axes.ravel(), tables):
        panel(ax, t, colour_of)
    for ax in axes.ravel()[len(tables):]:
        ax.axis("off")
    m = res["machine"]
    fig.suptitle("gimp-gpufx vs peers — %s, %s cores (%s)" % (m["cpu"], m["cores"], m["date"]),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    os.makedirs(os.path.dirname(os.path.abspath(sys.argv[2])), exist_ok=True)
    fig.savefig(sys.argv[2], dpi=110)
    print("plot: %s" % sys.argv[2])


if __name__ == "__main__":
    main()
