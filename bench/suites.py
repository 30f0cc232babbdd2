"""The benchmark suites, one per plug-in.  Each returns tables of rows; a row is ours or
a peer's figure for one size (its `group`), and the printer turns ours into ratios
against every peer of the same group.  Same images for everybody, made once by
images.Workdir; in-process and whole-process figures are separate tables."""

import os

import numpy as np

import peers
from timing import NA, ours_inprocess, time_call, time_cmd


def row(group, impl, kind, backend="-", **kw):
    r = dict(group=group, impl=impl, kind=kind, backend=backend, time=None, passthru=None,
             net=None, na=None, check="", mpix=None, threads=None)
    r.update(kw)
    return r


def measure(r, fn):
    """Fills r from fn() -> dict of fields; an NA becomes the row's reason."""
    try:
        r.update(fn())
    except NA as e:
        r["na"] = str(e)
    return r


def size_name(h, w):
    return "%dx%d" % (w, h)


class Ctx:
    def __init__(self, gpufx, work, quick, repeat_in, repeat_whole, log):
        self.gpufx, self.work, self.quick = gpufx, work, quick
        self.repeat_in, self.repeat_whole = repeat_in, repeat_whole
        self.log = log
        self.backends = ["cpu", "gpu"]
        self.gpu_na = None  # reason ours/gpu is n/a on this machine, found once
        self.gpu_name = None

    def probe_gpu(self):
        """`gpufx bench --gpu-name`: the GPU's name, or "none (why)"."""
        import subprocess
        try:
            p = subprocess.run([self.gpufx, "bench", "--gpu-name"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60)
            line = (p.stdout.strip().splitlines() or [""])[0]
            if p.returncode != 0 or not line:
                line = "none (gpufx bench --gpu-name: exit %d)" % p.returncode
        except (OSError, subprocess.SubprocessError) as e:
            line = "none (%s: %s)" % (os.path.basename(self.gpufx), e.__class__.__name__)
        self.gpu_name = line
        if line.startswith("none"):
            why = line[4:].strip()
            if why.startswith("(") and why.endswith(")"):
                why = why[1:-1]
            self.gpu_na = "no usable GPU: " + why
        return line

    def out(self, name):
        return self.work.file("out-" + name)


def _ours_rows(ctx, table, group, filt, src, opts, whole_cmd, mpix, outfile, check=None,
               threshold=False, one_thread=True):
    """Our in-process row(s) and whole-process row(s) for one input; check(outfile) -> a
    string comparing our written output with a peer's, for the whole-process row.  The
    whole-process baseline is `gpufx bench --copy`: our own start-up, decode and encode
    (with --threshold: a black-and-white picture, like a halftone's)."""
    pass_s = None
    try:
        pass_s = time_cmd([ctx.gpufx, "bench", "--copy", src, outfile] +
                          (["--threshold"] if threshold else []), ctx.repeat_whole,
                          outfile=outfile)[0]
    except NA:
        pass
    # in-process: all cores, one core (how far the parallel path scales), the GPU
    for be, threads in (("cpu", None), ("cpu", 1), ("gpu", None)):
        if threads and not one_thread:
            continue
        label = "ours %s" % be
        r = row(group, label + (", 1 thread" if threads else ""), "ours", be, mpix=mpix)
        if be == "gpu" and ctx.gpu_na:
            r["na"] = ctx.gpu_na
        else:
            def inproc(be=be, threads=threads):
                t, n, tmin = ours_inprocess(ctx.gpufx, filt, src, be, ctx.repeat_in, opts,
                                            threads)
                return dict(time=t, threads=n, min=tmin)
            measure(r, inproc)
        table["in"].append(r)
    for be in ctx.backends:
        label = "ours %s" % be
        w = row(group, label, "ours", be, mpix=mpix, passthru=pass_s)
        if be == "gpu" and ctx.gpu_na:
            w["na"] = ctx.gpu_na
        else:
            cmd = whole_cmd + ["--backend", be, "--quiet"]

            def whole(cmd=cmd):
                t, _ = time_cmd(cmd, ctx.repeat_whole, outfile=outfile)
                return dict(time=t, net=None if pass_s is None else t - pass_s,
                            check=_run_check(check, outfile))
            measure(w, whole)
        table["whole"].append(w)


def _run_check(check, outfile):
    if check is None:
        return ""
    try:
        return check(outfile)
    except Exception as e:  # an unreadable output is a finding, not a crash
        return "output unreadable: %s" % e


def _peer_whole(ctx, table, group, impl, cmd, pass_cmd, mpix, outfile, env=None):
    r = row(group, impl, "peer", mpix=mpix)

    def whole():
        t, _ = time_cmd(cmd, ctx.repeat_whole, env=env, outfile=outfile)
        p = None
        if pass_cmd:
            p, _ = time_cmd(pass_cmd, ctx.repeat_whole, env=env, outfile=outfile)
        return dict(time=t, passthru=p, net=None if p is None else t - p)
    table["whole"].append(measure(r, whole))
    return r


def copy_floor(ctx, group, a, mpix):
    """The memory floor of one pass over the image: numpy copies it (read + write)."""
    dst = np.empty_like(a)
    r = row(group, "floor: memory copy of the image", "base", mpix=mpix)
    return measure(r, lambda: dict(time=time_call(lambda: np.copyto(dst, a), ctx.repeat_in)[0]))


def new_table(title, in_note, whole_note):
    return {"title": title, "in": [], "whole": [], "in_note": in_note, "whole_note": whole_note}


# --- halftone -----------------------------------------------------------------------

def halftone(ctx):
    from PIL import Image
    t = new_table("Halftone: Floyd-Steinberg, 2 levels, gray 8-bit (camera, mirror-tiled)",
                  "compute only, image decoded beforehand",
                  "decode + halftone + PNG encode; baseline = the same tool thresholding "
                  "instead (same decode, same black-and-white encode; ours: `gpufx bench "
                  "--copy --threshold`); net = whole - baseline")
    sides = [1024, 2048] if ctx.quick else [1024, 2048, 4096, 8192]
    conf, bw, menv = peers.magick_setup(ctx.work.path)
    magick_na = peers.missing_tool(peers.MAGICK)
    if not magick_na and not os.path.exists(bw):
        try:
            time_cmd(peers.magick_bw_cmd(bw), 1, env=menv)
        except NA as e:
            magick_na = str(e)
    gegl_na = peers.missing_tool("gegl")
    pil_na = peers.missing_module("PIL")
    for side in sides:
        src, a = ctx.work.gray_png("camera.png", side, side)
        g, mpix = size_name(side, side), side * side / 1e6
        ctx.log("halftone %s" % g)
        out = ctx.out("halftone.png")
        gp = row(g, "GEGL threshold", "base", mpix=mpix)
        if not gegl_na:
            measure(gp, lambda: dict(time=time_cmd(peers.gegl_base_cmd(src, out),
                                                   ctx.repeat_whole, outfile=out)[0]))
        _ours_rows(ctx, t, g, "halftone", src, ["--kernel", "fs"],
                   [ctx.gpufx, "halftone", src, out, "--kernel", "fs"], mpix, out,
                   threshold=True)
        pr = row(g, "Pillow convert('1')", "peer", mpix=mpix, na=pil_na)
        if not pil_na:
            img = Image.fromarray(a)
            def pil():
                tm, times, _ = time_call(lambda: peers.pillow_fs(img), ctx.repeat_in)
                return dict(time=tm, min=min(times))
            measure(pr, pil)
        t["in"].append(pr)
        t["in"].append(copy_floor(ctx, g, a, mpix))
        if pil_na:
            t["whole"].append(row(g, "Pillow convert('1')", "peer", mpix=mpix, na=pil_na))
        else:
            _peer_whole(ctx, t, g, "Pillow convert('1')", peers.pillow_fs_cmd(src, out),
                        peers.pillow_base_cmd(src, out), mpix, out)
        if magick_na:
            t["whole"].append(row(g, "ImageMagick FS -remap", "peer", mpix=mpix, na=magick_na))
        else:
            _peer_whole(ctx, t, g, "ImageMagick FS -remap", peers.magick_fs_cmd(src, out, bw),
                        peers.magick_base_cmd(src, out), mpix, out, env=menv)
        if gegl_na:
            t["whole"].append(row(g, "GEGL gegl:dither FS", "peer", mpix=mpix, na=gegl_na))
        else:
            r = row(g, "GEGL gegl:dither FS", "peer", mpix=mpix, passthru=gp["time"])
            measure(r, lambda: dict(time=time_cmd(peers.gegl_fs_cmd(src, out),
                                                  ctx.repeat_whole, outfile=out)[0]))
            if r["time"] is not None and gp["time"] is not None:
                r["net"] = r["time"] - gp["time"]
            t["whole"].append(r)
    return [t]


# --- local enhance ------------------------------------------------------------------

def enhance(ctx):
    from PIL import Image
    t = new_table("Local enhance: 3rd-edition rule, E=4 k0=0.4 k1=0.02 k2=0.4, gray 8-bit "
                  "3241x3685 (astronaut, mirror-tiled)",
                  "compute only; check = pixels equal to the numpy/scipy reference",
                  "decode + enhance + PNG encode; net = whole - baseline (decode + encode "
                  "without the filter, in the same tool; ours: `gpufx bench --copy`)")
    h, w = 3685, 3241
    src, a = ctx.work.gray_png("astronaut.png", h, w)
    mpix = h * w / 1e6
    out = ctx.out("enhance.png")
    t["in"].append(copy_floor(ctx, "%s n=3" % size_name(h, w), a, mpix))
    for n in (3, 31):
        g = "%s n=%d" % (size_name(h, w), n)
        ctx.log("enhance %s" % g)
        ref = None
        for impl, fn, mod in (("numpy/scipy uniform_filter", peers.enhance_numpy, "scipy"),
                              ("OpenCV cv2.blur", peers.enhance_cv2, "cv2")):
            r = row(g, impl, "peer", mpix=mpix, na=peers.missing_module(mod))
            if not r["na"]:
                def inproc(fn=fn):
                    tm, times, res = time_call(lambda: fn(a, n), ctx.repeat_in)
                    return dict(time=tm, out=res[0], min=min(times))
                measure(r, inproc)
                res = r.pop("out", None)
                if res is not None and ref is None:
                    ref = res
                elif res is not None:
                    r["check"] = "%.4f%% equal" % (100.0 * np.mean(res == ref))
            t["in"].append(r)
            if r["na"]:
                t["whole"].append(row(g, impl, "peer", mpix=mpix, na=r["na"]))
            else:
                imp = "scipy.ndimage" if mod == "scipy" else mod
                _peer_whole(ctx, t, g, impl, peers.enhance_cmd(src, out, fn.__name__, n, imp),
                            peers.enhance_cmd(src, out, "none", n, imp), mpix, out)
        def check(path, ref=ref):
            if ref is None:
                return ""
            got = np.asarray(Image.open(path).convert("L"))
            return "%.4f%% equal" % (100.0 * np.mean(got == ref))
        _ours_rows(ctx, t, g, "enhance", src, ["--window", str(n)],
                   [ctx.gpufx, "enhance", src, out, "--window", str(n)], mpix, out,
                   check)
    return [t]


# --- IIR filter ---------------------------------------------------------------------

_LFILTER_SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from PIL import Image
import scipy.signal  # the baseline imports what the filter run imports
import peers
x = np.asarray(Image.open(sys.argv[2]), dtype=np.float32)
y = peers.lfilter_four(x) if sys.argv[4] == 'four' else x
Image.fromarray(np.ascontiguousarray(y, dtype=np.float32), mode='F').save(sys.argv[3])
"""


def _lfilter_cmd(src, dst, what):
    return [peers.PY, "-c", _LFILTER_SCRIPT, os.path.dirname(os.path.abspath(peers.__file__)),
            src, dst, what]


def _read_float(path):
    from PIL import Image
    img = Image.open(path)
    if img.mode != "F":
        img = img.convert("F")
    return np.asarray(img, dtype=np.float64)


def iir(ctx):
    t = new_table("IIR: 4-quadrant 3x3 separable filter (outer product of 1-D 2nd order), "
                  "gray 32-bit float (camera, mirror-tiled)",
                  "compute only; 1 quadrant = one lfilter pass over rows then columns, "
                  "4 quadrants = the same job as ours (each direction, then the mean)",
                  "decode + filter + float TIFF encode; net = whole - baseline (decode + "
                  "encode in the same tool; ours: `gpufx bench --copy`); check = "
                  "max |ours - lfilter 4q| away from a 16-pixel border")
    filt = ctx.work.file("bench-separable.iir")
    with open(filt, "w") as f:
        f.write(peers.iir_filter_text())
    sides = [2048] if ctx.quick else [2048, 8192]
    scipy_na = peers.missing_module("scipy")
    for side in sides:
        src, x = ctx.work.gray_f32_tiff("camera.png", side, side)
        g, mpix = size_name(side, side), side * side / 1e6
        ctx.log("iir %s" % g)
        out = ctx.out("iir.tiff")
        ref = {}
        t["in"].append(copy_floor(ctx, g, x, mpix))
        for impl, fn in (("lfilter 1 quadrant", peers.lfilter_quadrant),
                         ("lfilter 4 quadrants", peers.lfilter_four)):
            r = row(g, "scipy.signal " + impl, "peer", mpix=mpix, na=scipy_na)
            if not scipy_na:
                def inproc(fn=fn):
                    tm, times, res = time_call(lambda: fn(x), ctx.repeat_in,
                                               warmup=side <= 2048)
                    return dict(time=tm, out=res, min=min(times))
                measure(r, inproc)
                ref[impl] = r.pop("out", None)
            t["in"].append(r)
        if scipy_na:
            t["whole"].append(row(g, "scipy.signal lfilter 4 quadrants", "peer", mpix=mpix,
                                  na=scipy_na))
        else:
            _peer_whole(ctx, t, g, "scipy.signal lfilter 4 quadrants",
                        _lfilter_cmd(src, out, "four"), _lfilter_cmd(src, out, "pass"), mpix, out)
        four = ref.get("lfilter 4 quadrants")

        def check(path, four=four):
            if four is None:
                return ""
            got = _read_float(path)
            b = 16
            return "max diff %.2g" % np.max(np.abs(got[b:-b, b:-b] - four[b:-b, b:-b]))
        _ours_rows(ctx, t, g, "deblur", src, ["--filter", filt],
                   [ctx.gpufx, "deblur", src, out, "--filter", filt], mpix, out, check,
                   one_thread=side <= 2048)
    return [t]


# --- deblur: the whole job ------------------------------------------------------------

def _psnr(path_or_array, sharp, border=16):
    """PSNR away from the border (the peers' FFT/zero-padded borders would dominate)."""
    from PIL import Image
    got = path_or_array
    if isinstance(got, str):
        got = np.asarray(Image.open(got).convert("L"), dtype=np.float64)
    else:
        got = np.clip(np.rint(got * 255.0), 0, 255)
    b = border
    mse = np.mean((got[b:-b, b:-b] - sharp[b:-b, b:-b].astype(np.float64)) ** 2)
    return "PSNR %.2f dB" % (10 * np.log10(255.0 ** 2 / mse)) if mse > 0 else "exact"


def deblur(ctx):
    from PIL import Image
    side = 512 if ctx.quick else 1024
    t = new_table("Deblur, the whole job: camera %dx%d blurred by a Gaussian (sigma %.1f), "
                  "gray 8-bit" % (side, side, peers.DEBLUR_SIGMA),
                  "compute only; peers are given the true PSF (7x7), ours uses the filter its "
                  "own `identify --auto` found; check = PSNR against the sharp photo, "
                  "16-pixel border left out",
                  "decode + deblur + PNG encode (ours: identify --auto, then deblur); net = "
                  "whole - baseline (same interpreter, imports, decode and encode; ours: "
                  "`gpufx bench --copy`)")
    g, mpix = size_name(side, side), side * side / 1e6
    ctx.log("deblur %s" % g)
    sharp = images_gray(ctx, side)
    src = ctx.work.file("camera-%d-blurred.png" % side)
    blurred = peers.blurred_photo(sharp)
    Image.fromarray(blurred).save(src)
    out = ctx.out("deblur.png")
    bx = blurred.astype(np.float64) / 255.0
    t["in"].append(row(g, "no deblurring (blurred input)", "base", mpix=mpix,
                       check=_psnr(bx, sharp)))
    sk_na = peers.missing_module("skimage.restoration")
    for impl, fn in (("skimage richardson_lucy 30 it", peers.richardson_lucy),
                     ("skimage wiener", peers.wiener)):
        r = row(g, impl, "peer", mpix=mpix, na=sk_na)
        if not sk_na:
            def inproc(fn=fn):
                tm, times, res = time_call(lambda: fn(bx), ctx.repeat_in)
                return dict(time=tm, check=_psnr(res, sharp), min=min(times))
            measure(r, inproc)
        t["in"].append(r)
        if sk_na:
            t["whole"].append(row(g, impl, "peer", mpix=mpix, na=sk_na))
        else:
            _peer_whole(ctx, t, g, impl, peers.deblur_cmd(src, out, fn.__name__),
                        peers.deblur_cmd(src, out, "none"), mpix, out)
    filt = ctx.work.file("camera-%d.iir" % side)
    ident = row(g, "ours identify --auto 3x3 (part of the job)", "base", "cpu", mpix=mpix)
    measure(ident, lambda: dict(time=time_cmd(
        [ctx.gpufx, "identify", "--blurred", src, "--auto", "--mask", "3x3", "--output", filt],
        1, outfile=filt)[0]))
    t["whole"].append(ident)
    if ident["na"]:
        for be in ctx.backends:
            t["in"].append(row(g, "ours %s" % be, "ours", be, mpix=mpix,
                               na="no filter: " + ident["na"]))
            t["whole"].append(row(g, "ours %s" % be, "ours", be, mpix=mpix,
                                  na="no filter: " + ident["na"]))
        return [t]
    _ours_rows(ctx, t, g, "deblur", src, ["--filter", filt],
               [ctx.gpufx, "deblur", src, out, "--filter", filt], mpix, out,
               lambda path: _psnr(path, sharp))
    for r in t["whole"]:
        if r["kind"] == "ours" and r is not ident and r["time"] is not None:
            r["time"] += ident["time"]  # the whole job includes finding the filter
            r["net"] = None if r["net"] is None else r["net"] + ident["time"]
            r["impl"] += " (identify + deblur)"
    return [t]


def images_gray(ctx, side):
    return ctx.work.gray_png("camera.png", side, side)[1]


SUITES = {"halftone": halftone, "enhance": enhance, "iir": iir, "deblur": deblur}
