"""Floyd-Steinberg from `gpufx halftone` against Pillow's convert('1') (integer raster-order
FS) on real photographs and a ramp: not bit-exact (Pillow rounds its error to integers),
but the tone must agree: the same ink density overall and in every 16x16 block."""
import os

import numpy as np
from PIL import Image

import gfxtest as T


def compare(name, gray, tmp):
    src, out = os.path.join(tmp, "in.png"), os.path.join(tmp, "out.png")
    T.save(src, gray)
    r = T.run_cli("halftone", src, out, "--backend", "cpu", "--quiet")
    if r.returncode != 0:
        T.check(False, f"{name}: gpufx ran", r.stderr.strip())
        return
    ours = T.load(out).astype(np.float64) / 255.0
    pillow = np.asarray(Image.fromarray(gray).convert("1"), dtype=np.float64)
    density = abs(ours.mean() - pillow.mean())
    T.check(density < 0.002, f"{name}: same overall density as Pillow",
            f"ours {ours.mean():.4f}, Pillow {pillow.mean():.4f}")
    h, w = (s // 16 * 16 for s in gray.shape)

    def blocks(a):
        return a[:h, :w].reshape(h // 16, 16, w // 16, 16).mean(axis=(1, 3))

    worst = np.abs(blocks(ours) - blocks(pillow)).max()
    tone = np.abs(blocks(ours) - blocks(gray / 255.0)).max()
    T.check(worst < 0.05 and tone < 0.05, f"{name}: 16x16 block tone as Pillow's and input's",
            f"worst block vs Pillow {worst:.3f}, vs input {tone:.3f}")


def main():
    T.require_cli("halftone vs Pillow")
    with T.tmpdir() as tmp:
        for photo in ("camera.png", "moon.png", "text.png"):
            path = T.photo(photo)
            if not path:
                T.skip(f"{photo} vs Pillow", "python3-skimage data not installed")
                continue
            compare(photo, np.asarray(Image.open(path).convert("L")), tmp)
        compare("ramp 256x64", T.ramp(256, 64, 1, np.uint8), tmp)
    T.finish()


if __name__ == "__main__":
    main()
