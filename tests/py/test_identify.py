"""gpufx identify (SPEC sections 3-4, issue 7): identification on a synthetically blurred
photograph, then gpufx deblur, must bring it measurably closer to the original; PSNR and
SSIM are computed here with scikit-image (independent of our code) and printed.  Also:
the identified filter passes `gpufx stability`, the fragment picture, clear errors for
singular data and bad usage."""
import os

import numpy as np
from PIL import Image
from scipy import ndimage
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

import gfxtest as T

T.require_cli("identify")

CAMERA = os.path.join(T.SKIMAGE_DATA, "camera.png")


def metrics(ref, img):
    ref = ref.astype(np.float64) / 255
    img = img.astype(np.float64) / 255
    return (peak_signal_noise_ratio(ref, img, data_range=1.0),
            structural_similarity(ref, img, data_range=1.0))


def blurred_camera(tmp, sigma):
    sharp = T.load(CAMERA)
    blur = ndimage.gaussian_filter(sharp.astype(np.float64), sigma, mode="nearest")
    path = os.path.join(tmp, f"camera-blur{sigma}.png")
    T.save(path, np.clip(blur + 0.5, 0, 255).astype(np.uint8))
    return sharp, T.load(path), path


def identify_and_deblur(tmp, name, blurred_path, *mode):
    filt = os.path.join(tmp, name + ".iir")
    out = os.path.join(tmp, name + ".png")
    r = T.run_cli("identify", "--blurred", blurred_path, *mode, "--output", filt)
    if r.returncode != 0:
        return None, r.stderr.strip()
    d = T.run_cli("deblur", blurred_path, out, "--filter", filt, "--backend", "cpu", "--quiet")
    if d.returncode != 0:
        return None, d.stderr.strip()
    return (filt, T.load(out), r.stdout), ""


def dc_gains(path):
    """sum(a) / sum(b) of each quadrant of a filter file."""
    coef, key = {}, None
    for line in open(path):
        words = line.split("#")[0].split()
        if words and words[0][:1] == "q" and words[1:2] in (["a"], ["b"]):
            key, words = (words[0], words[1]), words[2:]
            coef[key] = []
        if key and words:
            coef[key] += [float(w) for w in words]
    return [sum(coef[(q, "a")]) / sum(coef[(q, "b")]) for q in ("q1", "q2", "q3", "q4")]


def check_flat_kept(tmp, label, filt):
    """A deblurring filter keeps flat areas: identify sets each quadrant's DC gain to 1
    (the fits left it 1 +- 1%, and a flat 200 came out 201)."""
    gains = dc_gains(filt)
    T.check(all(abs(g - 1) < 1e-12 for g in gains), f"identify_{label}_unit_dc_gain",
            f"sum(a) / sum(b) = {gains}")
    for level in (37, 200):
        flat, out = os.path.join(tmp, "flat.png"), os.path.join(tmp, "flat-out.png")
        T.save(flat, np.full((40, 56), level, np.uint8))
        d = T.run_cli("deblur", flat, out, "--filter", filt, "--backend", "cpu", "--quiet")
        got = np.unique(T.load(out)) if d.returncode == 0 else d.stderr
        T.check(d.returncode == 0 and list(got) == [level],
                f"identify_{label}_keeps_flat_{level}", f"{level} became {got}")


def check_improvement(tmp, label, sigma, mode, min_gain_db):
    sharp, blur, path = blurred_camera(tmp, sigma)
    res, why = identify_and_deblur(tmp, label, path, *mode)
    if not T.check(res is not None, f"identify_deblur_{label}_runs", why):
        return None
    filt, out, report = res
    p0, s0 = metrics(sharp, blur)
    p1, s1 = metrics(sharp, out)
    print(f"# {label}: sigma {sigma}: blurred PSNR {p0:.2f} dB SSIM {s0:.4f} -> deblurred "
          f"PSNR {p1:.2f} dB SSIM {s1:.4f}")
    T.check(p1 >= p0 + min_gain_db, f"identify_deblur_{label}_psnr_gain",
            f"PSNR {p0:.2f} -> {p1:.2f} dB, wanted a gain of {min_gain_db} dB")
    T.check(s1 >= s0 + 0.01, f"identify_deblur_{label}_ssim_gain", f"SSIM {s0:.4f} -> {s1:.4f}")
    check_flat_kept(tmp, label, filt)
    return filt, report


def test_reference_and_auto():
    with T.tmpdir() as tmp:
        res = check_improvement(tmp, "reference_ls", 1.2, ["--sharp", CAMERA], 1.5)
        if res:
            st = T.run_cli("stability", res[0])
            T.check(st.returncode == 0 and st.stdout.count(" stable margin") == 4,
                    "identified_filter_is_stable", st.stdout + st.stderr)
            T.check("condition number" in res[1] and "residual (RMS)" in res[1],
                    "identify_prints_residual_and_condition", res[1])
        check_improvement(tmp, "reference_lad", 1.2, ["--sharp", CAMERA, "--method", "lad"], 1.0)
        check_improvement(tmp, "auto_ls", 1.2, ["--auto"], 1.0)
        check_improvement(tmp, "auto_ls_sigma2", 2.0, ["--auto"], 1.0)
        check_improvement(tmp, "auto_5x5", 1.2, ["--auto", "--mask", "5x5"], 1.0)


def test_pixel_doubled():
    """An image enlarged 2x by pixel doubling (as skimage's moon.png is): its system has
    more equations than identify keeps, and keeping every 2nd of rows of 62 equations kept
    one column parity, where two columns of the system are equal ('singular')."""
    with T.tmpdir() as tmp:
        half = T.load(CAMERA)[::2, ::2]
        sharp = np.repeat(np.repeat(half, 2, axis=0), 2, axis=1)
        blur = ndimage.gaussian_filter(sharp.astype(np.float64), 1.2, mode="nearest")
        sharp_path, blur_path = os.path.join(tmp, "sharp2x.png"), os.path.join(tmp, "blur2x.png")
        T.save(sharp_path, sharp)
        T.save(blur_path, np.clip(blur + 0.5, 0, 255).astype(np.uint8))
        for method in ("ls", "lad"):
            res, why = identify_and_deblur(tmp, "doubled_" + method, blur_path, "--sharp",
                                           sharp_path, "--method", method)
            if T.check(res is not None, f"pixel_doubled_{method}_identifies", why):
                p0, _ = metrics(sharp, T.load(blur_path))
                p1, _ = metrics(sharp, res[1])
                T.check(p1 >= p0 + 0.5, f"pixel_doubled_{method}_deblurs",
                        f"PSNR {p0:.2f} -> {p1:.2f} dB")


def test_fragments_picture():
    with T.tmpdir() as tmp:
        _, _, path = blurred_camera(tmp, 1.5)
        pic = os.path.join(tmp, "fragments.png")
        r = T.run_cli("identify", "--blurred", path, "--auto", "--output",
                      os.path.join(tmp, "f.iir"), "--fragments", pic)
        ok = r.returncode == 0 and os.path.exists(pic)
        if T.check(ok, "fragments_picture_written", r.stderr):
            img = T.load(pic)
            coloured = np.count_nonzero((img[..., 0] != img[..., 1]) | (img[..., 1] != img[..., 2]))
            T.check(img.shape == (512, 512, 3) and coloured > 500, "fragments_picture_marks_edges",
                    f"shape {img.shape}, {coloured} coloured pixels")


def test_load_notes():
    """What loading did to an input is said, as the filters say it: an indexed blurred
    image converted, and the sharp one's own note after it."""
    with T.tmpdir() as tmp:
        sharp, _, path = blurred_camera(tmp, 1.5)
        blurred_idx, sharp_idx = os.path.join(tmp, "b-idx.png"), os.path.join(tmp, "s-idx.png")
        for src, dst in ((path, blurred_idx), (CAMERA, sharp_idx)):
            Image.open(src).convert("L").quantize(200).save(dst)
        r = T.run_cli("identify", "--blurred", blurred_idx, "--sharp", sharp_idx, "--output",
                      os.path.join(tmp, "n.iir"))
        notes = [line for line in r.stderr.splitlines() if "note:" in line]
        T.check(r.returncode == 0 and len(notes) == 2 and "b-idx.png is an indexed image"
                in notes[0] and "s-idx.png is an indexed image" in notes[1],
                "identify_says_its_load_notes", r.stderr.strip())


def test_errors():
    with T.tmpdir() as tmp:
        flat, flat2 = os.path.join(tmp, "flat.png"), os.path.join(tmp, "flat2.png")
        T.save(flat, np.full((80, 80), 128, np.uint8))
        T.save(flat2, np.full((80, 80), 100, np.uint8))
        out = os.path.join(tmp, "x.iir")
        r = T.run_cli("identify", "--blurred", flat, "--sharp", flat2, "--output", out)
        T.check(r.returncode == 2 and "singular" in r.stderr and r.stderr.count("\n") == 1
                and not os.path.exists(out), "constant_image_singular_exit_2",
                f"status {r.returncode}: {r.stderr}")
        # The blurred picture given as its own reference: said so, not "singular".
        textured = os.path.join(tmp, "textured.png")
        T.save(textured, T.noise(80, 80))
        r = T.run_cli("identify", "--blurred", textured, "--sharp", textured, "--output", out)
        T.check(r.returncode == 2 and "same picture" in r.stderr and r.stderr.count("\n") == 1
                and not os.path.exists(out), "reference_equal_to_blurred_exit_2_says_so",
                f"status {r.returncode}: {r.stderr}")
        r = T.run_cli("identify", "--blurred", flat, "--auto", "--output", out)
        T.check(r.returncode == 2 and "straight edges" in r.stderr, "no_edges_exit_2",
                f"status {r.returncode}: {r.stderr}")
        r = T.run_cli("identify", "--blurred", flat, "--output", out)
        T.check(r.returncode == 2 and "--auto" in r.stderr, "sharp_or_auto_required",
                f"status {r.returncode}: {r.stderr}")
        small = os.path.join(tmp, "small.png")
        T.save(small, np.zeros((40, 60), np.uint8))
        r = T.run_cli("identify", "--blurred", flat, "--sharp", small, "--output", out)
        T.check(r.returncode == 2 and "same area" in r.stderr, "size_mismatch_exit_2", r.stderr)
        r = T.run_cli("identify", "--blurred", flat, "--auto", "--mask", "8x3", "--output", out)
        T.check(r.returncode == 2 and "--mask 8x3" in r.stderr and "1 to 7" in r.stderr,
                "mask_out_of_range_exit_2, naming the option and the range", r.stderr)
        # Images too small to identify from: one clear line each, no file written.
        tiny = os.path.join(tmp, "tiny.png")
        T.save(tiny, T.noise(4, 4))
        for mode, said in ((["--sharp", tiny], "4 x 4 is too small for a 3 x 3 mask"),
                           (["--auto"], "4 x 4 is too small for a 3 x 3 mask"),
                           (["--auto", "--mask", "1x1"], "smaller than one 32 x 32 fragment")):
            r = T.run_cli("identify", "--blurred", tiny, *mode, "--output", out)
            T.check(r.returncode == 2 and said in r.stderr and r.stderr.count("\n") == 1
                    and not os.path.exists(out), f"tiny_image_{'_'.join(mode[:1] + mode[2:])}"
                    f"_exit_2: {said}", f"status {r.returncode}: {r.stderr}")


def read_filter(path):
    """{(quadrant, 'a' or 'b'): M1 x M2 array} of a filter file."""
    coef, key = {}, None
    for line in open(path):
        words = line.split("#")[0].split()
        if words[:1] == ["mask"]:
            shape = (int(words[1]), int(words[2]))
        elif words and words[0][:1] == "q" and words[1:2] in (["a"], ["b"]):
            key, words = (int(words[0][1]), words[1]), words[2:]
            coef[key] = []
        if key and words and words[0] != "mask":
            coef[key] += [float(w) for w in words]
    return {k: np.array(v).reshape(shape) for k, v in coef.items()}


def quadrant_filter(x, a, b, q):
    """SPEC 3: q1's recursion (x edge-replicated and y = x outside) on x flipped into
    quadrant q's direction, flipped back."""
    flip_rows, flip_cols = [(False, False), (False, True), (True, True), (True, False)][q - 1]
    xi = x[::-1] if flip_rows else x
    xi = xi[:, ::-1] if flip_cols else xi
    m1, m2 = a.shape
    xp = np.pad(xi.astype(np.float64), ((m1 - 1, 0), (m2 - 1, 0)), mode="edge")
    yp = xp.copy()
    h, w = xi.shape
    for i in range(m1 - 1, m1 - 1 + h):
        for j in range(m2 - 1, m2 - 1 + w):
            xs = xp[i - m1 + 1:i + 1, j - m2 + 1:j + 1][::-1, ::-1]
            ys = yp[i - m1 + 1:i + 1, j - m2 + 1:j + 1][::-1, ::-1]
            yp[i, j] = (a * xs).sum() - (b * ys).sum() + b[0, 0] * ys[0, 0]
    y = yp[m1 - 1:, m2 - 1:]
    y = y[::-1] if flip_rows else y
    return y[:, ::-1] if flip_cols else y


def test_exact_quadrant():
    """Each quadrant is identified on its own (SPEC 3): where a stable unit-gain filter in
    quadrant q's direction made the sharp image, quadrant q comes back as that filter
    (lambda 0), however the other three, which cannot fit such data, are regularised."""
    rng = np.random.default_rng(7)
    x = rng.random((96, 96)).astype(np.float32)
    b = np.array([[1, -0.3, 0.05], [-0.25, 0.08, 0.0], [0.03, 0.0, -0.01]])
    a = np.array([[1.2, -0.2, 0.05], [-0.3, 0.1, 0.0], [0.0, 0.02, 0.0]])
    a *= b.sum() / a.sum()
    with T.tmpdir() as tmp:
        blurred, sharp = os.path.join(tmp, "x.tif"), os.path.join(tmp, "y.tif")
        T.save(blurred, x)
        for q in (1, 3):
            T.save(sharp, quadrant_filter(x, a, b, q).astype(np.float32))
            out = os.path.join(tmp, f"q{q}.iir")
            r = T.run_cli("identify", "--blurred", blurred, "--sharp", sharp, "--output", out)
            if r.returncode != 0:
                T.check(False, f"exact_quadrant_q{q}", r.stderr.strip())
                continue
            f = read_filter(out)
            err = max(np.abs(f[(q, "a")] - a).max(), np.abs(f[(q, "b")] - b).max())
            T.check(err < 1e-5 and f"q{q} regularisation: lambda 0\n" in r.stdout,
                    f"exact_quadrant_q{q}: data made by a q{q} filter give it back (max error "
                    f"{err:.1e}), lambda 0 for q{q} alone", r.stdout)


test_reference_and_auto()
test_exact_quadrant()
test_pixel_doubled()
test_fragments_picture()
test_load_notes()
test_errors()
T.finish()
