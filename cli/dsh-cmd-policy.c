/* dsh-cmd-policy.c — `dsh-sandbox policy`: the resolved execution policy of a call and the
 * model-facing policy context.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli-environment.h"
#include "dsh-cli-session.h"

static const char usage[] =
  "Usage:\n"
  "  dsh-sandbox policy resolve [--session FILE] [--mode MODE] [--json]\n"
  "  dsh-sandbox policy context [--session FILE]\n";

/* The policy names its roots to a model and to JSON readers: bytes that are no text are refused
 * with exec's words, never printed (the context would carry them, the JSON line would not
 * parse) and never mended (that would name a directory the call does not use). */
static DshSandboxPolicy *
nameable (DshSandboxPolicy *policy, GError **error)
{
  g_autoptr (DshSandboxPolicy) owned = policy;
  gboolean valid = g_utf8_validate (policy->workspace_root, -1, NULL);

  for (gsize i = 0; valid && policy->extra_writable_roots != NULL &&
                    policy->extra_writable_roots[i] != NULL; i++)
    valid = g_utf8_validate (policy->extra_writable_roots[i], -1, NULL);
  if (!valid)
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "the canonical workspace path is not valid UTF-8");
      return NULL;
    }
  return g_steal_pointer (&owned);
}

DshSandboxPolicy *
dsh_cli_policy_resolve (const char *session_path, const char *mode_text, GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshPolicyService) service = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  DshSandboxMode mode;

  if (mode_text != NULL && !dsh_sandbox_mode_from_string (mode_text, &mode, error))
    return NULL;
  if (!dsh_cli_load_presets_and_session (session_path, &presets, &session, error) ||
      (session != NULL && !dsh_permission_presets_pin_session (presets, session, error)))
    return NULL;
  service = dsh_cli_new_policy_service (presets);
  return nameable (mode_text != NULL
                     ? dsh_policy_service_resolve_with_mode (service, session, mode)
                     : dsh_policy_service_resolve (service, session),
                   error);
}

char *
dsh_cli_policy_context (const char *session_path, GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshPolicyService) service = NULL;
  g_autoptr (DshApprovalService) approval = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;

  /* What the model is told is what the session keeps. */
  if (!dsh_cli_load_presets_and_session (session_path, &presets, &session, error) ||
      (session != NULL && !dsh_permission_presets_pin_session (presets, session, error)))
    return NULL;
  service = dsh_cli_new_policy_service (presets);
  approval = dsh_cli_new_approval_service (presets);
  policy = nameable (dsh_policy_service_resolve (service, session), error);
  if (policy == NULL)
    return NULL;
  /* The session's facts, the approval policy included: the tool description holds none. */
  return dsh_text_runtime_context (policy->mode, policy->workspace_root,
                                   (const char *const *) policy->extra_writable_roots,
                                   dsh_approval_service_get_policy (approval, session));
}

static int
cmd_resolve_or_context (int argc, char **argv, gboolean context_text)
{
  g_autofree char *session_path = NULL;
  g_autofree char *mode_text = NULL;
  gboolean as_json = FALSE;
  const GOptionEntry resolve_entries[] = {
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &session_path, "The session log", "FILE" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &mode_text, "An explicit, approved mode", "MODE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print JSON", NULL },
    { NULL }
  };
  const GOptionEntry context_entries[] = {
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &session_path, "The session log", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_auto (GStrv) operands = NULL;

  dsh_cli_describe_environment (context, "policy");
  g_option_context_add_main_entries (context, context_text ? context_entries : resolve_entries,
                                     NULL);
  if (!dsh_cli_parse_with_operands (context, argc, argv, &operands, &error))
    return dsh_cli_fail_error (error);
  if (operands[0] != NULL)
    return dsh_cli_fail ("unexpected argument \"%s\"", dsh_cli_printable (operands[0]));

  if (context_text)
    {
      g_autofree char *text = dsh_cli_policy_context (session_path, &error);

      if (text == NULL)
        return dsh_cli_fail_error (error);
      printf ("%s\n", text);
      return 0;
    }

  policy = dsh_cli_policy_resolve (session_path, mode_text, &error);
  if (policy == NULL)
    return dsh_cli_fail_error (error);
  if (as_json)
    {
      g_autoptr (JsonNode) json = dsh_cli_policy_to_json (policy);

      dsh_cli_print_json (json);
      return 0;
    }
  printf ("mode: %s\n", dsh_sandbox_mode_to_string (policy->mode));
  printf ("workspace root: %s\n", policy->workspace_root);
  if (policy->session_id != NULL)
    printf ("session id: %s\n", policy->session_id);
  return 0;
}

int
dsh_cmd_policy (int argc, char **argv)
{
  int status;
  const char *sub = dsh_cli_subcommand (argc, argv, "policy", usage, &status);

  if (sub == NULL)
    return status;
  if (g_str_equal (sub, "resolve"))
    return cmd_resolve_or_context (argc - 1, argv + 1, FALSE);
  if (g_str_equal (sub, "context"))
    return cmd_resolve_or_context (argc - 1, argv + 1, TRUE);
  return dsh_cli_fail_unknown_subcommand ("policy", sub);
}
