/* dsh-exec-run.c — the run step of exec: spawn (through the provider unless danger-full-access),
 * stream, classify runner failure before denial, print the marker, write the report.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-exec-run.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "dsh-report-destination.h"
#include "dsh-spawn-private.h"

void
dsh_exec_run_init (DshExecRun *run)
{
  memset (run, 0, sizeof (*run));
  run->report_fd = -1;
  dsh_exec_report_init (&run->report);
}

void
dsh_exec_run_clear (DshExecRun *run)
{
  if (run->report_fd >= 0)
    close (run->report_fd);
  run->report_fd = -1;
  dsh_exec_report_clear (&run->report);
}

gboolean
dsh_exec_run_open_report (DshExecRun *run, const char *path, GError **error)
{
  if (path == NULL || run->report_fd >= 0)
    return TRUE;
  run->report_fd = dsh_report_destination_open (path, error);
  return run->report_fd >= 0;
}

static void
write_report (DshExecRun *run)
{
  const struct sigaction ignore = { .sa_handler = SIG_IGN };
  struct sigaction saved;
  g_autofree char *text = NULL;
  gsize len;

  if (run->report_fd < 0)
    return;
  text = dsh_exec_report_to_text (&run->report);
  len = strlen (text);
  /* A reader of a report pipe that went away costs the report, not the exit status. */
  sigaction (SIGPIPE, &ignore, &saved);
  for (gsize done = 0; done < len;)
    {
      ssize_t n = write (run->report_fd, text + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_printerr ("dsh-sandbox warning: cannot write the report: %s\n", g_strerror (errno));
          break;
        }
      done += (gsize) n;
    }
  sigaction (SIGPIPE, &saved, NULL);
}

int
dsh_exec_run_refuse (DshExecRun *run, DshOutcome outcome, const char *message)
{
  run->report.outcome = outcome;
  run->report.command_ran = FALSE;
  run->report.exit_code = 0;
  run->report.term_signal = 0;
  g_free (run->report.detail);
  run->report.detail = g_strdup (message);
  write_report (run);
  if (run->on_refusal != NULL)
    run->on_refusal (run, run->user_data);
  return dsh_cli_fail ("%s", message);
}

int
dsh_exec_run_refuse_before_run (DshExecRun *run, const char *report_path, const GError *error)
{
  g_autoptr (GError) report_error = NULL;

  /* A call whose options or policy were refused still owes its caller the report. */
  if (!dsh_exec_run_open_report (run, report_path, &report_error))
    g_printerr ("dsh-sandbox warning: %s\n", report_error->message);
  run->report.invalid_argument = !g_error_matches (error, DSH_SANDBOX_ERROR,
                                                   DSH_SANDBOX_ERROR_ROOT_REFUSED) &&
                                 !g_error_matches (error, DSH_SANDBOX_ERROR,
                                                   DSH_SANDBOX_ERROR_UNAVAILABLE);
  return dsh_exec_run_refuse (run,
                              g_error_matches (error, DSH_SANDBOX_ERROR,
                                               DSH_SANDBOX_ERROR_ROOT_REFUSED)
                                ? DSH_OUTCOME_ROOT_REFUSED
                                : DSH_OUTCOME_UNAVAILABLE,
                              error->message);
}

extern char **environ;

/* What steers this one call — which backend, where its modules and probe cache are, how long its
 * approver may take — is no part of the command's environment: a dsh-sandbox the command runs
 * is another call, inside this sandbox's view of the host, and selects for that view itself.
 * Nor may it trust the probe cache, which records what passed in the caller's view (bwrap
 * cannot run inside either backend), so it probes. The deployment configuration
 * (DSH_SANDBOX_CONFIG) stays: its policy holds for nested calls too. */
static const char *const call_only_variables[] = {
  "DSH_SANDBOX_BACKEND",
  "DSH_SANDBOX_BACKEND_DIR",
  "DSH_SANDBOX_PROBE_CACHE",
  "DSH_SANDBOX_APPROVER_TIMEOUT",
};

static char nested_probe_cache[] = "DSH_SANDBOX_PROBE_CACHE=off";

static gboolean
is_call_only (const char *entry)
{
  for (guint i = 0; i < G_N_ELEMENTS (call_only_variables); i++)
    {
      gsize len = strlen (call_only_variables[i]);

      if (strncmp (entry, call_only_variables[i], len) == 0 && entry[len] == '=')
        return TRUE;
    }
  return FALSE;
}

/* Our environment without the call-only variables; the strings stay ours. */
static GPtrArray *
confined_environment (void)
{
  GPtrArray *envp = g_ptr_array_new ();

  for (char **entry = environ; *entry != NULL; entry++)
    {
      if (!is_call_only (*entry))
        g_ptr_array_add (envp, *entry);
    }
  g_ptr_array_add (envp, nested_probe_cache);
  g_ptr_array_add (envp, NULL);
  return envp;
}

/* A confined command gets stdin, stdout and stderr and nothing else the caller held open, and
 * our environment less the call-only variables; a raw one (danger-full-access) inherits what it
 * would have without dsh-sandbox, such as a make jobserver's descriptors. */
static gboolean
spawn (DshExecRun *run, const char *const *argv, gboolean confined, GString *captured,
       GError **error)
{
  g_autoptr (GPtrArray) envp = confined ? confined_environment () : NULL;
  const DshSpawnOptions options = {
    .forward_signals = TRUE,
    .close_inherited_fds = confined,
    .envp = envp != NULL ? (char *const *) envp->pdata : NULL,
  };

  return dsh_spawn_run (argv, &options, &run->report.exit_code, &run->report.term_signal,
                        captured, error);
}

static int
run_unconfined (DshExecRun *run, const char *const *command)
{
  g_autoptr (GString) captured = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  if (!spawn (run, command, FALSE, captured, &error))
    {
      /* Without a runner, dsh-sandbox is the one that failed to start the command. */
      g_autofree char *text = g_strdup_printf ("cannot run the command: %s", error->message);

      return dsh_exec_run_refuse (run, DSH_OUTCOME_RUNNER_FAILURE, text);
    }

  run->report.command_ran = TRUE;
  run->report.outcome = DSH_OUTCOME_COMPLETED;
  write_report (run);
  return run->report.exit_code;
}

static int
run_confined (DshExecRun *run, const char *const *command, const DshSandboxPolicy *policy)
{
  g_autoptr (DshBackendSelector) selector = dsh_cli_new_selector_for_policy (policy);
  g_autoptr (GString) captured = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *detail = NULL;
  DshExecReport *report = &run->report;
  const char *mode = dsh_sandbox_mode_to_string (policy->mode);

  /* The selector itself, not a provider: the exec path never starts GObject's type system. */
  report->confined = dsh_backend_selector_confine (selector, command, policy, &error);
  if (report->confined == NULL)
    return dsh_exec_run_refuse (run,
                                g_error_matches (error, DSH_SANDBOX_ERROR,
                                                 DSH_SANDBOX_ERROR_UNAVAILABLE)
                                  ? DSH_OUTCOME_UNAVAILABLE
                                : g_error_matches (error, DSH_SANDBOX_ERROR,
                                                   DSH_SANDBOX_ERROR_ROOT_REFUSED)
                                  ? DSH_OUTCOME_ROOT_REFUSED
                                  : DSH_OUTCOME_RUNNER_FAILURE,
                                error->message);

  if (!spawn (run, (const char *const *) report->confined->argv, TRUE, captured, &error))
    {
      g_autofree char *text = dsh_text_runner_failure (mode, error->message);

      return dsh_exec_run_refuse (run, DSH_OUTCOME_RUNNER_FAILURE, text);
    }

  report->outcome = dsh_confinement_classify (report->confined, report->exit_code, captured->str,
                                              captured->len, &detail);
  if (report->outcome == DSH_OUTCOME_RUNNER_FAILURE)
    {
      g_autofree char *text = dsh_text_runner_failure (mode, detail);

      /* The runner failed before the command started: it never ran. */
      return dsh_exec_run_refuse (run, DSH_OUTCOME_RUNNER_FAILURE, text);
    }
  if (report->outcome == DSH_OUTCOME_DENIED)
    {
      char *marker = dsh_text_denial_marker (policy->mode);

      /* After the command's own stderr, which was streamed unchanged. */
      fprintf (stderr, "%s\n", marker);
      g_ptr_array_add (report->markers, marker);
      if (run->after_denial != NULL)
        run->after_denial (run, policy->mode, run->user_data);
      fflush (stderr);
    }

  report->command_ran = TRUE;
  write_report (run);
  return report->exit_code;
}

int
dsh_exec_run_command (DshExecRun *run, const char *const *command,
                      const DshSandboxPolicy *policy)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSandboxPolicy) pinned = dsh_sandbox_policy_copy (policy);

  run->report.mode = policy->mode;
  /* The roots are resolved and checked once, here; the backend and its runner receive exactly
   * these strings. */
  if (!dsh_roots_pin (pinned, run->spelled_workspace, run->session_created, &error))
    return dsh_exec_run_refuse (run, DSH_OUTCOME_ROOT_REFUSED, error->message);
  /* danger-full-access runs the raw argv and never asks a provider. */
  if (dsh_sandbox_mode_is_confined (policy->mode))
    return run_confined (run, command, pinned);
  return run_unconfined (run, command);
}
