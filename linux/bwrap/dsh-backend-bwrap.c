/* dsh-backend-bwrap.c — the bubblewrap backend: a read-only view of the host in fresh user and
 * PID namespaces, with the policy's writable roots bound back read-write.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dsh-backend.h"
#include "dsh-bwrap-exec.h"
#include "dsh-bwrap-first-step.h"
#include "dsh-landlock-uapi.h"

/* A write under a read-only bind fails with EROFS; this is how its text reads. */
static const char *const denial_signatures[] = {
  "Read-only file system",
  NULL,
};

/* bubblewrap reports every setup failure as one "bwrap: <what>" line and exits 1 before the
 * command runs. These are the setup failures of bubblewrap 0.8's own messages; a failed execvp
 * of the command itself is deliberately absent — that is the command's failure, not the
 * runner's. */
static const char *const fatal_signatures[] = {
  "bwrap: Creating new namespace failed",
  "bwrap: No permissions to create",
  "bwrap: setting up uid map",
  "bwrap: setting up gid map",
  "bwrap: error writing to setgroups",
  "bwrap: unshare user ns",
  "bwrap: unshare pid ns",
  "bwrap: Setting userns2 failed",
  "bwrap: Setting pidns failed",
  "bwrap: Can't ",
  "bwrap: Failed to ",
  "bwrap: Creating newroot failed",
  "bwrap: Creating oldroot failed",
  "bwrap: pivot_root",
  "bwrap: Unable to ",
  "bwrap: unable to ",
  "bwrap: capset failed",
  "bwrap: capget",
  "bwrap: prctl(",
  "bwrap: open /proc/",
  /* --bind-fd found something else mounted than the descriptor it was given (a raced path). */
  "bwrap: Race condition binding dirfd",
  /* More than its 9000 arguments (the launcher refuses such an argv before bwrap sees it). */
  "bwrap: Exceeded maximum number of arguments",
  NULL,
};

static const int fatal_exit_codes[] = { 1 };

/* The launcher's one line when it cannot hand bwrap what it needs (see dsh-bwrap-exec.c),
 * with its own exit status. */
static const char *const launcher_fatal_signatures[] = {
  FATAL_PREFIX,
  NULL,
};

static const int launcher_fatal_exit_codes[] = { EXIT_RUNNER_FAILURE };

static const DshBackendFailureRule failure_rules[] = {
  {
    .allowed_exit_codes = fatal_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = fatal_signatures,
  },
  {
    .allowed_exit_codes = launcher_fatal_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = launcher_fatal_signatures,
  },
};

static void
push_args (DshBackendHost *host, const char *const *args)
{
  for (size_t i = 0; args[i] != NULL; i++)
    host->push_arg (host, args[i]);
}

/* bwrap, its profile, then the command. With private_tmp the temp area is a private tmpfs:
 * nothing written there reaches the host's /tmp, and roots bound after it (a workspace or TMPDIR
 * below /tmp) stay the host's own directories. */
static int
push_bwrap (DshBackendHost *host,
            const char *bwrap,
            const char *const *profile,
            int private_tmp,
            const char *const *argv)
{
  host->push_arg (host, bwrap);
  push_args (host, profile);
  if (private_tmp)
    {
      host->push_arg (host, "--tmpfs");
      host->push_arg (host, "/tmp");
    }
  host->push_arg (host, "--");
  push_args (host, argv);
  return 0;
}

/* What bwrap's read-only mounts do not stop on their own (see dsh-bwrap-inside.c) is held by a
 * Landlock domain from ABI 2 on; truncation joins Landlock's rights at ABI 3. */
static void
report_enforcement (DshBackendHost *host, long abi)
{
  if (abi >= 3)
    {
      host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_FULL);
      return;
    }
  if (abi >= DSH_BWRAP_HOLD_WRITES_ABI)
    host->add_reason (host, "Landlock ABI 2 does not govern truncation: a file outside the "
                            "writable roots whose descriptor a concurrent command outside bwrap "
                            "(one under Landlock) hands in can be truncated by path through "
                            "/proc/self/fd");
  else
    host->add_reason (host, "without Landlock (ABI 2 or later) below bwrap's mounts, a "
                            "descriptor of a host directory handed in by a concurrent command "
                            "outside bwrap (one under Landlock), or a file system the host mounts "
                            "while the command runs, is writable inside the sandbox");
  host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_PARTIAL);
}

static int
bwrap_confine (DshBackendHost *host, const DshBackendPolicy *policy, const char *const *argv)
{
  /* Order matters: the root bind comes first so that the fresh /dev and /proc mount over it;
   * a /proc bound from the host would let /proc/<pid>/root and /fd reach around the mounts.
   * No capabilities: a root caller's command would otherwise keep CAP_SYS_ADMIN in its user
   * namespace and could simply remount / read-write. /proc/sys stays read-only: sysctl checks
   * the real uid, so a root caller's command could otherwise set kernel.core_pattern and have
   * the host run a workspace file. A private IPC namespace keeps SysV objects off the host. */
  static const char *const profile[] = {
    "--new-session",
    "--die-with-parent",
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--cap-drop", "ALL",
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--ro-bind", "/proc/sys", "/proc/sys",
    "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
    NULL,
  };
  const char *launcher = host->find_helper (host, LAUNCHER_NAME);
  const char *bwrap = host->find_program (host, "bwrap");
  int write = policy->mode == DSH_BACKEND_MODE_WORKSPACE_WRITE;
  /* A workspace that is /tmp itself is the host's /tmp: a private one would swallow the writes. */
  int host_tmp = write && strcmp (policy->workspace_root, "/tmp") == 0;
  long abi = dsh_landlock_abi ();

  if (bwrap == NULL)
    {
      host->set_error (host, "bwrap was not found on PATH");
      return -1;
    }
  if (launcher == NULL)
    {
      host->set_error (host, "the bwrap launcher " LAUNCHER_NAME " was not found");
      return -1;
    }

  /* The launcher takes the roots, binds them read-write from descriptors and inserts those
   * binds before bwrap's "--". A missing root matches nothing until it exists. A read-only call
   * binds nothing writable, but still goes through the launcher: its step inside refuses
   * typing into a terminal (TIOCSTI), which bwrap's --new-session alone does not. */
  report_enforcement (host, abi);

  host->push_arg (host, launcher);
  for (size_t i = 0; write && policy->writable_roots != NULL && policy->writable_roots[i]; i++)
    {
      const char *root = policy->writable_roots[i];

      if (root[0] != '/')
        {
          host->set_error (host, "a writable root is not an absolute path");
          return -1;
        }
      if (strcmp (root, "/tmp") == 0 && !host_tmp)
        continue;
      host->push_arg (host, "--write");
      host->push_arg (host, root);
    }
  host->push_arg (host, "--");
  return push_bwrap (host, bwrap, profile, write && !host_tmp, argv);
}

static int
bwrap_check (DshBackendHost *host)
{
  if (host->find_program (host, "bwrap") == NULL)
    {
      host->set_error (host, "bwrap was not found on PATH");
      return -1;
    }
  if (host->find_helper (host, LAUNCHER_NAME) == NULL)
    {
      host->set_error (host, "the bwrap launcher " LAUNCHER_NAME " was not found");
      return -1;
    }
  return 0;
}

DSH_BACKEND_DEFINE (bwrap,
                    .description = "bubblewrap: read-only host view in user and PID namespaces",
                    .os = DSH_BACKEND_OS_LINUX,
                    .priority = 100,
                    .confine = bwrap_confine,
                    .check = bwrap_check,
                    .denial_signatures = denial_signatures,
                    .runner_failure_rules = failure_rules,
                    .n_runner_failure_rules = 2,
                    .take_first_step = dsh_bwrap_take_first_step,
                    .first_step_done = dsh_bwrap_first_step_done)
