/* dsh-cmd-confine.c — "dsh-sandbox confine": the ConfinedArgv JSON for a command, for harnesses
 * that spawn it themselves. With --session, the mode and workspace come from the session, as
 * for exec, but nothing is appended: confining runs nothing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"
#include "dsh-cli-session.h"

/* The policy of this call and the workspace as spelled (for the planted-symlink check). */
static DshSandboxPolicy *
resolve_policy (const char *mode_text,
                const char *workspace,
                const char *session_path,
                const char *const *requested_roots,
                char **out_spelled_workspace,
                char **out_session_created,
                GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;

  if (!dsh_cli_check_workspace_without_session (workspace, session_path, error))
    return NULL;
  presets = dsh_cli_load_presets (error);
  if (presets == NULL)
    return NULL;
  if (session_path == NULL)
    {
      /* Sessionless: the deployment's extra roots, then this call's. */
      policy = dsh_cli_resolve_policy (mode_text, workspace, out_spelled_workspace, error);
      if (policy == NULL || !dsh_cli_join_extra_roots (policy, presets, requested_roots, error))
        return NULL;
      return g_steal_pointer (&policy);
    }

  policy = dsh_cli_resolve_session_policy (presets, session_path, mode_text, requested_roots,
                                           &session, error);
  if (policy == NULL)
    return NULL;
  *out_spelled_workspace = g_strdup (dsh_session_log_get_cwd (session));
  *out_session_created = g_strdup (dsh_session_log_get_created (session));
  return g_steal_pointer (&policy);
}

DshSandboxPolicy *
dsh_cli_confine_policy (const char *mode_text,
                        const char *workspace,
                        const char *session_path,
                        const char *const *requested_roots,
                        GError **error)
{
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autofree char *spelled_workspace = NULL;
  g_autofree char *session_created = NULL;

  policy = resolve_policy (mode_text, workspace, session_path, requested_roots,
                           &spelled_workspace, &session_created, error);
  if (policy == NULL)
    return NULL;
  if (!dsh_sandbox_mode_is_confined (policy->mode))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "danger-full-access is not confined: spawn the command as it is");
      return NULL;
    }
  /* Resolved and checked once: the provider hands down exactly these roots. */
  if (!dsh_roots_pin (policy, spelled_workspace, session_created, error))
    return NULL;
  return g_steal_pointer (&policy);
}

int
dsh_cmd_confine (int argc, char **argv)
{
  g_autofree char *mode = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *session_path = NULL;
  g_auto (GStrv) writable_roots = NULL;
  const GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_FILENAME, &mode,
      "Sandbox mode (default read-only); with --session, the explicit mode of this call", "MODE" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &workspace,
      "Workspace root without a session (default: the current directory)", "DIR" },
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &session_path,
      "The session log: mode and workspace come from it (nothing is appended)", "FILE" },
    { "writable-root", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &writable_roots,
      "One more writable root under workspace-write (repeatable)", "DIR" },
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

  policy = dsh_cli_confine_policy (mode, workspace, session_path,
                                   (const char *const *) writable_roots, &error);
  if (policy == NULL)
    return dsh_cli_fail_error (error);

  provider = dsh_cli_new_provider_for_policy (policy);
  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider),
                                           (const char *const *) command, policy, &error);
  if (confined == NULL)
    return dsh_cli_fail_error (error);

  json = dsh_confined_argv_to_json (confined);
  dsh_cli_print_json (json);
  return 0;
}
