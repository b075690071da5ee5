#!/usr/bin/python3
"""Runs the SBPL model check (sbpl-model.scm) on what the Seatbelt module returns.

Usage: run-sbpl-model.py SEATBELT-ARGV GUILE SBPL-MODEL

For each scenario (a mode and writable roots, hostile ones included, some of them real
directories holding a repository) it asks the module for its argv, checks that the command
reaches sandbox-exec intact and that the profile text is the same for every scenario of one mode
and number of root slots (three, unless there are more roots), and has the model answer its decision table. A root without a repository is
then given one, as the call's git init would, and the next call must protect it. Then it breaks
the argv on purpose, one way at a time, and requires the model to refuse each: a check that
cannot fail proves nothing.
"""
import os
import re
import subprocess
import sys
import tempfile

COMMAND = [b"/bin/sh", b"-c", b'echo "$1"', b"--", b"-Dx=y", b"\xff\xfe", b""]

NO_REPO = False
REPO = True
BARE = "bare"
# No repository, but one in a root beneath it: its own .git and HEAD are protected.
GUARD = "guard"

# (mode, the roots handed over, the roots as macOS spells them with whether each holds a
# repository). None of these paths exists here, so none holds one.
SCENARIOS = [
    ("read-only", [b"/Users/me/ws"], [(b"/Users/me/ws", NO_REPO)]),
    ("read-only", [], [(b"/private/tmp", NO_REPO)]),
    ("workspace-write", [b"/Users/me/ws"], [(b"/Users/me/ws", NO_REPO)]),
    ("workspace-write",
     [b"/Users/me/ws", b"/tmp", b"/var/folders/zz/abc123/T/"],
     [(b"/Users/me/ws", NO_REPO), (b"/private/tmp", NO_REPO),
      (b"/private/var/folders/zz/abc123/T", NO_REPO)]),
    ("workspace-write",
     [b"/tmp/ws", b"/tmp", b"/private/tmp"],
     [(b"/private/tmp/ws", NO_REPO), (b"/private/tmp", NO_REPO)]),
    # A firmlinked directory spelled through the data volume gets the spelling of the others.
    ("workspace-write",
     [b"/System/Volumes/Data/private/tmp/ws", b"/tmp"],
     [(b"/private/tmp/ws", NO_REPO), (b"/private/tmp", NO_REPO)]),
    ("workspace-write",
     [b'/Users/me/a "b" (allow file-write* (subpath "/"))\n;x',
      b"/Users/\xff\xfe=\\/ws=1",
      b'/Users/me/(param "WRITABLE_ROOT_0")'],
     [(b'/Users/me/a "b" (allow file-write* (subpath "/"))\n;x', NO_REPO),
      (b"/Users/\xff\xfe=\\/ws=1", NO_REPO),
      (b'/Users/me/(param "WRITABLE_ROOT_0")', NO_REPO)]),
]


def macos_spelling(path):
    """The spelling the module gives a real directory of this host (see dsh-seatbelt-spelling.c);
    a mismatch shows up as a root that did not arrive as expected."""
    for link in (b"/tmp", b"/var", b"/etc"):
        if path == link or path.startswith(link + b"/"):
            return b"/private" + path
    return path


def real_scenarios(scratch):
    """Real directories: a repository (a .git directory), a linked worktree (a .git file), a
    hostile name holding a repository, a workspace with none, and a bare repository."""
    base = os.path.join(os.fsencode(scratch), b"roots")
    repo = os.path.join(base, b"repo")
    worktree = os.path.join(base, b"worktree")
    hostile = os.path.join(base, b'a "b" (allow file-write*)\n;=\xff')
    plain = os.path.join(base, b"plain")
    bare = os.path.join(base, b"bare.git")
    for d in (repo, worktree, hostile, plain, os.path.join(bare, b"objects"),
              os.path.join(bare, b"refs")):
        os.makedirs(d)
    with open(os.path.join(bare, b"HEAD"), "wb") as f:
        f.write(b"ref: refs/heads/main\n")
    os.mkdir(os.path.join(repo, b".git"))
    os.mkdir(os.path.join(hostile, b".git"))
    with open(os.path.join(worktree, b".git"), "wb") as f:
        f.write(b"gitdir: /elsewhere\n")
    given = [repo, worktree, hostile, plain, bare]
    table = [(macos_spelling(repo), REPO), (macos_spelling(worktree), REPO),
             (macos_spelling(hostile), REPO), (macos_spelling(plain), NO_REPO),
             (macos_spelling(bare), BARE)]
    return given, table, plain


def root_items(table_roots):
    # The model finds a guarding root by itself.
    return [(b"=" if repo == BARE else b"-" if repo == GUARD else b"+" if repo else b"-") + path
            for path, repo in table_roots]


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
        roots_file = self.write("table-roots", nul_join(root_items(table_roots)))
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

        def scenario(mode, roots, table_roots):
            argv = check.module_argv(mode, roots)
            n_roots = len(table_roots) if mode == "workspace-write" else 0
            # At least three slots, fewer distinct roots repeating the last one.
            n_slots = max(n_roots, 3) if n_roots else 0
            slots = table_roots[:n_roots] + table_roots[n_roots - 1:n_roots] * (n_slots - n_roots)
            if argv[-len(COMMAND):] != COMMAND or argv[-len(COMMAND) - 1] != b"--":
                check.fail(f"{mode} {roots!r}: the command did not arrive intact: {argv!r}")
            defines = [a for a in argv[3:-len(COMMAND) - 1]]
            if len(defines) != 7 * n_slots:
                check.fail(f"{mode} {roots!r}: {len(defines)} -D parameters for {n_slots} slots")
            for i, (root, repo) in enumerate(slots):
                git_base = root if repo and repo != GUARD else b"/dev/null"
                guard_base = root if repo else b"/dev/null"
                # A bare repository's own files are in the root itself.
                git_dir = git_base + (b"" if repo == BARE else b"/.git")
                want = [b"-DWRITABLE_ROOT_%d=" % i + root,
                        b"-DWRITABLE_ROOT_%d_GIT=" % i + guard_base + b"/.git",
                        b"-DWRITABLE_ROOT_%d_GIT_HOOKS=" % i + git_dir + b"/hooks",
                        b"-DWRITABLE_ROOT_%d_GIT_CONFIG=" % i + git_dir + b"/config",
                        b"-DWRITABLE_ROOT_%d_GIT_CONFIG_WORKTREE=" % i + git_dir
                        + b"/config.worktree",
                        b"-DWRITABLE_ROOT_%d_GIT_COMMONDIR=" % i + git_dir + b"/commondir",
                        b"-DWRITABLE_ROOT_%d_HEAD=" % i + guard_base + b"/HEAD"]
                if defines[7 * i:7 * i + 7] != want:
                    check.fail(f"{mode}: root {i} arrived as {defines[7 * i:7 * i + 7]!r}, "
                               f"not {want!r}")
            key = (mode, n_slots)
            if key in profiles and profiles[key] != argv[2]:
                check.fail(f"{mode} with {n_slots} slots: the profile text changed with the paths")
            profiles[key] = argv[2]
            result = check.run_model(argv, mode, table_roots)
            check.count += 1
            sys.stdout.write(result.stdout.decode(errors="replace"))
            if result.returncode != 0:
                check.fail(f"{mode} {roots!r}: {result.stderr.decode(errors='replace').strip()}")
            return argv

        for mode, roots, table_roots in SCENARIOS:
            argv = scenario(mode, roots, table_roots)
            if mode == "workspace-write" and len(table_roots) == 3 and good is None:
                good = (argv, table_roots)

        # Real repositories are protected, the workspace without one is open to git init; once
        # the call made its .git, the next call protects that too.
        given, table, plain = real_scenarios(scratch)
        for mode in ("workspace-write", "read-only"):
            scenario(mode, given, table)
        open_argv = check.module_argv("workspace-write", given)
        os.mkdir(os.path.join(plain, b".git"))
        now = table[:3] + [(table[3][0], REPO)] + table[4:]
        scenario("workspace-write", given, now)
        # A repository's root directly inside a root without one: git run there looks above
        # it once its HEAD is garbled, so the outer root may hold no .git or HEAD of its own.
        outer = os.path.join(os.fsencode(scratch), b"outer")
        os.makedirs(os.path.join(outer, b"ws", b".git"))
        scenario("workspace-write", [os.path.join(outer, b"ws"), outer],
                 [(macos_spelling(os.path.join(outer, b"ws")), REPO),
                  (macos_spelling(outer), GUARD)])
        # A profile that lets a repository's commondir be written must fail too.
        protected_argv = check.module_argv("workspace-write", given)
        text = protected_argv[2].decode()
        param = '(param "WRITABLE_ROOT_0_GIT_COMMONDIR")'
        loose = text.replace(f"(literal {param})", f'(literal (string-append {param} ".x"))')
        result = check.run_model(protected_argv[:2] + [loose.encode()] + protected_argv[3:],
                                 "workspace-write", now)
        check.count += 1
        err = result.stderr.decode(errors="replace").strip()
        if loose == text or result.returncode == 0 or "commondir\")): the profile says allow" not in err:
            check.fail(f"the model did not refuse a writable commondir: {err}")
        else:
            print(f"refused as it must: a writable commondir: {err}")
        # The model tells the two apart, both ways: a repository left open where one exists,
        # and one protected where git init must work.
        for what, argv, wrong, message in (
                ("an existing repository left open", open_argv, now, "says allow, expected deny"),
                ("a new repository refused", check.module_argv("workspace-write", given), table,
                 "says deny, expected allow")):
            result = check.run_model(argv, "workspace-write", wrong)
            check.count += 1
            err = result.stderr.decode(errors="replace").strip()
            if result.returncode == 0 or message not in err:
                check.fail(f"the model did not refuse {what}: {err}")
            else:
                print(f"refused as it must: {what}: {err}")

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
            "a wider rule": (with_profile(profile + '(allow file-write* (subpath "/Users"))\n'),
                             "the profile says allow, expected deny"),
            "an unfiltered write": (with_profile(profile + '(allow file-write*)\n'),
                                    "file-write* without a filter, beyond"),
            "no rule for other letter cases": (
                with_profile(re.sub(r'\n\s*\(regex #"[^"]*\[[A-Z][a-z]\][^"]*"\)', "", profile)),
                "/.GIT/config\")): the profile says allow, expected deny"),
            "no rule for non-ASCII spellings": (
                with_profile(re.sub(r'\n\s*\(regex #"[^"]*\[\^ -~\][^"]*"\)', "", profile)),
                "/pre-commit\")): the profile says allow, expected deny"),
            "no default": (with_profile(profile.replace("(deny default)", "")), "no default"),
            "an unlisted mach service": (
                with_profile(profile + '(allow mach-lookup (global-name "com.apple.securityd.xpc"))\n'),
                "beyond the model's inventory"),
            "an unlisted sysctl": (
                with_profile(profile.replace('(sysctl-name "hw.ncpu")',
                                             '(sysctl-name "hw.ncpu")\n  (sysctl-name-prefix "kern.proc.")')),
                "beyond the model's inventory"),
            "an unfiltered operation": (with_profile(profile + "(allow iokit-open)\n"),
                                        "iokit-open without a filter, beyond"),
            "an unlisted filtered operation": (
                with_profile(profile + '(allow file-write-data (literal "/dev/klog"))\n'
                             .replace("file-write-data", "sysctl-write")),
                "sysctl-write, beyond"),
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
