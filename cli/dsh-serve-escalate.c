/* dsh-serve-escalate.c — the "escalate" method of "dsh-sandbox serve": one turn of the session
 * in which the server asks its own client, on the same two streams, whether this one command
 * may run under a wider mode.
 *
 *   server: {"method": "approval.request", "params": {...the approval request...}}
 *   client: {"result": "allowed-once" | "rejected" | "cancelled" | "unavailable"}
 *
 * Anything else from the client, or the end of its input, fails the question closed
 * ("unavailable"). The audit pair is written to the session inside that turn; the grant is
 * the returned mode, for the caller's next confine of exactly this command.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-request.h"

#include "dsh-approver.h"
#include "dsh-cli-session.h"
#include "dsh-json-strict-private.h"

#define DSH_TYPE_SERVE_ANSWERER (dsh_serve_answerer_get_type ())
G_DECLARE_FINAL_TYPE (DshServeAnswerer, dsh_serve_answerer, DSH, SERVE_ANSWERER, GObject)

struct _DshServeAnswerer {
  GObject parent_instance;

  FILE *in;
  FILE *out;
};

static void dsh_serve_answerer_answerer_init (DshApprovalAnswererInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (DshServeAnswerer, dsh_serve_answerer, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (DSH_TYPE_APPROVAL_ANSWERER,
                                                      dsh_serve_answerer_answerer_init))

/* The outcome in the client's answer line {"result": "<outcome>"}, and nothing else. */
static gboolean
read_answer (const GString *line, DshApprovalOutcome *out_outcome)
{
  gboolean syntax_error = FALSE;
  g_autoptr (JsonObject) object = dsh_json_strict_parse_object (line->str, line->len,
                                                                "not an object", &syntax_error,
                                                                NULL);
  JsonNode *result;

  if (object == NULL)
    return FALSE;
  result = json_object_get_member (object, "result");
  return json_object_get_size (object) == 1 && result != NULL && JSON_NODE_HOLDS_VALUE (result) &&
         json_node_get_value_type (result) == G_TYPE_STRING &&
         dsh_approval_outcome_from_string (json_node_get_string (result), out_outcome, NULL);
}

static void
serve_answerer_answer_async (DshApprovalAnswerer *answerer,
                             DshApprovalRequest *request,
                             GCancellable *cancellable,
                             GAsyncReadyCallback callback,
                             gpointer user_data)
{
  DshServeAnswerer *self = DSH_SERVE_ANSWERER (answerer);
  g_autoptr (GTask) task = g_task_new (self, NULL, callback, user_data);
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) question = NULL;
  g_autoptr (GString) line = g_string_new (NULL);
  g_autofree char *text = NULL;
  DshApprovalOutcome outcome;
  gboolean too_long = FALSE;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, "approval.request");
  json_builder_set_member_name (builder, "params");
  json_builder_add_value (builder, dsh_approval_request_to_json (request));
  json_builder_end_object (builder);
  question = json_builder_get_root (builder);
  /* Not json_to_string(): json-glib writes U+001F raw, and the client's line must parse. */
  text = dsh_json_strict_to_string (question, FALSE);
  fprintf (self->out, "%s\n", text);
  fflush (self->out);

  /* The client is sequential like the server: its next line is the answer. A blank line is
   * no answer, as it is no request. */
  do
    {
      if (!dsh_serve_read_line (self->in, line, &too_long))
        {
          g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                                   "the client ended its input instead of answering");
          return;
        }
    }
  while (!too_long && dsh_serve_line_is_blank (line));
  if (too_long || !read_answer (line, &outcome))
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                               "the client's answer is not {\"result\": one of allowed-once, "
                               "rejected, cancelled, unavailable}");
      return;
    }
  dsh_approval_task_return_outcome (task, outcome);
}

static void
dsh_serve_answerer_answerer_init (DshApprovalAnswererInterface *iface)
{
  iface->answer_async = serve_answerer_answer_async;
}

static void
dsh_serve_answerer_class_init (DshServeAnswererClass *klass)
{
}

static void
dsh_serve_answerer_init (DshServeAnswerer *self)
{
}

static JsonNode *
grant_to_json (DshSandboxMode mode, const char *call_id)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "mode");
  json_builder_add_string_value (builder, dsh_sandbox_mode_to_string (mode));
  json_builder_set_member_name (builder, "outcome");
  json_builder_add_string_value (
    builder, dsh_approval_outcome_to_string (DSH_APPROVAL_OUTCOME_ALLOWED_ONCE));
  json_builder_set_member_name (builder, "callId");
  json_builder_add_string_value (builder, call_id);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

JsonNode *
dsh_serve_escalate (const DshServeRequest *request, FILE *in, FILE *out, GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshApprovalService) approval = NULL;
  g_autoptr (DshServeAnswerer) answerer = NULL;
  g_autoptr (DshExecution) execution = NULL;
  g_autoptr (GError) end_error = NULL;
  DshSandboxMode requested;
  DshSandboxMode granted;
  gboolean ok;

  /* The same order and texts as exec: the arguments first, then the session's policy. */
  if (request->sandbox_permissions == NULL && request->justification == NULL)
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "escalate needs \"sandboxPermissions\" and \"justification\"");
      return NULL;
    }
  if (!dsh_escalation_validate_args (request->sandbox_permissions, request->justification,
                                     error) ||
      !dsh_escalation_target_from_string (request->sandbox_permissions, &requested, error))
    return NULL;
  presets = dsh_cli_load_presets (error);
  if (presets == NULL)
    return NULL;
  policy = dsh_cli_resolve_session_policy (presets, request->session, request->mode, NULL,
                                           &session,
                                           error);
  if (policy == NULL)
    return NULL;
  approval = dsh_cli_new_approval_service (presets);

  /* The audit pair must be turn-enclosed: this escalation is the turn. */
  execution = dsh_execution_new ((const char *const *) request->argv, policy, session, approval);
  if (!dsh_execution_begin (execution, error))
    return NULL;
  answerer = g_object_new (DSH_TYPE_SERVE_ANSWERER, NULL);
  answerer->in = in;
  answerer->out = out;
  dsh_execution_set_answerer (execution, DSH_APPROVAL_ANSWERER (answerer));
  dsh_execution_set_escalation (execution, requested, request->justification);
  dsh_execution_set_call_id (execution, request->call_id);
  ok = dsh_execution_escalate (execution, &granted, error);
  if (!dsh_execution_end (execution, &end_error) && ok)
    {
      /* A grant the log cannot close its turn around is no grant. */
      g_propagate_prefixed_error (error, g_steal_pointer (&end_error),
                                  "the escalation's turn could not be ended: ");
      return NULL;
    }
  return ok ? grant_to_json (granted, request->call_id) : NULL;
}
