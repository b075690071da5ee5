/* fuzz-exec-stubs.c — stand-ins for the parts of exec that start processes or write files
 * (cli/dsh-exec-run.c, the escalation's answerers), so that a fuzz target can run exec's option
 * grammar and policy resolution as they are without ever running what it was asked to.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz-exec-stubs.h"

#include "dsh-approver.h"
#include "dsh-exec-run.h"

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
  if (run->on_refusal != NULL)
    run->on_refusal (run, run->user_data);
  return DSH_EXIT_NOT_RUN;
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

DshApprovalAnswerer *
dsh_cli_compose_answerer (DshCommandAnswerer *approver)
{
  /* Nobody is asked: an approver command would be a process. */
  return NULL;
}

gboolean
dsh_cli_escalate (DshApprovalService *service,
                  DshSessionLog *session,
                  DshApprovalPolicy call_policy,
                  DshApprovalAnswerer *answerer,
                  const char *call_id,
                  DshSandboxMode standing_mode,
                  DshSandboxMode requested_mode,
                  const char *justification,
                  const char *const *command,
                  const char *workspace_root,
                  DshSandboxMode *out_mode,
                  gboolean *out_asked,
                  DshApprovalOutcome *out_outcome,
                  GError **error)
{
  /* Reached only with both escalation arguments validated. */
  g_assert_nonnull (justification);
  g_assert_nonnull (call_id);
  g_assert_true (requested_mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE ||
                 requested_mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS);
  fuzz_exec_record.asked = TRUE;
  *out_asked = FALSE;
  *out_outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED,
                       "nobody is asked in the fuzz target");
  return FALSE;
}
