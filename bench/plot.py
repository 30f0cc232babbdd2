#!/usr/bin/python3
"""Plots bench results: time against image size (megapixels), log-log, ours against
the peers, one panel per plug-in.  Solid lines: in-process (compute only); dashed:
whole-process net of the pass-through (or whole where no pass-through exists).

Usage: bench/plot.py results.json out.png"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"ours cpu": "#d62728", "ours cpu, 1 thread": "#ff9896", "ours gpu": "#9467bd"}
PALETTE = ["#1f77b4", "#2ca02c", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f", "#bcbd22"]


def _series(rows, whole):
    """impl -> [(x, seconds)], with the plotted x per row."""
    series = {}
    for r in rows:
        if r["kind"] == "base" or r["time"] is None:
            continue
        t = r["net"] if whole and r["net"] is not None and r["net"] > 0 else r["time"]
        x = r["mpix"]
        if " n=" in r["group"]:  # local enhance: one size, two windows; plot against n
            x = int(r["group"].rsplit("n=", 1)[1])
        key = r["impl"].split(" (")[0]
        series.setdefault(key, []).append((x, t))
    return series


def panel(ax, table, colour_of):
    enhance = any(" n=" in r["group"] for r in table["in"] + table["whole"])
    for mode, style, mark in (("in", "-", "o"), ("whole", "--", "s")):
        for impl, pts in _series(table[mode], mode == "whole").items():
            pts.sort()
            xs, ys = zip(*pts)
            ax.plot(xs, ys, style, marker=mark, color=colour_of(impl),
                    lw=2.2 if impl.startswith("ours") else 1.2,
                    mfc="none" if mode == "whole" else None,
                    label="%s (%s)" % (impl, "in-process" if mode == "in" else "whole, net"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("window n (3241x3685 image)" if enhance else "megapixels")
    ax.set_ylabel("seconds")
    ax.set_title(table["title"].split(":")[0] + ("" if enhance else ": time vs size"),
                 fontsize=10)
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
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 4.8 * rows), squeeze=False)
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
