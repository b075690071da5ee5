/* dsh-cmd-describe.c — "dsh-sandbox describe bash": the model-facing description of the bash
 * tool for a session (or the deployment defaults), escalation paragraph included exactly when
 * the standing mode confines.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli-session.h"

static const char usage[] = "Usage:\n  dsh-sandbox describe bash [--session FILE]\n";

int
dsh_cmd_describe (int argc, char **argv)
{
  g_autofree char *session_path = NULL;
  const GOptionEntry entries[] = {
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &session_path, "The session log", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("bash");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshPolicyService) policy_service = NULL;
  g_autoptr (DshApprovalService) approval = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_auto (GStrv) operands = NULL;
  g_autofree char *text = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_with_operands (context, argc, argv, &operands, &error))
    return dsh_cli_fail_error (error);
  if (operands[0] == NULL)
    {
      fputs (usage, stderr);
      return dsh_cli_fail ("describe: no tool given");
    }
  /* bash is the one tool whose executor this project provides. */
  if (!g_str_equal (operands[0], "bash"))
    return dsh_cli_fail ("describe: unknown tool \"%s\"; expected bash",
                         dsh_cli_printable (operands[0]));
  if (operands[1] != NULL)
    return dsh_cli_fail ("unexpected argument \"%s\"", dsh_cli_printable (operands[1]));

  if (!dsh_cli_load_presets_and_session (session_path, &presets, &session, &error))
    return dsh_cli_fail_error (error);

  policy_service = dsh_cli_new_policy_service (presets);
  policy = dsh_policy_service_resolve (policy_service, session);
  approval = dsh_cli_new_approval_service (presets);

  /* The executor confines exactly when the standing mode does: under danger-full-access
   * there is nothing to escalate to, so nothing is advertised. */
  text = dsh_bash_description (dsh_sandbox_mode_is_confined (policy->mode),
                               dsh_approval_service_get_policy (approval, session));
  printf ("%s\n", text);
  return 0;
}
