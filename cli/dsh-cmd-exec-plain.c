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

  if (command[0][0] == '\0')
    return dsh_cli_fail ("no command given: put it after \"--\"");

  policy = dsh_cli_resolve_policy (options->mode, options->workspace, &spelled_workspace,
                                   &error);
  if (policy == NULL)
    return dsh_cli_fail_error (error);

  dsh_exec_run_init (&run);
  run.spelled_workspace = spelled_workspace;
  if (!dsh_exec_run_open_report (&run, options->report_path, &error))
    status = dsh_cli_fail_error (error);
  else
    {
      run.report.standing_mode = policy->mode;
      run.report.workspace_root = policy->workspace_root;
      status = dsh_exec_run_command (&run, (const char *const *) command, policy);
    }
  dsh_exec_run_clear (&run);
  return status;
}
