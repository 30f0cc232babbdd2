"""Timing helpers shared by the suites: medians of repeated runs, in-process (a Python
callable) and whole-process (a command line), and our own in-process figures from
`gpufx bench FILTER --input FILE --tsv`.  Nothing here raises on a missing tool: every
failure becomes a reason string that the tables print as "n/a (reason)"."""

import os
import statistics
import subprocess
import time


SLOW_S = 15.0  # whole-process runs slower than this are measured once


class NA(Exception):
    """A figure that cannot be measured here; str() is the reason shown in the table."""


def median(xs):
    return statistics.median(xs) if xs else None


def time_call(fn, repeat, warmup=True):
    """Median seconds of fn() over `repeat` runs (after one untimed warm-up when the
    first run is short enough that warming up costs little); also returns the result."""
    out = None
    if warmup:
        t = time.perf_counter()
        out = fn()
        if time.perf_counter() - t > 3.0:
            repeat = max(1, repeat - 1)  # slow peer: the warm-up run counts as one
            times = [time.perf_counter() - t]
        else:
            times = []
    else:
        times = []
    while len(times) < repeat:
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return median(times), times, out


def _first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:160]
    return ""


def run_cmd(cmd, env=None, timeout=900):
    """Runs cmd once; returns seconds, raises NA with the tool's message on failure."""
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout)
    except FileNotFoundError:
        raise NA("%s not found" % cmd[0])
    except subprocess.TimeoutExpired:
        raise NA("%s ran past %d s" % (os.path.basename(cmd[0]), timeout))
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise NA("%s exit %d: %s" % (os.path.basename(cmd[0]), p.returncode,
                                     _first_line(p.stderr) or _first_line(p.stdout)))
    return dt


def time_cmd(cmd, repeat, env=None, outfile=None):
    """Median wall seconds of a whole process over `repeat` runs (one when the first takes
    more than SLOW_S); checks the output file exists when one is named (some tools exit 0
    without writing)."""
    times = []
    while len(times) < repeat:
        if outfile and os.path.exists(outfile):
            os.unlink(outfile)
        times.append(run_cmd(cmd, env))
        if times[0] > SLOW_S:
            repeat = 1  # a run this slow is measured once
        if outfile and not os.path.exists(outfile):
            raise NA("%s wrote no %s" % (os.path.basename(cmd[0]), os.path.basename(outfile)))
    return median(times), times


def ours_inprocess(gpufx, filt, src, backend, repeat, options=(), threads=None):
    """Our compute-only time from `gpufx bench FILTER --input SRC --tsv`: the image is
    decoded once, then the filter's apply() is timed `repeat` times in the process.
    Returns (median seconds, threads, min seconds)."""
    if not os.access(gpufx, os.X_OK):
        raise NA("%s not built" % gpufx)
    cmd = [gpufx, "bench", filt, "--input", src, "--repeat", str(repeat), "--tsv",
           "--backend", backend] + list(options)
    env = dict(os.environ, GPUFX_THREADS=str(threads)) if threads else None
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        why = _first_line(p.stderr) or "exit %d" % p.returncode
        raise NA("gpufx bench %s: %s" % (filt, why.split("n/a: ", 1)[-1]))
    for line in p.stdout.splitlines():
        f = line.split("\t")
        # filter  WxH  backend-used  median_s  min_s  repeats  threads
        if len(f) >= 7 and f[0] == filt:
            if f[2] != backend:
                raise NA("asked for %s, ran on %s" % (backend, f[2]))
            return float(f[3]), int(f[6]), float(f[4])
    raise NA("gpufx bench %s printed no timing line" % filt)
