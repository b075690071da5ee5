#!/usr/bin/python3
"""Runs the SBPL model check (sbpl-model.scm) on what the Seatbelt module returns.

Usage: run-sbpl-model.py SEATBELT-ARGV GUILE SBPL-MODEL

For each scenario (a mode and writable roots, hostile ones included) it asks the module for its
argv, checks that the command reaches sandbox-exec intact and that the profile text is the same
for every scenario of one mode and root count, and has the model answer its decision table. Then
it breaks the argv on purpose, one way at a time, and requires the model to refuse each: a check
that cannot fail proves nothing.
"""
import os
import re
import subprocess
import sys
import tempfile

COMMAND = [b"/bin/sh", b"-c", b'echo "$1"', b"--", b"-Dx=y", b"\xff\xfe", b""]

SCENARIOS = [
    ("read-only", [b"/Users/me/ws"], [b"/Users/me/ws"]),
    ("read-only", [], [b"/private/tmp"]),
    ("workspace-write", [b"/Users/me/ws"], [b"/Users/me/ws"]),
    ("workspace-write",
     [b"/Users/me/ws", b"/tmp", b"/var/folders/zz/abc123/T/"],
     [b"/Users/me/ws", b"/private/tmp", b"/private/var/folders/zz/abc123/T"]),
    ("workspace-write",
     [b"/tmp/ws", b"/tmp", b"/private/tmp"],
     [b"/private/tmp/ws", b"/private/tmp"]),
    ("workspace-write",
     [b'/Users/me/a "b" (allow file-write* (subpath "/"))\n;x',
      b"/Users/\xff\xfe=\\/ws=1",
      b'/Users/me/(param "WRITABLE_ROOT_0")'],
     [b'/Users/me/a "b" (allow file-write* (subpath "/"))\n;x',
      b"/Users/\xff\xfe=\\/ws=1",
      b'/Users/me/(param "WRITABLE_ROOT_0")']),
]


def nul_join(items):
    return b"".join(item + b"\0" for item in items)


class Check:
    def __init__(self, seatbelt_argv, guile, model_path, scratch):
        self.seatbelt_argv = seatbelt_argv
        self.guile = guile
        self.model_path = model_path
        self.scratch = scratch
        self.failures = []
        self.count = 0

    def write(self, name, data):
        path = os.path.join(self.scratch, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def module_argv(self, mode, roots):
        roots_file = self.write("given-roots", nul_join(roots))
        out = subprocess.run([self.seatbelt_argv, mode, roots_file, "--"] + COMMAND,
                             check=True, capture_output=True).stdout
        assert out.endswith(b"\0"), out
        return out[:-1].split(b"\0")

    def run_model(self, argv, mode, table_roots):
        argv_file = self.write("argv", nul_join(argv))
        roots_file = self.write("table-roots", nul_join(table_roots))
        return subprocess.run([self.guile, "--no-auto-compile", "-s", self.model_path, argv_file,
                               mode, roots_file], capture_output=True)

    def fail(self, what):
        self.failures.append(what)
        print("FAIL:", what)


def main():
    seatbelt_argv, guile, model_path = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as scratch:
        check = Check(seatbelt_argv, guile, model_path, scratch)
        profiles = {}
        good = None
        for mode, roots, table_roots in SCENARIOS:
            argv = check.module_argv(mode, roots)
            n_roots = len(table_roots) if mode == "workspace-write" else 0
            if argv[-len(COMMAND):] != COMMAND or argv[-len(COMMAND) - 1] != b"--":
                check.fail(f"{mode} {roots!r}: the command did not arrive intact: {argv!r}")
            defines = [a for a in argv[3:-len(COMMAND) - 1]]
            if len(defines) != 4 * n_roots:
                check.fail(f"{mode} {roots!r}: {len(defines)} -D parameters for {n_roots} roots")
            for i, root in enumerate(table_roots[:n_roots]):
                want = b"-DWRITABLE_ROOT_%d=" % i + root
                if defines[4 * i] != want:
                    check.fail(f"{mode}: root {i} arrived as {defines[4 * i]!r}, not {want!r}")
            key = (mode, n_roots)
            if key in profiles and profiles[key] != argv[2]:
                check.fail(f"{mode} with {n_roots} roots: the profile text changed with the paths")
            profiles[key] = argv[2]
            result = check.run_model(argv, mode, table_roots)
            check.count += 1
            sys.stdout.write(result.stdout.decode(errors="replace"))
            if result.returncode != 0:
                check.fail(f"{mode} {roots!r}: {result.stderr.decode(errors='replace').strip()}")
            if mode == "workspace-write" and n_roots == 3 and good is None:
                good = (argv, table_roots)

        # The model must refuse every one of these breakages of a good argv.
        argv, table_roots = good
        profile = argv[2].decode()

        def with_profile(text):
            return argv[:2] + [text.encode()] + argv[3:]

        broken = {
            "unknown operation": (with_profile(profile.replace("(allow process-fork)",
                                                               "(allow process-teleport)")),
                                  "unknown operation process-teleport"),
            "unknown filter": (with_profile(profile.replace("(allow process-exec)",
                                                            "(allow process-exec (vnode-type REGULAR-FILE))")),
                               "unknown filter"),
            "unknown form": (with_profile(profile + "(import \"bsd.sb\")\n"), "unknown form"),
            "undefined parameter": ([a for a in argv if not a.startswith(b"-DWRITABLE_ROOT_1_GIT_HOOKS=")],
                                    "parameter WRITABLE_ROOT_1_GIT_HOOKS is not defined"),
            "unused parameter": (argv[:3] + [b"-DEXTRA=1"] + argv[3:], "EXTRA is defined but never used"),
            # (The same path spliced in decides alike: the profile comparison above catches it.)
            "a wider path spliced into the text": (
                with_profile(profile.replace('(subpath (param "WRITABLE_ROOT_0"))',
                                             '(subpath "/Users/me")')),
                "the profile says allow, expected deny"),
            "a missing closing parenthesis": (with_profile(profile.rstrip()[:-1]), "does not read"),
            "an extra closing parenthesis": (with_profile(profile + ")\n"), "does not read"),
            "an order-dependent rule": (
                with_profile(profile + '(deny file-write* (subpath (param "WRITABLE_ROOT_0")))\n'),
                "decided by rule order"),
            "a wider rule": (with_profile(profile + '(allow file-write*)\n'),
                             "the profile says allow, expected deny"),
            "no rule for other letter cases": (
                with_profile(re.sub(r'\n\s*\(regex #"[^"]*\[[A-Z][a-z]\][^"]*"\)', "", profile)),
                "/.GIT/config\")): the profile says allow, expected deny"),
            "no default": (with_profile(profile.replace("(deny default)", "")), "no default"),
            "a runner from PATH": ([b"sandbox-exec"] + argv[1:], "does not start with"),
            "a -D without a value separator": (argv[:3] + [b"-DNOVALUE"] + argv[3:], "has no"),
            "a parameter defined twice": (argv[:4] + [argv[3]] + argv[4:], "defined twice"),
            "no separator": ([a for a in argv if a != b"--"], "non-empty command"),
        }
        for what, (bad_argv, message) in broken.items():
            result = check.run_model(bad_argv, "workspace-write", table_roots)
            check.count += 1
            err = result.stderr.decode(errors="replace")
            if result.returncode == 0:
                check.fail(f"the model accepted {what}")
            elif message not in err:
                check.fail(f"the model refused {what} for another reason: {err.strip()}")
            else:
                print(f"refused as it must: {what}: {err.strip()}")

        print(f"{check.count} model runs, {len(check.failures)} failures")
        return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
