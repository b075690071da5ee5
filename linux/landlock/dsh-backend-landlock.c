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
#include "dsh-landlock-exec.h"

DSH_BACKEND_EXPORT const DshBackendDescriptor *dsh_backend_landlock_describe (void);

#define LAUNCHER DSH_LANDLOCK_EXEC_NAME

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)

/* A write Landlock refuses fails with EACCES, and strerror's words for it are the usual text.
 * Two kinds of tools name only the errno: npm reports it as its error code (and advice to chown
 * the cache), "npm error code EACCES" or the older "npm ERR! code EACCES", and the JVM's file
 * API (Gradle, Maven, sbt caches) throws java.nio.file.AccessDeniedException for EACCES and
 * for nothing else. A write Landlock would refuse often meets a read-only mount first (a
 * container's, a read-only /usr, an outer sandbox) and fails with EROFS instead. ABI 1 cannot
 * grant reparenting, so there a rename or link into another directory fails with EXDEV even
 * inside the writable roots: describe() fills the last slot with that text on such a kernel
 * (it stays NULL otherwise). A genuine cross-device move is then reported as a denial too. */
#define EXDEV_SLOT 4
static const char *denial_signatures[] = {
  "Permission denied",
  "code EACCES",
  "java.nio.file.AccessDeniedException",
  "Read-only file system",
  NULL,
  NULL,
};

/* Lines in those words that are no file effect: an SSH server refusing a login ("git@host:
 * Permission denied (publickey).", with whatever methods it offers first, or the password
 * prompt's retry). Each keeps the text after "Permission denied" that only SSH writes, so that
 * Rust's "Permission denied (os error 13)" still counts. */
static const char *const denial_exclusions[] = {
  "Permission denied (publickey",
  "Permission denied (password",
  "Permission denied (keyboard-interactive",
  "Permission denied (hostbased",
  "Permission denied (gssapi",
  "Permission denied, please try again",
  NULL,
};

/* The launcher's one diagnostic line before the command runs (see dsh-landlock-exec.h); it
 * exits 125 only then. A command it cannot execute is reported without "fatal:" and with the
 * shell's 126/127, because that is the command's failure, as under bwrap. */
static const char *const fatal_signatures[] = {
  DSH_LANDLOCK_FATAL_PREFIX,
  NULL,
};

static const int fatal_exit_codes[] = { DSH_LANDLOCK_EXIT_FAILURE };

static const DshBackendFailureRule failure_rules[] = {
  {
    .allowed_exit_codes = fatal_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = fatal_signatures,
  },
};

/* The highest Landlock ABI this kernel enforces, or -1 with errno set. The kernel's answer does
 * not change while the module is loaded: describe() asks once, before anything else runs, and
 * check() and confine() reuse the answer (and the errno of a failed query). */
static long kernel_abi = -1;
static int kernel_abi_errno = ENOSYS;

static void
ask_kernel_abi (void)
{
  kernel_abi = syscall (__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  kernel_abi_errno = kernel_abi < 0 ? errno : EINVAL;
}

static long
query_abi (void)
{
  errno = kernel_abi_errno;
  return kernel_abi;
}

static int
refuse_without_landlock (DshBackendHost *host)
{
  const char *name, *cause;
  char message[320];
  int errnum = errno;

  dsh_landlock_unavailable_cause (errnum, &name, &cause);
  snprintf (message, sizeof message,
            "this kernel does not enforce Landlock (the ABI version query failed with %s%s)%s",
            name, strerror (errnum), cause);
  host->set_error (host, message);
  return -1;
}

/* One reason per promised file effect that the running ABI leaves ungoverned. */
static void
report_enforcement (DshBackendHost *host, const DshBackendPolicy *policy, long abi)
{
  char reason[320];

  /* No ABI so far governs metadata: chmod, utimes and setxattr work on any file the caller
   * owns that the command can resolve, where bwrap's read-only mounts refuse them (the launcher
   * drops every capability, so a root caller's command can no longer change the owner or the
   * file flags of others' files). Truncation below ABI 3 is no reason: the launcher's seccomp
   * filter closes it. */
  host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_PARTIAL);
  host->add_reason (host, "Landlock does not govern file metadata: changing the mode, "
                          "timestamps or extended attributes of the caller's own files "
                          "outside the writable roots is not prevented");
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
                "into another directory fails with EXDEV even inside the writable roots", abi);
      host->add_reason (host, reason);
    }
  if (abi < 6)
    {
      snprintf (reason, sizeof reason,
                "Landlock ABI %ld cannot scope signals (ABI 6): the command can stop or kill "
                "other processes of the same user outside the sandbox; only its launcher and "
                "the launcher's caller are shielded (by a seccomp filter), so the call still "
                "ends and leaves nothing running", abi);
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
  .denial_exclusions = denial_exclusions,
};

const DshBackendDescriptor *
dsh_backend_landlock_describe (void)
{
  ask_kernel_abi ();
  if (kernel_abi == 1)
    denial_signatures[EXDEV_SLOT] = "Invalid cross-device link";
  return &descriptor;
}
