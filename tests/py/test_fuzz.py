"""Bounded fuzzing in `make check` (issue 8): the filter-file parser, the CLI's option
parser, the TIFF page count and the Radiance HDR reader under libFuzzer with ASan and
UBSan, GPUFX_FUZZ_SECONDS each (default 15), seeded from tests/fuzz/corpus_*.  SKIPs with the reason when clang or its fuzzer runtime
(libclang-rt-14-dev) is missing.  A crash FAILs with the input kept under build/fuzz/
crashes/: copy it into tests/fuzz/crashers/ (iir-*, cli-*, tiff-* or rgbe-*) so that
tests/unit/test_fuzz_regress replays it in every run.  The kept crashers are also replayed
here through the fuzzing binaries."""
import glob
import os
import shutil
import subprocess
import tempfile

import gfxtest as T

FUZZ = os.path.join(T.ROOT, "tests", "fuzz")
HARNESSES = [("fuzz_iir_file", "corpus_iir", "iir-", 4096),
             ("fuzz_cli_options", "corpus_cli", "cli-", 1024),
             ("fuzz_tiff_pages", "corpus_tiff", "tiff-", 4096),
             ("fuzz_rgbe", "corpus_rgbe", "rgbe-", 4096)]


def build(out):
    r = subprocess.run(["bash", os.path.join(FUZZ, "build.sh"), out], capture_output=True,
                       text=True, timeout=900)
    if r.returncode == 77:
        return r.stdout.strip() or "clang's fuzzer runtime is missing"
    if r.returncode != 0:
        T.check(False, "fuzz harnesses build with clang", (r.stdout + r.stderr)[-800:])
        return "build failed"
    T.check(True, "fuzz harnesses build with clang -fsanitize=fuzzer,address,undefined")
    return None


def fuzz(out, name, corpus, prefix, max_len, seconds):
    binary = os.path.join(out, name)
    crashes = os.path.join(out, "crashes")
    os.makedirs(crashes, exist_ok=True)
    kept = sorted(glob.glob(os.path.join(FUZZ, "crashers", prefix + "*")))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    if kept:
        r = subprocess.run([binary, *kept], capture_output=True, text=True, env=env,
                           timeout=120)
        T.check(r.returncode == 0, f"{name}: {len(kept)} kept crashers replay cleanly",
                r.stderr[-600:])
    # What a harness prints goes to a file, and only its end is read back: the option
    # parser's harness prints a message for most inputs (some 300 MB in 40 s), and a
    # parent holding that passes its peak memory to the next harness (Linux keeps
    # ru_maxrss across exec), whose -rss_limit_mb then stops it at once as out of memory.
    with tempfile.TemporaryDirectory(prefix="gpufx-fuzz-") as new:
        log_path = os.path.join(new, "log")
        corpus_new = os.path.join(new, "corpus")
        os.makedirs(corpus_new)
        with open(log_path, "w") as log:
            r = subprocess.run([binary, f"-max_total_time={seconds}", f"-max_len={max_len}",
                                "-timeout=10", "-rss_limit_mb=1536", "-print_final_stats=1",
                                f"-artifact_prefix={crashes}/{prefix}", corpus_new,
                                os.path.join(FUZZ, corpus)],
                               stdout=subprocess.DEVNULL, stderr=log, env=env,
                               timeout=seconds + 120)
        with open(log_path, "rb") as log:
            log.seek(max(0, os.path.getsize(log_path) - (1 << 16)))
            r.stderr = log.read().decode(errors="replace")
    runs = [l for l in r.stderr.splitlines() if l.startswith("stat::number_of_executed_units")]
    n = runs[-1].split(":")[-1].strip() if runs else "?"
    found = [l for l in r.stderr.splitlines() if "Test unit written to" in l]
    T.check(r.returncode == 0, f"{name}: {seconds} s of fuzzing ({n} inputs) without a crash",
            (" ".join(found) or "") + " " + r.stderr[-1200:])


def main():
    seconds = int(os.environ.get("GPUFX_FUZZ_SECONDS", "15"))
    out = os.path.join(T.BUILD, "fuzz")
    if not shutil.which(os.environ.get("CLANG", "clang")):
        T.skip("fuzzing", "clang is not installed (scripts/deps.sh installs it)")
        T.finish()
    why = build(out)
    if why:
        if why != "build failed":
            T.skip("fuzzing", why)
        T.finish()
    for name, corpus, prefix, max_len in HARNESSES:
        fuzz(out, name, corpus, prefix, max_len, seconds)
    T.finish()


if __name__ == "__main__":
    main()
