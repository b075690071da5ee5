/* dsh-approver-escalate.c — one exec's escalation: composes its single terminal answerer,
 * describes the command for it, and waits for the decision while letting ^C withdraw it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-approver.h"

#include <glib-unix.h>
#include <signal.h>

/* What the person (or the approver program) is shown besides the reason. */
static JsonObject *
request_details (DshSandboxMode standing_mode,
                 DshSandboxMode requested_mode,
                 const char *justification,
                 const char *const *command,
                 const char *workspace_root)
{
  JsonObject *details = json_object_new ();
  JsonArray *argv = json_array_new ();

  for (gsize i = 0; command[i] != NULL; i++)
    json_array_add_string_element (argv, command[i]);
  json_object_set_array_member (details, "command", argv);
  json_object_set_string_member (details, "requestedMode",
                                 dsh_sandbox_mode_to_string (requested_mode));
  json_object_set_string_member (details, "standingMode",
                                 dsh_sandbox_mode_to_string (standing_mode));
  json_object_set_string_member (details, "justification", justification);
  json_object_set_string_member (details, "workspaceRoot", workspace_root);
  return details;
}

DshApprovalAnswerer *
dsh_cli_compose_answerer (DshCommandAnswerer *approver)
{
  g_autoptr (GError) error = NULL;
  DshTtyApprover *tty;

  if (approver != NULL)
    return g_object_ref (DSH_APPROVAL_ANSWERER (approver));
  tty = dsh_tty_approver_new (&error);
  if (tty == NULL)
    g_debug ("no terminal to ask: %s", error->message);
  return (DshApprovalAnswerer *) tty;
}

typedef struct {
  GAsyncResult *result;
  GCancellable *cancellable;
} Waiting;

static void
on_decided (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Waiting *waiting = user_data;

  waiting->result = g_object_ref (result);
}

static gboolean
on_signal (gpointer user_data)
{
  Waiting *waiting = user_data;

  /* The person pressed ^C (or we are being stopped): the question is withdrawn. */
  g_cancellable_cancel (waiting->cancellable);
  return G_SOURCE_CONTINUE;
}

static GSource *
watch_signal (int signum, Waiting *waiting, GMainContext *context)
{
  GSource *source = g_unix_signal_source_new (signum);

  g_source_set_callback (source, on_signal, waiting, NULL);
  g_source_attach (source, context);
  return source;
}

gboolean
dsh_cli_escalate (DshApprovalService *service,
                  DshSessionLog *session,
                  DshApprovalPolicy call_policy,
                  DshApprovalAnswerer *answerer,
                  const char *call_id,
                  DshSandboxMode standing_mode,
                  DshSandboxMode requested_mode,
                  const char *justification,
                  const char *const *command,
                  const char *workspace_root,
                  DshSandboxMode *out_mode,
                  gboolean *out_asked,
                  DshApprovalOutcome *out_outcome,
                  GError **error)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (JsonObject) details = NULL;
  GSource *signals[3];
  Waiting waiting = { NULL, cancellable };
  DshEscalationChannel channel = { 0 };
  guint handle = 0;
  gboolean ok;

  *out_asked = FALSE;
  *out_outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;

  /* A person approves what they are shown: argv that cannot be shown faithfully is refused —
   * but only once widening is established, which comes first and has its own text. */
  for (gsize i = 0; dsh_escalation_is_strictly_wider (standing_mode, requested_mode) &&
                    command[i] != NULL;
       i++)
    {
      if (!g_utf8_validate (command[i], -1, NULL))
        {
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED,
                       "cannot ask for approval: argument %" G_GSIZE_FORMAT " of the command is "
                       "not valid UTF-8",
                       i);
          return FALSE;
        }
    }

  /* Scoped to this session: a chain shared with other sessions never answers for them. */
  if (session != NULL && answerer != NULL)
    handle = dsh_approval_service_add_answerer (service, answerer, session);

  details = request_details (standing_mode, requested_mode, justification, command,
                             workspace_root);
  channel.service = service;
  channel.session = session;
  channel.call_policy = call_policy;
  channel.tool_name = "bash";
  channel.call_id = call_id;
  channel.subject = "command";
  channel.details = details;

  g_main_context_push_thread_default (context);
  signals[0] = watch_signal (SIGINT, &waiting, context);
  signals[1] = watch_signal (SIGTERM, &waiting, context);
  signals[2] = watch_signal (SIGHUP, &waiting, context);

  dsh_escalation_approve_async (standing_mode, requested_mode, justification, &channel,
                                cancellable, on_decided, &waiting);
  while (waiting.result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = dsh_escalation_approve_finish (waiting.result, out_mode, out_asked, out_outcome, error);

  /* Let a withdrawn answerer (a killed approver, a closed prompt) wind down before leaving. */
  g_cancellable_cancel (cancellable);
  while (g_main_context_iteration (context, FALSE))
    ;
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      g_source_destroy (signals[i]);
      g_source_unref (signals[i]);
    }
  g_main_context_pop_thread_default (context);

  if (handle != 0)
    dsh_approval_service_remove_answerer (service, handle);
  g_clear_object (&waiting.result);
  return ok;
}
