/* dsh-serve-classify.c — the "classify" method of "dsh-sandbox serve": a harness that spawned a
 * confined argv itself hands back the backend, the mode, the exit status and stderr, and gets
 * what exec would have said: the outcome, the denial marker, and the escalation hint when a
 * retry could still be approved in its session.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-request.h"

#include "dsh-cli-session.h"
#include "dsh-local-provider-private.h"
#include "dsh-serve-generation.h"

/* The hint exec prints: only with a session whose effective policy still asks, never after
 * the sanctioned retry itself; the serve client is always there to be asked. */
static gboolean
read_hint_applies (const DshServeRequest *request, DshSandboxMode mode, gboolean *out_applies,
                   GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshApprovalService) approval = NULL;
  DshApprovalPolicy policy;

  /* A session given is read even when no hint can follow: a wrong path is an error. */
  *out_applies = FALSE;
  if (!dsh_cli_load_presets_and_session (request->session, &presets, &session, error))
    return FALSE;
  if (request->escalated || session == NULL)
    return TRUE;
  approval = dsh_cli_new_approval_service (presets);
  policy = dsh_approval_service_effective_policy (approval, session, DSH_APPROVAL_POLICY_ASK);
  *out_applies = dsh_escalation_could_be_approved (mode, policy, TRUE, TRUE);
  return TRUE;
}

JsonNode *
dsh_serve_classify (const DshServeRequest *request,
                    DshServeGeneration *generation,
                    GError **error)
{
  g_autoptr (DshConfinement) dialect = NULL;
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autofree char *detail = NULL;
  g_autoptr (DshProviderGeneration) selection = NULL;
  DshSandboxMode mode;
  DshOutcome outcome;
  gconstpointer data;
  gsize length;
  gboolean hint;

  if (!dsh_sandbox_mode_from_string (request->mode, &mode, error))
    return NULL;
  if (!dsh_sandbox_mode_is_confined (mode))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "classify: danger-full-access runs the raw argv, without a backend "
                           "whose output could be classified");
      return NULL;
    }
  if (!read_hint_applies (request, mode, &hint, error))
    return NULL;
  selection = dsh_local_provider_acquire (dsh_serve_generation_provider (generation, NULL));
  dialect = dsh_backend_selector_dialect (selection->selector, request->backend, error);
  if (dialect == NULL)
    return NULL;

  data = g_bytes_get_data (request->stderr_bytes, &length);
  outcome = dsh_confinement_classify (dialect, request->exit_status, data, length, &detail);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "outcome");
  json_builder_add_string_value (builder, dsh_outcome_to_string (outcome));
  if (outcome == DSH_OUTCOME_RUNNER_FAILURE)
    {
      g_autofree char *valid = g_utf8_make_valid (detail != NULL ? detail : "", -1);
      g_autofree char *text = dsh_text_runner_failure (request->mode, valid);

      /* The runner failed before the command started: the text exec refuses with. */
      json_builder_set_member_name (builder, "message");
      json_builder_add_string_value (builder, text);
    }
  if (outcome == DSH_OUTCOME_DENIED)
    {
      g_autofree char *marker = dsh_text_denial_marker (mode);

      json_builder_set_member_name (builder, "marker");
      json_builder_add_string_value (builder, marker);
      if (hint)
        {
          g_autofree char *text = dsh_text_escalation_hint ("command");

          json_builder_set_member_name (builder, "hint");
          json_builder_add_string_value (builder, text);
        }
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}
