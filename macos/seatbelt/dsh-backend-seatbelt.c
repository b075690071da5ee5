/* dsh-backend-seatbelt.c — the Seatbelt backend: the command runs under /usr/bin/sandbox-exec
 * with the profile of dsh-seatbelt-profile.c, its writable roots passed as -D parameters.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <string.h>

#include "dsh-backend.h"
#include "dsh-seatbelt-profile.h"

DSH_BACKEND_EXPORT const DshBackendDescriptor *dsh_backend_seatbelt_describe (void);

/* What a write the profile refuses prints: EPERM. */
static const char *const denial_signatures[] = {
  "Operation not permitted",
  NULL,
};

/* sandbox-exec's own lines before the command runs: a profile it cannot compile (an unbound
 * name, a syntax error) exits with EX_DATAERR, one it cannot apply with EX_OSERR after
 * "sandbox-exec: sandbox_apply: ...". A failed execvp() of the command is absent on purpose:
 * that is the command's failure (or a denial), not the runner's. */
static const char *const compile_signatures[] = {
  "sandbox-exec: ",
  NULL,
};
static const int compile_exit_codes[] = { 65 };
static const char *const apply_signatures[] = {
  "sandbox-exec: sandbox_apply: ",
  NULL,
};
static const int apply_exit_codes[] = { 71 };

static const DshBackendFailureRule failure_rules[] = {
  {
    .allowed_exit_codes = compile_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = compile_signatures,
  },
  {
    .allowed_exit_codes = apply_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = apply_signatures,
  },
};

/* The host's program lookup tries the system directories first, so a present runner comes back
 * as exactly this path; anything else (absent, or only elsewhere on PATH) is no runner. */
static int
runner_is_present (DshBackendHost *host)
{
  const char *found = host->find_program (host, "sandbox-exec");

  if (found == NULL || strcmp (found, DSH_SEATBELT_RUNNER) != 0)
    {
      host->set_error (host, DSH_SEATBELT_RUNNER " was not found (a sandbox-exec elsewhere is "
                             "never used)");
      return 0;
    }
  return 1;
}

static int
seatbelt_check (DshBackendHost *host)
{
  return runner_is_present (host) ? 0 : -1;
}

/* The profile lets a command use its terminal (tcgetattr, window size, new ptys), and
 * sandbox-exec keeps the caller's session, so the command's controlling terminal is the
 * caller's. XNU lets a process push input into its controlling terminal (TIOCSTI), which the
 * caller's shell then reads and runs unconfined once the command ends; the Linux backends close
 * this (bwrap --new-session, seccomp in the Landlock launcher), this one cannot. */
#define TERMINAL_INPUT_REASON \
  "a command whose controlling terminal is the caller's can push input into it (TIOCSTI), " \
  "which the caller's shell reads and runs unconfined after the command ends: the profile " \
  "allows ioctls on terminals and sandbox-exec keeps the caller's session"

static void
report_enforcement (DshBackendHost *host, const DshSeatbeltPlan *plan)
{
  char reason[8192];
  size_t inner, outer;

  if (dsh_seatbelt_plan_find_nested_root (plan, &inner, &outer))
    {
      snprintf (reason, sizeof reason,
                "writable root %s lies inside writable root %s below a directory that can be "
                "renamed, which would carry its .git past the protected-path rules (they match "
                "paths), and in which a repository of the command's making is the one git finds "
                "from it once the command garbles its own .git/HEAD",
                plan->roots[inner], plan->roots[outer]);
      host->add_reason (host, reason);
    }
  if (dsh_seatbelt_plan_find_respellable_root (plan, &inner, &outer))
    {
      snprintf (reason, sizeof reason,
                "writable root %s holds a repository and lies at or inside writable root %s, "
                "and has other spellings on a case- or normalisation-insensitive volume "
                "(another letter case, another Unicode form, on HFS+ an ignored code point): "
                "the outer root's rule allows them, and its .git rules match only the exact one",
                plan->roots[inner], plan->roots[outer]);
      host->add_reason (host, reason);
    }
  for (size_t i = 0; i < plan->n_roots; i++)
    {
      if (plan->has_repository[i] != DSH_SEATBELT_REPOSITORY_ELSEWHERE)
        continue;
      snprintf (reason, sizeof reason,
                "the repository at %s is a .git file or symlink, has submodules or linked "
                "worktrees, or its hooks or config are symlinks: what git runs from where they "
                "lead stays writable where that lies inside a writable root",
                plan->git_dirs[i]);
      host->add_reason (host, reason);
    }
  host->add_reason (host, TERMINAL_INPUT_REASON);
  host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_PARTIAL);
}

static int
seatbelt_confine (DshBackendHost *host, const DshBackendPolicy *policy, const char *const *argv)
{
  DshSeatbeltPlan plan;
  char error[8192];

  if (!runner_is_present (host))
    return -1;
  if (dsh_seatbelt_plan_build (policy, &plan, error, sizeof error) != 0)
    {
      host->set_error (host, error);
      return -1;
    }

  host->push_arg (host, DSH_SEATBELT_RUNNER);
  host->push_arg (host, "-p");
  host->push_arg (host, plan.profile);
  for (size_t i = 0; i < plan.n_defines; i++)
    host->push_arg (host, plan.defines[i]);
  host->push_arg (host, "--");
  for (size_t i = 0; argv[i] != NULL; i++)
    host->push_arg (host, argv[i]);
  report_enforcement (host, &plan);
  dsh_seatbelt_plan_clear (&plan);
  return 0;
}

static const DshBackendDescriptor descriptor = {
  .abi_major = DSH_BACKEND_ABI_MAJOR,
  .abi_minor = DSH_BACKEND_ABI_MINOR,
  .name = "seatbelt",
  .description = "Seatbelt: a generated profile under /usr/bin/sandbox-exec",
  .os = DSH_BACKEND_OS_MACOS,
  .priority = 100,
  .confine = seatbelt_confine,
  .check = seatbelt_check,
  .denial_signatures = denial_signatures,
  .runner_failure_rules = failure_rules,
  .n_runner_failure_rules = 2,
};

const DshBackendDescriptor *
dsh_backend_seatbelt_describe (void)
{
  return &descriptor;
}
