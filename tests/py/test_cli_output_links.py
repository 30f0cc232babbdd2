"""Where gpufx's outputs land, and with which permissions.

Every output is written beside its target and renamed over it.  Before, an output named
by a symbolic link replaced the link with a new file (the file it named kept the old
image), and a rewritten file took the umask's mode (a 0600 image became 0644).  Now the
link is followed (relative links from their own folder, chains, a link to a file not made
yet) and an existing file keeps its permission bits; a loop of links is refused."""
import os
import shutil
import stat
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gfxtest as T  # noqa: E402

T.require_cli("cli-output-links")


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def is_link(path):
    return stat.S_ISLNK(os.lstat(path).st_mode)


with T.tmpdir() as d:
    src = os.path.join(d, "in.png")
    T.save(src, T.noise(40, 30, 3))
    want = os.path.join(d, "want.png")
    T.run_cli("halftone", src, want, "--backend", "cpu")
    want_bytes = open(want, "rb").read()

    real = os.path.join(d, "real")
    os.mkdir(real)
    target = os.path.join(real, "target.png")

    def reset(m):
        with open(target, "wb") as f:
            f.write(b"old")
        os.chmod(target, m)

    os.symlink("real/target.png", os.path.join(d, "link.png"))           # relative
    os.symlink(os.path.join(d, "link.png"), os.path.join(d, "chain.png"))  # absolute, a chain
    for name, m in [("link.png", 0o600), ("chain.png", 0o640), ("real/target.png", 0o664)]:
        reset(m)
        r = T.run_cli("halftone", src, os.path.join(d, name), "--backend", "cpu")
        got = open(target, "rb").read()
        T.check(r.returncode == 0 and got == want_bytes, f"{name}: the result is in the file "
                "it names", f"status {r.returncode}: {r.stderr}; {len(got)} bytes")
        T.check(mode(target) == m, f"{name}: the file keeps its mode {m:o}", f"{mode(target):o}")
        if name != "real/target.png":
            T.check(is_link(os.path.join(d, name)), f"{name}: the link stays a link")

    # --compare and --mask-out go the same way; so does a filter file from identify.
    reset(0o600)
    r = T.run_cli("enhance", src, os.path.join(d, "out.png"), "--compare",
                  os.path.join(d, "link.png"), "--backend", "cpu")
    T.check(r.returncode == 0 and open(target, "rb").read()[:4] == b"\x89PNG"
            and mode(target) == 0o600 and is_link(os.path.join(d, "link.png")),
            "--compare through a link: the file it names, mode kept", r.stderr)
    iir = os.path.join(real, "camera.iir")
    with open(iir, "w") as f:
        f.write("old")
    os.chmod(iir, 0o640)
    os.symlink("real/camera.iir", os.path.join(d, "filter.iir"))
    from scipy.ndimage import gaussian_filter
    sharp = T.noise(64, 64, 1, np.float32, seed=2)
    T.save(os.path.join(d, "sharp.tif"), sharp)
    T.save(os.path.join(d, "blurred.tif"), gaussian_filter(sharp, 1.0, mode="nearest"))
    r = T.run_cli("identify", "--blurred", os.path.join(d, "blurred.tif"), "--sharp",
                  os.path.join(d, "sharp.tif"), "--output",
                  os.path.join(d, "filter.iir"))
    T.check(r.returncode == 0 and "\ngpufx-iir 1" in open(iir).read()
            and mode(iir) == 0o640 and is_link(os.path.join(d, "filter.iir")),
            "identify --output through a link: the filter file it names, mode kept", r.stderr)

    # A link to a file not made yet makes it; a new file gets the usual mode.
    os.symlink("real/new.png", os.path.join(d, "to-new.png"))
    r = T.run_cli("halftone", src, os.path.join(d, "to-new.png"), "--backend", "cpu")
    new = os.path.join(real, "new.png")
    umask = os.umask(0)
    os.umask(umask)
    T.check(r.returncode == 0 and os.path.exists(new) and mode(new) == 0o666 & ~umask
            and is_link(os.path.join(d, "to-new.png")), "a link to a new file makes that file",
            r.stderr)

    # Refused: a loop; a link into a missing folder (with the folder named).
    os.symlink("loop.png", os.path.join(d, "loop.png"))
    r = T.run_cli("halftone", src, os.path.join(d, "loop.png"), "--backend", "cpu")
    T.check(r.returncode == 1 and "Too many levels of symbolic links" in r.stderr,
            "a loop of links is refused", r.stderr)
    os.symlink("nowhere/x.png", os.path.join(d, "dangling.png"))
    r = T.run_cli("halftone", src, os.path.join(d, "dangling.png"), "--backend", "cpu")
    T.check(r.returncode == 1 and "nowhere" in r.stderr and "No such file" in r.stderr,
            "a link into a missing folder is refused, naming it", r.stderr)

    # A device or a fifo (or a link to one) is not replaced by a plain file: the rename
    # would have made /dev/null a plain file, run as root.  Refused, and left as it was.
    specials = [("fifo.png", stat.S_IFIFO)]
    try:
        os.mknod(os.path.join(d, "null.png"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        specials.append(("null.png", stat.S_IFCHR))
        os.symlink("null.png", os.path.join(d, "to-null.png"))
        specials.append(("to-null.png", stat.S_IFCHR))
        os.symlink("null.png", os.path.join(d, "to-null.iir"))
    except PermissionError:
        T.skip("output a device", "mknod needs root here")
    os.mkfifo(os.path.join(d, "fifo.png"))
    for name, kind in specials:
        path = os.path.join(d, name)
        r = T.run_cli("halftone", src, path, "--backend", "cpu")
        T.check(r.returncode == 1 and "not a regular file" in r.stderr and name in r.stderr
                and stat.S_IFMT(os.stat(path).st_mode) == kind,
                f"OUT {name}: refused, and it stays a {'fifo' if kind == stat.S_IFIFO else 'device'}",
                f"status {r.returncode}: {r.stderr}")
    if os.path.exists(os.path.join(d, "to-null.iir")):
        r = T.run_cli("identify", "--blurred", os.path.join(d, "blurred.tif"), "--sharp",
                      os.path.join(d, "sharp.tif"), "--output", os.path.join(d, "to-null.iir"))
        T.check(r.returncode != 0 and "not a regular file" in r.stderr
                and stat.S_ISCHR(os.stat(os.path.join(d, "null.png")).st_mode),
                "identify --output to a device: refused, the device stays", r.stderr)
    left = [f for f in os.listdir(d) + os.listdir(real) if f.startswith(".gpufx")]
    T.check(left == [], "no temporary left behind", str(left))

    # A read-only file is refused, as writing it in place would be, not renamed over (as
    # another user, in a folder open to all: root may write anything).
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        T.skip("read-only outputs", "needs root and setpriv to run as another user")
    else:
        shared = os.path.join(d, "shared")
        os.mkdir(shared)
        os.chmod(shared, 0o1777 & ~0o1000)
        os.chmod(d, 0o755)
        for name in ("ro.png", "ro.iir"):
            path = os.path.join(shared, name)
            with open(path, "wb") as f:
                f.write(b"what was here before")
            os.chmod(path, 0o444)
        env = dict(os.environ, HOME=shared, XDG_CACHE_HOME=shared, GPUFX_BACKEND="cpu")
        runs = {
            "ro.png": ["halftone", src, os.path.join(shared, "ro.png")],
            "ro.iir": ["identify", "--blurred", os.path.join(d, "blurred.tif"), "--sharp",
                       os.path.join(d, "sharp.tif"), "--output", os.path.join(shared, "ro.iir")],
        }
        for name, args in runs.items():
            path = os.path.join(shared, name)
            before = open(path, "rb").read()
            r = subprocess.run(as_nobody + [T.GPUFX, *args], capture_output=True, text=True,
                               env=env, timeout=300)
            st = os.stat(path)
            T.check(r.returncode == 1 and "Permission denied" in r.stderr and name in r.stderr
                    and open(path, "rb").read() == before and st.st_uid == 0
                    and mode(path) == 0o444, f"a read-only {name} of another user is refused "
                    "and kept", f"status {r.returncode}: {r.stderr.strip()[-300:]}")
            os.chmod(path, 0o666)
            r = subprocess.run(as_nobody + [T.GPUFX, *args], capture_output=True, text=True,
                               env=env, timeout=300)
            T.check(r.returncode == 0 and open(path, "rb").read() != before,
                    f"the same {name}, writable, is replaced", r.stderr[-300:])

T.finish()
