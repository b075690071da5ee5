/* dsh-cmd-exec-plain.c — "dsh-sandbox exec" without a session: --mode, --workspace and
 * --report only. The same steps as the full exec without a session, on the lean path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"
#include "dsh-exec-run.h"
#include "dsh-report-destination.h"

int
dsh_cmd_exec_plain (int argc, char **argv)
{
  g_autofree char *mode = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *report_path = NULL;
  g_autofree char *spelled_workspace = NULL;
  const GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_FILENAME, &mode, NULL, "MODE" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &workspace, NULL, "DIR" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report_path, NULL, "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("-- ARGV...");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  DshExecRun run;
  char **command;
  int status;

  dsh_exec_run_init (&run);
  command = dsh_cli_split_command (&argc, argv);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_options (context, argc, argv, &error))
    status = dsh_exec_run_refuse_before_run (&run, dsh_report_option_find (argc, argv), error);
  else if (command == NULL || command[0] == NULL || command[0][0] == '\0')
    {
      g_set_error_literal (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           "no command given: put it after \"--\"");
      status = dsh_exec_run_refuse_before_run (&run, report_path, error);
    }
  else if ((policy = dsh_cli_resolve_policy (mode, workspace, &spelled_workspace,
                                             &error)) == NULL)
    status = dsh_exec_run_refuse_before_run (&run, report_path, error);
  else if (!dsh_exec_run_open_report (&run, report_path, &error))
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
