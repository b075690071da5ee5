#!/usr/bin/python3
"""Drives one confined call through the DshSandbox-1 typelib with PyGObject: resolve a policy,
confine a command, run the confined argv with only descriptors 0-2, classify the result, and
the same whole call through DshSandbox.run(); then, in a session, escalate after the denial (a
Python answerer approves) and retry once.

A write under read-only must really be denied by the kernel (the file unchanged, EROFS on
stderr under bwrap, EACCES under Landlock) and classified as a denial with the marker; the retry under the granted mode must
really write. With --prefix, the typelib and the library it names must both come from that
installed prefix.

Usage: test-gi.py [--prefix PREFIX] SCRATCH_DIR
"""
import argparse
import os
import subprocess
import sys
import tempfile

import gi

gi.require_version("DshSandbox", "1")
gi.require_version("Gio", "2.0")
from gi.repository import DshSandbox, Gio, GLib, GObject  # noqa: E402


# Copied from the seeds, not taken from the library.
SEED_DENIAL_MARKER = "[sandbox: file access denied under {mode} mode]"
SEED_ESCALATION_HINT = ("[sandbox: escalation available \u2014 retry this exact command once with "
                        "sandbox_permissions (the narrowest wider mode that suffices) + "
                        "justification; the approval prompt asks the user]")


class Approver(GObject.Object, DshSandbox.ApprovalAnswerer):
    """A harness's answerer, written in Python: grants once and remembers what it was asked."""

    def __init__(self):
        super().__init__()
        self.asked = []

    def do_answer_async(self, request, cancellable, callback, *user_data):
        self.asked.append((request.get_reason(), request.get_call_id()))
        task = Gio.Task.new(self, cancellable, callback, *user_data)
        DshSandbox.approval_task_return_outcome(task, DshSandbox.ApprovalOutcome.ALLOWED_ONCE)


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def kernel_refused(stderr):
    """The kernel's refusal of the write in its words: bwrap's read-only mount or Landlock."""
    return b"Read-only file system" in stderr or b"Permission denied" in stderr


def loaded_library():
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            if "libdsh-sandbox-1.so" in line:
                return line.split()[-1]
    return None


def run_confined(policy, argv, untrusted):
    provider = DshSandbox.LocalProvider.new()
    provider.set_untrusted_roots(untrusted)
    confined = provider.confine(argv, policy)
    run = subprocess.run(confined.get_argv(), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         close_fds=True, check=False)
    outcome, _ = DshSandbox.classify_result_len(confined, run.returncode, run.stderr)
    return outcome, run


def escalate_after_denial(scratch, workspace, target):
    presets = DshSandbox.PermissionPresets.new()
    log_path = os.path.join(scratch, "gi-session.log")
    session = presets.create_session(log_path, workspace, None)
    service = DshSandbox.PolicyService.new(presets.get_default_mode(), None)
    policy = service.resolve(session)
    check(policy.mode == DshSandbox.SandboxMode.READ_ONLY and
          policy.session_id == session.get_id(), "the session's policy is read-only, with its id")
    widest = DshSandbox.SandboxPolicy.new(DshSandbox.SandboxMode.WORKSPACE_WRITE,
                                          policy.workspace_root, None)
    untrusted = DshSandbox.writable_roots(widest)
    argv = ["sh", "-c", f"echo after > '{target}'"]

    turn = session.begin_turn()
    outcome, run = run_confined(policy, argv, untrusted)
    check(outcome == DshSandbox.Outcome.DENIED and kernel_refused(run.stderr),
          "in the session the write is denied first")

    approvals = DshSandbox.ApprovalService.new()
    approver = Approver()
    approvals.add_answerer(approver, session)
    channel = DshSandbox.EscalationChannel.new(approvals, session, DshSandbox.ApprovalPolicy.ASK,
                                               "bash", "call-1", None, None)
    check(DshSandbox.escalation_could_be_approved(
        policy.mode, approvals.effective_policy(session, DshSandbox.ApprovalPolicy.ASK),
        True, True), "after the denial an escalation could be approved (the hint follows)")
    granted, mode, asked, decision = DshSandbox.escalation_approve(
        policy.mode, DshSandbox.SandboxMode.WORKSPACE_WRITE, "the command writes its file",
        channel, None)
    check(granted and asked and mode == DshSandbox.SandboxMode.WORKSPACE_WRITE and
          decision == DshSandbox.ApprovalOutcome.ALLOWED_ONCE, "the escalation is granted once")
    check(approver.asked == [("escalate sandbox to workspace-write: the command writes its file",
                              "call-1")], "the Python answerer was asked once, with the call id")

    retry = service.resolve_with_mode(session, mode)
    outcome, run = run_confined(retry, argv, untrusted)
    with open(target, encoding="utf-8") as f:
        check(outcome == DshSandbox.Outcome.COMPLETED and f.read() == "after\n",
              "the retry under workspace-write really writes the file")
    session.end_turn(turn)

    # The whole call through DshSandbox.Execution, the Python answerer on the service's chain:
    # the denial offers the retry, in the seed's words (seed 003 section 5.4).
    execution = DshSandbox.Execution.new(argv, policy, session, approvals)
    result = execution.run()
    with open(target, encoding="utf-8") as f:
        check(result.outcome == DshSandbox.Outcome.DENIED and f.read() == "after\n",
              "through DshSandbox.Execution the read-only write is denied")
    check(result.marker == SEED_DENIAL_MARKER.format(mode="read-only"), "with the seed's marker")
    check(execution.get_hint() == SEED_ESCALATION_HINT,
          "and the seed's hint, for the answerer the service's chain holds")

    events = DshSandbox.SessionLog.load(log_path).dup_events()
    audit = [(e.get_type_name(), e.get_string("outcome")) for e in events
             if e.get_type_name() in ("approval/asked", "approval/decided")]
    check(audit[-2:] == [("approval/asked", None), ("approval/decided", "allowed-once")],
          "the session holds the audit pair")
    ok, last_mode = session.last_mode()
    check(ok and last_mode == DshSandbox.SandboxMode.READ_ONLY,
          "the grant covered one call: the session stays read-only")


def extra_root_from_python(scratch, workspace_root):
    """An extra writable root set as a binding can (it cannot assign the array field): the
    call writes there, and without it the kernel refuses the same write."""
    with tempfile.TemporaryDirectory(dir=scratch, prefix="gi-extra-") as extra:
        target = os.path.join(extra, "file")
        script = ["sh", "-c", f"echo extra > '{target}'"]
        policy = DshSandbox.SandboxPolicy.new(DshSandbox.SandboxMode.WORKSPACE_WRITE,
                                              workspace_root, None)
        result = DshSandbox.run(script, policy, None)
        check(result.command_ran and result.outcome == DshSandbox.Outcome.DENIED and
              not os.path.exists(target), "without the extra root its write is denied")
        policy.set_extra_writable_roots([extra])
        check(list(policy.extra_writable_roots or []) == [extra],
              "the policy reads back the extra root set")
        result = DshSandbox.run(script, policy, None)
        check(result.command_ran and result.outcome == DshSandbox.Outcome.COMPLETED,
              f"with it the call completes ({DshSandbox.outcome_to_string(result.outcome)})")
        with open(target, encoding="utf-8") as f:
            check(f.read() == "extra\n", "the command wrote beneath the extra root")
        missing = os.path.join(extra, "missing")
        policy.set_extra_writable_roots([extra, missing])
        result = DshSandbox.run(["true"], policy, None)
        check(result.command_ran and list(result.warnings or []) ==
              [f"the extra writable root {missing} is no directory, so this call left it out: "
               "make it before the call that needs it"],
              "the result says which extra root the call left out")
        policy.set_extra_writable_roots(None)
        check(not policy.extra_writable_roots, "None takes the extra roots away")


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
        # A long-lived harness opts in to hot reload; a reload keeps the untrusted roots.
        check(provider.watch_modules(), "the provider watches its module directories")
        check(provider.get_generation() == 1, "a new provider is at generation 1")
        provider.reload()
        check(provider.get_generation() == 2, "a reload starts generation 2")
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
        check(kernel_refused(run.stderr), "the write failed with EROFS or EACCES")
        check(run.returncode != 0, f"the command failed (exit {run.returncode})")

        outcome, detail = DshSandbox.classify_result_len(confined, run.returncode, run.stderr)
        check(outcome == DshSandbox.Outcome.DENIED,
              f"the result is classified denied ({DshSandbox.outcome_to_string(outcome)})")
        check(detail is None, "a denial carries no runner-failure line")
        marker = DshSandbox.text_denial_marker(policy.mode)
        check(marker == SEED_DENIAL_MARKER.format(mode="read-only"), "the marker")

        # The whole call in one: trust checks, confinement, the spawn with fds 0-2, classification.
        result = DshSandbox.run(["sh", "-c", f"echo after > '{target}'"], policy, None)
        with open(target, encoding="utf-8") as f:
            check(f.read() == "before\n", "through DshSandbox.run() too the file is unchanged")
        check(result.command_ran and result.outcome == DshSandbox.Outcome.DENIED and
              result.marker == marker and result.backend in ("bwrap", "landlock"),
              "DshSandbox.run() returns the denial with its marker and backend")

        extra_root_from_python(args.scratch, policy.workspace_root)

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

        escalate_after_denial(args.scratch, workspace, target)

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
