"""Out of memory while writing a file in its own precision.  A filter's result on a file
whose samples are stored in another encoding (a half-float OpenEXR) is written back in
that encoding, with every sample the filter left alone as the file held it: two buffers of
the file's size besides the core's images.  With the first of them failing
(tests/support/fail_malloc_size.c, in gpufx only) the run must stop with one line naming
the file and the reason, status 1, no crash, and leave a file already there untouched and
no temporary file behind.  The same run without the failure must succeed (the control)."""
import os
import subprocess

import numpy as np

import gfxtest as T

os.environ["OPENCV_IO_ENABLE_OPENEXR"] = "1"  # before cv2 is imported
T.require_cli("out of memory")
import cv2  # noqa: E402

W, H = 1237, 611  # the file's buffers (3 half floats a pixel) differ in size from the core's


def main():
    ldd = subprocess.run(["ldd", T.GPUFX], capture_output=True, text=True).stdout
    if "libasan" in ldd:
        T.skip("out of memory", "the ASan runtime owns malloc here")
        return
    with T.tmpdir() as d:
        shim = os.path.join(d, "failmalloc.so")
        subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2",
                        os.path.join(T.ROOT, "tests", "support", "fail_malloc_size.c"),
                        "-o", shim], check=True)
        rng = np.random.default_rng(5)
        img = (0.02 + 0.9 * rng.random((H, W, 3))).astype(np.float32)
        src = os.path.join(d, "in.exr")
        cv2.imwrite(src, img, [cv2.IMWRITE_EXR_TYPE, cv2.IMWRITE_EXR_TYPE_HALF])
        out = os.path.join(d, "out.exr")
        with open(out, "wb") as f:
            f.write(b"what was here before")
        fail = {"LD_PRELOAD": shim, "GPUFX_TEST_FAIL_MALLOC": str(W * H * 3 * 2)}
        for cmd in (["halftone"], ["enhance"], ["deblur", "--filter", write_filter(d)]):
            name = f"{cmd[0]} half-float EXR, out of memory for the file's precision"
            r = T.run_cli(cmd[0], src, out, *cmd[1:], "--backend", "cpu", "--quiet", env=fail)
            lines = r.stderr.strip().splitlines()
            T.check(r.returncode == 1 and len(lines) == 1 and "out.exr" in lines[0]
                    and "out of memory for the result in the file's precision" in lines[0],
                    f"{name}: status 1, one line naming the file and the reason",
                    f"status {r.returncode}: {r.stderr.strip()[-300:]}")
            with open(out, "rb") as f:
                T.check(f.read() == b"what was here before", f"{name}: the old file is kept")
            left = sorted(set(os.listdir(d)) - {"in.exr", "out.exr", "failmalloc.so", "f.iir"})
            T.check(not left, f"{name}: no temporary file left", " ".join(left))
        loading_runs_out(d, shim, out)
        r = T.run_cli("halftone", src, out, "--backend", "cpu", "--quiet")
        back = cv2.imread(out, cv2.IMREAD_UNCHANGED)
        T.check(r.returncode == 0 and back is not None and back.shape == (H, W, 3),
                "control: the same run with memory writes the EXR", r.stderr.strip())


def loading_runs_out(d, shim, out):
    """Memory running out inside GEGL's loader (GLib's g_malloc of a tile fails: every
    allocation of 100 kB or more here) ended the process with a trap and nothing said.  Now:
    one line naming the file and saying out of memory, status 1, the old output kept, and
    gpufx's private folder (under TMPDIR) removed."""
    src = os.path.join(d, "big.png")
    T.save(src, T.noise(900, 600, 3, np.uint8, seed=3))
    tmp = os.path.join(d, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env = {"LD_PRELOAD": shim, "GPUFX_TEST_FAIL_MALLOC_FROM": "100000", "TMPDIR": tmp}
    r = T.run_cli("halftone", src, out, "--backend", "cpu", env=env)
    lines = r.stderr.strip().splitlines()
    T.check(r.returncode == 1 and len(lines) == 1 and "big.png" in lines[0]
            and "out of memory" in lines[0],
            "out of memory while GEGL loads: status 1, one line naming the file",
            f"status {r.returncode}: {r.stderr.strip()[-300:]}")
    with open(out, "rb") as f:
        T.check(f.read() == b"what was here before",
                "out of memory while GEGL loads: the old file is kept")
    T.check(not os.listdir(tmp), "out of memory while GEGL loads: no private folder left",
            " ".join(os.listdir(tmp)))


def write_filter(d):
    path = os.path.join(d, "f.iir")
    with open(path, "w") as f:
        f.write("gpufx-iir 1\nmask 2 2\n")
        for q in (1, 2, 3, 4):
            f.write(f"q{q} a 1 0 0 0\nq{q} b 1 -0.2 -0.2 0\n")
    return path


main()
T.finish()
