/* dsh-cmd-exec-plain.c — "dsh-sandbox exec" without a session: --mode, --workspace and
 * --report only, parsed by the front. The same steps as the full exec without a session, on
 * the lean path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"
#include "dsh-exec-options.h"
#include "dsh-exec-run.h"

int
dsh_cmd_exec_plain (const DshExecOptions *options, char **command)
{
  g_autofree char *spelled_workspace = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  DshExecRun run;
  int status;

  /* Options that do not parse never get here: the front hands them to the full command, which
   * reports them. A refusal from here on still owes the caller its report. */
  dsh_exec_run_init (&run);
  if (command[0] == NULL || command[0][0] == '\0')
    {
      g_set_error_literal (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           "no command given: put it after \"--\"");
      status = dsh_exec_run_refuse_before_run (&run, options->report_path, error);
    }
  else if ((policy = dsh_cli_resolve_policy (options->mode, options->workspace,
                                             &spelled_workspace, &error)) == NULL)
    status = dsh_exec_run_refuse_before_run (&run, options->report_path, error);
  else if (!dsh_exec_run_open_report (&run, options->report_path, &error))
    status = dsh_cli_fail_error (error);
  else
    {
      run.spelled_workspace = spelled_workspace;
      run.report.standing_mode = policy->mode;
      run.report.workspace_root = policy->workspace_root;
      status = dsh_exec_run_command (&run, (const char *const *) command, policy);
    }
  dsh_exec_run_clear (&run);
  return status;
}
