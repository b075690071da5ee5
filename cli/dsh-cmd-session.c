/* dsh-cmd-session.c — `dsh-sandbox session`: create a session log, switch its mode, approval
 * policy or preset (each switch is its event), and show what its events fold to.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli-environment.h"
#include "dsh-cli-session.h"

#include <string.h>

static const char usage[] =
  "Usage:\n"
  "  dsh-sandbox session new FILE [--cwd DIR] [--preset NAME]\n"
  "  dsh-sandbox session set-mode FILE MODE\n"
  "  dsh-sandbox session set-approval FILE ask|never\n"
  "  dsh-sandbox session set-preset FILE NAME\n"
  "  dsh-sandbox session show FILE [--json]\n";

static int
expect_operands (GStrv operands, guint count, const char *synopsis)
{
  if (g_strv_length (operands) == count)
    return 0;
  return dsh_cli_fail ("expected %s", synopsis);
}

DshSessionLog *
dsh_cli_session_new (const char *path, const char *cwd_given, const char *preset, GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autofree char *cwd = cwd_given != NULL ? g_strdup (cwd_given) : g_get_current_dir ();

  if (!g_utf8_validate (cwd, -1, NULL))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "the session cwd is not valid UTF-8");
      return NULL;
    }
  /* The defaults a new session pins must come from where its own commands cannot write; the
   * rest of what a new session must not be (a cwd of /, a log in its commands' reach) the
   * library refuses. */
  presets = dsh_cli_load_presets (error);
  if (presets == NULL)
    return NULL;
  if (g_file_test (cwd, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *root = dsh_workspace_root (cwd, "/");

      if (!dsh_cli_check_config_unreachable (
            root, dsh_permission_presets_get_extra_writable_roots (presets), error))
        return NULL;
    }
  return dsh_permission_presets_create_session (presets, path, cwd, preset, error);
}

static int
cmd_new (int argc, char **argv)
{
  g_autofree char *cwd = NULL;
  g_autofree char *preset = NULL;
  const GOptionEntry entries[] = {
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &cwd,
      "The session's working directory (default: the current directory)", "DIR" },
    { "preset", 0, 0, G_OPTION_ARG_STRING, &preset,
      "The permission preset to start with (default: the configured one)", "NAME" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_auto (GStrv) operands = NULL;

  dsh_cli_describe_environment (context, "session");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_with_operands (context, argc, argv, &operands, &error))
    return dsh_cli_fail_error (error);
  if (expect_operands (operands, 1, "session new FILE [--cwd DIR] [--preset NAME]") != 0)
    return DSH_EXIT_NOT_RUN;

  session = dsh_cli_session_new (operands[0], cwd, preset, &error);
  if (session == NULL)
    return dsh_cli_fail_error (error);
  printf ("%s\n", dsh_session_log_get_id (session));
  return 0;
}

gboolean
dsh_cli_session_switch (const char *path,
                        DshCliSessionSwitch kind,
                        const char *value,
                        char **out_notice,
                        GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSessionLog) session = NULL;

  *out_notice = NULL;
  /* Validate the value before touching the file. */
  if (!dsh_cli_load_presets_and_session (path, &presets, &session, error))
    return FALSE;
  /* The table and defaults decide what this switch appends: they must come from where the
   * session's own commands cannot write. A resumed session first keeps what it had. */
  if (!dsh_permission_presets_pin_session (presets, session, error))
    return FALSE;

  switch (kind)
    {
    case DSH_CLI_SESSION_SWITCH_MODE:
      {
        g_autoptr (DshPolicyService) service = dsh_cli_new_policy_service (presets);
        DshSandboxMode mode;

        return dsh_sandbox_mode_from_string (value, &mode, error) &&
               dsh_policy_service_set_mode (service, session, mode, error);
      }
    case DSH_CLI_SESSION_SWITCH_APPROVAL:
      {
        g_autoptr (DshApprovalService) approval = dsh_cli_new_approval_service (presets);
        DshApprovalPolicy policy;

        /* Through the approval service: one event, and the notice the host injects for the
         * model when the effective policy changed. */
        return dsh_approval_policy_from_string (value, &policy, error) &&
               dsh_approval_service_set_policy (approval, session, policy, out_notice, error);
      }
    case DSH_CLI_SESSION_SWITCH_PRESET:
    default:
      /* A preset moves the approval policy too: the same notice as set-approval. */
      return dsh_permission_presets_set (presets, session, value, out_notice, error);
    }
}

/* set-mode, set-approval and set-preset: FILE VALUE, one switch, its events appended, the
 * notice (if any) on stdout. */
static int
cmd_switch (int argc, char **argv, DshCliSessionSwitch kind)
{
  static const char *const synopses[] = {
    [DSH_CLI_SESSION_SWITCH_MODE] = "session set-mode FILE MODE",
    [DSH_CLI_SESSION_SWITCH_APPROVAL] = "session set-approval FILE ask|never",
    [DSH_CLI_SESSION_SWITCH_PRESET] = "session set-preset FILE NAME",
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE VALUE");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) operands = NULL;
  g_autofree char *notice = NULL;

  dsh_cli_describe_environment (context, "session");
  if (!dsh_cli_parse_with_operands (context, argc, argv, &operands, &error))
    return dsh_cli_fail_error (error);
  if (expect_operands (operands, 2, synopses[kind]) != 0)
    return DSH_EXIT_NOT_RUN;
  if (!dsh_cli_session_switch (operands[0], kind, operands[1], &notice, &error))
    return dsh_cli_fail_error (error);
  if (notice != NULL)
    printf ("%s\n", notice);
  return 0;
}

static JsonNode *
show_json (DshSessionLog *session, DshPermissionPresets *presets, DshSandboxPolicy *policy,
           GPtrArray *events)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autofree char *preset = dsh_permission_presets_current (presets, events);
  const char *recorded = dsh_session_events_last_preset (events);
  DshApprovalPolicy approval = dsh_permission_presets_effective_approval_policy (presets, events);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "header");
  json_builder_add_value (builder, dsh_session_log_header_to_json (session));
  json_builder_set_member_name (builder, "policy");
  json_builder_add_value (builder, dsh_cli_policy_to_json (policy));
  json_builder_set_member_name (builder, "approvalPolicy");
  json_builder_add_string_value (builder, dsh_approval_policy_to_string (approval));
  json_builder_set_member_name (builder, "preset");
  json_builder_add_string_value (builder, preset);
  json_builder_set_member_name (builder, "recordedPreset");
  if (recorded != NULL)
    json_builder_add_string_value (builder, recorded);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "openTurn");
  json_builder_add_boolean_value (builder, dsh_session_events_has_open_turn (events));
  json_builder_set_member_name (builder, "droppedLines");
  json_builder_add_int_value (builder, dsh_session_log_get_dropped_count (session));
  json_builder_set_member_name (builder, "events");
  json_builder_begin_array (builder);
  for (guint i = 0; i < events->len; i++)
    json_builder_add_value (builder, dsh_session_event_to_json (g_ptr_array_index (events, i)));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

JsonNode *
dsh_cli_session_show_json (const char *path, GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshPolicyService) service = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (GPtrArray) events = NULL;

  if (!dsh_cli_load_presets_and_session (path, &presets, &session, error))
    return NULL;
  service = dsh_cli_new_policy_service (presets);
  policy = dsh_policy_service_resolve (service, session);
  events = dsh_session_log_dup_events (session);
  return show_json (session, presets, policy, events);
}

static int
cmd_show (int argc, char **argv)
{
  gboolean as_json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print JSON", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshPolicyService) service = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autofree char *preset = NULL;
  g_auto (GStrv) operands = NULL;

  dsh_cli_describe_environment (context, "session");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_with_operands (context, argc, argv, &operands, &error))
    return dsh_cli_fail_error (error);
  if (expect_operands (operands, 1, "session show FILE [--json]") != 0)
    return DSH_EXIT_NOT_RUN;

  if (as_json)
    {
      g_autoptr (JsonNode) json = dsh_cli_session_show_json (operands[0], &error);

      if (json == NULL)
        return dsh_cli_fail_error (error);
      dsh_cli_print_json (json);
      return 0;
    }

  if (!dsh_cli_load_presets_and_session (operands[0], &presets, &session, &error))
    return dsh_cli_fail_error (error);
  service = dsh_cli_new_policy_service (presets);
  policy = dsh_policy_service_resolve (service, session);
  events = dsh_session_log_dup_events (session);

  preset = dsh_permission_presets_current (presets, events);
  printf ("id: %s\n", dsh_session_log_get_id (session));
  printf ("cwd: %s\n", dsh_session_log_get_cwd (session));
  printf ("created: %s\n", dsh_session_log_get_created (session));
  printf ("mode: %s\n", dsh_sandbox_mode_to_string (policy->mode));
  printf ("workspace root: %s\n", policy->workspace_root);
  printf ("approval policy: %s\n",
          dsh_approval_policy_to_string (
            dsh_permission_presets_effective_approval_policy (presets, events)));
  printf ("preset: %s\n", preset);
  printf ("open turn: %s\n", dsh_session_events_has_open_turn (events) ? "yes" : "no");
  printf ("events: %u\n", events->len);
  printf ("dropped lines: %u\n", dsh_session_log_get_dropped_count (session));
  return 0;
}

int
dsh_cmd_session (int argc, char **argv)
{
  int status;
  const char *sub = dsh_cli_subcommand (argc, argv, "session", usage, &status);

  if (sub == NULL)
    return status;
  if (g_str_equal (sub, "new"))
    return cmd_new (argc - 1, argv + 1);
  if (g_str_equal (sub, "set-mode"))
    return cmd_switch (argc - 1, argv + 1, DSH_CLI_SESSION_SWITCH_MODE);
  if (g_str_equal (sub, "set-approval"))
    return cmd_switch (argc - 1, argv + 1, DSH_CLI_SESSION_SWITCH_APPROVAL);
  if (g_str_equal (sub, "set-preset"))
    return cmd_switch (argc - 1, argv + 1, DSH_CLI_SESSION_SWITCH_PRESET);
  if (g_str_equal (sub, "show"))
    return cmd_show (argc - 1, argv + 1);
  return dsh_cli_fail_unknown_subcommand ("session", sub);
}
