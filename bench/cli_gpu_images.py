"""Images for bench/cli_gpu_session.sh: real photographs from scikit-image's data folder
and synthetic ones (odd-size RGBA, 16-bit, float, 1xN, Nx1, 1x1), plus a blurred camera
for identifying a deblur filter.  Usage: cli_gpu_images.py OUTDIR"""
import os
import sys

import numpy as np
import scipy.ndimage as ndi
import skimage.data
import skimage.io
import tifffile

out = sys.argv[1]
rng = np.random.default_rng(7)


def save(name, a):
    skimage.io.imsave(os.path.join(out, name), a, check_contrast=False)


camera = skimage.data.camera()
astronaut = skimage.data.astronaut()
save("camera.png", camera)
save("astronaut.png", astronaut)
save("coffee.png", skimage.data.coffee())
rgba = np.dstack([astronaut[:217, :333], rng.integers(0, 256, (217, 333), np.uint8)])
save("odd_rgba.png", rgba)
# 16-bit RGB as TIFF: scikit-image's PNG writer (Pillow) stores 16-bit RGB as 8-bit
tifffile.imwrite(os.path.join(out, "astronaut16.tif"),
                 astronaut.astype(np.uint16) * 256 + rng.integers(0, 256, astronaut.shape, np.uint16))
tifffile.imwrite(os.path.join(out, "camera_float.tif"),
                 camera.astype(np.float32) / 255 + rng.normal(0, 0.01, camera.shape).astype(np.float32))
save("ramp_1xN.png", np.linspace(0, 255, 1001).astype(np.uint8)[None, :])
save("noise_Nx1.png", rng.integers(0, 256, (777, 1), np.uint8))
save("one.png", np.array([[100]], np.uint8))
# 4096 x 4096: the camera mirror-tiled, for whole-process times where decoding takes a while
tile = np.block([[camera, camera[:, ::-1]], [camera[::-1], camera[::-1, ::-1]]])
save("camera4096.png", np.tile(tile, (4, 4)))
save("camera_blur.png", np.clip(ndi.gaussian_filter(camera.astype(float), 1.2) + 0.5, 0, 255).astype(np.uint8))
