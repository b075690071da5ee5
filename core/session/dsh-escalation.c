/* dsh-escalation.c — the strictly-wider ladder, escalation argument pairing and the ordered
 * fail-closed approval sequence shared by every sandbox-enforcing tool family.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-escalation.h"

#include "dsh-error.h"
#include "dsh-texts.h"

/**
 * DshEscalationChannel:
 * @service: (nullable): the approval service
 * @session: (nullable): the session the question goes through
 * @call_policy: the caller's own per-call approval policy
 * @tool_name: the asking tool, e.g. `bash`
 * @call_id: the tool's id of this call
 * @subject: the noun of the rejected text: `command` or `operation`
 * @details: (nullable): facts for the answerers
 *
 * Where an escalation's question goes.
 *
 * Since: 0.1
 */

/* A data address: ISO C does not convert function pointers to void *. */
static char approve_tag;

static const DshSandboxMode wider_than_read_only[] = {
  DSH_SANDBOX_MODE_WORKSPACE_WRITE,
  DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
};
static const DshSandboxMode wider_than_workspace_write[] = {
  DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
};
/* Both, whatever the deployment default: cutting this down to the modes wider than a default
 * would strand a session switched below it with no lever. */
static const DshSandboxMode escalation_targets[] = {
  DSH_SANDBOX_MODE_WORKSPACE_WRITE,
  DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
};

/**
 * dsh_escalation_wider_modes:
 * @from: the mode a command ran under
 * @n_modes: (out): how many modes are wider
 *
 * Returns: (array length=n_modes) (transfer none): the modes strictly wider than @from
 *
 * Since: 0.1
 */
const DshSandboxMode *
dsh_escalation_wider_modes (DshSandboxMode from, gsize *n_modes)
{
  g_return_val_if_fail (n_modes != NULL, NULL);

  switch (from)
    {
    case DSH_SANDBOX_MODE_READ_ONLY:
      *n_modes = G_N_ELEMENTS (wider_than_read_only);
      return wider_than_read_only;
    case DSH_SANDBOX_MODE_WORKSPACE_WRITE:
      *n_modes = G_N_ELEMENTS (wider_than_workspace_write);
      return wider_than_workspace_write;
    case DSH_SANDBOX_MODE_DANGER_FULL_ACCESS:
    default:
      /* Nothing is wider than no confinement; an unknown mode widens to nothing. */
      *n_modes = 0;
      return NULL;
    }
}

/**
 * dsh_escalation_is_strictly_wider:
 * @from: the effective mode
 * @to: the requested mode
 *
 * Returns: %TRUE when @to is strictly wider than @from
 *
 * Since: 0.1
 */
gboolean
dsh_escalation_is_strictly_wider (DshSandboxMode from, DshSandboxMode to)
{
  gsize n = 0;
  const DshSandboxMode *wider = dsh_escalation_wider_modes (from, &n);

  for (gsize i = 0; i < n; i++)
    {
      if (wider[i] == to)
        return TRUE;
    }
  return FALSE;
}

/**
 * dsh_escalation_targets:
 * @n_targets: (out): how many targets there are
 *
 * Returns: (array length=n_targets) (transfer none): the escalation targets a schema offers:
 *   always both `workspace-write` and `danger-full-access`
 *
 * Since: 0.1
 */
const DshSandboxMode *
dsh_escalation_targets (gsize *n_targets)
{
  g_return_val_if_fail (n_targets != NULL, NULL);
  *n_targets = G_N_ELEMENTS (escalation_targets);
  return escalation_targets;
}

/**
 * dsh_escalation_target_from_string:
 * @text: (nullable): a `sandbox_permissions` value
 * @out_mode: (out): where the mode goes
 * @error: return location for a #GError
 *
 * Returns: %TRUE with @out_mode set to one of the targets; %FALSE with
 *   %DSH_SANDBOX_ERROR_INVALID_ARGUMENT otherwise
 *
 * Since: 0.1
 */
gboolean
dsh_escalation_target_from_string (const char *text, DshSandboxMode *out_mode, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (escalation_targets); i++)
    {
      if (g_strcmp0 (text, dsh_sandbox_mode_to_string (escalation_targets[i])) == 0)
        {
          *out_mode = escalation_targets[i];
          return TRUE;
        }
    }
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
               "invalid escalation: sandbox_permissions \"%s\" is not one of workspace-write, "
               "danger-full-access",
               text != NULL && g_utf8_validate (text, -1, NULL) ? text : "(not UTF-8)");
  return FALSE;
}

/* What JavaScript's String.prototype.trim() removes: WhiteSpace (tab, VT, FF, the BOM and the
 * space separators, Zs) and LineTerminator (LF, CR, LS, PS). Spelled out rather than taken from
 * GLib's classification, which leaves out VT and follows its own Unicode version. */
static gboolean
is_trimmed_by_javascript (gunichar c)
{
  switch (c)
    {
    case 0x0009: case 0x000A: case 0x000B: case 0x000C: case 0x000D: case 0x0020:
    case 0x00A0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
    case 0x3000: case 0xFEFF:
      return TRUE;
    default:
      return c >= 0x2000 && c <= 0x200A;
    }
}

static gboolean
has_visible_character (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      if (!is_trimmed_by_javascript (g_utf8_get_char (p)))
        return TRUE;
    }
  return FALSE;
}

/**
 * dsh_escalation_validate_args:
 * @sandbox_permissions: (nullable): the argument, %NULL when not given
 * @justification: (nullable): the argument, %NULL when not given
 * @error: return location for a #GError
 *
 * Each argument requires the other, and the justification must have a non-blank character.
 *
 * Returns: %TRUE when the pair is valid; %FALSE with %DSH_SANDBOX_ERROR_INVALID_ARGUMENT and the
 *   verbatim text otherwise
 *
 * Since: 0.1
 */
gboolean
dsh_escalation_validate_args (const char *sandbox_permissions,
                              const char *justification,
                              GError **error)
{
  /* A prompt without a reason, or a reason driving nothing, is a malformed ask. */
  if (sandbox_permissions != NULL && justification == NULL)
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           dsh_text_escalation_needs_justification ());
      return FALSE;
    }
  if (justification != NULL && sandbox_permissions == NULL)
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           dsh_text_escalation_orphan_justification ());
      return FALSE;
    }
  if (justification != NULL && !g_utf8_validate (justification, -1, NULL))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "invalid justification: not valid UTF-8");
      return FALSE;
    }
  if (justification != NULL && !has_visible_character (justification))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           dsh_text_escalation_empty_justification ());
      return FALSE;
    }
  return TRUE;
}

/**
 * dsh_escalation_check_composition:
 * @executor_confines: whether the executor confines its commands
 * @sandbox_permissions: (nullable): the argument, %NULL when not given
 * @error: return location for a #GError
 *
 * An executor that does not confine has nothing to escalate, even when the argument arrives
 * unadvertised.
 *
 * Returns: %FALSE with the verbatim refusal when @sandbox_permissions reaches such an executor
 *
 * Since: 0.1
 */
gboolean
dsh_escalation_check_composition (gboolean executor_confines,
                                  const char *sandbox_permissions,
                                  GError **error)
{
  /* Schema validation checks advertised keys only, so the unadvertised field can still arrive
   * here; the executor refuses it itself. */
  if (sandbox_permissions != NULL && !executor_confines)
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED,
                           dsh_text_escalation_not_composed ());
      return FALSE;
    }
  return TRUE;
}

/**
 * dsh_escalation_could_be_approved:
 * @ran_mode: the mode the command ran under
 * @effective_policy: the effective approval policy
 * @has_session: whether the call has a session
 * @has_channel: whether a question could reach someone
 *
 * Decides whether the hint follows a denial.
 *
 * Returns: %TRUE when an escalation could still be approved
 *
 * Since: 0.1
 */
gboolean
dsh_escalation_could_be_approved (DshSandboxMode ran_mode,
                                  DshApprovalPolicy effective_policy,
                                  gboolean has_session,
                                  gboolean has_channel)
{
  gsize n_wider = 0;

  dsh_escalation_wider_modes (ran_mode, &n_wider);
  return effective_policy == DSH_APPROVAL_POLICY_ASK && has_session && has_channel &&
         n_wider > 0;
}

/* ---- the ordered sequence ------------------------------------------------------------------ */

typedef struct {
  DshSandboxMode requested;
  char *subject;
  gboolean asked;
  DshApprovalOutcome outcome;
} ApproveState;

static void
approve_state_free (gpointer data)
{
  ApproveState *state = data;

  g_free (state->subject);
  g_free (state);
}

static void
refuse (GTask *task, char *message)
{
  g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED, "%s",
                           message);
  g_free (message);
}

static void
on_decided (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ApproveState *state = g_task_get_task_data (task);
  const char *mode = dsh_sandbox_mode_to_string (state->requested);
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  GError *error = NULL;

  if (!dsh_approval_service_request_finish (DSH_APPROVAL_SERVICE (source), result, &outcome,
                                            &error))
    {
      /* No logged decision: refuse with why (outside a turn, a failed audit append). */
      g_task_return_error (task, error);
      return;
    }
  state->asked = TRUE;
  state->outcome = outcome;

  /* Each way of not getting a grant keeps its own text: "the user said no" and "nobody could
   * be asked" call for different next steps. */
  switch (outcome)
    {
    case DSH_APPROVAL_OUTCOME_ALLOWED_ONCE:
      g_task_return_int (task, (gssize) state->requested);
      return;
    case DSH_APPROVAL_OUTCOME_REJECTED:
      refuse (task, dsh_text_escalation_rejected (state->subject, mode));
      return;
    case DSH_APPROVAL_OUTCOME_CANCELLED:
      refuse (task, dsh_text_escalation_cancelled (mode));
      return;
    case DSH_APPROVAL_OUTCOME_UNAVAILABLE:
    default:
      refuse (task, dsh_text_escalation_unavailable (mode));
      return;
    }
}

/**
 * dsh_escalation_approve_async:
 * @effective_mode: the call's effective mode
 * @requested_mode: the mode asked for
 * @justification: the model's justification, already validated
 * @channel: where the question goes
 * @cancellable: (nullable): cancels the question
 * @callback: (scope async): called once the sequence ends
 * @user_data: (closure callback): data for @callback
 *
 * Runs the ordered fail-closed sequence before anything executes: the target must be strictly
 * wider, an approval service must be composed, the call must have a session, and the service
 * decides.
 *
 * Since: 0.1
 */
void
dsh_escalation_approve_async (DshSandboxMode effective_mode,
                              DshSandboxMode requested_mode,
                              const char *justification,
                              const DshEscalationChannel *channel,
                              GCancellable *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *reason = NULL;
  ApproveState *state;
  const char *mode;

  g_return_if_fail (channel != NULL);
  task = g_task_new (NULL, NULL, callback, user_data);
  g_task_set_source_tag (task, &approve_tag);

  state = g_new0 (ApproveState, 1);
  state->requested = requested_mode;
  state->subject = g_strdup (channel->subject != NULL ? channel->subject : "command");
  state->outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  g_task_set_task_data (task, state, approve_state_free);

  mode = dsh_sandbox_mode_to_string (requested_mode);
  if (mode == NULL || dsh_sandbox_mode_to_string (effective_mode) == NULL)
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                               "invalid escalation: a mode is outside the vocabulary");
      return;
    }

  /* 1. Widening first, against this call's own effective mode: a request that widens nothing
   *    is the model's mistake and never prompts a human. */
  if (!dsh_escalation_is_strictly_wider (effective_mode, requested_mode))
    {
      refuse (task, dsh_text_escalation_not_wider (mode,
                                                   dsh_sandbox_mode_to_string (effective_mode)));
      return;
    }
  /* 2. and 3. A channel to ask through. */
  if (channel->service == NULL)
    {
      refuse (task, dsh_text_escalation_no_service (mode));
      return;
    }
  if (channel->session == NULL)
    {
      refuse (task, dsh_text_escalation_no_agent (mode));
      return;
    }
  if (justification == NULL || !g_utf8_validate (justification, -1, NULL))
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT, "%s",
                               dsh_text_escalation_empty_justification ());
      return;
    }

  /* 4. Ask. The reason is self-contained: the target mode is part of the grant's identity. */
  reason = dsh_text_escalation_reason (mode, justification);
  dsh_approval_service_request_async (channel->service, channel->session, channel->call_policy,
                                      channel->tool_name != NULL ? channel->tool_name : "bash",
                                      channel->call_id, reason, channel->details, cancellable,
                                      on_decided, g_object_ref (task));
}

/**
 * dsh_escalation_approve_finish:
 * @result: the result @callback received
 * @out_mode: (out): the granted mode (the requested one)
 * @out_asked: (out): whether a person or the service was asked
 * @out_outcome: (out): the decision, when @out_asked
 * @error: return location for a #GError
 *
 * Returns: %TRUE with @out_mode set; %FALSE with the refusal
 *   (%DSH_SANDBOX_ERROR_ESCALATION_REFUSED or the approval's error)
 *
 * Since: 0.1
 */
gboolean
dsh_escalation_approve_finish (GAsyncResult *result,
                               DshSandboxMode *out_mode,
                               gboolean *out_asked,
                               DshApprovalOutcome *out_outcome,
                               GError **error)
{
  ApproveState *state;
  gssize value;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, &approve_tag), FALSE);

  state = g_task_get_task_data (G_TASK (result));
  if (out_asked != NULL)
    *out_asked = state != NULL && state->asked;
  if (out_outcome != NULL)
    *out_outcome = state != NULL ? state->outcome : DSH_APPROVAL_OUTCOME_UNAVAILABLE;

  if (g_task_had_error (G_TASK (result)))
    {
      g_task_propagate_int (G_TASK (result), error);
      return FALSE;
    }
  value = g_task_propagate_int (G_TASK (result), NULL);
  if (out_mode != NULL)
    *out_mode = (DshSandboxMode) value;
  return TRUE;
}

static void
on_sync_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/**
 * dsh_escalation_approve:
 * @effective_mode: the call's effective mode
 * @requested_mode: the mode asked for
 * @justification: the model's justification, already validated
 * @channel: where the question goes
 * @cancellable: (nullable): cancels the question
 * @out_mode: (out): the granted mode
 * @out_asked: (out): whether a person or the service was asked
 * @out_outcome: (out): the decision, when @out_asked
 * @error: return location for a #GError
 *
 * dsh_escalation_approve_async(), iterating a private main context.
 *
 * Returns: as dsh_escalation_approve_finish()
 *
 * Since: 0.1
 */
gboolean
dsh_escalation_approve (DshSandboxMode effective_mode,
                        DshSandboxMode requested_mode,
                        const char *justification,
                        const DshEscalationChannel *channel,
                        GCancellable *cancellable,
                        DshSandboxMode *out_mode,
                        gboolean *out_asked,
                        DshApprovalOutcome *out_outcome,
                        GError **error)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GAsyncResult) result = NULL;
  gboolean ok;

  g_main_context_push_thread_default (context);
  dsh_escalation_approve_async (effective_mode, requested_mode, justification, channel,
                                cancellable, on_sync_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = dsh_escalation_approve_finish (result, out_mode, out_asked, out_outcome, error);
  g_main_context_pop_thread_default (context);
  return ok;
}
