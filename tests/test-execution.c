/* test-execution.c — one agent call through DshExecution with a fake answerer and the real
 * backends: a denied write comes back with the marker and the hint, the escalated retry asks
 * once, writes the audit pair inside the call's turn and runs wider, the grant ends with the
 * call, and a rejection or "never" runs nothing wider.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <signal.h>
#include <string.h>

#include "dsh-test-answerer.h"
#include "dsh-test-seed-texts.h"
#include "dsh-test-util.h"

/* ---- the fixture --------------------------------------------------------------------------- */

typedef struct {
  char *ws;
  char *victim;
  char *log_dir;
  DshSessionLog *session;
  DshApprovalService *service;
  DshSandboxPolicy *policy;
  DshTestAnswerer *answerer;
  GStrv backend_dirs;
  GStrv helper_dirs;
  DshRunOptions options;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *log_path = NULL;
  g_autofree char *root = NULL;

  f->ws = dsh_test_scratch_dir ("execution-ws");
  f->log_dir = dsh_test_scratch_dir ("execution-log");
  f->victim = g_build_filename (f->ws, "victim", NULL);
  dsh_test_write_file (f->victim, "original\n");
  log_path = g_build_filename (f->log_dir, "session.jsonl", NULL);
  f->session = dsh_test_create_session_log (log_path, f->ws);
  f->service = dsh_approval_service_new ();
  root = dsh_workspace_root (dsh_session_log_get_cwd (f->session), NULL);
  f->policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, root,
                                      dsh_session_log_get_id (f->session));
  f->answerer = dsh_test_answerer_new (DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  f->backend_dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_BACKEND_DIRS"), ":", -1);
  f->helper_dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_HELPER_DIRS"), ":", -1);
  f->options.backend_dirs = (const char *const *) f->backend_dirs;
  f->options.helper_dirs = (const char *const *) f->helper_dirs;
  f->options.spelled_workspace = dsh_session_log_get_cwd (f->session);
  f->options.session_created = dsh_session_log_get_created (f->session);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_clear_object (&f->answerer);
  g_clear_pointer (&f->policy, dsh_sandbox_policy_free);
  g_clear_object (&f->service);
  g_clear_object (&f->session);
  g_strfreev (f->backend_dirs);
  g_strfreev (f->helper_dirs);
  dsh_test_remove_tree (f->ws);
  dsh_test_remove_tree (f->log_dir);
  g_free (f->ws);
  g_free (f->log_dir);
  g_free (f->victim);
}

/* The command every call makes: overwrite the victim in the workspace. */
static DshExecution *
new_execution (Fixture *f)
{
  const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh", f->victim, NULL };
  DshExecution *execution = dsh_execution_new (argv, f->policy, f->session, f->service);

  dsh_execution_set_answerer (execution, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_run_options (execution, &f->options);
  return execution;
}

/* The types of the events the log holds from index first on, one string "a b c". */
static char *
event_types_from (DshSessionLog *session, guint first)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (session);
  g_autoptr (GString) types = g_string_new (NULL);

  for (guint i = first; i < events->len; i++)
    {
      if (types->len > 0)
        g_string_append_c (types, ' ');
      g_string_append (types, dsh_session_event_get_type_name (events->pdata[i]));
    }
  return g_string_free (g_steal_pointer (&types), FALSE);
}

static guint
count_events (DshSessionLog *session)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (session);

  return events->len;
}

static DshSessionEvent *
event_at (DshSessionLog *session, guint index)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (session);

  g_assert_cmpuint (index, <, events->len);
  return dsh_session_event_ref (events->pdata[index]);
}

/* ---- the agent's flow ---------------------------------------------------------------------- */

static void
test_denial_hint_then_escalated_retry (Fixture *f, gconstpointer data)
{
  g_autoptr (DshExecution) denied = new_execution (f);
  g_autoptr (DshExecution) retry = NULL;
  g_autoptr (DshExecution) next = NULL;
  g_autoptr (DshRunResult) result = NULL;
  g_autoptr (DshSessionEvent) asked = NULL;
  g_autoptr (DshSessionEvent) decided = NULL;
  const char *hint = SEED_ESCALATION_HINT ("command");
  g_autofree char *types = NULL;
  DshApprovalOutcome outcome;
  guint before;

  /* 1. Read-only: the write is denied, with the marker and the hint; nobody was asked. */
  before = count_events (f->session);
  result = dsh_execution_run (denied);
  dsh_test_assert_file_is (f->victim, "original\n");
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_DENIED);
  g_assert_cmpstr (result->marker, ==, SEED_DENIAL_MARKER ("read-only"));
  g_assert_cmpstr (dsh_execution_get_hint (denied), ==, hint);
  g_assert_nonnull (strstr (hint, "sandbox_permissions"));
  g_assert_false (dsh_execution_get_asked (denied, NULL));
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  types = event_types_from (f->session, before);
  g_assert_cmpstr (types, ==, "turn/start turn/end");
  g_clear_pointer (&types, g_free);
  g_clear_pointer (&result, dsh_run_result_free);

  /* 2. The retry the hint offers: asked once, the audit pair inside the turn, run wider. */
  retry = new_execution (f);
  dsh_execution_set_escalation (retry, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                "the test writes its victim");
  g_assert_true (dsh_execution_will_ask (retry));
  before = count_events (f->session);
  result = dsh_execution_run (retry);
  g_assert_no_error (result->error);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_COMPLETED);
  g_assert_cmpint (result->mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  dsh_test_assert_file_is (f->victim, "changed\n");
  g_assert_true (dsh_execution_get_asked (retry, &outcome));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  g_assert_null (dsh_execution_get_hint (retry));
  g_assert_cmpuint (f->answerer->calls, ==, 1);
  g_assert_cmpstr (f->answerer->last_call_id, ==, dsh_execution_get_call_id (retry));
  g_assert_nonnull (strstr (f->answerer->last_details, "\"requestedMode\":\"workspace-write\""));
  g_assert_nonnull (strstr (f->answerer->last_details, "\"standingMode\":\"read-only\""));
  types = event_types_from (f->session, before);
  g_assert_cmpstr (types, ==, "turn/start approval/asked approval/decided turn/end");
  asked = event_at (f->session, before + 1);
  decided = event_at (f->session, before + 2);
  g_assert_cmpstr (dsh_session_event_get_string (asked, "toolName"), ==, "bash");
  g_assert_cmpstr (dsh_session_event_get_string (asked, "callId"), ==,
                   dsh_execution_get_call_id (retry));
  g_assert_cmpstr (dsh_session_event_get_string (asked, "reason"), ==,
                   SEED_REASON ("workspace-write", "the test writes its victim"));
  g_assert_cmpstr (dsh_session_event_get_string (decided, "id"), ==,
                   dsh_session_event_get_string (asked, "id"));
  g_assert_cmpstr (dsh_session_event_get_string (decided, "outcome"), ==, "allowed-once");
  g_clear_pointer (&result, dsh_run_result_free);

  /* 3. The grant was that call's only: the next command is read-only again. */
  dsh_test_write_file (f->victim, "original\n");
  next = new_execution (f);
  result = dsh_execution_run (next);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_DENIED);
  g_assert_cmpint (result->mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
  dsh_test_assert_file_is (f->victim, "original\n");
  g_assert_cmpuint (f->answerer->calls, ==, 1);
}

/* A rejection runs nothing, wider or not, and the audit pair records it. */
static void
test_rejected_runs_nothing (Fixture *f, gconstpointer data)
{
  g_autoptr (DshExecution) execution = new_execution (f);
  g_autoptr (DshRunResult) result = NULL;
  g_autoptr (DshSessionEvent) decided = NULL;
  g_autofree char *types = NULL;
  DshApprovalOutcome outcome;
  guint before = count_events (f->session);

  f->answerer->outcome = DSH_APPROVAL_OUTCOME_REJECTED;
  dsh_execution_set_escalation (execution, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "please");
  result = dsh_execution_run (execution);
  g_assert_false (result->command_ran);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_ESCALATION_REFUSED);
  g_assert_error (result->error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED);
  g_assert_null (result->marker);
  dsh_test_assert_file_is (f->victim, "original\n");
  g_assert_true (dsh_execution_get_asked (execution, &outcome));
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_REJECTED);
  types = event_types_from (f->session, before);
  g_assert_cmpstr (types, ==, "turn/start approval/asked approval/decided turn/end");
  decided = event_at (f->session, before + 2);
  g_assert_cmpstr (dsh_session_event_get_string (decided, "outcome"), ==, "rejected");
}

/* A session log the call's own command could write (here: in its workspace) would let it set
 * the next call's policy, as a harness on the library would then resolve it: the call runs
 * nothing and opens no turn, as exec and serve refuse it. */
static void
test_log_in_reach_runs_nothing (Fixture *f, gconstpointer data)
{
  g_autofree char *inside = g_build_filename (f->ws, "own.jsonl", NULL);
  g_autoptr (DshSessionLog) own = dsh_test_create_session_log (inside, f->ws);
  const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh", f->victim, NULL };
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_copy (f->policy);
  g_autoptr (DshExecution) execution = NULL;
  g_autoptr (DshExecution) escalating = NULL;
  g_autoptr (DshRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  guint before = count_events (own);
  DshSandboxMode mode;

  policy->mode = DSH_SANDBOX_MODE_WORKSPACE_WRITE;
  execution = dsh_execution_new (argv, policy, own, f->service);
  dsh_execution_set_run_options (execution, &f->options);
  result = dsh_execution_run (execution);
  g_assert_false (result->command_ran);
  g_assert_error (result->error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
  g_assert_nonnull (strstr (result->error->message, "which confined commands may write"));
  dsh_test_assert_file_is (f->victim, "original\n");
  g_assert_cmpuint (count_events (own), ==, before);

  /* The escalation alone, for a harness that runs the command itself, is refused alike. */
  escalating = dsh_execution_new (argv, policy, own, f->service);
  dsh_execution_set_answerer (escalating, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_escalation (escalating, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS, "please");
  g_assert_false (dsh_execution_escalate (escalating, &mode, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG);
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  g_assert_cmpuint (count_events (own), ==, before);
}

/* A blank justification is refused with the seed's text before anything happens, by the run
 * and by the escalation alone, as the command line and serve refuse it: nobody is asked, no
 * turn is opened, nothing runs. */
static void
test_blank_justification_asks_nobody (Fixture *f, gconstpointer data)
{
  static const char *const blanks[] = { "", "   ", "\t\n" };
  guint before = count_events (f->session);

  for (guint i = 0; i < G_N_ELEMENTS (blanks); i++)
    {
      g_autoptr (DshExecution) execution = new_execution (f);
      g_autoptr (DshExecution) alone = new_execution (f);
      g_autoptr (DshRunResult) result = NULL;
      g_autoptr (GError) error = NULL;
      DshSandboxMode mode = DSH_SANDBOX_MODE_DANGER_FULL_ACCESS;

      dsh_execution_set_escalation (execution, DSH_SANDBOX_MODE_WORKSPACE_WRITE, blanks[i]);
      result = dsh_execution_run (execution);
      g_assert_false (result->command_ran);
      g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_INVALID_ARGUMENT);
      g_assert_error (result->error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (result->error->message, ==,
                       "invalid justification: expected a non-empty sentence");
      g_assert_false (dsh_execution_get_asked (execution, NULL));

      dsh_execution_set_escalation (alone, DSH_SANDBOX_MODE_WORKSPACE_WRITE, blanks[i]);
      g_assert_false (dsh_execution_escalate (alone, &mode, &error));
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_false (dsh_execution_get_asked (alone, NULL));
    }
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  g_assert_cmpuint (count_events (f->session), ==, before);
  dsh_test_assert_file_is (f->victim, "original\n");
}

/* No command is a malformed call, as for dsh_run(): it ends invalid-argument, escalation or
 * not, before a turn is opened or anyone is asked (a binding passes an empty list as easily as
 * any other). */
static void
test_no_command_asks_nobody (Fixture *f, gconstpointer data)
{
  const char *none[] = { NULL };
  const char *empty_word[] = { "", "x", NULL };
  const char *const *commands[] = { none, empty_word };
  guint before = count_events (f->session);

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    for (guint escalating = 0; escalating < 2; escalating++)
      {
        g_autoptr (DshExecution) execution = dsh_execution_new (commands[i], f->policy,
                                                                f->session, f->service);
        g_autoptr (DshRunResult) result = NULL;

        g_assert_nonnull (execution);
        dsh_execution_set_answerer (execution, DSH_APPROVAL_ANSWERER (f->answerer));
        dsh_execution_set_run_options (execution, &f->options);
        if (escalating)
          dsh_execution_set_escalation (execution, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "please");
        result = dsh_execution_run (execution);
        g_assert_false (result->command_ran);
        g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_INVALID_ARGUMENT);
        g_assert_error (result->error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
      }
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  g_assert_cmpuint (count_events (f->session), ==, before);
}

static void
harness_handler (int signum)
{
}

/* The caller's own handlers for the signals that interrupt an approval (Python's SIGINT, a
 * service's SIGTERM) are still its own after a call that asked: the watch is no reason to
 * leave them at their defaults, which would kill the caller on its next Ctrl-C. */
static void
test_caller_handlers_survive_asking (Fixture *f, gconstpointer data)
{
  const int watched[] = { SIGINT, SIGTERM, SIGHUP };
  struct sigaction mine = { .sa_handler = harness_handler };
  struct sigaction saved[G_N_ELEMENTS (watched)];
  g_autoptr (DshExecution) execution = new_execution (f);
  g_autoptr (DshRunResult) result = NULL;

  sigemptyset (&mine.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (watched); i++)
    g_assert_cmpint (sigaction (watched[i], &mine, &saved[i]), ==, 0);
  f->answerer->outcome = DSH_APPROVAL_OUTCOME_REJECTED;
  dsh_execution_set_escalation (execution, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "please");
  result = dsh_execution_run (execution);
  g_assert_cmpuint (f->answerer->calls, ==, 1);
  for (guint i = 0; i < G_N_ELEMENTS (watched); i++)
    {
      struct sigaction now;

      g_assert_cmpint (sigaction (watched[i], &saved[i], &now), ==, 0);
      g_assert_true (now.sa_handler == harness_handler);
    }
}

/* Under "never" nobody is asked and a denial offers no retry. */
static void
test_never_asks_nobody (Fixture *f, gconstpointer data)
{
  g_autoptr (DshExecution) escalating = new_execution (f);
  g_autoptr (DshExecution) denied = new_execution (f);
  g_autoptr (DshRunResult) result = NULL;

  dsh_execution_set_call_policy (escalating, DSH_APPROVAL_POLICY_NEVER);
  dsh_execution_set_escalation (escalating, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "please");
  g_assert_false (dsh_execution_will_ask (escalating));
  result = dsh_execution_run (escalating);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_ESCALATION_REFUSED);
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  dsh_test_assert_file_is (f->victim, "original\n");
  g_clear_pointer (&result, dsh_run_result_free);

  dsh_execution_set_call_policy (denied, DSH_APPROVAL_POLICY_NEVER);
  result = dsh_execution_run (denied);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_DENIED);
  g_assert_nonnull (result->marker);
  g_assert_null (dsh_execution_get_hint (denied));
}

/* Without a session there is nobody to ask for: refused, and no hint after a denial. */
static void
test_without_session (Fixture *f, gconstpointer data)
{
  const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh", f->victim, NULL };
  g_autoptr (DshExecution) execution = dsh_execution_new (argv, f->policy, NULL, f->service);
  g_autoptr (DshExecution) escalating = dsh_execution_new (argv, f->policy, NULL, f->service);
  g_autoptr (DshRunResult) result = NULL;
  const char *justification = NULL;
  DshSandboxMode requested = DSH_SANDBOX_MODE_READ_ONLY;

  /* What the call was made with, as given. */
  g_assert_true (g_strv_equal (dsh_execution_get_argv (execution), argv));
  g_assert_cmpint (dsh_execution_get_policy (execution)->mode, ==, f->policy->mode);
  g_assert_cmpstr (dsh_execution_get_policy (execution)->workspace_root, ==,
                   f->policy->workspace_root);
  g_assert_false (dsh_execution_get_escalation (execution, NULL, NULL));

  dsh_execution_set_answerer (execution, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_run_options (execution, &f->options);
  result = dsh_execution_run (execution);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_DENIED);
  g_assert_null (dsh_execution_get_hint (execution));
  g_clear_pointer (&result, dsh_run_result_free);

  dsh_execution_set_answerer (escalating, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_escalation (escalating, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "please");
  g_assert_true (dsh_execution_get_escalation (escalating, &requested, &justification));
  g_assert_cmpint (requested, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  g_assert_cmpstr (justification, ==, "please");
  result = dsh_execution_run (escalating);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_ESCALATION_REFUSED);
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  dsh_test_assert_file_is (f->victim, "original\n");
}

/* A workspace-write grant opens the extra writable roots too: the question names them, so
 * what is approved is every directory the run may write, not only the workspace. */
static void
test_request_names_extra_roots (Fixture *f, gconstpointer data)
{
  g_autofree char *extra_dir = dsh_test_scratch_dir ("execution-extra");
  g_autofree char *extra = dsh_canonical_path (extra_dir);
  g_autofree char *outside = g_build_filename (extra, "outside", NULL);
  const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh", outside, NULL };
  g_autoptr (DshExecution) execution = NULL;
  g_autoptr (DshRunResult) result = NULL;
  g_autofree char *named = NULL;

  f->policy->extra_writable_roots = g_strdupv ((char *[]) { extra, NULL });
  execution = dsh_execution_new (argv, f->policy, f->session, f->service);
  dsh_execution_set_answerer (execution, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_run_options (execution, &f->options);
  dsh_execution_set_escalation (execution, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                "the test writes its victim");
  result = dsh_execution_run (execution);
  g_assert_no_error (result->error);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_COMPLETED);
  /* The run could write there: then the question must have said so. */
  dsh_test_assert_file_is (outside, "changed\n");
  g_assert_cmpuint (f->answerer->calls, ==, 1);
  named = g_strdup_printf ("\"extraWritableRoots\":[\"%s\"]", extra);
  g_assert_nonnull (strstr (f->answerer->last_details, named));
  dsh_test_remove_tree (extra_dir);
}

/* The answerer a harness composed on the service itself (not handed to the call) answers the
 * retry, so the denial must offer it: the hint follows whenever the session could approve. */
static void
test_hint_with_service_answerer (Fixture *f, gconstpointer data)
{
  const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh", f->victim, NULL };
  g_autoptr (DshExecution) denied = dsh_execution_new (argv, f->policy, f->session, f->service);
  g_autoptr (DshExecution) retry = dsh_execution_new (argv, f->policy, f->session, f->service);
  g_autoptr (DshRunResult) result = NULL;

  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (f->answerer),
                                     f->session);
  dsh_execution_set_run_options (denied, &f->options);
  result = dsh_execution_run (denied);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_DENIED);
  dsh_test_assert_file_is (f->victim, "original\n");
  g_assert_cmpstr (result->marker, ==, SEED_DENIAL_MARKER ("read-only"));
  g_assert_cmpstr (dsh_execution_get_hint (denied), ==, SEED_ESCALATION_HINT ("command"));
  g_clear_pointer (&result, dsh_run_result_free);

  /* What the hint offered is true: the retry is approved and writes. */
  dsh_execution_set_run_options (retry, &f->options);
  dsh_execution_set_escalation (retry, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "the test writes");
  result = dsh_execution_run (retry);
  g_assert_no_error (result->error);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_COMPLETED);
  dsh_test_assert_file_is (f->victim, "changed\n");
  g_assert_cmpuint (f->answerer->calls, ==, 1);
}

/* A command that cannot be shown faithfully to the person asked can never be approved: no hint
 * may offer its retry. */
static void
test_no_hint_for_unshowable_command (Fixture *f, gconstpointer data)
{
  const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh\xff", f->victim, NULL };
  g_autoptr (DshExecution) denied = dsh_execution_new (argv, f->policy, f->session, f->service);
  g_autoptr (DshExecution) retry = dsh_execution_new (argv, f->policy, f->session, f->service);
  g_autoptr (DshRunResult) result = NULL;

  dsh_execution_set_answerer (denied, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_run_options (denied, &f->options);
  result = dsh_execution_run (denied);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_DENIED);
  dsh_test_assert_file_is (f->victim, "original\n");
  g_assert_cmpstr (result->marker, ==, SEED_DENIAL_MARKER ("read-only"));
  g_assert_null (dsh_execution_get_hint (denied));
  g_clear_pointer (&result, dsh_run_result_free);

  /* Because the retry is refused before anyone is asked. */
  dsh_execution_set_answerer (retry, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_run_options (retry, &f->options);
  dsh_execution_set_escalation (retry, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "the test writes");
  result = dsh_execution_run (retry);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_ESCALATION_REFUSED);
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  dsh_test_assert_file_is (f->victim, "original\n");
}

/* The sequence's order holds whatever the command: without a session the refusal is step 3's
 * text, before anything about showing the command to a person who cannot be reached. */
static void
test_no_agent_before_showing (Fixture *f, gconstpointer data)
{
  const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh\xff", f->victim, NULL };
  g_autoptr (DshExecution) execution = dsh_execution_new (argv, f->policy, NULL, f->service);
  g_autoptr (DshRunResult) result = NULL;

  dsh_execution_set_answerer (execution, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_run_options (execution, &f->options);
  dsh_execution_set_escalation (execution, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "please");
  result = dsh_execution_run (execution);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_ESCALATION_REFUSED);
  g_assert_error (result->error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED);
  g_assert_cmpstr (result->error->message, ==, SEED_NO_AGENT ("workspace-write"));
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  dsh_test_assert_file_is (f->victim, "original\n");
}

/* Under "never" nobody is shown the command: the refusal is the one "never" gives (rejected),
 * whatever the command holds. */
static void
test_never_rejects_before_showing (Fixture *f, gconstpointer data)
{
  const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh\xff", f->victim, NULL };
  g_autoptr (DshExecution) execution = dsh_execution_new (argv, f->policy, f->session, f->service);
  g_autoptr (DshRunResult) result = NULL;

  dsh_execution_set_answerer (execution, DSH_APPROVAL_ANSWERER (f->answerer));
  dsh_execution_set_run_options (execution, &f->options);
  dsh_execution_set_call_policy (execution, DSH_APPROVAL_POLICY_NEVER);
  dsh_execution_set_escalation (execution, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "please");
  result = dsh_execution_run (execution);
  g_assert_cmpint (result->outcome, ==, DSH_OUTCOME_ESCALATION_REFUSED);
  g_assert_error (result->error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED);
  g_assert_cmpstr (result->error->message, ==, SEED_REJECTED ("command", "workspace-write"));
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  dsh_test_assert_file_is (f->victim, "original\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/execution/denial-hint-then-escalated-retry", Fixture, NULL, fixture_set_up,
              test_denial_hint_then_escalated_retry, fixture_tear_down);
  g_test_add ("/execution/caller-handlers-survive-asking", Fixture, NULL, fixture_set_up,
              test_caller_handlers_survive_asking, fixture_tear_down);
  g_test_add ("/execution/rejected-runs-nothing", Fixture, NULL, fixture_set_up,
              test_rejected_runs_nothing, fixture_tear_down);
  g_test_add ("/execution/blank-justification-asks-nobody", Fixture, NULL, fixture_set_up,
              test_blank_justification_asks_nobody, fixture_tear_down);
  g_test_add ("/execution/no-command-asks-nobody", Fixture, NULL, fixture_set_up,
              test_no_command_asks_nobody, fixture_tear_down);
  g_test_add ("/execution/log-in-reach-runs-nothing", Fixture, NULL, fixture_set_up,
              test_log_in_reach_runs_nothing, fixture_tear_down);
  g_test_add ("/execution/never-asks-nobody", Fixture, NULL, fixture_set_up,
              test_never_asks_nobody, fixture_tear_down);
  g_test_add ("/execution/without-session", Fixture, NULL, fixture_set_up,
              test_without_session, fixture_tear_down);
  g_test_add ("/execution/request-names-extra-roots", Fixture, NULL, fixture_set_up,
              test_request_names_extra_roots, fixture_tear_down);
  g_test_add ("/execution/hint-with-service-answerer", Fixture, NULL, fixture_set_up,
              test_hint_with_service_answerer, fixture_tear_down);
  g_test_add ("/execution/no-hint-for-unshowable-command", Fixture, NULL, fixture_set_up,
              test_no_hint_for_unshowable_command, fixture_tear_down);
  g_test_add ("/execution/no-agent-before-showing", Fixture, NULL, fixture_set_up,
              test_no_agent_before_showing, fixture_tear_down);
  g_test_add ("/execution/never-rejects-before-showing", Fixture, NULL, fixture_set_up,
              test_never_rejects_before_showing, fixture_tear_down);
  return g_test_run ();
}
