/* fuzz-exec-stubs.c — stand-ins for the parts of exec that start processes or write files
 * (cli/dsh-exec-run.c and the full exec's run step, cli/dsh-exec-call.c), so that a fuzz target
 * can run exec's option grammar and policy resolution as they are without ever running what it
 * was asked to.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz-exec-stubs.h"

#include "dsh-exec-call.h"

FuzzExecRecord fuzz_exec_record;

void
fuzz_exec_record_clear (FuzzExecRecord *record)
{
  g_free (record->workspace_root);
  g_strfreev (record->command);
  g_free (record->report_path);
  memset (record, 0, sizeof (*record));
}

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
  dsh_exec_report_clear (&run->report);
}

gboolean
dsh_exec_run_open_report (DshExecRun *run, const char *path, GError **error)
{
  /* Never opened: the path comes from the fuzzer. */
  g_free (fuzz_exec_record.report_path);
  fuzz_exec_record.report_path = g_strdup (path);
  return TRUE;
}

int
dsh_exec_run_refuse (DshExecRun *run, DshOutcome outcome, const char *message)
{
  g_assert_nonnull (message);
  fuzz_exec_record.refused = TRUE;
  return DSH_EXIT_NOT_RUN;
}

int
dsh_exec_run_refuse_before_run (DshExecRun *run, const char *report_path, const GError *error)
{
  /* The report is never opened (the path comes from the fuzzer): only the refusal line. */
  g_assert_nonnull (error);
  return dsh_cli_fail_error (error);
}

int
dsh_exec_run_command (DshExecRun *run, const char *const *command, const DshSandboxPolicy *policy)
{
  /* What exec promises before anything runs: a command, a policy with a canonical root. */
  g_assert_false (fuzz_exec_record.ran);
  g_assert_nonnull (command);
  g_assert_nonnull (command[0]);
  g_assert_cmpstr (command[0], !=, "");
  g_assert_nonnull (dsh_sandbox_mode_to_string (policy->mode));
  g_assert_true (g_path_is_absolute (policy->workspace_root));

  fuzz_exec_record.ran = TRUE;
  fuzz_exec_record.mode = policy->mode;
  fuzz_exec_record.workspace_root = g_strdup (policy->workspace_root);
  fuzz_exec_record.command = g_strdupv ((char **) command);
  return 0;
}

int
dsh_exec_run_execution (DshExecRun *run, DshExecution *execution)
{
  DshSandboxMode requested;
  const char *justification = NULL;

  g_assert_nonnull (dsh_execution_get_call_id (execution));
  if (dsh_execution_get_escalation (execution, &requested, &justification))
    {
      /* Reached only with both escalation arguments validated; nobody is asked here: an
       * approver command would be a process. */
      g_assert_nonnull (justification);
      g_assert_true (requested == DSH_SANDBOX_MODE_WORKSPACE_WRITE ||
                     requested == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS);
      fuzz_exec_record.asked = TRUE;
      return dsh_exec_run_refuse (run, DSH_OUTCOME_ESCALATION_REFUSED,
                                  "nobody is asked in the fuzz target");
    }
  return dsh_exec_run_command (run, dsh_execution_get_argv (execution),
                               dsh_execution_get_policy (execution));
}
