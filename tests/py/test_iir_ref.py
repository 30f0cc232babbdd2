"""`gpufx deblur --backend cpu` against scipy.signal.lfilter for separable quadrant filters.

With b(k1,k2) = p[k1] r[k2] and a(k1,k2) = pa[k1] ra[k2], each quadrant is the 1-D IIR
filter pa/p down the columns followed by ra/r along the rows, run in that quadrant's
direction.  The reference pads the image far out by edge replication, runs lfilter along
each axis in each direction and averages the four quadrants; away from the borders (where
the boundary transients have died out) it must agree with ours to float precision.  Real
photographs (camera, astronaut in colour) as float TIFF in and out; 16-bit PNG within one
level; different filters per quadrant, so the flips are checked too."""
import os

import numpy as np
from scipy import signal

import gfxtest as T

PAD, BORDER = 160, 60   # transients decay as 0.6^60 < 1e-13 before the compared area

# Per quadrant: (p, pa) down the columns, (r, ra) along the rows; sum(pa) = sum(p) and
# sum(ra) = sum(r) give unit DC gain.  Poles at most 0.6 in modulus.
QUAD = [
    (([1, -0.5], [1.4, -0.9]), ([1, -0.6, 0.08], [1.8, -1.6, 0.28])),
    (([1, 0.3], [1.6, -0.3]), ([1, -0.4], [1.2, -0.6])),
    (([1, -0.2, -0.15], [0.9, -0.1, -0.15]), ([1, 0.5, 0.06], [2.0, -0.8, 0.36])),
    (([1, -0.45], [0.55, 0.0]), ([1, -0.3, 0.0], [1.0, -0.5, 0.2])),
]


def write_filter(path):
    m1 = max(len(p) for (p, _), _ in QUAD)
    m2 = max(len(r) for _, (r, _) in QUAD)
    lines = ["# separable test filters", "gpufx-iir 1", f"mask {m1} {m2}"]
    for q, ((p, pa), (r, ra)) in enumerate(QUAD):
        def pad(v, n):
            return list(v) + [0.0] * (n - len(v))
        a = np.outer(pad(pa, m1), pad(ra, m2))
        b = np.outer(pad(p, m1), pad(r, m2))
        lines.append(f"q{q + 1} a " + " ".join(repr(float(v)) for v in a.ravel()))
        lines.append(f"q{q + 1} b " + " ".join(repr(float(v)) for v in b.ravel()))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def reference(plane):
    """Mean of the four quadrant outputs of one float64 plane, by lfilter."""
    x = np.pad(plane, PAD, mode="edge")
    outs = []
    for q, ((p, pa), (r, ra)) in enumerate(QUAD):
        flip_v, flip_h = q in (2, 3), q in (1, 2)
        z = x[::-1] if flip_v else x
        z = z[:, ::-1] if flip_h else z
        y = signal.lfilter(pa, p, z, axis=0)
        y = signal.lfilter(ra, r, y, axis=1)
        y = y[::-1] if flip_v else y
        y = y[:, ::-1] if flip_h else y
        outs.append(y[PAD:-PAD, PAD:-PAD].astype(np.float32).astype(np.float64))
    return (outs[0] + outs[1] + outs[2] + outs[3]) / 4.0


def interior(a):
    return a[BORDER:-BORDER, BORDER:-BORDER]


def run(d, img, name, ext):
    src, dst = os.path.join(d, f"{name}-in.{ext}"), os.path.join(d, f"{name}-out.{ext}")
    T.save(src, img)
    r = T.run_cli("deblur", src, dst, "--filter", os.path.join(d, "sep.iir"), "--backend",
                  "cpu", "--quiet")
    if not T.check(r.returncode == 0, f"{name}: gpufx deblur ran", r.stderr.strip()):
        return None
    return T.load(dst)


def main():
    T.require_cli("py/test_iir_ref")
    import cv2
    camera = cv2.imread(os.path.join(T.SKIMAGE_DATA, "camera.png"), cv2.IMREAD_GRAYSCALE)
    astro = cv2.cvtColor(cv2.imread(os.path.join(T.SKIMAGE_DATA, "astronaut.png")),
                         cv2.COLOR_BGR2RGB)
    with T.tmpdir() as d:
        write_filter(os.path.join(d, "sep.iir"))
        cam_f = (camera / 255.0).astype(np.float32)
        out = run(d, cam_f, "camera-float", "tif")
        if out is not None:
            ref = reference(cam_f.astype(np.float64))
            err = np.abs(interior(out.astype(np.float64)) - interior(ref)).max()
            T.check(err < 2e-5, "camera float: equals lfilter along each axis away from "
                    "the borders", f"max difference {err:.3g}")
            T.check(np.abs(out - cam_f).mean() > 1e-3, "camera float: the filter changed "
                    "the image", "output equals input")
        astro_f = (astro[::2, ::2] / 255.0).astype(np.float32)
        out = run(d, astro_f, "astronaut-rgb-float", "tif")
        if out is not None:
            worst = max(np.abs(interior(out[..., c].astype(np.float64))
                               - interior(reference(astro_f[..., c].astype(np.float64)))).max()
                        for c in range(3))
            T.check(worst < 2e-5, "astronaut RGB float: every channel equals lfilter",
                    f"max difference {worst:.3g}")
        cam16 = (camera.astype(np.uint16) * 257)[100:400, 50:450]
        out = run(d, cam16, "camera-16bit", "png")
        if out is not None:
            ref = np.clip(reference((cam16 / 65535.0).astype(np.float32).astype(np.float64)),
                          0, 1) * 65535
            err = np.abs(interior(out.astype(np.float64)) - interior(ref)).max()
            T.check(err <= 1.0, "camera 16-bit: within one level of lfilter (rounded, "
                    "clipped)", f"max difference {err:.3g} levels")
    T.finish()


main()
