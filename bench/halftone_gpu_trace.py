#!/usr/bin/env python3
"""Reads a GPU halftone trace (GPUFX_HALFTONE_TRACE=file, bench/halftone_gpu_session.sh
part trace): per warp of the rows kernel, the SM clock before and after each chunk's
hand-off wait, and the global timer at start and end.  Prints chunk periods (edge and
interior chunks) and waits of a few strips, and the lag between consecutive strips, the
pipeline's cost per strip.  Usage: halftone_gpu_trace.py trace.bin"""
import struct
import sys

import numpy as np


def load(path):
    data, off, recs = open(path, 'rb').read(), 0, []
    while off < len(data):
        warps, nc, w, h = struct.unpack_from('4i', data, off)
        off += 16
        a = np.frombuffer(data, np.uint32, warps * (8 + 2 * nc), off).reshape(warps, 8 + 2 * nc)
        off += a.nbytes
        recs.append((nc, w, h, a))
    return recs


def main():
    nc, w, h, a = load(sys.argv[1])[-1]  # the last launch
    a = a[np.argsort(a[:, 7])]           # ticket (start) order
    g0 = a[:, 0].astype(np.int64) | a[:, 1].astype(np.int64) << 32
    g1 = a[:, 4].astype(np.int64) | a[:, 5].astype(np.int64) << 32
    c0 = a[:, 2].astype(np.int64)
    ghz = np.median(((a[:, 6].astype(np.int64) - c0) % 2**32) / (g1 - g0))
    n = min(nc, (w + 31 * 5 + 2 + 16 + 15) // 16)  # chunks of K = 2 FS

    def events(i):  # ns from the first start: before and after each chunk's wait
        t = (a[i, 8:8 + 2 * n].astype(np.int64) - c0[i]) % 2**32 / ghz + (g0[i] - g0.min())
        return t[0::2], t[1::2]

    print(f"{w}x{h}: {len(a)} strips, {ghz:.3f} GHz, last strip ends at "
          f"{(g1.max() - g0.min()) / 1e3:.1f} us")
    for i in sorted({0, 1, len(a) // 2, len(a) - 1}):
        before, after = events(i)
        period = np.diff(after)
        print(f"strip {i}: starts {after[0] / 1e3:.1f} us; chunk ns first 14 "
              f"{np.round(period[:14]).astype(int).tolist()}, median {np.median(period):.0f}, "
              f"last 10 {np.round(period[-10:]).astype(int).tolist()}; "
              f"wait ns {np.round((after - before)[1:6]).astype(int).tolist()}")
    for k in (0, 12, n // 2):
        lag = np.diff([events(i)[1][k] for i in range(len(a))])
        print(f"chunk {k}: lag between strips median {np.median(lag) / 1e3:.2f} us "
              f"(min {lag.min() / 1e3:.2f}, max {lag.max() / 1e3:.2f})")


main()
