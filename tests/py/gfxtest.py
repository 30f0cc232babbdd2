"""Shared helpers for the Python test suites (tests/py/test_*.py).

Protocol (scripts/run-tests.sh counts it): one line per check, "PASS name",
"FAIL name: why" or "SKIP name: why"; finish() exits non-zero when a check failed.

    import gfxtest as T
    T.check(a == b, "same pixels", f"{n} differ")
    r = T.run_cli("halftone", src, dst, "--backend", "cpu")
    img = T.load(dst)            # numpy array: HxW or HxWxC, dtype as stored
    T.save(path, array)          # PNG 8/16-bit via OpenCV, float via TIFF, PGM/PPM
    T.finish()
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("GPUFX_BUILD", os.path.join(ROOT, "build"))
GPUFX = os.path.join(BUILD, "gpufx")
SKIMAGE_DATA = "/usr/lib/python3/dist-packages/skimage/data"

_failures = 0


def check(ok, name, why=""):
    """Prints PASS/FAIL for one check; returns ok."""
    global _failures
    if ok:
        print(f"PASS {name}", flush=True)
    else:
        _failures += 1
        print(f"FAIL {name}: {why or 'check failed'}", flush=True)
    return bool(ok)


def skip(name, why):
    print(f"SKIP {name}: {why}", flush=True)


def finish():
    sys.exit(1 if _failures else 0)


def have_cli():
    return os.access(GPUFX, os.X_OK)


def require_cli(suite):
    """Skips the whole suite (and exits) when build/gpufx is missing."""
    if not have_cli():
        skip(suite, f"{GPUFX} not built")
        finish()


def run_cli(*args, env=None, timeout=300):
    """Runs build/gpufx with args; returns CompletedProcess with text stdout/stderr."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([GPUFX, *map(str, args)], capture_output=True, text=True,
                          env=full_env, timeout=timeout)


def tmpdir():
    """A temporary folder (a context manager), removed afterwards."""
    return tempfile.TemporaryDirectory(prefix="gpufx-test-")


def _is_tiff(path):
    return path.lower().endswith((".tif", ".tiff"))


def load(path):
    """Image as stored: HxW (gray) or HxWxC (RGB order, alpha last); uint8, uint16, float32."""
    if _is_tiff(path):
        import tifffile
        return tifffile.imread(path)
    import cv2
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise IOError(f"cannot read {path}")
    if img.ndim == 3 and img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    elif img.ndim == 3 and img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)
    return img


def save(path, img):
    """Writes img keeping its precision: PNG/PGM/PPM for uint8/uint16 (gray, GA via PIL,
    RGB, RGBA), TIFF for float32 (and any dtype)."""
    img = np.ascontiguousarray(img)
    if _is_tiff(path):
        import tifffile
        rgb = img.ndim == 3 and img.shape[2] in (3, 4)
        tifffile.imwrite(path, img, photometric="rgb" if rgb else "minisblack",
                         extrasamples=["unassalpha"] if rgb and img.shape[2] == 4 else None)
        return
    if img.ndim == 3 and img.shape[2] == 2:  # gray + alpha: OpenCV cannot, PIL can (8-bit)
        from PIL import Image
        Image.fromarray(img.astype(np.uint8), "LA").save(path)
        return
    import cv2
    out = img
    if img.ndim == 3 and img.shape[2] == 3:
        out = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
    elif img.ndim == 3 and img.shape[2] == 4:
        out = cv2.cvtColor(img, cv2.COLOR_RGBA2BGRA)
    if not cv2.imwrite(path, out):
        raise IOError(f"cannot write {path}")


# Synthetic images -------------------------------------------------------------------

def _scale(unit, dtype):
    """Unit-range float64 values to dtype (rounded for integers)."""
    if dtype == np.uint8:
        return np.clip(np.round(unit * 255), 0, 255).astype(np.uint8)
    if dtype == np.uint16:
        return np.clip(np.round(unit * 65535), 0, 65535).astype(np.uint16)
    return unit.astype(np.float32)


def ramp(w, h, channels=1, dtype=np.uint8):
    """Diagonal ramp 0..1 (each channel shifted), shaped HxW or HxWxC."""
    y, x = np.mgrid[0:h, 0:w]
    base = (x + y) / max(1, w + h - 2)
    planes = [(base + 0.37 * c) % 1.0 for c in range(channels)]
    unit = planes[0] if channels == 1 else np.stack(planes, axis=2)
    return _scale(unit, dtype)


def noise(w, h, channels=1, dtype=np.uint8, seed=0):
    """Uniform noise over a ramp, so all levels and both error signs occur."""
    rng = np.random.default_rng(seed)
    shape = (h, w) if channels == 1 else (h, w, channels)
    r = ramp(w, h, channels, np.float32).astype(np.float64)
    return _scale(0.6 * r + 0.4 * rng.random(shape), dtype)


ODD_SIZES = [(1, 1), (1, 13), (13, 1), (2, 3), (17, 5), (31, 19)]


def photo(name="camera.png"):
    """Path of a test photograph from python3-skimage, or None."""
    path = os.path.join(SKIMAGE_DATA, name)
    return path if os.path.exists(path) else None


def box_blur(img, r):
    """Mean over (2r+1)^2 windows (valid part only), float64; img HxW."""
    a = np.asarray(img, dtype=np.float64)
    c = np.cumsum(np.cumsum(np.pad(a, ((1, 0), (1, 0))), axis=0), axis=1)
    k = 2 * r + 1
    s = c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]
    return s / (k * k)


def babl_ticks_shuffle(tmp):
    """Builds tests/support/babl_ticks_shuffle.c into tmp; returns the library's path (for
    LD_PRELOAD: babl then picks its conversion chains by a seeded coin, not by timing)."""
    lib = os.path.join(tmp, "babl_ticks_shuffle.so")
    src = os.path.join(ROOT, "tests", "support", "babl_ticks_shuffle.c")
    subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2", src, "-o", lib],
                   check=True)
    return lib
