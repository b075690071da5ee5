/* dsh-execution.c — one agent call: turn → escalation (widening, then approval and its audit
 * pair) → dsh_run() → hint → end of turn.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-execution.h"
#include "dsh-execution-private.h"
#include "dsh-policy-file-reach-private.h"
#include "dsh-approval-service-private.h"

#include "dsh-error.h"
#include "dsh-escalation.h"
#include "dsh-interrupt-watch-private.h"
#include "dsh-run-private.h"
#include "dsh-texts.h"

/**
 * DshExecution:
 *
 * One agent call of the bash tool, from its turn to its audit: the turn in the session, an
 * escalation the model asked for (strict widening checked, then the approval sequence with its
 * audit pair), the run itself through dsh_run() under the standing or the approved mode (the
 * grant covers this call only), the hint after a denial when a wider retry could still be
 * approved, and the end of the turn.
 *
 * Since: 0.1
 */

/**
 * DshExecutionAskableFunc:
 * @user_data: the data given to dsh_execution_set_askable_func()
 *
 * Whether someone could be asked right now (a controlling terminal, say). Called only after a
 * denial, to decide whether the hint is offered.
 *
 * Returns: %TRUE when someone could be asked
 *
 * Since: 0.1
 */

struct _DshExecution {
  GObject parent_instance;

  GStrv argv;
  DshSandboxPolicy *policy;
  DshSessionLog *session;
  DshApprovalService *service;
  DshApprovalPolicy call_policy;
  gboolean escalating;
  DshSandboxMode requested_mode;
  char *justification;
  DshApprovalAnswerer *answerer;
  DshExecutionAskableFunc askable;
  gpointer askable_data;
  GDestroyNotify askable_destroy;
  DshRunOptions run_options;
  gboolean exits_after;

  char *call_id;
  char *turn_id;
  gboolean begun;
  gboolean ran;
  gboolean asked;
  DshApprovalOutcome outcome;
  char *hint;
  GError *end_error;
};

G_DEFINE_FINAL_TYPE (DshExecution, dsh_execution, G_TYPE_OBJECT)

static void end_turn (DshExecution *self);

static void
clear_askable (DshExecution *self)
{
  if (self->askable_destroy != NULL)
    self->askable_destroy (self->askable_data);
  self->askable = NULL;
  self->askable_data = NULL;
  self->askable_destroy = NULL;
}

static void
dsh_execution_finalize (GObject *object)
{
  DshExecution *self = DSH_EXECUTION (object);

  /* A call dropped after its turn began (its report could not be opened, say) closes it. */
  end_turn (self);
  clear_askable (self);
  g_strfreev (self->argv);
  dsh_sandbox_policy_free (self->policy);
  g_clear_object (&self->session);
  g_clear_object (&self->service);
  g_free (self->justification);
  g_clear_object (&self->answerer);
  g_free (self->call_id);
  g_free (self->turn_id);
  g_free (self->hint);
  g_clear_error (&self->end_error);
  G_OBJECT_CLASS (dsh_execution_parent_class)->finalize (object);
}

static void
dsh_execution_class_init (DshExecutionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_execution_finalize;
}

static void
dsh_execution_init (DshExecution *self)
{
  self->call_policy = DSH_APPROVAL_POLICY_ASK;
  self->outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  self->call_id = g_uuid_string_random ();
}

/**
 * dsh_execution_new:
 * @argv: (array zero-terminated=1) (element-type filename): the command; an empty one (no
 *   words, or an empty first word) is a malformed call that dsh_execution_run() ends
 *   %DSH_OUTCOME_INVALID_ARGUMENT, as dsh_run() does, before anyone is asked
 * @policy: the standing policy of the call (from the session or the caller), copied
 * @session: (nullable): the session: without one there is no turn, no audit and no approval
 * @service: the approval service
 *
 * Returns: (transfer full): a new call
 *
 * Since: 0.1
 */
DshExecution *
dsh_execution_new (const char *const *argv,
                   const DshSandboxPolicy *policy,
                   DshSessionLog *session,
                   DshApprovalService *service)
{
  DshExecution *self;

  g_return_val_if_fail (argv != NULL, NULL);
  g_return_val_if_fail (policy != NULL, NULL);
  g_return_val_if_fail (session == NULL || DSH_IS_SESSION_LOG (session), NULL);
  g_return_val_if_fail (DSH_IS_APPROVAL_SERVICE (service), NULL);

  self = g_object_new (DSH_TYPE_EXECUTION, NULL);
  self->argv = g_strdupv ((char **) argv);
  self->policy = dsh_sandbox_policy_copy (policy);
  self->session = session != NULL ? g_object_ref (session) : NULL;
  self->service = g_object_ref (service);
  return self;
}

/**
 * dsh_execution_set_call_policy:
 * @self: a call
 * @policy: the caller's own approval policy for this call (default `ask`); it never outranks
 *   the session's `never`
 *
 * Since: 0.1
 */
void
dsh_execution_set_call_policy (DshExecution *self, DshApprovalPolicy policy)
{
  g_return_if_fail (DSH_IS_EXECUTION (self));
  self->call_policy = policy;
}

/**
 * dsh_execution_set_escalation:
 * @self: a call
 * @requested: the mode the model asked to run this one command under (`sandbox_permissions`)
 * @justification: why: a sentence with a visible character, as dsh_escalation_validate_args()
 *   checks (dsh_execution_run() and dsh_execution_escalate() refuse a blank one with its text,
 *   before anyone is asked)
 *
 * Since: 0.1
 */
void
dsh_execution_set_escalation (DshExecution *self, DshSandboxMode requested,
                              const char *justification)
{
  g_return_if_fail (DSH_IS_EXECUTION (self));
  g_return_if_fail (justification != NULL);
  self->escalating = TRUE;
  self->requested_mode = requested;
  g_free (self->justification);
  self->justification = g_strdup (justification);
}

/**
 * dsh_execution_set_answerer:
 * @self: a call
 * @answerer: (nullable): who answers this call's approval request, scoped to its session and
 *   asked after the service's own chain; %NULL: only that chain, so with an empty one an
 *   escalation that needs asking is `unavailable`
 *
 * Since: 0.1
 */
void
dsh_execution_set_answerer (DshExecution *self, DshApprovalAnswerer *answerer)
{
  g_return_if_fail (DSH_IS_EXECUTION (self));
  g_set_object (&self->answerer, answerer);
}

/**
 * dsh_execution_set_askable_func:
 * @self: a call
 * @askable: (nullable) (scope notified) (closure user_data) (destroy destroy): besides a set
 *   answerer, whether someone else could be asked for the retry the hint offers
 * @user_data: data for @askable
 * @destroy: (nullable): frees @user_data
 *
 * Since: 0.1
 */
void
dsh_execution_set_askable_func (DshExecution *self,
                                DshExecutionAskableFunc askable,
                                gpointer user_data,
                                GDestroyNotify destroy)
{
  g_return_if_fail (DSH_IS_EXECUTION (self));
  clear_askable (self);
  self->askable = askable;
  self->askable_data = user_data;
  self->askable_destroy = destroy;
}

/**
 * dsh_execution_set_call_id:
 * @self: a call
 * @call_id: this call's id as the harness knows it (default: a fresh uuid); its approval
 *   request and audit pair carry it
 *
 * Since: 0.1
 */
void
dsh_execution_set_call_id (DshExecution *self, const char *call_id)
{
  g_return_if_fail (DSH_IS_EXECUTION (self));
  g_return_if_fail (call_id != NULL);
  g_free (self->call_id);
  self->call_id = g_strdup (call_id);
}

/**
 * dsh_execution_set_run_options:
 * @self: a call
 * @options: (nullable): how dsh_run() runs the command, copied (the strings it points to must
 *   stay valid until dsh_execution_run() returns); %NULL: the installed defaults
 *
 * Since: 0.1
 */
void
dsh_execution_set_run_options (DshExecution *self, const DshRunOptions *options)
{
  static const DshRunOptions defaults = { 0 };

  g_return_if_fail (DSH_IS_EXECUTION (self));
  self->run_options = options != NULL ? *options : defaults;
}

static DshApprovalPolicy
effective_policy (DshExecution *self)
{
  return dsh_approval_service_effective_policy (self->service, self->session, self->call_policy);
}

/**
 * dsh_execution_will_ask:
 * @self: a call
 *
 * Would running ask somebody? Only for an escalation that widens this call's standing mode, with
 * a session, under approval policy `ask`: a caller can build an expensive answerer (open a
 * terminal) only then.
 *
 * Returns: %TRUE when an answerer would be asked
 *
 * Since: 0.1
 */
gboolean
dsh_execution_will_ask (DshExecution *self)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), FALSE);

  /* No point asking for a request that cannot widen, has no session to be asked for, or will
   * be rejected under "never" before any answerer runs. */
  return self->escalating && self->session != NULL &&
         dsh_escalation_is_strictly_wider (self->policy->mode, self->requested_mode) &&
         effective_policy (self) == DSH_APPROVAL_POLICY_ASK;
}

/* ---- the turn ------------------------------------------------------------------------------ */

/**
 * dsh_execution_begin:
 * @self: a call
 * @error: return location for a #GError
 *
 * Opens this call's turn in the session (nothing without one): `turn/start` now, `turn/end` when
 * the run ends. A session log that cannot take the turn could not take the audit either: then
 * nothing may run. Nor may anything run with a session log beneath, or reached through, what
 * this call's commands may write (the workspace, `/tmp`, the temp directory, the extra writable
 * roots) or a directory ever granted (%DSH_SANDBOX_ERROR_SESSION_LOG): they could rewrite their
 * own policy. dsh_execution_run() and dsh_execution_escalate() begin by themselves when
 * this was not called.
 *
 * Returns: %TRUE when the call may go on
 *
 * Since: 0.1
 */
gboolean
dsh_execution_begin (DshExecution *self, GError **error)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), FALSE);
  g_return_val_if_fail (!self->begun, FALSE);

  self->begun = TRUE;
  if (self->session == NULL)
    return TRUE;
  /* A log this call's commands could write would let them set the next call's policy: exec and
   * serve refuse it before they get here, and so does every other harness's call. */
  if (!dsh_policy_file_check_out_of_reach (
        "session log", dsh_session_log_get_path (self->session), self->policy->workspace_root,
        (const char *const *) self->policy->extra_writable_roots, error))
    return FALSE;
  self->turn_id = dsh_session_log_begin_turn (self->session, error);
  return self->turn_id != NULL;
}

static void
end_turn (DshExecution *self)
{
  if (self->turn_id == NULL)
    return;
  g_clear_error (&self->end_error);
  if (!dsh_session_log_end_turn (self->session, self->turn_id, &self->end_error))
    g_debug ("cannot end the turn: %s", self->end_error->message);
  g_clear_pointer (&self->turn_id, g_free);
}

/**
 * dsh_execution_end:
 * @self: a call
 * @error: return location for a #GError
 *
 * Closes the turn now (dsh_execution_run() does by itself, and so does dropping the last
 * reference).
 *
 * Returns: %FALSE when the session log could not take `turn/end`
 *
 * Since: 0.1
 */
gboolean
dsh_execution_end (DshExecution *self, GError **error)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), FALSE);

  end_turn (self);
  if (self->end_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->end_error));
      return FALSE;
    }
  return TRUE;
}

/* ---- the escalation ------------------------------------------------------------------------ */

/* What the person (or the approver program) is shown besides the reason. */
static JsonObject *
request_details (DshExecution *self)
{
  JsonObject *details = json_object_new ();
  JsonArray *argv = json_array_new ();

  for (gsize i = 0; self->argv[i] != NULL; i++)
    json_array_add_string_element (argv, self->argv[i]);
  json_object_set_array_member (details, "command", argv);
  json_object_set_string_member (details, "requestedMode",
                                 dsh_sandbox_mode_to_string (self->requested_mode));
  json_object_set_string_member (details, "standingMode",
                                 dsh_sandbox_mode_to_string (self->policy->mode));
  json_object_set_string_member (details, "justification", self->justification);
  json_object_set_string_member (details, "workspaceRoot", self->policy->workspace_root);
  /* A workspace-write grant also opens the extra roots: what is approved must name every
   * directory it makes writable, not only the workspace. */
  if (self->requested_mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE &&
      self->policy->extra_writable_roots != NULL && self->policy->extra_writable_roots[0] != NULL)
    {
      JsonArray *extra = json_array_new ();

      for (gsize i = 0; self->policy->extra_writable_roots[i] != NULL; i++)
        json_array_add_string_element (extra, self->policy->extra_writable_roots[i]);
      json_object_set_array_member (details, "extraWritableRoots", extra);
    }
  return details;
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

/* The index of the first argument a person could not be shown faithfully, or -1. */
static gssize
unshowable_argument (DshExecution *self)
{
  for (gsize i = 0; self->argv[i] != NULL; i++)
    {
      if (!g_utf8_validate (self->argv[i], -1, NULL))
        return (gssize) i;
    }
  return -1;
}

/* A person approves what they are shown: argv that cannot be shown faithfully is refused — but
 * only where someone would be asked: widening (step 1), a session to ask through (step 3; the
 * service of step 2 is always there) and "never" (rejected before anyone is asked) come first,
 * each with its own text. */
static gboolean
check_showable (DshExecution *self, GError **error)
{
  gssize unshowable;

  if (!dsh_execution_will_ask (self))
    return TRUE;
  unshowable = unshowable_argument (self);
  if (unshowable < 0)
    return TRUE;
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED,
               "cannot ask for approval: argument %" G_GSSIZE_FORMAT " of the command is not "
               "valid UTF-8",
               unshowable);
  return FALSE;
}

/* The call's arguments as the command line and serve check them, before anything happens: no
 * command, or a blank justification (a prompt without a reason), is never put to anyone, nor
 * run. */
static gboolean
check_call_args (DshExecution *self, GError **error)
{
  /* No command is nothing to show a person, nor to run: dsh_run()'s own refusal. */
  if (self->argv[0] == NULL || self->argv[0][0] == '\0')
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "no command given");
      return FALSE;
    }
  if (!self->escalating)
    return TRUE;
  return dsh_escalation_validate_args (dsh_sandbox_mode_to_string (self->requested_mode),
                                       self->justification, error);
}

/* The approval sequence, waited for in a private main context. */
static gboolean
approve (DshExecution *self, DshSandboxMode *mode, GError **error)
{
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (JsonObject) details = request_details (self);
  DshInterruptWatch *interrupts;
  Waiting waiting = { NULL, cancellable };
  DshEscalationChannel channel = { 0 };
  guint handle = 0;
  gboolean ok;

  /* Scoped to this session: a chain shared with other sessions never answers for them. */
  if (self->session != NULL && self->answerer != NULL)
    handle = dsh_approval_service_add_answerer (self->service, self->answerer, self->session);

  channel.service = self->service;
  channel.session = self->session;
  channel.call_policy = self->call_policy;
  channel.tool_name = "bash";
  channel.call_id = self->call_id;
  channel.subject = "command";
  channel.details = details;

  g_main_context_push_thread_default (context);
  interrupts = dsh_interrupt_watch_new (context, on_signal, &waiting);

  dsh_escalation_approve_async (self->policy->mode, self->requested_mode, self->justification,
                                &channel, cancellable, on_decided, &waiting);
  while (waiting.result == NULL)
    g_main_context_iteration (context, TRUE);
  ok = dsh_escalation_approve_finish (waiting.result, mode, &self->asked, &self->outcome, error);

  /* Let a withdrawn answerer (a killed approver, a closed prompt) wind down before leaving. */
  g_cancellable_cancel (cancellable);
  while (g_main_context_iteration (context, FALSE))
    ;
  dsh_interrupt_watch_free (interrupts);
  g_main_context_pop_thread_default (context);

  if (handle != 0)
    dsh_approval_service_remove_answerer (self->service, handle);
  g_clear_object (&waiting.result);
  return ok;
}

/**
 * dsh_execution_escalate:
 * @self: a call
 * @out_mode: (out): the mode the command may run under: the standing one without an
 *   escalation, else the approved one
 * @error: return location for a #GError
 *
 * The escalation alone, for a harness that runs the command itself, inside the turn (which it
 * begins when needed): strict widening of this call's standing mode first, then the approval
 * sequence with its audit pair. `SIGINT`, `SIGTERM` and `SIGHUP` while an answer is awaited
 * withdraw the question (`cancelled`). dsh_execution_run() does this first.
 *
 * Returns: %TRUE with *@out_mode set; %FALSE with the refusal
 *   (%DSH_SANDBOX_ERROR_ESCALATION_REFUSED, or the approval service's error)
 *
 * Since: 0.1
 */
gboolean
dsh_execution_escalate (DshExecution *self, DshSandboxMode *out_mode, GError **error)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), FALSE);
  g_return_val_if_fail (out_mode != NULL, FALSE);

  *out_mode = self->policy->mode;
  if (!check_call_args (self, error))
    return FALSE;
  if (!self->begun && !dsh_execution_begin (self, error))
    return FALSE;
  if (!self->escalating)
    return TRUE;
  return check_showable (self, error) && approve (self, out_mode, error);
}

/* ---- the run ------------------------------------------------------------------------------- */

/* After a denial: the hint when a retry with a wider mode could still be approved — never
 * under "never", never without a session or anyone to ask (this call's answerer, one the
 * service's chain holds for the session, or one the caller can still reach), never when no
 * wider mode exists, never for a command the retry could not show to a person, and never after
 * the escalated retry itself, whose denial is final. */
static char *
hint_after_denial (DshExecution *self, DshSandboxMode ran_mode)
{
  gboolean channel;

  if (self->escalating || unshowable_argument (self) >= 0)
    return NULL;
  channel = self->answerer != NULL ||
            (self->session != NULL &&
             dsh_approval_service_has_answerer_for (self->service, self->session)) ||
            (self->askable != NULL && self->askable (self->askable_data));
  if (!dsh_escalation_could_be_approved (ran_mode, effective_policy (self),
                                         self->session != NULL, channel))
    return NULL;
  return dsh_text_escalation_hint ("command");
}

static DshRunResult *
refused (DshExecution *self, DshOutcome outcome, GError *error)
{
  DshRunResult *result = g_new0 (DshRunResult, 1);

  result->outcome = outcome;
  result->mode = self->policy->mode;
  result->error = error;
  return result;
}

/**
 * dsh_execution_run:
 * @self: a call, not run before
 *
 * The whole call: the turn (when dsh_execution_begin() was not called), the escalation when one
 * was asked for (refused: outcome %DSH_OUTCOME_ESCALATION_REFUSED, nothing ran), the run through
 * dsh_run() under the standing or the approved mode (the grant is this call's only: the next
 * call is back under the standing mode), the hint after a denial (dsh_execution_get_hint()),
 * and the end of the turn.
 *
 * Returns: (transfer full): what happened, never %NULL
 *
 * Since: 0.1
 */
DshRunResult *
dsh_execution_run (DshExecution *self)
{
  DshSandboxPolicy effective;
  DshSandboxMode mode;
  DshRunResult *result;
  GError *error = NULL;

  g_return_val_if_fail (DSH_IS_EXECUTION (self), NULL);
  /* Its turn is closed after the run: a second run would run a command outside any turn. */
  g_return_val_if_fail (!self->ran, NULL);

  self->ran = TRUE;
  /* A malformed escalation runs nothing and opens no turn, as on the command line. */
  if (!check_call_args (self, &error))
    return refused (self, DSH_OUTCOME_INVALID_ARGUMENT, error);
  if (!self->begun && !dsh_execution_begin (self, &error))
    return refused (self, DSH_OUTCOME_UNAVAILABLE, error);

  if (!dsh_execution_escalate (self, &mode, &error))
    result = refused (self, DSH_OUTCOME_ESCALATION_REFUSED, error);
  else
    {
      /* The wider mode lives in this shallow copy and nowhere else. */
      effective = *self->policy;
      effective.mode = mode;
      result = self->exits_after
                 ? dsh_run_before_exit ((const char *const *) self->argv, &effective,
                                        &self->run_options)
                 : dsh_run ((const char *const *) self->argv, &effective, &self->run_options);
      if (result->marker != NULL)
        self->hint = hint_after_denial (self, mode);
    }
  end_turn (self);
  return result;
}

void
dsh_execution_set_exits_after (DshExecution *self, gboolean exits_after)
{
  g_return_if_fail (DSH_IS_EXECUTION (self));
  self->exits_after = exits_after;
}

/**
 * dsh_execution_get_argv:
 * @self: a call
 *
 * Returns: (transfer none) (array zero-terminated=1) (element-type filename): the command
 *
 * Since: 0.1
 */
const char *const *
dsh_execution_get_argv (DshExecution *self)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), NULL);
  return (const char *const *) self->argv;
}

/**
 * dsh_execution_get_policy:
 * @self: a call
 *
 * Returns: (transfer none): the standing policy, as given to dsh_execution_new()
 *
 * Since: 0.1
 */
const DshSandboxPolicy *
dsh_execution_get_policy (DshExecution *self)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), NULL);
  return self->policy;
}

/**
 * dsh_execution_get_escalation:
 * @self: a call
 * @out_requested: (out) (optional): the mode the escalation asks for
 * @out_justification: (out) (optional) (transfer none) (nullable): its justification
 *
 * Returns: whether an escalation was asked for (dsh_execution_set_escalation())
 *
 * Since: 0.1
 */
gboolean
dsh_execution_get_escalation (DshExecution *self,
                              DshSandboxMode *out_requested,
                              const char **out_justification)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), FALSE);
  if (out_requested != NULL)
    *out_requested = self->requested_mode;
  if (out_justification != NULL)
    *out_justification = self->justification;
  return self->escalating;
}

/**
 * dsh_execution_get_call_id:
 * @self: a call
 *
 * Returns: (transfer none): this call's id: its approval request and audit pair carry it
 *
 * Since: 0.1
 */
const char *
dsh_execution_get_call_id (DshExecution *self)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), NULL);
  return self->call_id;
}

/**
 * dsh_execution_get_asked:
 * @self: a call
 * @out_outcome: (out) (optional): the decision, when the escalation was put to the service
 *
 * Returns: whether the escalation was put to the approval service
 *
 * Since: 0.1
 */
gboolean
dsh_execution_get_asked (DshExecution *self, DshApprovalOutcome *out_outcome)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), FALSE);
  if (out_outcome != NULL)
    *out_outcome = self->outcome;
  return self->asked;
}

/**
 * dsh_execution_get_hint:
 * @self: a call
 *
 * Returns: (transfer none) (nullable): after a denial, the hint line to show after the marker
 *   when a wider retry could still be approved; else %NULL
 *
 * Since: 0.1
 */
const char *
dsh_execution_get_hint (DshExecution *self)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), NULL);
  return self->hint;
}

/**
 * dsh_execution_get_end_error:
 * @self: a call
 *
 * Returns: (transfer none) (nullable): why the turn could not be closed, or %NULL
 *
 * Since: 0.1
 */
const GError *
dsh_execution_get_end_error (DshExecution *self)
{
  g_return_val_if_fail (DSH_IS_EXECUTION (self), NULL);
  return self->end_error;
}
