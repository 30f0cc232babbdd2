"""The peers our filters are measured against, written the faithful way (see
shared/RECIPES.md): what a user would pick to do the same job.

In-process peers are Python functions timed around the computation only (inputs already
decoded in memory).  Whole-process peers are command lines (decode + compute + encode),
each with a pass-through twin that does the same decode and encode without the filter,
so the driver can subtract the I/O where that is fair (for halftoning the baseline is
a plain threshold: same decode, same black-and-white encode)."""

import os
import shutil
import sys

import numpy as np

PY = "/usr/bin/python3"
MAGICK = "/usr/bin/convert"  # a stand-in `convert` may come first on PATH


# --- availability -------------------------------------------------------------------

def missing_module(name):
    """None when `import name` works, else the reason (for an n/a row)."""
    try:
        __import__(name)
        return None
    except Exception as e:  # an absent or broken module both make the peer n/a
        return "python module %s: %s" % (name, e.__class__.__name__)


def missing_tool(path):
    if os.path.isabs(path):
        return None if os.access(path, os.X_OK) else "%s not installed" % path
    return None if shutil.which(path) else "%s not on PATH" % path


# --- halftone -----------------------------------------------------------------------

def pillow_fs(img):
    """Pillow's convert('1'): raster-order integer Floyd-Steinberg, single thread.
    `img` is a PIL image prepared outside the timer."""
    return img.convert("1")


def magick_setup(work):
    """A policy.xml raising Debian's limits (it refuses 8192^2) and the 2-colour map."""
    conf = os.path.join(work, "magick")
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, "policy.xml"), "w") as f:
        f.write('<policymap>\n'
                '  <policy domain="resource" name="memory" value="8GiB"/>\n'
                '  <policy domain="resource" name="map" value="16GiB"/>\n'
                '  <policy domain="resource" name="disk" value="32GiB"/>\n'
                '  <policy domain="resource" name="area" value="4GP"/>\n'
                '  <policy domain="resource" name="width" value="64KP"/>\n'
                '  <policy domain="resource" name="height" value="64KP"/>\n'
                '</policymap>\n')
    bw = os.path.join(conf, "bw.png")
    env = dict(os.environ, MAGICK_CONFIGURE_PATH=conf)
    return conf, bw, env


def magick_fs_cmd(src, dst, bw):
    return [MAGICK, src, "-dither", "FloydSteinberg", "-remap", bw, dst]


def magick_base_cmd(src, dst):
    """Baseline: same decode and same kind of 2-colour encode, a plain threshold instead of
    the diffusion (a photo pass-through would encode a costlier 8-bit PNG)."""
    return [MAGICK, src, "-threshold", "50%", dst]


def magick_bw_cmd(bw):
    return [MAGICK, "xc:black", "xc:white", "+append", bw]


_GEGL_SAVE = ["gegl:convert-format", "format=Y' u8", "gegl:png-save", None, "bitdepth=8"]


def _gegl(src, dst, ops):
    save = list(_GEGL_SAVE)
    save[3] = "path=" + dst
    return ["gegl", src, "--"] + ops + save


def gegl_fs_cmd(src, dst):
    return _gegl(src, dst, ["gegl:dither", "red-levels=2", "green-levels=2", "blue-levels=2",
                            "alpha-levels=256", "dither-method=floyd-steinberg"])


def gegl_base_cmd(src, dst):
    """Baseline for halftoning: decode, threshold, encode a black-and-white 8-bit PNG."""
    return _gegl(src, dst, ["gegl:threshold", "value=0.5"])


def pillow_fs_cmd(src, dst):
    return [PY, "-c", "import sys; from PIL import Image; "
            "Image.open(sys.argv[1]).convert('1').save(sys.argv[2])", src, dst]


def pillow_base_cmd(src, dst):
    return [PY, "-c", "import sys; from PIL import Image; "
            "Image.open(sys.argv[1]).convert('1', dither=Image.Dither.NONE).save(sys.argv[2])",
            src, dst]


# --- local enhance (SPEC section 2, 3rd-edition rule) --------------------------------

ENHANCE = dict(E=4.0, k0=0.4, k1=0.02, k2=0.4)


def _enhance_rule(x, m, s, E, k0, k1, k2):
    """g = E f where m_S <= k0 m_G and k1 s_G <= s_S <= k2 s_G, else f; clipped, rounded."""
    m_g = x.mean(dtype=np.float64)
    s_g = x.std(dtype=np.float64)
    cond = (m <= k0 * m_g) & (s >= k1 * s_g) & (s <= k2 * s_g)
    g = np.where(cond, np.minimum(x * E, 255.0), x)
    return np.rint(g).astype(np.uint8), cond


def enhance_numpy(a, n, E=4.0, k0=0.4, k1=0.02, k2=0.4):
    """numpy/scipy: uniform_filter (running sums) of f and f^2 in float64, mode='reflect'
    (symmetric half-sample, SPEC's border), population sigma."""
    from scipy import ndimage
    x = a.astype(np.float64)
    m = ndimage.uniform_filter(x, n, mode="reflect")
    m2 = ndimage.uniform_filter(x * x, n, mode="reflect")
    s = np.sqrt(np.maximum(m2 - m * m, 0.0))
    return _enhance_rule(x, m, s, E, k0, k1, k2)


def enhance_cv2(a, n, E=4.0, k0=0.4, k1=0.02, k2=0.4):
    """OpenCV: cv2.blur (box filter, running sums) of f and f^2 in float32 with
    BORDER_REFLECT (fedcba|abcdef = SPEC's border); float32 is OpenCV's fast path and
    gives the same decisions as float64 on 8-bit photos (checked in the bench)."""
    import cv2
    x = a.astype(np.float32)
    m = cv2.blur(x, (n, n), borderType=cv2.BORDER_REFLECT)
    m2 = cv2.blur(x * x, (n, n), borderType=cv2.BORDER_REFLECT)
    s = cv2.sqrt(cv2.max(m2 - m * m, 0.0))
    return _enhance_rule(x, m, s, E, k0, k1, k2)


_ENHANCE_SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from PIL import Image
import peers
__import__(sys.argv[6])
a = np.asarray(Image.open(sys.argv[2]).convert('L'))
g = getattr(peers, sys.argv[4])(a, int(sys.argv[5]))[0] if sys.argv[4] != 'none' else a
Image.fromarray(g).save(sys.argv[3], compress_level=1)
"""


def enhance_cmd(src, dst, fn, n, module):
    """fn 'none' is the baseline: same interpreter, imports, decode and encode."""
    return [PY, "-c", _ENHANCE_SCRIPT, os.path.dirname(os.path.abspath(__file__)), src, dst,
            fn, str(n), module]


# --- IIR (SPEC section 3) -----------------------------------------------------------

# A stable separable 2nd-order filter with unit DC gain: 1-D b = (1, -0.6, 0.08) (poles
# 0.4 and 0.2), a sums to b's sum.  The 3x3 quadrant filter is the outer product, so one
# quadrant is exactly an lfilter along the rows then the columns.
IIR_A1 = np.array([0.30, 0.12, 0.06])
IIR_B1 = np.array([1.0, -0.6, 0.08])


def iir_filter_text():
    a2 = np.outer(IIR_A1, IIR_A1).ravel()
    b2 = np.outer(IIR_B1, IIR_B1).ravel()
    lines = ["gpufx-iir 1", "# separable bench filter: outer products of 1-D 2nd-order",
             "mask 3 3"]
    for q in range(1, 5):
        lines.append("q%d a %s" % (q, " ".join("%.17g" % v for v in a2)))
        lines.append("q%d b %s" % (q, " ".join("%.17g" % v for v in b2)))
    return "\n".join(lines) + "\n"


def _lfilter_axis(x, axis):
    """One 1-D pass, started in steady state on the edge value (SPEC: y = x outside)."""
    from scipy import signal
    zi_shape = [1, 1]
    zi_shape[axis] = 2
    edge = np.take(x, [0], axis=axis)
    # Coefficients in the data's type, or lfilter promotes float32 data to float64.
    a1, b1 = IIR_A1.astype(x.dtype), IIR_B1.astype(x.dtype)
    zi = (signal.lfilter_zi(a1, b1).reshape(zi_shape) * edge).astype(x.dtype)
    y, _ = signal.lfilter(a1, b1, x, axis=axis, zi=zi)
    return y


def lfilter_quadrant(x):
    """q1 of the separable filter: scipy.signal.lfilter along rows, then columns."""
    return _lfilter_axis(_lfilter_axis(x, 1), 0)


def lfilter_four(x):
    """The same job as ours: four quadrants (flipped into each direction), then the mean."""
    acc = lfilter_quadrant(x).astype(np.float64)
    acc += lfilter_quadrant(x[:, ::-1])[:, ::-1]
    acc += lfilter_quadrant(x[::-1, ::-1])[::-1, ::-1]
    acc += lfilter_quadrant(x[::-1, :])[::-1, :]
    return (acc * 0.25).astype(x.dtype)


# --- deblur: the whole job, peers that know the blur ----------------------------------

DEBLUR_SIGMA = 1.2


def gaussian_psf(sigma=DEBLUR_SIGMA, radius=3):
    t = np.arange(-radius, radius + 1, dtype=np.float64)
    g = np.exp(-t * t / (2 * sigma * sigma))
    psf = np.outer(g, g)
    return psf / psf.sum()


def blurred_photo(a, sigma=DEBLUR_SIGMA):
    from scipy import ndimage
    b = ndimage.gaussian_filter(a.astype(np.float64), sigma, mode="nearest")
    return np.clip(b + 0.5, 0, 255).astype(np.uint8)


def richardson_lucy(x, iters=30):
    """skimage Richardson-Lucy with the true PSF (an advantage ours does not get)."""
    from skimage import restoration
    return restoration.richardson_lucy(x, gaussian_psf(), num_iter=iters, clip=True)


def wiener(x, balance=0.01):
    from skimage import restoration
    return restoration.wiener(x, gaussian_psf(), balance, clip=True)


_DEBLUR_SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from PIL import Image
import peers
__import__(sys.argv[5])
x = np.asarray(Image.open(sys.argv[2]).convert('L'), dtype=np.float64) / 255.0
y = getattr(peers, sys.argv[4])(x) if sys.argv[4] != 'none' else x
Image.fromarray(np.clip(np.rint(y * 255.0), 0, 255).astype(np.uint8)).save(sys.argv[3])
"""


def deblur_cmd(src, dst, fn, module="skimage.restoration"):
    """fn 'none' is the baseline: same interpreter, imports, decode and encode."""
    return [PY, "-c", _DEBLUR_SCRIPT, os.path.dirname(os.path.abspath(__file__)), src, dst, fn,
            module]


if __name__ == "__main__":
    sys.exit("bench/peers.py is a module; run scripts/bench.sh")
