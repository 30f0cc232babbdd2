"""The command line and babl's fish cache (cli/babl_setup.c): gpufx neither reads the user's
cache (babl 0.1.98 spends ~0.2 s at start timing lookup tables once that cache holds an 8-bit
conversion, as GIMP's does) nor overwrites it as babl exits: babl writes into gpufx's own
cache folder instead. Checked on real photographs, with the user's cache file left byte for
byte as it was, and its absence from every file gpufx opens (strace). (The pixels are the
other suites' business: test_enhance_ref checks these photographs against numpy.)"""
import os
import shutil
import subprocess

import gfxtest as T

SENTINEL = b"#gimp-gpufx test: babl must neither read nor rewrite this file\n"


def user_cache(tmp, name):
    cache = os.path.join(tmp, name)
    os.makedirs(os.path.join(cache, "babl"))
    path = os.path.join(cache, "babl", "babl-fishes")
    with open(path, "wb") as f:
        f.write(SENTINEL)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    return cache, path


def main():
    T.require_cli("gpufx and babl's cache")
    with T.tmpdir() as tmp:
        cache, fishes = user_cache(tmp, "cache")
        for photo in ("astronaut.png", "camera.png", "coffee.png"):
            src = T.photo(photo)
            out = os.path.join(tmp, "out-" + photo)
            r = T.run_cli("enhance", src, out, "--backend", "cpu", "--quiet",
                          env={"XDG_CACHE_HOME": cache})
            st = os.stat(fishes)
            T.check(r.returncode == 0 and open(fishes, "rb").read() == SENTINEL and
                    st.st_mtime == 1_000_000_000,
                    f"{photo}: the user's babl cache is left as it was", r.stderr.strip())
            own = os.path.join(cache, "gpufx", "babl", "babl-fishes")
            T.check(os.path.isfile(own), f"{photo}: babl wrote into gpufx's own folder", own)
        strace = shutil.which("strace")
        if not strace or subprocess.run([strace, "-f", "-o", os.devnull, "true"]).returncode:
            T.skip("gpufx never opens the user's babl cache", "strace missing or not permitted")
        else:
            log = os.path.join(tmp, "strace.log")
            src = T.photo("astronaut.png")
            r = subprocess.run([strace, "-f", "-qq", "-e", "trace=openat,rename", "-o", log,
                                T.GPUFX, "halftone", src, os.path.join(tmp, "h.png"),
                                "--backend", "cpu", "--quiet"],
                               env=dict(os.environ, XDG_CACHE_HOME=cache), capture_output=True)
            opened = [l for l in open(log) if fishes in l]
            T.check(r.returncode == 0 and not opened, "gpufx never opens the user's babl cache",
                    "".join(opened[:2]))
    T.finish()


main()
