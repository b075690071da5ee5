/* dsh-cli-session.c — deployment configuration, session loading and policy JSON for the
 * session-aware subcommands.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli-session.h"
#include "dsh-session-fold-cache-private.h"

#include <string.h>
#include <sys/stat.h>
#include "dsh-roots-private.h"
#include "dsh-root-grants-private.h"
#include "dsh-policy-file-reach-private.h"
#include "dsh-permission-presets-cache-private.h"

DshPermissionPresets *
dsh_cli_load_presets (GError **error)
{
  const char *path = g_getenv ("DSH_SANDBOX_CONFIG");

  /* Read again only when the file changed: serve asks on every call. */
  return dsh_permission_presets_load_cached (path != NULL && *path != '\0' ? path : NULL, error);
}

DshPolicyService *
dsh_cli_new_policy_service (DshPermissionPresets *presets)
{
  DshPolicyService *service = dsh_policy_service_new (
    dsh_permission_presets_get_default_mode (presets), NULL);

  dsh_policy_service_set_extra_writable_roots (
    service, dsh_permission_presets_get_extra_writable_roots (presets));
  return service;
}

gboolean
dsh_cli_join_extra_roots (DshSandboxPolicy *policy,
                          DshPermissionPresets *presets,
                          const char *const *requested,
                          GError **error)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  const char *const *configured = presets != NULL
                                    ? dsh_permission_presets_get_extra_writable_roots (presets)
                                    : NULL;

  if (policy->extra_writable_roots != NULL)
    g_strv_builder_addv (builder, (const char **) policy->extra_writable_roots);
  if (configured != NULL)
    g_strv_builder_addv (builder, (const char **) configured);
  for (gsize i = 0; requested != NULL && requested[i] != NULL; i++)
    {
      g_autofree char *absolute = NULL;

      if (!g_utf8_validate (requested[i], -1, NULL) || requested[i][0] == '\0')
        {
          g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                               "a writable root must be a non-empty UTF-8 path");
          return FALSE;
        }
      /* As spelled, made absolute: the roots code walks it the kernel's way. */
      absolute = dsh_absolute_path_as_spelled (requested[i]);
      g_strv_builder_add (builder, absolute);
    }
  g_strfreev (policy->extra_writable_roots);
  policy->extra_writable_roots = g_strv_builder_end (builder);
  if (policy->extra_writable_roots[0] == NULL)
    g_clear_pointer (&policy->extra_writable_roots, g_strfreev);
  /* The deployment's configuration decides the roots of the calls after this one: this call's
   * commands must not be able to rewrite it. */
  if (presets != NULL && policy->mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE)
    return dsh_cli_check_config_unreachable (
      policy->workspace_root, (const char *const *) policy->extra_writable_roots, error);
  return TRUE;
}

void
dsh_cli_print_warnings (const char *const *warnings)
{
  for (gsize i = 0; warnings != NULL && warnings[i] != NULL; i++)
    g_printerr ("dsh-sandbox warning: %s\n", warnings[i]);
}

void
dsh_cli_add_warnings (JsonNode *json, const char *const *warnings)
{
  JsonArray *array;

  if (warnings == NULL)
    return;
  array = json_array_sized_new (g_strv_length ((GStrv) warnings));
  for (gsize i = 0; warnings[i] != NULL; i++)
    json_array_add_string_element (array, warnings[i]);
  json_object_set_array_member (json_node_get_object (json), "warnings", array);
}

DshApprovalService *
dsh_cli_new_approval_service (DshPermissionPresets *presets)
{
  DshApprovalService *approval = dsh_approval_service_new ();

  dsh_approval_service_set_default_policy (
    approval, dsh_permission_presets_get_default_approval_policy (presets));
  return approval;
}

DshSessionLog *
dsh_cli_load_session (const char *path, GError **error)
{
  return dsh_session_log_load (path, error);
}

gboolean
dsh_cli_load_presets_and_session (const char *session_path,
                                  DshPermissionPresets **out_presets,
                                  DshSessionLog **out_session,
                                  GError **error)
{
  g_autoptr (DshPermissionPresets) presets = dsh_cli_load_presets (error);
  g_autoptr (DshSessionLog) session = NULL;
  const char *config = g_getenv ("DSH_SANDBOX_CONFIG");

  if (presets == NULL)
    return FALSE;
  /* What these answer (a mode, a workspace, the model's context) a harness acts on as it would
   * on exec's: a log or a configuration a confined command could have rewritten is refused here
   * as there. */
  if (session_path != NULL)
    {
      g_autofree char *root = NULL;
      g_auto (GStrv) extra = NULL;

      session = dsh_cli_load_session (session_path, error);
      if (session == NULL)
        return FALSE;
      root = dsh_roots_unplanted_root (dsh_session_log_get_cwd (session),
                                       dsh_session_log_get_created (session), NULL);
      extra = dsh_session_log_dup_extra_writable_roots (session);
      if (!dsh_policy_file_check_out_of_reach ("session log", session_path, root,
                                      (const char *const *) extra, error) ||
          !dsh_cli_check_config_unreachable (root, (const char *const *) extra, error))
        return FALSE;
    }
  /* Without a session no call's workspace is implied: only what some call granted counts. */
  else if (config != NULL && *config != '\0')
    {
      g_autofree char *canonical = dsh_canonical_path (config);

      if (!dsh_policy_file_check_never_granted ("deployment configuration", config, canonical, error))
        return FALSE;
    }
  *out_presets = g_steal_pointer (&presets);
  *out_session = g_steal_pointer (&session);
  return TRUE;
}

JsonNode *
dsh_cli_policy_to_json (const DshSandboxPolicy *policy)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "mode");
  json_builder_add_string_value (builder, dsh_sandbox_mode_to_string (policy->mode));
  json_builder_set_member_name (builder, "workspaceRoot");
  json_builder_add_string_value (builder, policy->workspace_root);
  if (policy->session_id != NULL)
    {
      json_builder_set_member_name (builder, "sessionId");
      json_builder_add_string_value (builder, policy->session_id);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

gboolean
dsh_cli_parse_with_operands (GOptionContext *context, int argc, char **argv,
                             GStrv *out_operands, GError **error)
{
  /* parse_strv() frees what it consumes, so it gets its own copy. */
  g_auto (GStrv) parsed = g_new0 (char *, argc + 1);
  g_autoptr (GStrvBuilder) builder = NULL;

  for (int i = 0; i < argc; i++)
    parsed[i] = g_strdup (argv[i]);
  g_option_context_set_help_enabled (context, TRUE);
  if (!g_option_context_parse_strv (context, &parsed, error))
    return FALSE;
  /* parsed[0] is the subcommand's own name; a "--" left behind only separates operands. */
  builder = g_strv_builder_new ();
  for (guint i = 1; parsed[0] != NULL && parsed[i] != NULL; i++)
    {
      if (!g_str_equal (parsed[i], "--"))
        g_strv_builder_add (builder, parsed[i]);
    }
  *out_operands = g_strv_builder_end (builder);
  return TRUE;
}

gboolean
dsh_cli_check_config_unreachable (const char *workspace_root,
                                  const char *const *extra_roots,
                                  GError **error)
{
  const char *path = g_getenv ("DSH_SANDBOX_CONFIG");

  if (path == NULL || *path == '\0')
    return TRUE;
  return dsh_policy_file_check_out_of_reach ("deployment configuration", path, workspace_root,
                                    extra_roots, error);
}

gboolean
dsh_cli_check_workspace_without_session (const char *workspace,
                                         const char *session_path,
                                         GError **error)
{
  /* The session's cwd is its workspace, immutable; a second root would contradict it. */
  if (session_path == NULL || workspace == NULL)
    return TRUE;
  g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                       "--workspace cannot be combined with --session: the session's cwd is "
                       "its workspace");
  return FALSE;
}

static DshSandboxPolicy *
resolve_loaded (DshPermissionPresets *presets, DshSessionLog *session, const char *mode_text,
                DshSandboxMode mode)
{
  g_autoptr (DshPolicyService) service = dsh_cli_new_policy_service (presets);

  /* --mode with a session is the explicit mode of this call (as for "policy resolve"): it
   * outranks the session's last sandbox/mode, and escalation widens from it. */
  return mode_text != NULL ? dsh_policy_service_resolve_with_mode (service, session, mode)
                           : dsh_policy_service_resolve (service, session);
}

DshSandboxPolicy *
dsh_cli_resolve_session_policy (DshPermissionPresets *presets,
                                const char *session_path,
                                const char *mode_text,
                                const char *const *requested_roots,
                                DshSessionLog **out_session,
                                GError **error)
{
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autofree char *fold_cache = dsh_session_fold_cache_path (session_path);
  DshSandboxMode mode = DSH_SANDBOX_MODE_READ_ONLY;

  if (mode_text != NULL && !dsh_sandbox_mode_from_string (mode_text, &mode, error))
    return NULL;
  /* A long session is not re-read on every call: the fold of the prefix read before comes
   * from the cache, checked against the file. */
  session = dsh_session_log_load_cached (session_path, fold_cache, error);
  if (session == NULL)
    return NULL;
  policy = resolve_loaded (presets, session, mode_text, mode);
  if (policy == NULL || !dsh_cli_join_extra_roots (policy, NULL, requested_roots, error))
    return NULL;
  if (fold_cache != NULL)
    {
      g_autofree char *reach = dsh_writable_root_on_way (
        fold_cache, policy->workspace_root, (const char *const *) policy->extra_writable_roots);

      /* A cache this session's commands could write is not believed: read the file whole. */
      if (reach != NULL)
        {
          g_clear_object (&session);
          g_clear_pointer (&policy, dsh_sandbox_policy_free);
          session = dsh_session_log_load (session_path, error);
          if (session == NULL)
            return NULL;
          policy = resolve_loaded (presets, session, mode_text, mode);
          if (policy == NULL || !dsh_cli_join_extra_roots (policy, NULL, requested_roots, error))
            return NULL;
        }
    }
  /* A session log or configuration a confined command could rewrite would set its own policy.
   * Then a resumed session's first use pins what it lacks (the values just resolved). */
  if (!dsh_policy_file_check_out_of_reach ("session log", session_path, policy->workspace_root,
                                  (const char *const *) policy->extra_writable_roots, error) ||
      !dsh_cli_check_config_unreachable (policy->workspace_root,
                                         (const char *const *) policy->extra_writable_roots,
                                         error) ||
      !dsh_permission_presets_pin_session (presets, session, error))
    return NULL;
  *out_session = g_steal_pointer (&session);
  return g_steal_pointer (&policy);
}
