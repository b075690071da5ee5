/* dsh-exec-call.c — the full exec's run step: the library runs the call (escalation, approval,
 * run, hint); here its outcome is printed and recorded.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-exec-call.h"

int
dsh_exec_run_execution (DshExecRun *run, DshExecution *execution)
{
  DshApprovalOutcome outcome;
  DshRunResult *result;
  const GError *end_error;
  int status;

  result = dsh_execution_run (execution);
  if (dsh_execution_get_asked (execution, &outcome))
    run->report.approval_outcome = dsh_approval_outcome_to_string (outcome);

  status = dsh_exec_run_finish (run, result, dsh_execution_get_hint (execution));
  /* After a refusal the one "dsh-sandbox:" line is already out (and usually names the same
   * broken log), so only a command that ran gets a warning. */
  end_error = dsh_execution_get_end_error (execution);
  if (end_error != NULL && run->report.command_ran)
    g_printerr ("dsh-sandbox: warning: cannot end the turn in the session log: %s\n",
                end_error->message);
  return status;
}
