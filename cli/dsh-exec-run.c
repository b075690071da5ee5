/* dsh-exec-run.c — the run step of exec: dsh_run() does the call; here its marker is printed
 * after the command's stderr and the report is written.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-exec-run.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "dsh-report-destination.h"
#include "dsh-run-private.h"

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
  return dsh_cli_fail ("%s", message);
}

int
dsh_exec_run_refuse_before_run (DshExecRun *run, const char *report_path, const GError *error)
{
  g_autoptr (GError) report_error = NULL;
  DshOutcome outcome;

  /* A call whose options or policy were refused still owes its caller the report. */
  if (!dsh_exec_run_open_report (run, report_path, &report_error))
    g_printerr ("dsh-sandbox warning: %s\n", report_error->message);
  if (g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED))
    outcome = DSH_OUTCOME_ROOT_REFUSED;
  else if (g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE))
    outcome = DSH_OUTCOME_UNAVAILABLE;
  else
    outcome = DSH_OUTCOME_INVALID_ARGUMENT;
  return dsh_exec_run_refuse (run, outcome, error->message);
}

int
dsh_exec_run_finish (DshExecRun *run, DshRunResult *result, const char *hint)
{
  DshExecReport *report = &run->report;

  g_clear_pointer (&report->result, dsh_run_result_free);
  report->result = result;
  report->mode = result->mode;
  if (!result->command_ran)
    return dsh_exec_run_refuse (run, result->outcome, result->error->message);
  report->outcome = result->outcome;
  report->exit_code = result->exit_code;
  report->term_signal = result->term_signal;
  if (result->marker != NULL)
    {
      /* After the command's own stderr, which was streamed unchanged. */
      fprintf (stderr, "%s\n", result->marker);
      g_ptr_array_add (report->markers, g_strdup (result->marker));
      if (hint != NULL)
        {
          fprintf (stderr, "%s\n", hint);
          g_ptr_array_add (report->markers, g_strdup (hint));
        }
      fflush (stderr);
    }
  /* After the command's stderr and its marker, like them about this run. */
  for (gsize i = 0; result->warnings != NULL && result->warnings[i] != NULL; i++)
    fprintf (stderr, "dsh-sandbox warning: %s\n", result->warnings[i]);
  fflush (stderr);
  report->command_ran = TRUE;
  write_report (run);
  return report->exit_code;
}

int
dsh_exec_run_command (DshExecRun *run, const char *const *command,
                      const DshSandboxPolicy *policy)
{
  DshCliRunOptions options;
  DshRunResult *result;

  dsh_cli_run_options_init (&options);
  options.options.spelled_workspace = run->spelled_workspace;
  /* The process exits after this one call. */
  result = dsh_run_before_exit (command, policy, &options.options);
  dsh_cli_run_options_clear (&options);
  return dsh_exec_run_finish (run, result, NULL);
}
