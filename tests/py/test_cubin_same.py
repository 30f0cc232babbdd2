"""scripts/cubin_same.sh, the developers' check that a change leaves the GPU machine code
alone: identical for an unchanged kernel, a difference named for a changed one, exit 2
for a bad revision.  Runs in a throwaway clone (the working tree is never touched); needs
nvcc, not a GPU."""
import os
import shutil
import subprocess

import gfxtest as T

SCRIPT = os.path.join(T.ROOT, "scripts", "cubin_same.sh")
KERNEL = "cuda/halftone_floor.cu"  # one small kernel: a quick compile


def nvcc():
    found = shutil.which("nvcc")
    if found:
        return found
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    path = os.path.join(home, "bin", "nvcc")
    return path if os.access(path, os.X_OK) else None


def run(clone, *args):
    return subprocess.run(["sh", os.path.join(clone, "scripts", "cubin_same.sh"), *args],
                          cwd=clone, capture_output=True, text=True, timeout=600)


def main():
    if not nvcc():
        T.skip("cubin_same", "no nvcc (PATH or CUDA_HOME): a CPU-only machine")
        return
    if not os.path.isdir(os.path.join(T.ROOT, ".git")):
        T.skip("cubin_same", "not a git checkout")
        return
    with T.tmpdir() as tmp:
        clone = os.path.join(tmp, "clone")
        subprocess.run(["git", "clone", "-q", "--shared", T.ROOT, clone], check=True)
        # the working tree's script, so that an uncommitted change to it is what is tested
        shutil.copy(SCRIPT, os.path.join(clone, "scripts", "cubin_same.sh"))

        r = run(clone, "HEAD", KERNEL)
        T.check(r.returncode == 0 and r.stdout.startswith("identical: ")
                and "(1 kernels' code)" in r.stdout,
                "unchanged source: identical, exit 0", f"rc {r.returncode}: {r.stdout}{r.stderr}")

        src = os.path.join(clone, KERNEL)
        text = open(src).read()
        changed = text.replace("i * 13", "i * 17", 1)
        T.check(changed != text, "the test's edit applies", f"{KERNEL} has no 'i * 13'")
        open(src, "w").write(changed)
        r = run(clone, "HEAD", KERNEL)
        T.check(r.returncode == 1 and ".text." in r.stdout and "floor_kernel" in r.stdout,
                "changed kernel: its code section listed, exit 1",
                f"rc {r.returncode}: {r.stdout}{r.stderr}")

        r = run(clone, "no-such-rev", KERNEL)
        T.check(r.returncode == 2 and "is not a commit" in r.stderr,
                "bad revision: a message, exit 2", f"rc {r.returncode}: {r.stderr}")
        r = run(clone, "HEAD")
        T.check(r.returncode == 2 and "usage" in r.stderr,
                "no files: usage, exit 2", f"rc {r.returncode}: {r.stderr}")

        worktrees = subprocess.run(["git", "-C", clone, "worktree", "list"],
                                   capture_output=True, text=True).stdout.strip().splitlines()
        T.check(len(worktrees) == 1, "its temporary worktrees are removed", "\n".join(worktrees))


main()
T.finish()
