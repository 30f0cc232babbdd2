"""Benchmark inputs: real photographs (Debian's python3-skimage data) resized and
mirror-tiled to the benchmark sizes, written once into a work folder.

Mirror tiling keeps the picture continuous across tile seams, so the large images have
photo statistics everywhere (error diffusion and the local-enhance decision depend on
the content a little; a flat or random image would flatter or punish some paths)."""

import os

import numpy as np
from PIL import Image


def skimage_data(name):
    import skimage
    return os.path.join(os.path.dirname(skimage.__file__), "data", name)


def _gray_photo(name):
    img = Image.open(skimage_data(name))
    return img.convert("L") if img.mode != "L" else img


def mirror_tile(a, height, width):
    """a repeated as a, a flipped left-right, ... until height x width, then cropped."""
    quad = np.concatenate([np.concatenate([a, a[:, ::-1]], 1),
                           np.concatenate([a[::-1], a[::-1, ::-1]], 1)], 0)
    reps = (-(-height // quad.shape[0]), -(-width // quad.shape[1]))
    return np.ascontiguousarray(np.tile(quad, reps)[:height, :width])


def gray_u8(name, height, width, base=1024):
    """A photo resized (Lanczos) to base x base, mirror-tiled to height x width."""
    img = _gray_photo(name)
    side = min(base, height, width) if base else None
    if side:
        img = img.resize((side, side), Image.LANCZOS)
    return mirror_tile(np.asarray(img), height, width)


class Workdir:
    """Creates each benchmark image once, as PNG (8-bit) or TIFF (32-bit float)."""

    def __init__(self, path):
        self.path = path
        os.makedirs(path, exist_ok=True)
        self.arrays = {}

    def file(self, name):
        return os.path.join(self.path, name)

    def gray_png(self, photo, height, width):
        key = "%s-%dx%d.png" % (photo.split(".")[0], width, height)
        path = self.file(key)
        if key not in self.arrays:
            a = gray_u8(photo, height, width)
            if not os.path.exists(path):
                Image.fromarray(a).save(path, compress_level=1)
            self.arrays[key] = a
        return path, self.arrays[key]

    def gray_f32_tiff(self, photo, height, width):
        key = "%s-%dx%d-f32.tiff" % (photo.split(".")[0], width, height)
        path = self.file(key)
        if key not in self.arrays:
            a = gray_u8(photo, height, width).astype(np.float32) / np.float32(255)
            if not os.path.exists(path):
                Image.fromarray(a, mode="F").save(path)
            self.arrays[key] = a
        return path, self.arrays[key]
