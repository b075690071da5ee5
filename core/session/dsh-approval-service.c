/* dsh-approval-service.c — the approval service: the request path that decides "never" itself,
 * walks the answerer chain, races the caller's cancellation, and writes the audit pair.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-approval-service.h"
#include "dsh-approval-service-private.h"
#include "dsh-session-log-private.h"

#include "dsh-error.h"
#include "dsh-vocabulary-private.h"
#include "dsh-texts.h"

/**
 * DshApprovalService:
 *
 * The one-shot approval service: asks a chain of answerers inside a session's open turn, writes
 * the audit pair around every decision, and fails closed.
 *
 * Since: 0.1
 */

typedef struct {
  gatomicrefcount ref;
  guint handle;
  DshApprovalAnswerer *answerer;
  /* The owned session's id, or NULL for an answerer of every session. */
  char *scope_id;
} ChainEntry;

struct _DshApprovalService {
  GObject parent_instance;

  GMutex lock;
  GPtrArray *chain;
  guint last_handle;
  DshApprovalPolicy default_policy;
};

/* A data address: ISO C does not convert function pointers to void *. */
static char request_tag;

G_DEFINE_FINAL_TYPE (DshApprovalService, dsh_approval_service, G_TYPE_OBJECT)

static ChainEntry *
chain_entry_ref (ChainEntry *entry)
{
  g_atomic_ref_count_inc (&entry->ref);
  return entry;
}

static void
chain_entry_unref (gpointer data)
{
  ChainEntry *entry = data;

  if (!g_atomic_ref_count_dec (&entry->ref))
    return;
  g_object_unref (entry->answerer);
  g_free (entry->scope_id);
  g_free (entry);
}

static void
dsh_approval_service_finalize (GObject *object)
{
  DshApprovalService *self = DSH_APPROVAL_SERVICE (object);

  g_ptr_array_unref (self->chain);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (dsh_approval_service_parent_class)->finalize (object);
}

static void
dsh_approval_service_class_init (DshApprovalServiceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_approval_service_finalize;
}

static void
dsh_approval_service_init (DshApprovalService *self)
{
  g_mutex_init (&self->lock);
  self->chain = g_ptr_array_new_with_free_func (chain_entry_unref);
  self->default_policy = DSH_APPROVAL_POLICY_DEFAULT;
}

/**
 * dsh_approval_service_new:
 *
 * Returns: (transfer full): a new approval service with an empty chain and the default policy `ask`
 *
 * Since: 0.1
 */
DshApprovalService *
dsh_approval_service_new (void)
{
  return g_object_new (DSH_TYPE_APPROVAL_SERVICE, NULL);
}

/**
 * dsh_approval_service_get_default_policy:
 * @self: a #DshApprovalService
 *
 * Returns: the policy of a session that never recorded one
 *
 * Since: 0.1
 */
DshApprovalPolicy
dsh_approval_service_get_default_policy (DshApprovalService *self)
{
  g_return_val_if_fail (DSH_IS_APPROVAL_SERVICE (self), DSH_APPROVAL_POLICY_NEVER);
  return self->default_policy;
}

/**
 * dsh_approval_service_set_default_policy:
 * @self: a #DshApprovalService
 * @policy: the policy of a session that never recorded one
 *
 * Since: 0.1
 */
void
dsh_approval_service_set_default_policy (DshApprovalService *self, DshApprovalPolicy policy)
{
  g_return_if_fail (DSH_IS_APPROVAL_SERVICE (self));
  g_return_if_fail (dsh_approval_policy_to_string (policy) != NULL);
  self->default_policy = policy;
}

/* ---- the chain ----------------------------------------------------------------------------- */

static guint
insert_answerer (DshApprovalService *self,
                 DshApprovalAnswerer *answerer,
                 DshSessionLog *scope,
                 gboolean at_head)
{
  ChainEntry *entry = g_new0 (ChainEntry, 1);
  guint handle;

  g_atomic_ref_count_init (&entry->ref);
  entry->answerer = g_object_ref (answerer);
  entry->scope_id = scope != NULL ? g_strdup (dsh_session_log_get_id (scope)) : NULL;

  g_mutex_lock (&self->lock);
  handle = entry->handle = ++self->last_handle;
  if (at_head)
    g_ptr_array_insert (self->chain, 0, entry);
  else
    g_ptr_array_add (self->chain, entry);
  g_mutex_unlock (&self->lock);
  return handle;
}

/**
 * dsh_approval_service_add_answerer:
 * @self: a #DshApprovalService
 * @answerer: an answerer, appended to the chain
 * @scope: (nullable): the session this answerer owns; it then sees only that session's requests
 *
 * Returns: a handle (> 0) for dsh_approval_service_remove_answerer()
 *
 * Since: 0.1
 */
guint
dsh_approval_service_add_answerer (DshApprovalService *self,
                                   DshApprovalAnswerer *answerer,
                                   DshSessionLog *scope)
{
  g_return_val_if_fail (DSH_IS_APPROVAL_SERVICE (self), 0);
  g_return_val_if_fail (DSH_IS_APPROVAL_ANSWERER (answerer), 0);
  g_return_val_if_fail (scope == NULL || DSH_IS_SESSION_LOG (scope), 0);
  return insert_answerer (self, answerer, scope, FALSE);
}

/**
 * dsh_approval_service_prepend_answerer:
 * @self: a #DshApprovalService
 * @answerer: an answerer, put at the head of the chain (it still cannot beat `never`)
 * @scope: (nullable): the session this answerer owns
 *
 * Returns: a handle (> 0) for dsh_approval_service_remove_answerer()
 *
 * Since: 0.1
 */
guint
dsh_approval_service_prepend_answerer (DshApprovalService *self,
                                       DshApprovalAnswerer *answerer,
                                       DshSessionLog *scope)
{
  g_return_val_if_fail (DSH_IS_APPROVAL_SERVICE (self), 0);
  g_return_val_if_fail (DSH_IS_APPROVAL_ANSWERER (answerer), 0);
  g_return_val_if_fail (scope == NULL || DSH_IS_SESSION_LOG (scope), 0);
  return insert_answerer (self, answerer, scope, TRUE);
}

/**
 * dsh_approval_service_remove_answerer:
 * @self: a #DshApprovalService
 * @handle: what adding the answerer returned
 *
 * Since: 0.1
 */
void
dsh_approval_service_remove_answerer (DshApprovalService *self, guint handle)
{
  g_return_if_fail (DSH_IS_APPROVAL_SERVICE (self));

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->chain->len; i++)
    {
      ChainEntry *entry = self->chain->pdata[i];

      if (entry->handle == handle)
        {
          g_ptr_array_remove_index (self->chain, i);
          break;
        }
    }
  g_mutex_unlock (&self->lock);
}

gboolean
dsh_approval_service_has_answerer_for (DshApprovalService *self, DshSessionLog *session)
{
  const char *session_id;
  gboolean found = FALSE;

  g_return_val_if_fail (DSH_IS_APPROVAL_SERVICE (self), FALSE);
  g_return_val_if_fail (DSH_IS_SESSION_LOG (session), FALSE);

  session_id = dsh_session_log_get_id (session);
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->chain->len && !found; i++)
    {
      ChainEntry *entry = self->chain->pdata[i];

      /* The same test dispatch applies: a scoped answerer sees only its own session. */
      found = entry->scope_id == NULL || g_str_equal (entry->scope_id, session_id);
    }
  g_mutex_unlock (&self->lock);
  return found;
}

static GPtrArray *
snapshot_chain (DshApprovalService *self)
{
  GPtrArray *chain = g_ptr_array_new_with_free_func (chain_entry_unref);

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->chain->len; i++)
    g_ptr_array_add (chain, chain_entry_ref (self->chain->pdata[i]));
  g_mutex_unlock (&self->lock);
  return chain;
}

/* ---- policy -------------------------------------------------------------------------------- */

/**
 * dsh_approval_service_get_policy:
 * @self: a #DshApprovalService
 * @session: a session
 *
 * Returns: the session's last `approval/policy`, else the default
 *
 * Since: 0.1
 */
DshApprovalPolicy
dsh_approval_service_get_policy (DshApprovalService *self, DshSessionLog *session)
{
  DshApprovalPolicy policy;

  g_return_val_if_fail (DSH_IS_APPROVAL_SERVICE (self), DSH_APPROVAL_POLICY_NEVER);
  g_return_val_if_fail (session == NULL || DSH_IS_SESSION_LOG (session),
                        DSH_APPROVAL_POLICY_NEVER);

  /* A fold over the log on every call: there is no in-memory "current policy" to drift. */
  if (session != NULL && dsh_session_log_last_approval_policy (session, &policy))
    return policy;
  return self->default_policy;
}

/**
 * dsh_approval_service_effective_policy:
 * @self: a #DshApprovalService
 * @session: a session
 * @call_policy: the caller's own per-call policy
 *
 * A call can narrow the policy, never widen it.
 *
 * Returns: `never` when the session or the call says so, else `ask`
 *
 * Since: 0.1
 */
DshApprovalPolicy
dsh_approval_service_effective_policy (DshApprovalService *self,
                                       DshSessionLog *session,
                                       DshApprovalPolicy call_policy)
{
  if (call_policy != DSH_APPROVAL_POLICY_ASK)
    return DSH_APPROVAL_POLICY_NEVER;
  return dsh_approval_service_get_policy (self, session);
}

/**
 * dsh_approval_service_set_policy:
 * @self: a #DshApprovalService
 * @session: a session
 * @policy: its new approval policy
 * @out_notice: (out) (optional) (nullable) (transfer full): the notice the host injects for the
 *   model when the effective policy changed, else %NULL
 * @error: return location for a #GError
 *
 * Appends exactly one `approval/policy` event.
 *
 * Returns: %TRUE once it is appended, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_approval_service_set_policy (DshApprovalService *self,
                                 DshSessionLog *session,
                                 DshApprovalPolicy policy,
                                 char **out_notice,
                                 GError **error)
{
  DshApprovalPolicy previous;

  g_return_val_if_fail (DSH_IS_APPROVAL_SERVICE (self), FALSE);
  g_return_val_if_fail (DSH_IS_SESSION_LOG (session), FALSE);

  if (out_notice != NULL)
    *out_notice = NULL;
  previous = dsh_approval_service_get_policy (self, session);
  /* The change is its event; the log refuses a value outside the vocabulary. */
  if (!dsh_session_log_append_approval_policy (session, policy, error))
    return FALSE;
  if (out_notice != NULL && previous != policy)
    *out_notice = dsh_text_approval_policy_changed (dsh_approval_policy_to_string (previous),
                                                    dsh_approval_policy_to_string (policy));
  return TRUE;
}

/* ---- one request --------------------------------------------------------------------------- */

typedef struct {
  DshSessionLog *session;
  DshApprovalRequest *request;
  GPtrArray *chain;
  guint next;
  /* Handed to answerers; cancelled once the decision is made, so they can stop. */
  GCancellable *answer_cancellable;
  /* Watches the caller's cancellable in the task's context. */
  GSource *cancel_source;
  gboolean settled;
} RequestState;

/* Why a question ended unavailable, for the audit: the model is shown the same text whatever
 * the cause (SPEC §11), so the operator's one place to learn it is the log. */
#define CAUSE_NO_ANSWERER "no answerer answered"
#define CAUSE_OUTSIDE_VOCABULARY "an answerer answered outside the vocabulary"


static void
request_state_free (gpointer data)
{
  RequestState *state = data;

  g_clear_object (&state->session);
  g_clear_pointer (&state->request, dsh_approval_request_unref);
  g_clear_pointer (&state->chain, g_ptr_array_unref);
  g_clear_object (&state->answer_cancellable);
  if (state->cancel_source != NULL)
    {
      g_source_destroy (state->cancel_source);
      g_source_unref (state->cancel_source);
    }
  g_free (state);
}

typedef struct {
  GTask *task;
  DshApprovalAnswerer *answerer;
} AnswerStep;

/* The one exit of a request that got as far as approval/asked: the first decision wins, it is
 * logged, and only a logged decision is returned. */
static void
settle_because (GTask *task, DshApprovalOutcome outcome, const char *cause)
{
  RequestState *state = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;

  if (state->settled)
    return;
  state->settled = TRUE;

  if (state->cancel_source != NULL)
    {
      g_source_destroy (state->cancel_source);
      g_clear_pointer (&state->cancel_source, g_source_unref);
    }
  /* An answerer still at work (a prompt, a child process) learns the question is gone. */
  g_cancellable_cancel (state->answer_cancellable);

  if (!dsh_session_log_append_approval_decided_because (
        state->session, dsh_approval_request_get_id (state->request), outcome, cause, &error))
    {
      /* An unlogged decision would break the pair: no decision at all, so never a grant. */
      g_prefix_error (&error, "the approval decision could not be logged: ");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_int (task, (gssize) outcome);
}

static void
settle (GTask *task, DshApprovalOutcome outcome)
{
  settle_because (task, outcome, NULL);
}

static void dispatch_next (GTask *task);

static void
on_answer (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AnswerStep *step = user_data;
  g_autoptr (GTask) task = step->task;
  g_autoptr (DshApprovalAnswerer) answerer = step->answerer;
  RequestState *state = g_task_get_task_data (task);
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  g_autoptr (GError) error = NULL;
  DshApprovalAnswer answer;

  g_free (step);
  /* Finish even a late answer: the answerer's result must be consumed either way. */
  answer = dsh_approval_answerer_answer_finish (answerer, result, &outcome, &error);
  if (state->settled)
    {
      g_debug ("approval %s: a late answer from %s was discarded",
               dsh_approval_request_get_id (state->request), G_OBJECT_TYPE_NAME (answerer));
      return;
    }

  switch (answer)
    {
    case DSH_APPROVAL_ANSWER_DELEGATE:
      dispatch_next (task);
      return;

    case DSH_APPROVAL_ANSWER_OUTCOME:
      if (dsh_approval_outcome_is_valid (outcome))
        {
          settle (task, outcome);
          return;
        }
      /* Never leak a value outside the closed vocabulary into callers' switches. */
      g_debug ("approval: %s answered %d, outside the vocabulary", G_OBJECT_TYPE_NAME (answerer),
               (int) outcome);
      settle_because (task, DSH_APPROVAL_OUTCOME_UNAVAILABLE, CAUSE_OUTSIDE_VOCABULARY);
      return;

    case DSH_APPROVAL_ANSWER_FAILED:
    default:
      /* The seam contains its answerers: a failure fails the question closed, not the caller. */
      g_debug ("approval: %s failed: %s", G_OBJECT_TYPE_NAME (answerer),
               error != NULL ? error->message : "(no error set)");
      settle_because (task, DSH_APPROVAL_OUTCOME_UNAVAILABLE,
                      error != NULL && error->message[0] != '\0'
                        ? error->message
                        : "an answerer failed without saying why");
      return;
    }
}

static void
dispatch_next (GTask *task)
{
  RequestState *state = g_task_get_task_data (task);
  const char *session_id = dsh_approval_request_get_session_id (state->request);

  while (state->next < state->chain->len)
    {
      ChainEntry *entry = state->chain->pdata[state->next++];
      AnswerStep *step;

      /* A scoped answerer never sees another session's question. */
      if (entry->scope_id != NULL && !g_str_equal (entry->scope_id, session_id))
        continue;

      step = g_new0 (AnswerStep, 1);
      step->task = g_object_ref (task);
      step->answerer = g_object_ref (entry->answerer);
      /* Whether the callback comes now (a synchronous failure) or later, it lands in
       * on_answer: one containment path for both. */
      dsh_approval_answerer_answer_async (entry->answerer, state->request,
                                          state->answer_cancellable, on_answer, step);
      return;
    }
  /* Nobody answered: fail closed. */
  settle_because (task, DSH_APPROVAL_OUTCOME_UNAVAILABLE, CAUSE_NO_ANSWERER);
}

static gboolean
on_caller_cancelled (GCancellable *cancellable, gpointer user_data)
{
  g_autoptr (GTask) task = g_object_ref (G_TASK (user_data));

  /* Cancellation races the answer: whichever comes first is the decision. */
  settle (task, DSH_APPROVAL_OUTCOME_CANCELLED);
  return G_SOURCE_REMOVE;
}

static gboolean
valid_text (const char *text)
{
  return text != NULL && *text != '\0' && g_utf8_validate (text, -1, NULL);
}

/**
 * dsh_approval_service_request_async:
 * @self: a #DshApprovalService
 * @session: the asking session; the request must come inside one of its open turns
 * @call_policy: %DSH_APPROVAL_POLICY_NEVER decides `rejected` for this call whatever the session
 *   says; %DSH_APPROVAL_POLICY_ASK defers to the session
 * @tool_name: the asking tool
 * @call_id: the asking tool's id of its call, carried by the request and its `approval/asked`
 * @reason: the question
 * @details: (nullable): facts for the answerers, not logged
 * @cancellable: (nullable): cancels the question: it is then `cancelled`
 * @callback: (scope async): called once the decision is made and logged
 * @user_data: (closure callback): data for @callback
 *
 * Asks for one decision inside an open turn, writing the audit pair around it. allowed-once is
 * the only grant and covers exactly one action; nothing is remembered. Answerers run in the
 * caller's thread-default main context.
 *
 * Since: 0.1
 */
void
dsh_approval_service_request_async (DshApprovalService *self,
                                    DshSessionLog *session,
                                    DshApprovalPolicy call_policy,
                                    const char *tool_name,
                                    const char *call_id,
                                    const char *reason,
                                    JsonObject *details,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) audited = NULL;
  g_autofree char *id = NULL;
  RequestState *state;

  g_return_if_fail (DSH_IS_APPROVAL_SERVICE (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  /* The caller's cancellable is ours to race, not GTask's to turn into an error. */
  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, &request_tag);

  if (session == NULL || !DSH_IS_SESSION_LOG (session))
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                               "an approval request needs the session it is made for");
      return;
    }
  /* The call id ties the audit pair to its call when one turn makes several. */
  if (!valid_text (tool_name) || !valid_text (call_id) || !valid_text (reason))
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                               "an approval request needs a non-empty UTF-8 tool name, call id "
                               "and reason");
      return;
    }
  /* The pair must be turn-enclosed, or reloading drops it as crash residue. */
  if (!dsh_session_log_has_open_turn (session))
    {
      g_task_return_new_error (task, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL, "%s",
                               dsh_text_approval_outside_turn ());
      return;
    }

  id = g_uuid_string_random ();
  audited = json_object_new ();
  json_object_set_string_member (audited, "callId", call_id);
  if (!dsh_session_log_append_approval_asked (session, id, tool_name, reason, audited, &error))
    {
      /* Not asked on the record, so not asked at all. */
      g_prefix_error (&error, "the approval request could not be logged: ");
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  state = g_new0 (RequestState, 1);
  state->session = g_object_ref (session);
  state->request = dsh_approval_request_new (id, tool_name, reason,
                                             dsh_session_log_get_id (session), call_id, details);
  state->chain = snapshot_chain (self);
  state->answer_cancellable = g_cancellable_new ();
  g_task_set_task_data (task, state, request_state_free);

  /* "never" is decided here, in the service's own path: an answerer prepended ahead of
   * everything still never runs, so the promise does not depend on registration order. */
  if (dsh_approval_service_effective_policy (self, session, call_policy) ==
      DSH_APPROVAL_POLICY_NEVER)
    {
      settle (task, DSH_APPROVAL_OUTCOME_REJECTED);
      return;
    }

  if (cancellable != NULL)
    {
      if (g_cancellable_is_cancelled (cancellable))
        {
          settle (task, DSH_APPROVAL_OUTCOME_CANCELLED);
          return;
        }
      /* A source in the task's context: cancel() may come from any thread, the decision is
       * made in ours. */
      state->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (state->cancel_source, G_SOURCE_FUNC (on_caller_cancelled),
                             g_object_ref (task), g_object_unref);
      g_source_attach (state->cancel_source, g_task_get_context (task));
    }

  dispatch_next (task);
}

/**
 * dsh_approval_service_request_finish:
 * @self: a #DshApprovalService
 * @result: the result @callback received
 * @out_outcome: (out): the decision
 * @error: return location for a #GError
 *
 * Returns: %TRUE with @out_outcome the decision; %FALSE with @error set when no decision could be
 *   made or logged (then @out_outcome is `unavailable` and nothing was granted)
 *
 * Since: 0.1
 */
gboolean
dsh_approval_service_request_finish (DshApprovalService *self,
                                     GAsyncResult *result,
                                     DshApprovalOutcome *out_outcome,
                                     GError **error)
{
  gssize value;

  g_return_val_if_fail (out_outcome != NULL, FALSE);
  *out_outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (result, &request_tag),
                        FALSE);

  if (g_task_had_error (G_TASK (result)))
    {
      g_task_propagate_int (G_TASK (result), error);
      return FALSE;
    }
  value = g_task_propagate_int (G_TASK (result), NULL);
  if (!dsh_approval_outcome_is_valid ((DshApprovalOutcome) value))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                           "internal error: the approval decision is outside the vocabulary");
      return FALSE;
    }
  *out_outcome = (DshApprovalOutcome) value;
  return TRUE;
}

static void
on_sync_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static gboolean
drain_timed_out (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The decision is in, but an answerer told to stop (a prompt, a child process) may still be
 * finishing in this private context: let it, so that nothing is left pending or unreaped when
 * the context goes away — within a second, since an answerer could ignore the cancellation. */
static void
drain_answerers (GMainContext *context, GAsyncResult *result)
{
  g_autoptr (GSource) timeout = g_timeout_source_new (1000);
  GObject *task = G_OBJECT (result);
  gboolean timed_out = FALSE;

  g_object_add_weak_pointer (task, (gpointer *) &task);
  g_object_unref (result);
  g_source_set_callback (timeout, drain_timed_out, &timed_out, NULL);
  g_source_attach (timeout, context);
  while (task != NULL && !timed_out)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (timeout);
  if (task != NULL)
    {
      g_debug ("an approval answerer did not stop within a second of the decision");
      g_object_remove_weak_pointer (task, (gpointer *) &task);
    }
}

/**
 * dsh_approval_service_request:
 * @self: a #DshApprovalService
 * @session: the asking session
 * @call_policy: the caller's own per-call policy
 * @tool_name: the asking tool
 * @call_id: the asking tool's id of its call
 * @reason: the question
 * @details: (nullable): facts for the answerers, not logged
 * @cancellable: (nullable): cancels the question
 * @out_outcome: (out): the decision
 * @error: return location for a #GError
 *
 * dsh_approval_service_request_async(), iterating a private main context until the decision is
 * made.
 *
 * Returns: as dsh_approval_service_request_finish()
 *
 * Since: 0.1
 */
gboolean
dsh_approval_service_request (DshApprovalService *self,
                              DshSessionLog *session,
                              DshApprovalPolicy call_policy,
                              const char *tool_name,
                              const char *call_id,
                              const char *reason,
                              JsonObject *details,
                              GCancellable *cancellable,
                              DshApprovalOutcome *out_outcome,
                              GError **error)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GAsyncResult) result = NULL;
  gboolean ok;

  g_return_val_if_fail (out_outcome != NULL, FALSE);

  g_main_context_push_thread_default (context);
  dsh_approval_service_request_async (self, session, call_policy, tool_name, call_id, reason,
                                      details, cancellable, on_sync_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = dsh_approval_service_request_finish (self, result, out_outcome, error);
  drain_answerers (context, g_steal_pointer (&result));
  g_main_context_pop_thread_default (context);
  return ok;
}
