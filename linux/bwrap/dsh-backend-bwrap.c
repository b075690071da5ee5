/* dsh-backend-bwrap.c — the bubblewrap backend: a read-only view of the host in fresh user and
 * PID namespaces, with the policy's writable roots bound back read-write.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dsh-backend.h"

DSH_BACKEND_EXPORT const DshBackendDescriptor *dsh_backend_bwrap_describe (void);

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
  NULL,
};

static const int fatal_exit_codes[] = { 1 };

static const DshBackendFailureRule failure_rules[] = {
  {
    .allowed_exit_codes = fatal_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = fatal_signatures,
  },
};

static void
push_args (DshBackendHost *host, const char *const *args)
{
  for (size_t i = 0; args[i] != NULL; i++)
    host->push_arg (host, args[i]);
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
  const char *bwrap = host->find_program (host, "bwrap");

  if (bwrap == NULL)
    {
      host->set_error (host, "bwrap was not found on PATH");
      return -1;
    }

  host->push_arg (host, bwrap);
  push_args (host, profile);

  if (policy->mode == DSH_BACKEND_MODE_WORKSPACE_WRITE)
    {
      /* The temp area is a private tmpfs: nothing written there reaches the host's /tmp. Roots
       * bound after it (a workspace or TMPDIR below /tmp) stay the host's own directories. */
      host->push_arg (host, "--tmpfs");
      host->push_arg (host, "/tmp");
      for (size_t i = 0; policy->writable_roots != NULL && policy->writable_roots[i]; i++)
        {
          const char *root = policy->writable_roots[i];

          if (strcmp (root, "/tmp") == 0)
            continue;
          /* A missing root matches nothing until it exists. */
          host->push_arg (host, "--bind-try");
          host->push_arg (host, root);
          host->push_arg (host, root);
        }
    }

  host->push_arg (host, "--");
  push_args (host, argv);
  host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_FULL);
  return 0;
}

static int
bwrap_check (DshBackendHost *host)
{
  if (host->find_program (host, "bwrap") == NULL)
    {
      host->set_error (host, "bwrap was not found on PATH");
      return -1;
    }
  return 0;
}

static const DshBackendDescriptor descriptor = {
  .abi_major = DSH_BACKEND_ABI_MAJOR,
  .abi_minor = DSH_BACKEND_ABI_MINOR,
  .name = "bwrap",
  .description = "bubblewrap: read-only host view in user and PID namespaces",
  .os = DSH_BACKEND_OS_LINUX,
  .priority = 100,
  .confine = bwrap_confine,
  .check = bwrap_check,
  .denial_signatures = denial_signatures,
  .runner_failure_rules = failure_rules,
  .n_runner_failure_rules = 1,
};

const DshBackendDescriptor *
dsh_backend_bwrap_describe (void)
{
  return &descriptor;
}
