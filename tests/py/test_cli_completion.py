"""bash completion of gpufx (cli/gpufx.bash over `gpufx ... --complete-words`), in a real
bash, against what `gpufx --help` and `gpufx CMD --help` say: the commands, every option of
each command, each option's choices, file names where a file goes, nothing for a number."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gfxtest as T  # noqa: E402

T.require_cli("cli-completion")
SCRIPT = os.path.join(T.ROOT, "cli", "gpufx.bash")


def complete(*words, cwd=None):
    """COMPREPLY for the command line `words` (the last one being completed)."""
    body = "source \"$1\"; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _gpufx; " \
           "printf '%s\\n' \"${COMPREPLY[@]}\""
    env = dict(os.environ, PATH=os.path.dirname(T.GPUFX) + os.pathsep + os.environ["PATH"])
    r = subprocess.run(["bash", "-c", body, "bash", SCRIPT, *words], capture_output=True,
                       text=True, env=env, cwd=cwd, timeout=60)
    return sorted(w for w in r.stdout.split("\n") if w), r.stderr


def help_text(*cmd):
    return T.run_cli(*cmd, "--help").stdout


commands = re.findall(r"^  (\w+) ", help_text().split("Commands:")[1], re.M)
got, err = complete("gpufx", "")
T.check(set(commands) <= set(got) and "help" in commands and "--version" in got and not err,
        "the first word: every command gpufx --help lists", f"{got} for {commands}; {err}")
T.check(complete("gpufx", "sta")[0] == ["stability"], "a command's prefix completes it",
        str(complete("gpufx", "sta")))

# gpufx help CMD (or --help CMD) is CMD --help: the second word completes to a command.
for word in ("help", "--help"):
    T.check(complete("gpufx", word, "en")[0] == ["enhance"] and
            set(complete("gpufx", word, "")[0]) == set(commands),
            f"gpufx {word} CMD: the command completes", str(complete("gpufx", word, "")))
    r = T.run_cli(word, "halftone")
    T.check(r.returncode == 0 and r.stdout == help_text("halftone"),
            f"gpufx {word} halftone prints gpufx halftone --help", r.stdout[:200] + r.stderr)
T.check(complete("gpufx", "help", "enhance", "--")[0] == [], "gpufx help CMD: nothing after it",
        str(complete("gpufx", "help", "enhance", "--")))
for words, needle in ((("help", "bogus"), "unknown command 'bogus'"),
                      (("help", "--version"), "unexpected argument '--version' after help"),
                      (("help", "--complete-words"), "unexpected argument '--complete-words'"),
                      (("--help", "halftone", "x"), "unexpected argument 'x' after --help"),
                      (("--version", "x"), "unexpected argument 'x' after --version")):
    r = T.run_cli(*words)
    T.check(r.returncode == 2 and needle in r.stderr, f"gpufx {' '.join(words)}: exit 2, "
            f"{needle}", f"exit {r.returncode}: {r.stderr}")

for cmd in ["halftone", "enhance", "deblur", "identify", "stability"]:
    text = help_text(cmd)
    options = sorted(re.findall(r"^  (--[a-z0-9-]+)", text, re.M))
    got, err = complete("gpufx", cmd, "--")
    T.check(got == options and not err, f"{cmd}: every option --help lists",
            f"completed {got}, --help has {options}; {err}")
    # Each option whose --help says "one of a, b, c" completes to those choices.
    for name, choices in re.findall(r"^  (--[a-z0-9-]+) NAME\n.*\(one of ([^;]*);", text, re.M):
        want = sorted(c.strip() for c in choices.split(","))
        T.check(complete("gpufx", cmd, name, "")[0] == want, f"{cmd} {name}: its choices",
                f"{complete('gpufx', cmd, name, '')[0]} for {want}")
        T.check(complete("gpufx", cmd, name, "=", want[0][:1])[0]
                == [c for c in want if c.startswith(want[0][:1])],
                f"{cmd} {name}=: its choices after '='", str(complete("gpufx", cmd, name, "=", "")))

with tempfile.TemporaryDirectory() as d:
    for f in ["camera.iir", "moon.png"]:
        open(os.path.join(d, f), "w").close()
    got = complete("gpufx", "deblur", "in.png", "out.png", "--filter", "cam", cwd=d)[0]
    T.check(got == ["camera.iir"], "a file option completes file names", str(got))
    got = complete("gpufx", "halftone", "m", cwd=d)[0]
    T.check(got == ["moon.png"], "a positional argument completes file names", str(got))
    got = complete("gpufx", "halftone", "--levels", "", cwd=d)[0]
    T.check(got == [], "a number is not offered file names", str(got))
    got = complete("gpufx", "stability", "camera.iir", "--plot", "m", cwd=d)[0]
    T.check(got == ["moon.png"], "stability --plot PNG completes file names", str(got))
    got = complete("gpufx", "identify", "--mask", "", cwd=d)[0]
    T.check(got == [], "identify --mask M1xM2 is not offered file names", str(got))
    bench = sorted(re.findall(r"(--[a-z-]+)", T.run_cli("bench", "--help").stdout))
    got = complete("gpufx", "bench", "--", cwd=d)[0]
    T.check(got == sorted(set(bench) | {"--help"}) and "--repeat" in got,
            "bench: the options its --help names", f"{got} for {bench}")
    got = complete("gpufx", "bench", "halftone", "--input", "m", cwd=d)[0]
    T.check(got == ["moon.png"], "bench --input completes file names", str(got))
    got = complete("gpufx", "bench", "--repeat", "", cwd=d)[0]
    T.check(got == [], "bench --repeat is not offered file names", str(got))
for words in [("gpufx", "--version", "")]:
    got, err = complete(*words)
    T.check(got == [] and not err, f"'{' '.join(words)}': nothing offered, nothing run",
            f"{got} {err}")
T.finish()
