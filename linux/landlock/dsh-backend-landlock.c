/* dsh-backend-landlock.c — the Landlock backend: wraps the command in the dsh-landlock-exec
 * launcher and reports what this kernel's Landlock ABI can govern.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dsh-backend.h"

DSH_BACKEND_EXPORT const DshBackendDescriptor *dsh_backend_landlock_describe (void);

#define LAUNCHER "dsh-landlock-exec"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)

/* A write Landlock refuses fails with EACCES; this is how its text reads. */
static const char *const denial_signatures[] = {
  "Permission denied",
  NULL,
};

/* The launcher's one diagnostic line before the command runs (see dsh-landlock-exec.c); it
 * exits 125 only then. A command it cannot execute is reported without "fatal:" and with the
 * shell's 126/127, because that is the command's failure, as under bwrap. */
static const char *const fatal_signatures[] = {
  "dsh-landlock-exec: fatal: ",
  NULL,
};

static const int fatal_exit_codes[] = { 125 };

static const DshBackendFailureRule failure_rules[] = {
  {
    .allowed_exit_codes = fatal_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = fatal_signatures,
  },
};

/* The highest Landlock ABI this kernel enforces, or -1 with errno set. */
static long
query_abi (void)
{
  return syscall (__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
}

static int
refuse_without_landlock (DshBackendHost *host)
{
  char message[256];

  snprintf (message, sizeof message,
            "this kernel does not enforce Landlock (ABI version query failed: %s)",
            strerror (errno));
  host->set_error (host, message);
  return -1;
}

/* One reason per promised file effect that the running ABI leaves ungoverned. */
static void
report_enforcement (DshBackendHost *host, const DshBackendPolicy *policy, long abi)
{
  char reason[256];

  /* No ABI so far governs metadata: chmod, chown, utimes and setxattr work on any path the
   * command can resolve, where bwrap's read-only mounts refuse them. */
  host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_PARTIAL);
  host->add_reason (host, "Landlock does not govern file metadata: changing mode, owner, "
                          "timestamps or extended attributes outside the writable roots is "
                          "not prevented");
  /* Rights granted on a directory hold for everything beneath it, and the git files must stay
   * inside a writable workspace for git to work there: no rule layout can take them out. */
  if (policy->mode == DSH_BACKEND_MODE_WORKSPACE_WRITE)
    host->add_reason (host, "Landlock cannot carve a path out of a granted tree: .git/hooks and "
                            ".git/config of a repository inside the writable roots stay "
                            "writable, so a command can plant code that a later unconfined git "
                            "runs");

  if (abi < 2)
    {
      snprintf (reason, sizeof reason,
                "Landlock ABI %ld cannot grant reparenting (ABI 2): renaming or linking a file "
                "into another directory is refused even inside the writable roots", abi);
      host->add_reason (host, reason);
    }
  if (abi < 3)
    {
      snprintf (reason, sizeof reason,
                "Landlock ABI %ld cannot govern truncation (ABI 3): truncate(2) still shortens "
                "files outside the writable roots", abi);
      host->add_reason (host, reason);
    }
  if (abi < 6)
    {
      snprintf (reason, sizeof reason,
                "Landlock ABI %ld cannot scope signals (ABI 6): the command can kill its "
                "launcher, and processes it started may then outlive the call", abi);
      host->add_reason (host, reason);
    }
}

static int
landlock_confine (DshBackendHost *host, const DshBackendPolicy *policy, const char *const *argv)
{
  const char *launcher = host->find_helper (host, LAUNCHER);
  long abi;

  if (launcher == NULL)
    {
      host->set_error (host, "the Landlock launcher " LAUNCHER " was not found");
      return -1;
    }
  abi = query_abi ();
  if (abi < 1)
    return refuse_without_landlock (host);

  host->push_arg (host, launcher);
  /* Landlock has no mount namespace, so the temp area is the host's own /tmp and TMPDIR. */
  if (policy->mode == DSH_BACKEND_MODE_WORKSPACE_WRITE)
    {
      for (size_t i = 0; policy->writable_roots != NULL && policy->writable_roots[i]; i++)
        {
          if (policy->writable_roots[i][0] != '/')
            {
              host->set_error (host, "a writable root is not an absolute path");
              return -1;
            }
          host->push_arg (host, "--write");
          host->push_arg (host, policy->writable_roots[i]);
        }
    }
  host->push_arg (host, "--");
  for (size_t i = 0; argv[i] != NULL; i++)
    host->push_arg (host, argv[i]);

  report_enforcement (host, policy, abi);
  return 0;
}

/* Cheap and static: the launcher is installed and the kernel enforces Landlock at all. */
static int
landlock_check (DshBackendHost *host)
{
  if (host->find_helper (host, LAUNCHER) == NULL)
    {
      host->set_error (host, "the Landlock launcher " LAUNCHER " was not found");
      return -1;
    }
  if (query_abi () < 1)
    return refuse_without_landlock (host);
  return 0;
}

static const DshBackendDescriptor descriptor = {
  .abi_major = DSH_BACKEND_ABI_MAJOR,
  .abi_minor = DSH_BACKEND_ABI_MINOR,
  .name = "landlock",
  .description = "Landlock LSM: writes only beneath the writable roots; host /tmp, no namespaces",
  .os = DSH_BACKEND_OS_LINUX,
  /* Below bwrap (100): Linux prefers a working bwrap. */
  .priority = 50,
  .confine = landlock_confine,
  .check = landlock_check,
  .denial_signatures = denial_signatures,
  .runner_failure_rules = failure_rules,
  .n_runner_failure_rules = 1,
};

const DshBackendDescriptor *
dsh_backend_landlock_describe (void)
{
  return &descriptor;
}
