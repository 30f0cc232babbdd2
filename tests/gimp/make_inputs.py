"""Test inputs for the GIMP tests, cut from skimage's photographs at odd sizes:
gray8.png, rgba8.png (alpha ramp), gray16.png, rgb16.png (16-bit, full range used),
grayf.tif, rgbf.tif (32-bit float), and gray8-box.png, the box that test_halftone.sh
selects (x 13, y 9, 41 x 27), cut from gray8.png."""
import os
import sys

import cv2
import numpy as np
from skimage import data

out = sys.argv[1]
cam = data.camera()[180:241, 200:297]             # 97 x 61 gray
ast = data.astronaut()[60:113, 150:230]           # 80 x 53 RGB
rng = np.random.default_rng(7)


def save(name, img, params=()):
    path = os.path.join(out, name)
    if not cv2.imwrite(path, img, list(params)):
        sys.exit(f"cannot write {path}")


save("gray8.png", cam)
save("gray8-box.png", cam[9:36, 13:54])
alpha = np.tile(np.linspace(40, 255, ast.shape[1]).astype(np.uint8), (ast.shape[0], 1))
save("rgba8.png", np.dstack([ast[..., ::-1], alpha]))  # cv2 writes BGRA
wide = cam.astype(np.uint16) * 257 + rng.integers(0, 257, cam.shape).astype(np.uint16)
save("gray16.png", wide)
save("rgb16.png", (ast.astype(np.uint16) * 257)[..., ::-1])
save("grayf.tif", cam.astype(np.float32) / 255.0 + rng.uniform(-1e-3, 1e-3, cam.shape).astype(np.float32))
save("rgbf.tif", (ast.astype(np.float32) / 255.0)[..., ::-1].copy(), [cv2.IMWRITE_TIFF_COMPRESSION, 1])
