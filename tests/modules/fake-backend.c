/* fake-backend.c — a test-only backend steered by the environment, built several times under
 * different names and priorities to exercise selection without a real runner.
 *
 * Its "runner" is /bin/sh: it fails like a real runner (exit 71 and one fatal line) when
 * DSH_FAKE_<NAME>_BROKEN=1 at run time, logs every run to $DSH_FAKE_LOG, then executes the
 * command unconfined. Its cheap check fails, as for a runner that is not installed, when
 * DSH_FAKE_<NAME>_MISSING=1, or when DSH_FAKE_<NAME>_RUNNER names no program on PATH; a runner
 * that is found is also looked up by confine(), which names it as the script's $0. With
 * DSH_FAKE_<NAME>_CONFINE_GATE=FILE, confine() creates FILE.entered and waits (at most a
 * minute) until FILE exists: a call held in flight inside the module's code. It is never
 * installed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dsh-backend.h"

/* Kept when FAKE_NO_RULES leaves it out of the descriptor. */
#define G_GNUC_UNUSED_FALLBACK __attribute__ ((unused))

#ifndef FAKE_NAME
#error "FAKE_NAME must be defined"
#endif
#ifndef FAKE_ABI_MAJOR
#define FAKE_ABI_MAJOR DSH_BACKEND_ABI_MAJOR
#endif
#ifndef FAKE_ABI_MINOR
#define FAKE_ABI_MINOR DSH_BACKEND_ABI_MINOR
#endif

#define FAKE_PASTE2(a, b, c) a##b##c
#define FAKE_PASTE(a, b, c) FAKE_PASTE2 (a, b, c)
#ifdef FAKE_GENERIC_ENTRY
/* Found whatever the file is called, so the file name can disagree with the descriptor. */
#define FAKE_DESCRIBE dsh_backend_describe
#else
#define FAKE_DESCRIBE FAKE_PASTE (dsh_backend_fake_, FAKE_SYMBOL, _describe)
#endif

DSH_BACKEND_EXPORT const DshBackendDescriptor *FAKE_DESCRIBE (void);

static const char *const denial_signatures[] = { "fake: denied by policy", NULL };
static const char *const fatal_signatures[] = { "fake-" FAKE_NAME ": fatal:", NULL };
static const char *const informational_lines[] = { "fake-" FAKE_NAME ": starting", NULL };
static const int fatal_exit_codes[] = { 71 };
#if defined(FAKE_EMPTY_EXCLUSION)
static const char *const denial_exclusions[] = { "fake: denied by policy (login)", "", NULL };
#elif defined(FAKE_EXCLUSIONS)
static const char *const denial_exclusions[] = { "fake: denied by policy (login)", NULL };
#endif

G_GNUC_UNUSED_FALLBACK static const DshBackendFailureRule failure_rules[] = {
  {
    .allowed_exit_codes = fatal_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = fatal_signatures,
    .informational_lines = informational_lines,
  },
};

static void
wait_at_gate (const char *gate)
{
  const struct timespec step = { 0, 10 * 1000 * 1000 };
  char entered[4096];
  int fd;

  snprintf (entered, sizeof entered, "%s.entered", gate);
  fd = open (entered, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0)
    close (fd);
  for (int i = 0; i < 6000 && access (gate, F_OK) != 0; i++)
    nanosleep (&step, NULL);
}

static int
fake_confine (DshBackendHost *host, const DshBackendPolicy *policy, const char *const *argv)
{
  const char *gate = host->get_env (host, "DSH_FAKE_" FAKE_ENV "_CONFINE_GATE");
  const char *runner = host->get_env (host, "DSH_FAKE_" FAKE_ENV "_RUNNER");
  const char *runner_path = runner != NULL ? host->find_program (host, runner) : NULL;

  if (gate != NULL && gate[0] != '\0')
    wait_at_gate (gate);

#ifdef FAKE_ALWAYS_BROKEN
  static const char script[] =
    "echo 'fake-" FAKE_NAME ": fatal: this runner never works' >&2; exit 71";
#else
  static const char script[] =
    "if [ \"$DSH_FAKE_" FAKE_ENV "_BROKEN\" = 1 ]; then "
    "echo 'fake-" FAKE_NAME ": fatal: broken by the environment' >&2; exit 71; fi; "
    "if [ -n \"$DSH_FAKE_LOG\" ]; then echo " FAKE_NAME " >> \"$DSH_FAKE_LOG\"; fi; "
    "exec \"$@\"";
#endif

  /* A buggy module: pushes nothing, the command alone, or a runner with another command. */
  const char *push = host->get_env (host, "DSH_FAKE_" FAKE_ENV "_PUSH");

  if (push != NULL && strcmp (push, "nothing") == 0)
    return 0;
  if (push == NULL || strcmp (push, "raw") != 0)
    {
      host->push_arg (host, "/bin/sh");
      host->push_arg (host, "-c");
      host->push_arg (host, script);
      host->push_arg (host, runner_path != NULL ? runner_path : "fake-" FAKE_NAME);
    }
  for (size_t i = 0; argv[i] != NULL; i++)
    host->push_arg (host, push != NULL && strcmp (push, "other") == 0 && argv[i + 1] == NULL
                            ? "something-else"
                            : argv[i]);

  if (policy->mode == DSH_BACKEND_MODE_WORKSPACE_WRITE)
    {
      host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_PARTIAL);
      host->add_reason (host, "the fake backend enforces nothing");
    }
  return 0;
}

static int
fake_check (DshBackendHost *host)
{
  const char *missing = host->get_env (host, "DSH_FAKE_" FAKE_ENV "_MISSING");
  const char *runner = host->get_env (host, "DSH_FAKE_" FAKE_ENV "_RUNNER");

  /* A runner file to find, as bwrap's check finds bwrap. */
  if (runner != NULL && host->find_program (host, runner) == NULL)
    {
      host->set_error (host, "fake-" FAKE_NAME ": the runner file is not on PATH");
      return -1;
    }

  if (missing != NULL && strcmp (missing, "1") == 0)
    {
      host->set_error (host, "fake-" FAKE_NAME ": the runner is not installed");
      return -1;
    }
  return 0;
}

static const DshBackendDescriptor descriptor = {
  .abi_major = FAKE_ABI_MAJOR,
  .abi_minor = FAKE_ABI_MINOR,
  .name = "fake-" FAKE_NAME,
  .description = "test-only fake backend " FAKE_NAME,
  .os = DSH_BACKEND_OS_LINUX,
  .priority = FAKE_PRIORITY,
  .confine = fake_confine,
  .check = fake_check,
  .denial_signatures = denial_signatures,
#ifndef FAKE_NO_RULES
  .runner_failure_rules = failure_rules,
  .n_runner_failure_rules = 1,
#endif
#ifdef FAKE_EXCLUSIONS
  .denial_exclusions = denial_exclusions,
#endif
#ifdef FAKE_RESERVED_GARBAGE
  /* A 1.0 module's padding is not the core's to read: fill it with what would crash a core that
   * took it for the 1.1 hooks or metadata. */
  .reserved = { (void *) 1, (void *) 1, (void *) 1, (void *) 1, (void *) 1 },
#endif
};

const DshBackendDescriptor *
FAKE_DESCRIBE (void)
{
  return &descriptor;
}
