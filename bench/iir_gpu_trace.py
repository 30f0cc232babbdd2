#!/usr/bin/env python3
"""Reads a GPU IIR split-kernel trace (GPUFX_IIR_TRACE=file, bench/iir_gpu_session.sh part
trace): per task (row group g, quadrant q) the global timer and SM clock at its start and end,
the cycles its recursion warp waited at the chunk barriers and feeder 0 waited for the
boundary words, and the SM clock at every 4th chunk start.  Prints, per launch, the task
times, the per-step time, and the lag of each group behind the one above (the hand-off
cost).  Usage: iir_gpu_trace.py trace.bin"""
import array
import statistics
import struct
import sys

HDR, EVERY, CH = 16, 4, 8


def load(path):
    data, off, recs = open(path, 'rb').read(), 0, []
    while off < len(data):
        tasks, nc, w, h = struct.unpack_from('4i', data, off)
        off += 16
        a = array.array('I')
        a.frombytes(data[off:off + tasks * (HDR + nc) * 4])
        off += tasks * (HDR + nc) * 4
        recs.append((nc, w, h, [a[i * (HDR + nc):(i + 1) * (HDR + nc)] for i in range(tasks)]))
    return recs


def med(v):
    v = [x for x in v if x == x]
    return statistics.median(v) if v else float('nan')


def pct(v, p):
    v = sorted(x for x in v if x == x)
    return v[min(len(v) - 1, int(p / 100 * len(v)))] if v else float('nan')


def report(nc, w, h, a):
    g0 = [r[0] | r[1] << 32 for r in a]
    g1 = [r[4] | r[5] << 32 for r in a]
    cyc = [(r[6] - r[2]) % 2**32 for r in a]
    ghz = med([c / max(e - s, 1) for c, s, e in zip(cyc, g0, g1)])
    base = min(g0)
    groups = (h + 31) // 32
    # samples written (the rest stay 0): tells the chunk width (8 or 16 columns)
    valid = max(sum(1 for k in range(nc) if r[HDR + k]) for r in a)
    ch = 16 if valid * EVERY * 12 < w + 31 else CH
    n = min(nc, ((w + 31 + ch - 1) // ch + EVERY - 1) // EVERY)
    # ns from the first start at each sampled chunk start
    t = [[((r[HDR + k] - r[2]) % 2**32) / ghz + (s - base) if r[HDR + k] else float('nan')
          for k in range(n)] for r, s in zip(a, g0)]
    print(f"{w}x{h}: {len(a)} tasks, {groups} groups, chunk {ch}, {ghz:.3f} GHz, kernel span "
          f"{(max(g1) - base) / 1e3:.1f} us")
    dur = [(e - s) / 1e3 for s, e in zip(g0, g1)]
    wait_r = [r[7] / max(c, 1) for r, c in zip(a, cyc)]
    wait_f = [r[8] / max(c, 1) for r, c in zip(a, cyc)]
    print(f"  task time us: min {min(dur):.1f} median {med(dur):.1f} max {max(dur):.1f}; "
          f"R waits at barriers {med(wait_r) * 100:.0f}% (median), feeder 0 waits for "
          f"boundary words {med(wait_f) * 100:.0f}%")
    step = [med([ti[k + 1] - ti[k] for k in range(n - 1)]) / (EVERY * ch) for ti in t]
    print(f"  ns per step (median over chunks): median {med(step):.1f}, "
          f"min {min(step):.1f}, max {max(step):.1f}")
    mid = n // 2
    print("    g  q start_us  end_us  dur_us ns/step Rwait% Fwait%  sm  lag@1 lag@mid lag@end (us)")
    picks = sorted({0, 1, 2, 3, 4, 8, 16, 32, 64, 100, 128, 130, 131, 132, 133, 140, 160, 192,
                    224, 254, groups - 1})
    for g in picks:
        if g >= groups:
            continue
        for q in range(4):
            i = g * 4 + q
            if i >= len(a):
                continue
            lag = ['', '', '']
            if g > 0:
                for k, c in enumerate((1, mid, n - 2)):
                    lag[k] = f"{(t[i][c] - t[i - 4][c]) / 1e3:.2f}"
            print(f"  {g:3d} {q:2d} {(g0[i] - base) / 1e3:8.1f} {(g1[i] - base) / 1e3:7.1f} "
                  f"{dur[i]:7.1f} {step[i]:7.1f} {wait_r[i] * 100:6.0f} {wait_f[i] * 100:6.0f} "
                  f"{a[i][3]:3d} {lag[0]:>6} {lag[1]:>6} {lag[2]:>6}")
    lag = [(t[i][mid] - t[i - 4][mid]) / 1e3 for i in range(4, groups * 4)]
    print(f"  lag at the middle chunk per hand-off (us): median {med(lag):.2f}, "
          f"p10 {pct(lag, 10):.2f}, p90 {pct(lag, 90):.2f} "
          f"= {med(lag) * 1e3 / med(step):.0f} steps of {med(step):.1f} ns")


def main():
    for rec in load(sys.argv[1]):
        report(*rec)


if __name__ == '__main__':
    main()
