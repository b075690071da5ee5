/* test-approval.c — the approval service: the audit pair, "never" before any answerer, the
 * chain (delegation, scoping), every fail-closed path, the cancellation race, the turn rule,
 * failed appends, and the policy-change notice.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "dsh-test-util.h"

/* ---- a scriptable answerer ----------------------------------------------------------------- */

typedef enum {
  BEHAVE_ANSWER,         /* finishes (later) with outcome */
  BEHAVE_DELEGATE,       /* passes the request on */
  BEHAVE_FAIL_SYNC,      /* calls back with an error before answer_async returns */
  BEHAVE_FAIL_ASYNC,     /* finishes later with an error */
  BEHAVE_FAIL_NO_ERROR,  /* answer_finish says FAILED but sets no error */
  BEHAVE_FAIL_EMPTY,     /* finishes later with an error whose message is empty */
  BEHAVE_FAIL_LONG,      /* finishes later with an error of 3000 two-byte characters */
  BEHAVE_JUNK,           /* answers a value outside the vocabulary */
  BEHAVE_HOLD,           /* keeps the request until test_answerer_release() */
  BEHAVE_SWAP_LOG,       /* replaces the session file, then answers allowed-once */
  BEHAVE_STOP_ON_CANCEL, /* answers nothing, and finishes (cancelled) once told to stop */
} Behaviour;

#define TEST_TYPE_ANSWERER (test_answerer_get_type ())
G_DECLARE_FINAL_TYPE (TestAnswerer, test_answerer, TEST, ANSWERER, GObject)

struct _TestAnswerer {
  GObject parent_instance;

  Behaviour behaviour;
  DshApprovalOutcome outcome;
  guint calls;
  guint finished;
  GPtrArray *requests;
  /* BEHAVE_HOLD */
  GTask *held;
  GCancellable *held_cancellable;
  /* BEHAVE_SWAP_LOG */
  char *swap_path;
};

static void test_answerer_iface_init (DshApprovalAnswererInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestAnswerer, test_answerer, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (DSH_TYPE_APPROVAL_ANSWERER,
                                                      test_answerer_iface_init))

static void
replace_file (const char *path)
{
  g_autofree char *contents = NULL;
  g_autofree char *tmp = g_strconcat (path, ".new", NULL);
  gsize length = 0;

  /* Same bytes, new inode: the log sees a file that was replaced since it was loaded. */
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (tmp, contents, (gssize) length, NULL));
  g_assert_cmpint (g_rename (tmp, path), ==, 0);
}

static void
stop_on_cancel (GCancellable *cancellable, gpointer user_data)
{
  GTask *task = user_data;

  if (!g_task_get_completed (task))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "told to stop");
  g_task_set_task_data (task, NULL, NULL);
}

static void
test_answerer_answer_async (DshApprovalAnswerer *answerer,
                            DshApprovalRequest *request,
                            GCancellable *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer user_data)
{
  TestAnswerer *self = TEST_ANSWERER (answerer);
  g_autoptr (GTask) task = NULL;

  self->calls++;
  g_ptr_array_add (self->requests, dsh_approval_request_ref (request));

  switch (self->behaviour)
    {
    case BEHAVE_FAIL_SYNC:
      /* A task nobody else will call back for: the failure lands synchronously, the way a
       * throwing callback would before its first await. */
      task = g_task_new (self, NULL, NULL, NULL);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "boom, synchronously");
      callback (G_OBJECT (self), G_ASYNC_RESULT (task), user_data);
      return;

    case BEHAVE_FAIL_ASYNC:
      task = g_task_new (self, NULL, callback, user_data);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "boom, later");
      return;

    case BEHAVE_FAIL_EMPTY:
      task = g_task_new (self, NULL, callback, user_data);
      g_task_return_error (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, ""));
      return;

    case BEHAVE_FAIL_LONG:
      {
        g_autoptr (GString) long_message = g_string_new (NULL);

        for (guint i = 0; i < 3000; i++)
          g_string_append (long_message, "\u00e9");
        task = g_task_new (self, NULL, callback, user_data);
        g_task_return_error (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED,
                                                        long_message->str));
        return;
      }

    case BEHAVE_DELEGATE:
      task = g_task_new (self, NULL, callback, user_data);
      dsh_approval_task_return_delegate (task);
      return;

    case BEHAVE_JUNK:
      task = g_task_new (self, NULL, callback, user_data);
      dsh_approval_task_return_outcome (task, (DshApprovalOutcome) 42);
      return;

    case BEHAVE_HOLD:
      g_assert_null (self->held);
      self->held = g_task_new (self, NULL, callback, user_data);
      g_set_object (&self->held_cancellable, cancellable);
      return;

    case BEHAVE_STOP_ON_CANCEL:
      task = g_task_new (self, cancellable, callback, user_data);
      g_task_set_return_on_cancel (task, TRUE);
      /* Never returns on its own: only the cancellation ends it, like a prompt withdrawn. */
      g_task_set_task_data (task, g_object_ref (task), g_object_unref);
      g_cancellable_connect (cancellable, G_CALLBACK (stop_on_cancel), g_object_ref (task),
                             g_object_unref);
      return;

    case BEHAVE_SWAP_LOG:
      replace_file (self->swap_path);
      task = g_task_new (self, NULL, callback, user_data);
      dsh_approval_task_return_outcome (task, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
      return;

    case BEHAVE_FAIL_NO_ERROR:
    case BEHAVE_ANSWER:
    default:
      task = g_task_new (self, NULL, callback, user_data);
      dsh_approval_task_return_outcome (task, self->outcome);
      return;
    }
}

/* The interface's default finish (GTask results), which the test answerer wraps. */
static DshApprovalAnswer (*default_answer_finish) (DshApprovalAnswerer *, GAsyncResult *,
                                                   DshApprovalOutcome *, GError **);

static DshApprovalAnswer
test_answerer_answer_finish (DshApprovalAnswerer *answerer,
                             GAsyncResult *result,
                             DshApprovalOutcome *out_outcome,
                             GError **error)
{
  TestAnswerer *self = TEST_ANSWERER (answerer);

  self->finished++;
  if (self->behaviour == BEHAVE_FAIL_NO_ERROR)
    {
      /* Says it failed, sets no error: still just a failure. */
      g_task_propagate_int (G_TASK (result), NULL);
      return DSH_APPROVAL_ANSWER_FAILED;
    }
  return default_answer_finish (answerer, result, out_outcome, error);
}

static void
test_answerer_iface_init (DshApprovalAnswererInterface *iface)
{
  default_answer_finish = iface->answer_finish;
  iface->answer_async = test_answerer_answer_async;
  iface->answer_finish = test_answerer_answer_finish;
}

static void
test_answerer_finalize (GObject *object)
{
  TestAnswerer *self = TEST_ANSWERER (object);

  g_ptr_array_unref (self->requests);
  g_clear_object (&self->held);
  g_clear_object (&self->held_cancellable);
  g_free (self->swap_path);
  G_OBJECT_CLASS (test_answerer_parent_class)->finalize (object);
}

static void
test_answerer_class_init (TestAnswererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_answerer_finalize;
}

static void
test_answerer_init (TestAnswerer *self)
{
  self->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) dsh_approval_request_unref);
}

static TestAnswerer *
test_answerer_new (Behaviour behaviour, DshApprovalOutcome outcome)
{
  TestAnswerer *self = g_object_new (TEST_TYPE_ANSWERER, NULL);

  self->behaviour = behaviour;
  self->outcome = outcome;
  return self;
}

/* Finishes a held request now. */
static void
test_answerer_release (TestAnswerer *self, DshApprovalOutcome outcome)
{
  g_autoptr (GTask) task = g_steal_pointer (&self->held);

  g_assert_nonnull (task);
  dsh_approval_task_return_outcome (task, outcome);
}

/* An answerer type that implements nothing. */
#define TEST_TYPE_HOLLOW (test_hollow_get_type ())
G_DECLARE_FINAL_TYPE (TestHollow, test_hollow, TEST, HOLLOW, GObject)
struct _TestHollow {
  GObject parent_instance;
};
static void
test_hollow_iface_init (DshApprovalAnswererInterface *iface)
{
}
G_DEFINE_FINAL_TYPE_WITH_CODE (TestHollow, test_hollow, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (DSH_TYPE_APPROVAL_ANSWERER,
                                                      test_hollow_iface_init))
static void
test_hollow_class_init (TestHollowClass *klass)
{
}
static void
test_hollow_init (TestHollow *self)
{
}

/* ---- fixtures ------------------------------------------------------------------------------ */

typedef struct {
  char *dir;
  char *path;
  DshSessionLog *log;
  char *turn;
  DshApprovalService *service;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  f->dir = dsh_test_make_tmp_dir ();
  f->path = g_build_filename (f->dir, "session.jsonl", NULL);
  f->log = dsh_test_create_session_log (f->path, f->dir);
  f->turn = dsh_session_log_begin_turn (f->log, &error);
  g_assert_no_error (error);
  f->service = dsh_approval_service_new ();
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_clear_object (&f->service);
  g_clear_object (&f->log);
  g_free (f->turn);
  g_free (f->path);
  g_free (f->dir);
}

static GPtrArray *
events_of_kind (DshSessionLog *log, DshSessionEventKind kind)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (log);
  GPtrArray *found = g_ptr_array_new_with_free_func ((GDestroyNotify) dsh_session_event_unref);

  for (guint i = 0; i < events->len; i++)
    {
      if (dsh_session_event_get_kind (events->pdata[i]) == kind)
        g_ptr_array_add (found, dsh_session_event_ref (events->pdata[i]));
    }
  return found;
}

/* Asserts exactly one asked/decided pair, in that order, with one id, inside a turn, with
 * this tool, reason and outcome — also after reloading the file. */
static void
assert_audit_pair (const char *path, const char *reason, const char *outcome)
{
  g_autoptr (DshSessionLog) reloaded = dsh_test_load_session_log (path);
  g_autoptr (GPtrArray) asked = NULL;
  g_autoptr (GPtrArray) decided = NULL;

  g_assert_cmpuint (dsh_session_log_get_dropped_count (reloaded), ==, 0);
  asked = events_of_kind (reloaded, DSH_SESSION_EVENT_APPROVAL_ASKED);
  decided = events_of_kind (reloaded, DSH_SESSION_EVENT_APPROVAL_DECIDED);
  g_assert_cmpuint (asked->len, ==, 1);
  g_assert_cmpuint (decided->len, ==, 1);
  g_assert_cmpstr (dsh_session_event_get_string (asked->pdata[0], "toolName"), ==, "bash");
  g_assert_cmpstr (dsh_session_event_get_string (asked->pdata[0], "reason"), ==, reason);
  g_assert_cmpstr (dsh_session_event_get_string (asked->pdata[0], "id"), ==,
                   dsh_session_event_get_string (decided->pdata[0], "id"));
  g_assert_cmpstr (dsh_session_event_get_string (decided->pdata[0], "outcome"), ==, outcome);
  g_assert_cmpuint (dsh_session_event_get_line (asked->pdata[0]), <,
                    dsh_session_event_get_line (decided->pdata[0]));
}

static gboolean
ask (Fixture *f, DshApprovalPolicy call_policy, GCancellable *cancellable,
     DshApprovalOutcome *outcome, GError **error)
{
  return dsh_approval_service_request (f->service, f->log, call_policy, "bash", "call-1",
                                       "why not", NULL, cancellable, outcome, error);
}

static DshApprovalOutcome
ask_ok (Fixture *f)
{
  g_autoptr (GError) error = NULL;
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;

  g_assert_true (ask (f, DSH_APPROVAL_POLICY_ASK, NULL, &outcome, &error));
  g_assert_no_error (error);
  return outcome;
}

/* ---- tests --------------------------------------------------------------------------------- */

static void
test_no_answerer (Fixture *f, gconstpointer data)
{
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
  assert_audit_pair (f->path, "why not", "unavailable");
}

static void
test_each_outcome (Fixture *f, gconstpointer data)
{
  static const DshApprovalOutcome outcomes[] = {
    DSH_APPROVAL_OUTCOME_ALLOWED_ONCE, DSH_APPROVAL_OUTCOME_REJECTED,
    DSH_APPROVAL_OUTCOME_CANCELLED, DSH_APPROVAL_OUTCOME_UNAVAILABLE,
  };

  for (guint i = 0; i < G_N_ELEMENTS (outcomes); i++)
    {
      Fixture fresh = { 0 };
      g_autoptr (TestAnswerer) answerer = test_answerer_new (BEHAVE_ANSWER, outcomes[i]);

      fixture_set_up (&fresh, NULL);
      dsh_approval_service_add_answerer (fresh.service, DSH_APPROVAL_ANSWERER (answerer), NULL);
      g_assert_cmpint (ask_ok (&fresh), ==, outcomes[i]);
      g_assert_cmpuint (answerer->calls, ==, 1);
      assert_audit_pair (fresh.path, "why not", dsh_approval_outcome_to_string (outcomes[i]));
      fixture_tear_down (&fresh, NULL);
    }
}

static void
test_request_shape (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) answerer = test_answerer_new (BEHAVE_ANSWER,
                                                         DSH_APPROVAL_OUTCOME_REJECTED);
  g_autoptr (JsonObject) details = json_object_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) asked = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *text = NULL;
  DshApprovalOutcome outcome;
  DshApprovalRequest *request;

  /* Details are facts for answerers; they can never pose as the audited fields. */
  json_object_set_string_member (details, "requestedMode", "workspace-write");
  json_object_set_string_member (details, "id", "forged");
  json_object_set_string_member (details, "reason", "forged");
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (answerer), NULL);
  g_assert_true (dsh_approval_service_request (f->service, f->log, DSH_APPROVAL_POLICY_ASK,
                                               "bash", "call-1", "the reason", details, NULL,
                                               &outcome, &error));
  g_assert_no_error (error);

  request = answerer->requests->pdata[0];
  asked = events_of_kind (f->log, DSH_SESSION_EVENT_APPROVAL_ASKED);
  g_assert_cmpstr (dsh_approval_request_get_id (request), ==,
                   dsh_session_event_get_string (asked->pdata[0], "id"));
  g_assert_true (g_uuid_string_is_valid (dsh_approval_request_get_id (request)));
  g_assert_cmpstr (dsh_approval_request_get_reason (request), ==, "the reason");
  g_assert_cmpstr (dsh_approval_request_get_session_id (request), ==,
                   dsh_session_log_get_id (f->log));
  /* The caller's call id, in the request and in its audit event. */
  g_assert_cmpstr (dsh_approval_request_get_call_id (request), ==, "call-1");
  g_assert_cmpstr (dsh_session_event_get_string (asked->pdata[0], "callId"), ==, "call-1");
  json = dsh_approval_request_to_json (request);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json), "id"), ==,
                   dsh_approval_request_get_id (request));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json), "reason"), ==,
                   "the reason");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json), "callId"), ==,
                   "call-1");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json),
                                                  "requestedMode"), ==, "workspace-write");
  /* The audit record is exactly {id, toolName, reason, callId}: details are never logged. */
  g_assert_cmpuint (json_object_get_size (dsh_session_event_get_data (asked->pdata[0])), ==, 4);
}

/* Answerers see the details as they were when the request was made, however deep the caller
 * keeps changing its own object afterwards. */
static void
test_request_details_are_a_snapshot (void)
{
  g_autoptr (JsonObject) details = json_object_new ();
  g_autoptr (JsonObject) nested = json_object_new ();
  g_autoptr (JsonArray) list = json_array_new ();
  g_autoptr (DshApprovalRequest) request = NULL;
  JsonObject *seen;

  json_object_set_string_member (nested, "path", "/src");
  json_array_add_string_element (list, "first");
  json_object_set_object_member (details, "nested", json_object_ref (nested));
  json_object_set_array_member (details, "list", json_array_ref (list));
  json_object_set_string_member (details, "top", "before");
  request = dsh_approval_request_new ("id", "bash", "reason", "session", "call-1", details);

  json_object_set_string_member (nested, "path", "/etc");
  json_array_add_string_element (list, "second");
  json_object_set_string_member (details, "top", "after");

  seen = dsh_approval_request_get_details (request);
  g_assert_true (seen != details);
  g_assert_cmpstr (json_object_get_string_member (seen, "top"), ==, "before");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (seen, "nested"),
                                                  "path"), ==, "/src");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (seen, "list")), ==, 1);
}

static void
test_chain_delegates (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) first = test_answerer_new (BEHAVE_DELEGATE, 0);
  g_autoptr (TestAnswerer) second = test_answerer_new (BEHAVE_ANSWER,
                                                       DSH_APPROVAL_OUTCOME_REJECTED);
  g_autoptr (TestAnswerer) third = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);

  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (first), NULL);
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (second), NULL);
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (third), NULL);
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_REJECTED);
  g_assert_cmpuint (first->calls, ==, 1);
  g_assert_cmpuint (second->calls, ==, 1);
  g_assert_cmpuint (third->calls, ==, 0);
}

static void
test_chain_all_delegate (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) first = test_answerer_new (BEHAVE_DELEGATE, 0);
  g_autoptr (TestAnswerer) second = test_answerer_new (BEHAVE_DELEGATE, 0);

  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (first), NULL);
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (second), NULL);
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
  g_assert_cmpuint (second->calls, ==, 1);
}

static void
test_prepend_and_remove (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) late = test_answerer_new (BEHAVE_ANSWER,
                                                     DSH_APPROVAL_OUTCOME_REJECTED);
  g_autoptr (TestAnswerer) early = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_CANCELLED);
  guint handle;

  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (late), NULL);
  handle = dsh_approval_service_prepend_answerer (f->service, DSH_APPROVAL_ANSWERER (early),
                                                  NULL);
  g_assert_cmpuint (handle, >, 0);
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_CANCELLED);
  dsh_approval_service_remove_answerer (f->service, handle);
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_REJECTED);
  g_assert_cmpuint (early->calls, ==, 1);
}

static void
test_scoped_answerer (Fixture *f, gconstpointer data)
{
  Fixture other = { 0 };
  g_autoptr (TestAnswerer) owner = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSessionLog) same_file = NULL;
  DshApprovalOutcome outcome;

  fixture_set_up (&other, NULL);
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (owner), f->log);

  /* Another session's question never reaches an answerer scoped to this one. */
  g_assert_true (dsh_approval_service_request (f->service, other.log, DSH_APPROVAL_POLICY_ASK,
                                               "bash", "call-1", "why not", NULL, NULL,
                                               &outcome, &error));
  g_assert_no_error (error);
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
  g_assert_cmpuint (owner->calls, ==, 0);

  /* Its own session's question does, also through another handle on the same file. */
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  same_file = dsh_test_load_session_log (f->path);
  g_assert_true (dsh_approval_service_request (f->service, same_file, DSH_APPROVAL_POLICY_ASK,
                                               "bash", "call-1", "why not", NULL, NULL,
                                               &outcome, &error));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_assert_cmpuint (owner->calls, ==, 2);
  fixture_tear_down (&other, NULL);
}

static void
test_never_beats_first_answerer (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) eager = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_autoptr (TestAnswerer) scoped = test_answerer_new (BEHAVE_ANSWER,
                                                       DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_autoptr (GError) error = NULL;

  /* Registered first, and again prepended after the policy changed, scoped and unscoped:
   * none of them ever runs under "never". */
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (eager), NULL);
  g_assert_true (dsh_approval_service_set_policy (f->service, f->log, DSH_APPROVAL_POLICY_NEVER,
                                                  NULL, &error));
  g_assert_no_error (error);
  dsh_approval_service_prepend_answerer (f->service, DSH_APPROVAL_ANSWERER (eager), NULL);
  dsh_approval_service_prepend_answerer (f->service, DSH_APPROVAL_ANSWERER (scoped), f->log);

  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_REJECTED);
  g_assert_cmpuint (eager->calls, ==, 0);
  g_assert_cmpuint (scoped->calls, ==, 0);
  assert_audit_pair (f->path, "why not", "rejected");
}

static void
test_never_per_call (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) eager = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_autoptr (GError) error = NULL;
  DshApprovalOutcome outcome;

  /* A call can narrow to "never" on an "ask" session ... */
  dsh_approval_service_prepend_answerer (f->service, DSH_APPROVAL_ANSWERER (eager), NULL);
  g_assert_true (ask (f, DSH_APPROVAL_POLICY_NEVER, NULL, &outcome, &error));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_REJECTED);
  g_assert_cmpuint (eager->calls, ==, 0);

  /* ... but never widen a "never" session back to "ask". */
  g_assert_true (dsh_approval_service_set_policy (f->service, f->log, DSH_APPROVAL_POLICY_NEVER,
                                                  NULL, &error));
  g_assert_true (ask (f, DSH_APPROVAL_POLICY_ASK, NULL, &outcome, &error));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_REJECTED);
  g_assert_cmpuint (eager->calls, ==, 0);
}

static void
test_default_policy (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) eager = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (dsh_approval_service_get_policy (f->service, f->log), ==,
                   DSH_APPROVAL_POLICY_ASK);
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (eager), NULL);
  dsh_approval_service_set_default_policy (f->service, DSH_APPROVAL_POLICY_NEVER);
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_REJECTED);
  /* A recorded policy wins over the deployment default. */
  g_assert_true (dsh_approval_service_set_policy (f->service, f->log, DSH_APPROVAL_POLICY_ASK,
                                                  NULL, &error));
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
}

static void
test_fail_closed (Fixture *f, gconstpointer data)
{
  static const Behaviour behaviours[] = {
    BEHAVE_FAIL_SYNC, BEHAVE_FAIL_ASYNC, BEHAVE_FAIL_NO_ERROR, BEHAVE_JUNK,
  };

  for (guint i = 0; i < G_N_ELEMENTS (behaviours); i++)
    {
      Fixture fresh = { 0 };
      g_autoptr (TestAnswerer) bad = test_answerer_new (behaviours[i],
                                                        DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
      g_autoptr (TestAnswerer) next = test_answerer_new (BEHAVE_ANSWER,
                                                         DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);

      g_test_message ("behaviour %d", behaviours[i]);
      fixture_set_up (&fresh, NULL);
      /* A failing answerer fails the question; it does not delegate to a willing one. */
      dsh_approval_service_add_answerer (fresh.service, DSH_APPROVAL_ANSWERER (bad), NULL);
      dsh_approval_service_add_answerer (fresh.service, DSH_APPROVAL_ANSWERER (next), NULL);
      g_assert_cmpint (ask_ok (&fresh), ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
      g_assert_cmpuint (bad->calls, ==, 1);
      g_assert_cmpuint (next->calls, ==, 0);
      assert_audit_pair (fresh.path, "why not", "unavailable");
      fixture_tear_down (&fresh, NULL);
    }
}

/* The audit's cause of an unavailable decision is never empty (session-event.schema.json's
 * minLength): an answerer's error without a message is told as one without a reason. */
static void
test_fail_closed_cause (Fixture *f, gconstpointer data)
{
  static const struct {
    Behaviour behaviour;
    const char *cause;
  } cases[] = {
    { BEHAVE_FAIL_ASYNC, "boom, later" },
    { BEHAVE_FAIL_NO_ERROR, "an answerer failed without saying why" },
    { BEHAVE_FAIL_EMPTY, "an answerer failed without saying why" },
    { BEHAVE_JUNK, "an answerer answered outside the vocabulary" },
    { BEHAVE_FAIL_LONG, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Fixture fresh = { 0 };
      g_autoptr (TestAnswerer) bad = test_answerer_new (cases[i].behaviour,
                                                        DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
      g_autoptr (DshSessionLog) reloaded = NULL;
      g_autoptr (GPtrArray) decided = NULL;

      fixture_set_up (&fresh, NULL);
      dsh_approval_service_add_answerer (fresh.service, DSH_APPROVAL_ANSWERER (bad), NULL);
      g_assert_cmpint (ask_ok (&fresh), ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
      reloaded = dsh_test_load_session_log (fresh.path);
      decided = events_of_kind (reloaded, DSH_SESSION_EVENT_APPROVAL_DECIDED);
      g_assert_cmpuint (decided->len, ==, 1);
      if (cases[i].cause != NULL)
        g_assert_cmpstr (dsh_session_event_get_string (decided->pdata[0], "cause"), ==,
                         cases[i].cause);
      else
        {
          /* A sentence of it, cut where a character starts. */
          const char *cut = dsh_session_event_get_string (decided->pdata[0], "cause");

          g_assert_cmpuint (strlen (cut), ==, 1024);
          g_assert_true (g_utf8_validate (cut, -1, NULL));
        }
      fixture_tear_down (&fresh, NULL);
    }
}

static void
test_unimplemented_answerer (Fixture *f, gconstpointer data)
{
  g_autoptr (GObject) hollow = g_object_new (TEST_TYPE_HOLLOW, NULL);

  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (hollow), NULL);
  g_assert_cmpint (ask_ok (f), ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
}

typedef struct {
  GAsyncResult *result;
} Waiter;

static void
on_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Waiter *waiter = user_data;

  waiter->result = g_object_ref (result);
}

static void
iterate_until (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);
}

/* Asks slow, alone, asynchronously, and returns once it holds the question. */
static void
start_held_request (Fixture *f, TestAnswerer *slow, GCancellable *cancellable, Waiter *waiter)
{
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (slow), NULL);
  dsh_approval_service_request_async (f->service, f->log, DSH_APPROVAL_POLICY_ASK, "bash",
                                      "call-1", "why not", NULL, cancellable, on_done, waiter);
  while (slow->held == NULL)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_cancel_races_answer (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) slow = test_answerer_new (BEHAVE_HOLD, 0);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) decided = NULL;
  Waiter waiter = { NULL };
  DshApprovalOutcome outcome;

  start_held_request (f, slow, cancellable, &waiter);

  /* The caller gives up first: that is the decision, and the answerer is told. */
  g_cancellable_cancel (cancellable);
  iterate_until (&waiter.result);
  g_assert_true (dsh_approval_service_request_finish (f->service, waiter.result, &outcome,
                                                      &error));
  g_assert_no_error (error);
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_CANCELLED);
  g_assert_true (g_cancellable_is_cancelled (slow->held_cancellable));

  /* The late answer is discarded: no second decision, no grant on record. */
  test_answerer_release (slow, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  decided = events_of_kind (f->log, DSH_SESSION_EVENT_APPROVAL_DECIDED);
  g_assert_cmpuint (decided->len, ==, 1);
  assert_audit_pair (f->path, "why not", "cancelled");
  g_object_unref (waiter.result);
}

static gpointer
cancel_soon (gpointer data)
{
  g_usleep (50 * 1000);
  g_cancellable_cancel (G_CANCELLABLE (data));
  return NULL;
}

/* A synchronous request to answerer alone, cancelled from another thread while it waits in its
 * own context: the outcome is "cancelled". */
static void
ask_cancelled_from_thread (Fixture *f, TestAnswerer *answerer)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GThread) thread = NULL;
  g_autoptr (GError) error = NULL;
  DshApprovalOutcome outcome;

  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (answerer), NULL);
  thread = g_thread_new ("canceller", cancel_soon, cancellable);
  g_assert_true (ask (f, DSH_APPROVAL_POLICY_ASK, cancellable, &outcome, &error));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_CANCELLED);
  g_thread_join (g_steal_pointer (&thread));
}

static void
test_cancel_from_thread (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) slow = test_answerer_new (BEHAVE_HOLD, 0);

  ask_cancelled_from_thread (f, slow);
}

/* The synchronous request returns only once an answerer told to stop has finished, so nothing of
 * it is left pending (or a child process unreaped) when its private context goes away. */
static void
test_sync_request_drains_answerer (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) stopper = test_answerer_new (BEHAVE_STOP_ON_CANCEL, 0);

  ask_cancelled_from_thread (f, stopper);
  g_assert_cmpuint (stopper->finished, ==, 1);
}

static void
test_answer_beats_cancel (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) slow = test_answerer_new (BEHAVE_HOLD, 0);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  Waiter waiter = { NULL };
  DshApprovalOutcome outcome;

  start_held_request (f, slow, cancellable, &waiter);
  test_answerer_release (slow, DSH_APPROVAL_OUTCOME_REJECTED);
  iterate_until (&waiter.result);
  /* Cancelling after the decision changes nothing. */
  g_cancellable_cancel (cancellable);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_true (dsh_approval_service_request_finish (f->service, waiter.result, &outcome,
                                                      &error));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_REJECTED);
  assert_audit_pair (f->path, "why not", "rejected");
  g_object_unref (waiter.result);
}

static void
test_already_cancelled (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) eager = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  DshApprovalOutcome outcome;

  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (eager), NULL);
  g_cancellable_cancel (cancellable);
  g_assert_true (ask (f, DSH_APPROVAL_POLICY_ASK, cancellable, &outcome, &error));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_CANCELLED);
  g_assert_cmpuint (eager->calls, ==, 0);
  assert_audit_pair (f->path, "why not", "cancelled");
}

static void
test_outside_turn (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) eager = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) before = NULL;
  g_autoptr (GPtrArray) after = NULL;
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;

  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (eager), NULL);
  g_assert_true (dsh_session_log_end_turn (f->log, f->turn, &error));
  before = dsh_session_log_dup_events (f->log);

  g_assert_false (ask (f, DSH_APPROVAL_POLICY_ASK, NULL, &outcome, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL);
  g_assert_cmpstr (error->message, ==,
                   "approval.request() outside an open turn: the approval/asked + "
                   "approval/decided audit pair must be turn-enclosed (a bare event between "
                   "turns is crash-tail garbage on reload). Ask from inside the turn that needs "
                   "the decision.");
  g_assert_cmpint (outcome, !=, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_assert_cmpuint (eager->calls, ==, 0);
  after = dsh_session_log_dup_events (f->log);
  g_assert_cmpuint (after->len, ==, before->len);
}

static void
test_asked_append_fails (Fixture *f, gconstpointer data)
{
  static const char contents[] =
    "{\"id\":\"0b0e3c5e-3f5a-4a53-9d1c-9a0d1f1f2a11\",\"cwd\":\"/\","
    "\"created\":\"2026-01-01T00:00:00.000Z\"}\n"
    "{\"type\":\"turn/start\",\"data\":{\"id\":\"t1\"},\"time\":\"2026-01-01T00:00:01.000Z\"}\n";
  g_autoptr (TestAnswerer) eager = test_answerer_new (BEHAVE_ANSWER,
                                                      DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_autoptr (DshSessionLog) memory = NULL;
  g_autoptr (GError) error = NULL;
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;

  /* An open turn, but a log that cannot be appended to: not asked on the record, so not
   * asked at all. */
  memory = dsh_session_log_parse ("memory", contents, sizeof (contents) - 1, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_session_log_has_open_turn (memory));
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (eager), NULL);
  g_assert_false (dsh_approval_service_request (f->service, memory, DSH_APPROVAL_POLICY_ASK,
                                                "bash", "call-1", "why not", NULL, NULL,
                                                &outcome, &error));
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "the approval request could not be logged"));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
  g_assert_cmpuint (eager->calls, ==, 0);
}

static void
test_decided_append_fails (Fixture *f, gconstpointer data)
{
  g_autoptr (TestAnswerer) swapper = test_answerer_new (BEHAVE_SWAP_LOG, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) decided = NULL;
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;

  /* The answerer says yes, but the decision cannot be logged: no decision, never a grant. */
  swapper->swap_path = g_strdup (f->path);
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (swapper), NULL);
  g_assert_false (ask (f, DSH_APPROVAL_POLICY_ASK, NULL, &outcome, &error));
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "the approval decision could not be logged"));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
  g_assert_cmpuint (swapper->calls, ==, 1);
  decided = events_of_kind (f->log, DSH_SESSION_EVENT_APPROVAL_DECIDED);
  g_assert_cmpuint (decided->len, ==, 0);
}

static void
test_bad_arguments (Fixture *f, gconstpointer data)
{
  const struct {
    DshSessionLog *log;
    const char *call_id;
    const char *reason;
    int code;
  } cases[] = {
    { NULL, "call-1", "why", DSH_SANDBOX_ERROR_APPROVAL },
    { f->log, "call-1", "", DSH_SANDBOX_ERROR_INVALID_ARGUMENT },
    { f->log, "call-1", "\xff", DSH_SANDBOX_ERROR_INVALID_ARGUMENT },
    /* A question no call can be tied to is refused before anything is logged. */
    { f->log, NULL, "why", DSH_SANDBOX_ERROR_INVALID_ARGUMENT },
    { f->log, "", "why", DSH_SANDBOX_ERROR_INVALID_ARGUMENT },
  };
  g_autoptr (GPtrArray) asked = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;

      g_test_message ("case %u", i);
      g_assert_false (dsh_approval_service_request (f->service, cases[i].log,
                                                    DSH_APPROVAL_POLICY_ASK, "bash",
                                                    cases[i].call_id, cases[i].reason, NULL,
                                                    NULL, &outcome, &error));
      g_assert_error (error, DSH_SANDBOX_ERROR, cases[i].code);
      g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
    }
  asked = events_of_kind (f->log, DSH_SESSION_EVENT_APPROVAL_ASKED);
  g_assert_cmpuint (asked->len, ==, 0);
}

static void
test_policy_notice (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) policies = NULL;
  g_autoptr (DshSessionLog) reloaded = NULL;
  g_autofree char *notice = NULL;
  g_autofree char *again = NULL;

  g_assert_true (dsh_approval_service_set_policy (f->service, f->log, DSH_APPROVAL_POLICY_NEVER,
                                                  &notice, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (notice, ==,
                   "The approval policy changed from \"ask\" to \"never\" (changed by the user).");
  policies = events_of_kind (f->log, DSH_SESSION_EVENT_APPROVAL_POLICY);
  g_assert_cmpuint (policies->len, ==, 1);

  /* Folded from the file on every call: a reload sees the same policy. */
  reloaded = dsh_test_load_session_log (f->path);
  g_assert_cmpint (dsh_approval_service_get_policy (f->service, reloaded), ==,
                   DSH_APPROVAL_POLICY_NEVER);

  /* Setting the same value records the act but tells the model nothing new. */
  g_assert_true (dsh_approval_service_set_policy (f->service, f->log, DSH_APPROVAL_POLICY_NEVER,
                                                  &again, &error));
  g_assert_null (again);
  g_clear_pointer (&policies, g_ptr_array_unref);
  policies = events_of_kind (f->log, DSH_SESSION_EVENT_APPROVAL_POLICY);
  g_assert_cmpuint (policies->len, ==, 2);

  g_clear_pointer (&again, g_free);
  g_assert_true (dsh_approval_service_set_policy (f->service, f->log, DSH_APPROVAL_POLICY_ASK,
                                                  &again, &error));
  g_assert_cmpstr (again, ==,
                   "The approval policy changed from \"never\" to \"ask\" (changed by the user).");
}

static void
test_texts (void)
{
  g_assert_cmpstr (dsh_text_approval_never (), ==,
                   "Approval prompts are disabled in this session: actions that require approval "
                   "are rejected automatically \u2014 do not request sandbox escalation (do not "
                   "set `sandbox_permissions`).");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/approval/no-answerer", test_no_answerer);
  ADD ("/approval/each-outcome", test_each_outcome);
  ADD ("/approval/request-shape", test_request_shape);
  g_test_add_func ("/approval/request-details-snapshot", test_request_details_are_a_snapshot);
  ADD ("/approval/chain/delegates", test_chain_delegates);
  ADD ("/approval/chain/all-delegate", test_chain_all_delegate);
  ADD ("/approval/chain/prepend-and-remove", test_prepend_and_remove);
  ADD ("/approval/chain/scoped", test_scoped_answerer);
  ADD ("/approval/never/beats-first-answerer", test_never_beats_first_answerer);
  ADD ("/approval/never/per-call", test_never_per_call);
  ADD ("/approval/policy/default", test_default_policy);
  ADD ("/approval/policy/notice", test_policy_notice);
  ADD ("/approval/fail-closed", test_fail_closed);
  ADD ("/approval/fail-closed/cause", test_fail_closed_cause);
  ADD ("/approval/fail-closed/unimplemented", test_unimplemented_answerer);
  ADD ("/approval/cancel/races-answer", test_cancel_races_answer);
  ADD ("/approval/cancel/from-thread", test_cancel_from_thread);
  ADD ("/approval/cancel/answer-first", test_answer_beats_cancel);
  ADD ("/approval/cancel/sync-drains-answerer", test_sync_request_drains_answerer);
  ADD ("/approval/cancel/already", test_already_cancelled);
  ADD ("/approval/outside-turn", test_outside_turn);
  ADD ("/approval/append-fails/asked", test_asked_append_fails);
  ADD ("/approval/append-fails/decided", test_decided_append_fails);
  ADD ("/approval/bad-arguments", test_bad_arguments);
#undef ADD
  g_test_add_func ("/approval/texts", test_texts);

  return g_test_run ();
}
