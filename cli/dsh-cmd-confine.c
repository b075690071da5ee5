/* dsh-cmd-confine.c — "dsh-sandbox confine": the ConfinedArgv JSON for a command, for harnesses
 * that spawn it themselves.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

int
dsh_cmd_confine (int argc, char **argv)
{
  g_autofree char *mode = NULL;
  g_autofree char *workspace = NULL;
  const GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_FILENAME, &mode, "Sandbox mode (default read-only)", "MODE" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &workspace, "Workspace root", "DIR" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("-- ARGV...");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_autoptr (JsonNode) json = NULL;
  char **command;

  command = dsh_cli_split_command (&argc, argv);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_options (context, argc, argv, &error))
    return dsh_cli_fail_error (error);
  if (command == NULL || command[0] == NULL || command[0][0] == '\0')
    return dsh_cli_fail ("no command given: put it after \"--\"");
  for (gsize i = 0; command[i] != NULL; i++)
    {
      if (!g_utf8_validate (command[i], -1, NULL))
        return dsh_cli_fail ("argument %zu of the command is not valid UTF-8 and cannot be "
                             "written as JSON", i);
    }

  policy = dsh_cli_resolve_policy (mode, workspace, &error);
  if (policy == NULL)
    return dsh_cli_fail_error (error);
  if (!dsh_sandbox_mode_is_confined (policy->mode))
    return dsh_cli_fail ("danger-full-access is not confined: spawn the command as it is");

  if (workspace == NULL)
    workspace = dsh_cli_default_workspace ();
  if (policy->mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE &&
      !dsh_roots_check_unplanted (workspace, policy->workspace_root, &error))
    return dsh_cli_fail_error (error);

  provider = dsh_cli_new_provider (policy->workspace_root);
  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider),
                                           (const char *const *) command, policy, &error);
  if (confined == NULL)
    return dsh_cli_fail_error (error);

  json = dsh_confined_argv_to_json (confined);
  dsh_cli_print_json (json);
  return 0;
}
