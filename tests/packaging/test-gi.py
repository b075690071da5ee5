#!/usr/bin/python3
"""Drives one confined call through the DshSandbox-1 typelib with PyGObject: resolve a policy,
confine a command, run the confined argv with only descriptors 0-2, classify the result.

A write under read-only must really be denied by the kernel (the file unchanged, EROFS on
stderr) and classified as a denial with the marker. With --prefix, the typelib and the library
it names must both come from that installed prefix.

Usage: test-gi.py [--prefix PREFIX] SCRATCH_DIR
"""
import argparse
import os
import subprocess
import sys
import tempfile

import gi

gi.require_version("DshSandbox", "1")
from gi.repository import DshSandbox, GLib  # noqa: E402


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def loaded_library():
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            if "libdsh-sandbox-1.so" in line:
                return line.split()[-1]
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefix")
    parser.add_argument("scratch")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.scratch, prefix="gi-ws-") as workspace:
        target = os.path.join(workspace, "file")
        with open(target, "w", encoding="utf-8") as f:
            f.write("before\n")

        service = DshSandbox.PolicyService.new(DshSandbox.SandboxMode.READ_ONLY, workspace)
        policy = service.resolve(None)
        check(policy.mode == DshSandbox.SandboxMode.READ_ONLY, "the policy resolves to read-only")
        check(policy.workspace_root == DshSandbox.canonical_path(workspace),
              "the policy's workspace root is the canonical workspace")
        check(policy.session_id is None, "an agentless policy has no session id")
        DshSandbox.roots_check_unplanted(workspace, policy.workspace_root)

        # What a confined command of this workspace may write is untrusted for the provider.
        widest = DshSandbox.SandboxPolicy.new(DshSandbox.SandboxMode.WORKSPACE_WRITE,
                                              policy.workspace_root, None)
        writable = DshSandbox.writable_roots(widest)
        check(writable[0] == policy.workspace_root, "the workspace is the first writable root")
        provider = DshSandbox.LocalProvider.new()
        provider.set_untrusted_roots(writable)
        check(provider.get_selected() in ("bwrap", "landlock"),
              f"a Linux backend is selected ({provider.get_selected()})")

        confined = provider.confine(["sh", "-c", f"echo after > '{target}'"], policy)
        argv = confined.get_argv()
        check(len(argv) > 3 and argv[-3:] == ["sh", "-c", f"echo after > '{target}'"],
              "the confined argv ends with the caller's argv")
        check(confined.get_enforcement() in (DshSandbox.Enforcement.FULL,
                                             DshSandbox.Enforcement.PARTIAL),
              "the confined argv says how completely it is enforced")

        run = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, close_fds=True, check=False)
        with open(target, encoding="utf-8") as f:
            check(f.read() == "before\n", "the kernel kept the file unchanged")
        check(b"Read-only file system" in run.stderr, "the write failed with EROFS")
        check(run.returncode != 0, f"the command failed (exit {run.returncode})")

        outcome, detail = DshSandbox.classify_result_len(confined, run.returncode, run.stderr)
        check(outcome == DshSandbox.Outcome.DENIED,
              f"the result is classified denied ({DshSandbox.outcome_to_string(outcome)})")
        check(detail is None, "a denial carries no runner-failure line")
        marker = DshSandbox.text_denial_marker(policy.mode)
        check(marker == "[sandbox: file access denied under read-only mode]", "the marker")

        ok = DshSandbox.LocalProvider.new()
        ok.set_untrusted_roots(writable)
        plain = ok.confine(["true"], policy)
        run = subprocess.run(plain.get_argv(), stdin=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, close_fds=True, check=False)
        outcome, _ = DshSandbox.classify_result(plain, run.returncode, run.stderr.decode())
        check(run.returncode == 0 and outcome == DshSandbox.Outcome.COMPLETED,
              "a command that writes nothing completes")

        try:
            provider.confine(["true"], DshSandbox.SandboxPolicy.new(
                DshSandbox.SandboxMode.DANGER_FULL_ACCESS, policy.workspace_root, None))
            check(False, "danger-full-access is refused by a provider")
        except GLib.Error as error:
            check(error.domain == "dsh-sandbox-error-quark"
                  and error.code == DshSandbox.SandboxError.INVALID_ARGUMENT,
                  "danger-full-access raises the library's INVALID_ARGUMENT")
            check(DshSandbox.sandbox_error_code_name(error.code) == "INVALID_ARGUMENT",
                  "the error code has its stable name")

    if args.prefix is not None:
        typelib = gi.Repository.get_default().get_typelib_path("DshSandbox")
        check(typelib.startswith(args.prefix + "/"), f"the typelib is the installed one ({typelib})")
        library = loaded_library()
        check(library is not None and library.startswith(args.prefix + "/"),
              f"the library is the installed one ({library})")
        check("LD_LIBRARY_PATH" not in os.environ, "without LD_LIBRARY_PATH")
    return 0


if __name__ == "__main__":
    sys.exit(main())
