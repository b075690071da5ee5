/* test-approval-cli.c — "dsh-sandbox exec" approval and escalation end to end, against the
 * real bwrap backend: a scenario matrix (approval policy x standing mode x requested mode x
 * answer) asserting what ran, the exit status, the exact stderr and the audit pair in the
 * session log; the hint rules; approver failure modes; a session log on a full tmpfs in a
 * private mount namespace; and the interactive prompt answered through a pseudo-terminal.
 *
 * Every run is in a new session without a controlling terminal unless the test gives it one,
 * so nothing here can ever wait on the developer's terminal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsh-test-util.h"
#include "dsh-test-seed-texts.h"

#define RO DSH_SANDBOX_MODE_READ_ONLY
#define WW DSH_SANDBOX_MODE_WORKSPACE_WRITE
#define DFA DSH_SANDBOX_MODE_DANGER_FULL_ACCESS

#define JUSTIFICATION "the build writes its output here"

/* ---- scratch space ------------------------------------------------------------------------- */

/* Scratch space outside every writable root of workspace-write (so writes there are denied
 * unless the mode is danger-full-access): the build directory, not /tmp. */
typedef struct {
  char *dir;
  char *ws;
  char *out;
  char *session;
  /* The --approver command: the test approver script below, run by /bin/sh. */
  char *approver;
  char *request;
  char *report;
} Scratch;

static void
scratch_clear (Scratch *s)
{
  dsh_test_remove_tree (s->dir);
  g_free (s->dir);
  g_free (s->ws);
  g_free (s->out);
  g_free (s->session);
  g_free (s->approver);
  g_free (s->request);
  g_free (s->report);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Scratch, scratch_clear)

/* A format (the request path goes in): a macro, so it stays a literal for -Wformat. */
#define APPROVER_SCRIPT \
  "#!/bin/sh\n" \
  "# Test approver: keeps the request, answers $ANSWER.\n" \
  "cat > '%s'\n" \
  "case \"$ANSWER\" in\n" \
  "  crash) kill -SEGV $$ ;;\n" \
  "  garbage) echo maybe ;;\n" \
  "  two-words) printf 'allowed-once\\nallowed-once\\n' ;;\n" \
  "  nonzero) echo allowed-once; exit 3 ;;\n" \
  "  hang) exec sleep 60 ;;\n" \
  "  hang-with-child) sleep 60 & echo $! > '%s.child'; wait ;;\n" \
  "  *) echo \"$ANSWER\" ;;\n" \
  "esac\n"

static void
scratch_init (Scratch *s)
{
  g_autofree char *approver_path = NULL;
  g_autofree char *script = NULL;

  /* /tmp is a writable root (and a private tmpfs under bwrap): never put "outside" there. */
  s->dir = dsh_test_scratch_dir ("approval-cli");
  s->ws = g_build_filename (s->dir, "ws", NULL);
  s->out = g_build_filename (s->dir, "out", NULL);
  s->session = g_build_filename (s->dir, "session.jsonl", NULL);
  approver_path = g_build_filename (s->dir, "approver.sh", NULL);
  s->approver = g_strdup_printf ("/bin/sh %s", approver_path);
  s->request = g_build_filename (s->dir, "request.json", NULL);
  s->report = g_build_filename (s->dir, "report.json", NULL);
  g_assert_cmpint (g_mkdir (s->ws, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (s->out, 0755), ==, 0);

  script = g_strdup_printf (APPROVER_SCRIPT, s->request, s->request);
  dsh_test_write_file (approver_path, script);
}

/* Fresh scratch space with a session whose cwd is the workspace, pinned to a standing mode and
 * approval policy. */
static void
scratch_init_session (Scratch *s, DshSandboxMode mode, DshApprovalPolicy policy)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSessionLog) log = NULL;

  scratch_init (s);
  log = dsh_test_create_session_log (s->session, s->ws);

  g_assert_true (dsh_session_log_append_mode (log, mode, &error));
  g_assert_true (dsh_session_log_append_approval_policy (log, policy, &error));
  g_assert_no_error (error);
}

/* ---- running the command ------------------------------------------------------------------- */

/* A shell script that writes "ran" to dir/name, whose path it stores in *target: whether that
 * file exists afterwards says whether the command ran with write access there. */
static char *
script_writing (const char *dir, const char *name, char **target)
{
  *target = g_build_filename (dir, name, NULL);
  return g_strdup_printf ("echo ran > '%s'", *target);
}


static void
detach_from_terminal (gpointer user_data)
{
  /* A new session has no controlling terminal: /dev/tty cannot be opened. */
  setsid ();
}

/* One backend, so the stderr dialect is known; no probe cache shared with other runs; no
 * configuration or approver timeout from the developer's environment. */
static const char *const common_env[] = {
  "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off", "DSH_SANDBOX_CONFIG",
  "DSH_SANDBOX_APPROVER_TIMEOUT", NULL,
};

static void
set_common_env (GSubprocessLauncher *launcher)
{
  dsh_test_launcher_set_env (launcher, common_env);
}

/* Runs argv (NULL-terminated), detached from any terminal, with the common environment and then
 * the env additions "NAME=value". */
static void
run_argv (DshTestRun *run, const char *const *argv, const char *const *env)
{
  g_autoptr (GPtrArray) all_env = g_ptr_array_new ();

  for (gsize i = 0; common_env[i] != NULL; i++)
    g_ptr_array_add (all_env, (gpointer) common_env[i]);
  for (gsize i = 0; env != NULL && env[i] != NULL; i++)
    g_ptr_array_add (all_env, (gpointer) env[i]);
  g_ptr_array_add (all_env, NULL);
  dsh_test_run_full (run, argv, (const char *const *) all_env->pdata, NULL, NULL,
                     detach_from_terminal, NULL);
}

/* "dsh-sandbox exec" with options (a GStrv-style list), then "--", then command. */
static void
run_exec (DshTestRun *run, const char *const *options, const char *const *command,
          const char *const *env)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (gpointer) dsh_test_cli ());
  g_ptr_array_add (argv, (gpointer) "exec");
  for (gsize i = 0; options[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) options[i]);
  g_ptr_array_add (argv, (gpointer) "--");
  for (gsize i = 0; command[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) command[i]);
  g_ptr_array_add (argv, NULL);
  run_argv (run, (const char *const *) argv->pdata, env);
}

static gboolean
bwrap_works (void)
{
  const char *argv[] = { "bwrap", "--ro-bind", "/", "/", "--unshare-user", "true", NULL };
  int status = -1;

  return g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH |
                       G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                       NULL, NULL, NULL, NULL, &status, NULL) &&
         g_spawn_check_wait_status (status, NULL);
}

/* ---- reading the session log --------------------------------------------------------------- */

typedef struct {
  guint turns_started;
  guint turns_ended;
  guint asked;
  guint decided;
  char *asked_id;
  /* The callId of every approval/asked, in order. */
  GPtrArray *call_ids;
  char *reason;
  char *outcome;
  /* The approval/decided event's cause, NULL without one. */
  char *cause;
  gboolean pair_inside_turn;
  guint dropped;
} LogFacts;

static void
log_facts_clear (LogFacts *facts)
{
  g_free (facts->asked_id);
  g_clear_pointer (&facts->call_ids, g_ptr_array_unref);
  g_free (facts->reason);
  g_free (facts->outcome);
  g_free (facts->cause);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LogFacts, log_facts_clear)

static void
read_log (const char *path, LogFacts *facts)
{
  g_autoptr (DshSessionLog) log = dsh_test_load_session_log (path);
  g_autoptr (GPtrArray) events = NULL;
  gboolean open = FALSE;
  gboolean asked_in_turn = FALSE;
  gboolean decided_in_turn = FALSE;

  facts->dropped = dsh_session_log_get_dropped_count (log);
  facts->call_ids = g_ptr_array_new_with_free_func (g_free);
  events = dsh_session_log_dup_events (log);
  for (guint i = 0; i < events->len; i++)
    {
      DshSessionEvent *event = events->pdata[i];

      switch (dsh_session_event_get_kind (event))
        {
        case DSH_SESSION_EVENT_TURN_START:
          facts->turns_started++;
          open = TRUE;
          break;
        case DSH_SESSION_EVENT_TURN_END:
          facts->turns_ended++;
          open = FALSE;
          break;
        case DSH_SESSION_EVENT_APPROVAL_ASKED:
          facts->asked++;
          asked_in_turn = open;
          g_free (facts->asked_id);
          facts->asked_id = g_strdup (dsh_session_event_get_string (event, "id"));
          g_free (facts->reason);
          facts->reason = g_strdup (dsh_session_event_get_string (event, "reason"));
          g_ptr_array_add (facts->call_ids,
                           g_strdup (dsh_session_event_get_string (event, "callId")));
          g_assert_cmpstr (dsh_session_event_get_string (event, "toolName"), ==, "bash");
          break;
        case DSH_SESSION_EVENT_APPROVAL_DECIDED:
          facts->decided++;
          decided_in_turn = open;
          g_assert_cmpstr (dsh_session_event_get_string (event, "id"), ==, facts->asked_id);
          g_free (facts->outcome);
          facts->outcome = g_strdup (dsh_session_event_get_string (event, "outcome"));
          g_free (facts->cause);
          facts->cause = g_strdup (dsh_session_event_get_string (event, "cause"));
          break;
        default:
          break;
        }
    }
  facts->pair_inside_turn = asked_in_turn && decided_in_turn;
}

static JsonObject *
read_json_object (const char *path, const char *schema)
{
  g_autofree char *text = dsh_test_read_file (path);
  g_autoptr (JsonNode) node = NULL;

  g_assert_nonnull (text);
  node = dsh_test_parse_valid_json (text, schema);
  return json_object_ref (json_node_get_object (node));
}

static const char *
nullable_string (JsonObject *object, const char *member)
{
  return json_object_get_null_member (object, member) ? NULL
                                                      : json_object_get_string_member (object,
                                                                                       member);
}

/* ---- expected texts (spelled out, not taken from the library) ------------------------------ */

static const char *
mode_name (DshSandboxMode mode)
{
  return mode == RO ? "read-only" : mode == WW ? "workspace-write" : "danger-full-access";
}

static gboolean
strictly_wider (DshSandboxMode from, DshSandboxMode to)
{
  return (from == RO && (to == WW || to == DFA)) || (from == WW && to == DFA);
}

static char *
expected_refusal (const char *outcome, DshSandboxMode requested)
{
  const char *m = mode_name (requested);

  if (g_str_equal (outcome, "rejected"))
    return g_strdup_printf ("dsh-sandbox: the user rejected escalating this command to \"%s\"\n",
                            m);
  if (g_str_equal (outcome, "cancelled"))
    return g_strdup_printf ("dsh-sandbox: approval for escalating to \"%s\" was cancelled\n", m);
  return g_strdup_printf ("dsh-sandbox: sandbox escalation to \"%s\" requires approval, but no "
                          "approval channel is available\n",
                          m);
}

#define HINT \
  "[sandbox: escalation available \u2014 retry this exact command once with " \
  "sandbox_permissions (the narrowest wider mode that suffices) + justification; the " \
  "approval prompt asks the user]"

/* ---- the matrix ---------------------------------------------------------------------------- */

typedef enum {
  POLICY_ASK,
  POLICY_NEVER_SESSION,
  POLICY_NEVER_FLAG,
} PolicySource;

typedef struct {
  PolicySource policy;
  DshSandboxMode standing;
  DshSandboxMode requested;
  const char *answer;
} Scenario;

static void
test_matrix (gconstpointer data)
{
  const Scenario *sc = data;
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_auto (LogFacts) facts = { 0 };
  g_autoptr (JsonObject) report = NULL;
  g_autofree char *answer_env = NULL;
  g_autofree char *target = NULL;
  g_autofree char *script = NULL;
  g_autofree char *expected_err = NULL;
  g_autofree char *expected_reason = NULL;
  const char *expected_outcome = NULL;
  gboolean never = sc->policy != POLICY_ASK;
  gboolean granted = FALSE;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, sc->standing,
                        sc->policy == POLICY_NEVER_SESSION ? DSH_APPROVAL_POLICY_NEVER
                                                           : DSH_APPROVAL_POLICY_ASK);
  /* workspace-write is asked for a workspace write, danger-full-access for one outside. */
  script = script_writing (sc->requested == WW ? s.ws : s.out, "f", &target);
  answer_env = g_strdup_printf ("ANSWER=%s", sc->answer);
  {
    const char *options[] = {
      "--session", s.session, "--approver", s.approver,
      "--sandbox-permissions", mode_name (sc->requested), "--justification", JUSTIFICATION,
      "--report", s.report,
      sc->policy == POLICY_NEVER_FLAG ? "--approval-policy" : NULL, "never", NULL
    };
    const char *command[] = { "/bin/sh", "-c", script, NULL };
    const char *env[] = { answer_env, NULL };

    run_exec (&run, options, command, env);
  }

  expected_reason = g_strdup_printf ("escalate sandbox to %s: %s", mode_name (sc->requested),
                                     JUSTIFICATION);
  if (!strictly_wider (sc->standing, sc->requested))
    expected_err = g_strdup_printf ("dsh-sandbox: sandbox escalation to \"%s\" is not strictly "
                                    "wider than this call's current \"%s\" mode\n",
                                    mode_name (sc->requested), mode_name (sc->standing));
  else if (never)
    {
      expected_outcome = "rejected";
      expected_err = expected_refusal ("rejected", sc->requested);
    }
  else if (g_str_equal (sc->answer, "allowed-once"))
    {
      expected_outcome = "allowed-once";
      granted = TRUE;
      expected_err = g_strdup ("");
    }
  else
    {
      expected_outcome = g_str_equal (sc->answer, "rejected") || g_str_equal (sc->answer,
                                                                               "cancelled")
                           ? sc->answer
                           : "unavailable";
      expected_err = expected_refusal (expected_outcome, sc->requested);
    }

  /* What ran, the exit status and the exact stderr. */
  g_assert_cmpstr (run.err, ==, expected_err);
  g_assert_cmpint (run.exit_code, ==, granted ? 0 : 125);
  g_assert_cmpint (g_file_test (target, G_FILE_TEST_EXISTS), ==, granted);

  /* The approver is reached only by a widening request under "ask". */
  g_assert_cmpint (g_file_test (s.request, G_FILE_TEST_EXISTS), ==,
                   strictly_wider (sc->standing, sc->requested) && !never);
  if (g_file_test (s.request, G_FILE_TEST_EXISTS))
    {
      g_autoptr (JsonObject) request = read_json_object (s.request,
                                                         "approval-request.schema.json");
      JsonArray *argv = json_object_get_array_member (request, "command");

      g_assert_cmpstr (json_object_get_string_member (request, "reason"), ==, expected_reason);
      g_assert_cmpstr (json_object_get_string_member (request, "standingMode"), ==,
                       mode_name (sc->standing));
      g_assert_cmpstr (json_object_get_string_member (request, "requestedMode"), ==,
                       mode_name (sc->requested));
      g_assert_cmpstr (json_object_get_string_member (request, "justification"), ==,
                       JUSTIFICATION);
      g_assert_cmpuint (json_array_get_length (argv), ==, 3);
      g_assert_cmpstr (json_array_get_string_element (argv, 2), ==, script);
      read_log (s.session, &facts);
      g_assert_cmpstr (json_object_get_string_member (request, "id"), ==, facts.asked_id);
      /* The call is identified, the same in the request, the audit event and the report. */
      g_assert_true (g_uuid_string_is_valid (json_object_get_string_member (request,
                                                                            "callId")));
      g_assert_cmpstr (json_object_get_string_member (request, "callId"), ==,
                       facts.call_ids->pdata[0]);
      report = read_json_object (s.report, "exec-report.schema.json");
      g_assert_cmpstr (json_object_get_string_member (report, "callId"), ==,
                       facts.call_ids->pdata[0]);
      g_clear_pointer (&report, json_object_unref);
      log_facts_clear (&facts);
      memset (&facts, 0, sizeof (facts));
    }

  /* The audit pair, inside this exec's turn; none for a request that never widened. */
  read_log (s.session, &facts);
  g_assert_cmpuint (facts.dropped, ==, 0);
  g_assert_cmpuint (facts.turns_started, ==, 1);
  g_assert_cmpuint (facts.turns_ended, ==, 1);
  g_assert_cmpuint (facts.asked, ==, expected_outcome != NULL ? 1 : 0);
  g_assert_cmpuint (facts.decided, ==, expected_outcome != NULL ? 1 : 0);
  if (expected_outcome != NULL)
    {
      g_assert_true (facts.pair_inside_turn);
      g_assert_cmpstr (facts.reason, ==, expected_reason);
      g_assert_cmpstr (facts.outcome, ==, expected_outcome);
    }

  /* The report. */
  report = read_json_object (s.report, "exec-report.schema.json");
  g_assert_cmpstr (json_object_get_string_member (report, "outcome"), ==,
                   granted ? "completed" : "escalation-refused");
  g_assert_cmpint (json_object_get_boolean_member (report, "commandRan"), ==, granted);
  g_assert_cmpstr (json_object_get_string_member (report, "standingMode"), ==,
                   mode_name (sc->standing));
  g_assert_cmpstr (json_object_get_string_member (report, "requestedMode"), ==,
                   mode_name (sc->requested));
  g_assert_cmpstr (json_object_get_string_member (report, "mode"), ==,
                   mode_name (granted ? sc->requested : sc->standing));
  g_assert_cmpstr (nullable_string (report, "approvalOutcome"), ==, expected_outcome);
  g_assert_cmpstr (nullable_string (report, "backend"), ==,
                   granted && sc->requested == WW ? "bwrap" : NULL);
}

/* ---- the next command is back in the standing mode ----------------------------------------- */

static void
test_grant_is_one_shot (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) first = { 0 };
  g_auto (DshTestRun) second = { 0 };
  g_auto (LogFacts) facts = { 0 };
  g_autofree char *f = NULL;
  g_autofree char *g = NULL;
  g_autofree char *write_f = NULL;
  g_autofree char *write_g = NULL;
  g_autofree char *expected_tail = NULL;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  write_f = script_writing (s.ws, "f", &f);
  write_g = script_writing (s.ws, "g", &g);
  {
    const char *options[] = { "--session", s.session, "--approver", s.approver,
                              "--sandbox-permissions", "workspace-write", "--justification",
                              JUSTIFICATION, NULL };
    const char *command[] = { "/bin/sh", "-c", write_f, NULL };
    const char *env[] = { "ANSWER=allowed-once", NULL };

    run_exec (&first, options, command, env);
  }
  g_assert_cmpint (first.exit_code, ==, 0);
  g_assert_true (g_file_test (f, G_FILE_TEST_EXISTS));

  /* Same session, no escalation: read-only again, denied, with marker and hint. */
  {
    const char *options[] = { "--session", s.session, "--approver", s.approver, NULL };
    const char *command[] = { "/bin/sh", "-c", write_g, NULL };
    const char *env[] = { "ANSWER=allowed-once", NULL };

    run_exec (&second, options, command, env);
  }
  g_assert_cmpint (second.exit_code, !=, 0);
  g_assert_cmpint (second.exit_code, !=, 125);
  g_assert_false (g_file_test (g, G_FILE_TEST_EXISTS));
  g_assert_nonnull (strstr (second.err, "Read-only file system"));
  expected_tail = g_strdup ("\n[sandbox: file access denied under read-only mode]\n" HINT "\n");
  g_assert_true (g_str_has_suffix (second.err, expected_tail));

  read_log (s.session, &facts);
  g_assert_cmpuint (facts.turns_started, ==, 2);
  g_assert_cmpuint (facts.turns_ended, ==, 2);
  g_assert_cmpuint (facts.asked, ==, 1);
  g_assert_cmpstr (facts.outcome, ==, "allowed-once");

  /* Another escalation is another call: its audit pair says so. */
  {
    const char *options[] = { "--session", s.session, "--approver", s.approver,
                              "--sandbox-permissions", "workspace-write", "--justification",
                              JUSTIFICATION, NULL };
    const char *command[] = { "/bin/sh", "-c", write_g, NULL };
    const char *env[] = { "ANSWER=rejected", NULL };
    g_auto (DshTestRun) third = { 0 };

    run_exec (&third, options, command, env);
    g_assert_cmpint (third.exit_code, ==, 125);
  }
  log_facts_clear (&facts);
  memset (&facts, 0, sizeof (facts));
  read_log (s.session, &facts);
  g_assert_cmpuint (facts.call_ids->len, ==, 2);
  g_assert_true (g_uuid_string_is_valid (facts.call_ids->pdata[0]));
  g_assert_true (g_uuid_string_is_valid (facts.call_ids->pdata[1]));
  g_assert_cmpstr (facts.call_ids->pdata[0], !=, facts.call_ids->pdata[1]);
}

/* ---- when the hint follows a denial -------------------------------------------------------- */

typedef struct {
  const char *name;
  gboolean session;
  DshSandboxMode standing;
  DshApprovalPolicy policy;
  gboolean never_flag;
  gboolean approver;
  /* Escalate to workspace-write first (approved) and then fail outside the workspace. */
  gboolean escalate;
  gboolean outside;
  DshSandboxMode denied_under;
  gboolean hint;
} HintCase;

static const HintCase hint_cases[] = {
  { "ask-read-only", TRUE, RO, DSH_APPROVAL_POLICY_ASK, FALSE, TRUE, FALSE, FALSE, RO, TRUE },
  { "never-session", TRUE, RO, DSH_APPROVAL_POLICY_NEVER, FALSE, TRUE, FALSE, FALSE, RO, FALSE },
  { "never-flag", TRUE, RO, DSH_APPROVAL_POLICY_ASK, TRUE, TRUE, FALSE, FALSE, RO, FALSE },
  { "sessionless", FALSE, RO, DSH_APPROVAL_POLICY_ASK, FALSE, TRUE, FALSE, FALSE, RO, FALSE },
  { "nobody-to-ask", TRUE, RO, DSH_APPROVAL_POLICY_ASK, FALSE, FALSE, FALSE, FALSE, RO, FALSE },
  { "workspace-write", TRUE, WW, DSH_APPROVAL_POLICY_ASK, FALSE, TRUE, FALSE, TRUE, WW, TRUE },
  /* The escalated retry was the one sanctioned exception: its own denial is final. */
  { "after-escalation", TRUE, RO, DSH_APPROVAL_POLICY_ASK, FALSE, TRUE, TRUE, TRUE, WW, FALSE },
};

static void
test_hint (gconstpointer data)
{
  const HintCase *hc = data;
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (GPtrArray) options = g_ptr_array_new ();
  g_autofree char *target = NULL;
  g_autofree char *script = NULL;
  g_autofree char *tail = NULL;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, hc->standing, hc->policy);
  script = script_writing (hc->outside ? s.out : s.ws, "f", &target);

  if (hc->session)
    {
      g_ptr_array_add (options, (gpointer) "--session");
      g_ptr_array_add (options, s.session);
    }
  else
    {
      g_ptr_array_add (options, (gpointer) "--mode");
      g_ptr_array_add (options, (gpointer) mode_name (hc->standing));
      g_ptr_array_add (options, (gpointer) "--workspace");
      g_ptr_array_add (options, s.ws);
    }
  if (hc->never_flag)
    {
      g_ptr_array_add (options, (gpointer) "--approval-policy");
      g_ptr_array_add (options, (gpointer) "never");
    }
  if (hc->approver)
    {
      g_ptr_array_add (options, (gpointer) "--approver");
      g_ptr_array_add (options, s.approver);
    }
  if (hc->escalate)
    {
      g_ptr_array_add (options, (gpointer) "--sandbox-permissions");
      g_ptr_array_add (options, (gpointer) "workspace-write");
      g_ptr_array_add (options, (gpointer) "--justification");
      g_ptr_array_add (options, (gpointer) JUSTIFICATION);
    }
  g_ptr_array_add (options, NULL);
  {
    const char *command[] = { "/bin/sh", "-c", script, NULL };
    const char *env[] = { "ANSWER=allowed-once", NULL };

    run_exec (&run, (const char *const *) options->pdata, command, env);
  }

  g_assert_cmpint (run.exit_code, !=, 0);
  g_assert_cmpint (run.exit_code, !=, 125);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  tail = g_strdup_printf ("Read-only file system\n[sandbox: file access denied under %s mode]\n%s",
                          mode_name (hc->denied_under), hc->hint ? HINT "\n" : "");
  g_assert_true (g_str_has_suffix (run.err, tail));
}

/* The marker is a line of its own even when the command's stderr stops in the middle of one:
 * the model looks for a line that starts with "[sandbox:". */
static void
test_marker_starts_a_line (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *target = NULL;
  g_autofree char *script = NULL;
  g_autofree char *unfinished = NULL;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  script = script_writing (s.ws, "f", &target);
  unfinished = g_strdup_printf ("%s; printf 'no newline' >&2; exit 1", script);
  {
    const char *options[] = { "--session", s.session, "--approver", s.approver, NULL };
    const char *command[] = { "/bin/sh", "-c", unfinished, NULL };
    const char *env[] = { "ANSWER=allowed-once", NULL };

    run_exec (&run, options, command, env);
  }
  g_assert_cmpint (run.exit_code, ==, 1);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  g_assert_true (g_str_has_suffix (run.err, "Read-only file system\nno newline\n"
                                            SEED_DENIAL_MARKER ("read-only") "\n"
                                            SEED_ESCALATION_HINT ("command") "\n"));
}

/* ---- approver failure modes and usage errors ----------------------------------------------- */

static void
run_escalation (Scratch *s, DshTestRun *run, const char *answer, const char *approver_command,
                const char *extra_env)
{
  g_autofree char *answer_env = g_strdup_printf ("ANSWER=%s", answer);
  g_autofree char *target = NULL;
  g_autofree char *script = script_writing (s->ws, "f", &target);
  const char *options[] = { "--session", s->session, "--sandbox-permissions", "workspace-write",
                            "--justification", JUSTIFICATION,
                            approver_command != NULL ? "--approver" : NULL, approver_command,
                            NULL };
  const char *command[] = { "/bin/sh", "-c", script, NULL };
  const char *env[] = { answer_env, extra_env, NULL };

  run_exec (run, options, command, env);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
}

/* The model is shown the seed's one text; the audit says why, for the operator. */
static void
assert_unavailable (Scratch *s, DshTestRun *run, const char *cause)
{
  g_auto (LogFacts) facts = { 0 };

  g_assert_cmpint (run->exit_code, ==, 125);
  g_assert_cmpstr (run->err, ==,
                   "dsh-sandbox: sandbox escalation to \"workspace-write\" requires approval, but "
                   "no approval channel is available\n");
  read_log (s->session, &facts);
  g_assert_cmpstr (facts.outcome, ==, "unavailable");
  g_test_message ("cause: %s", facts.cause);
  g_assert_nonnull (facts.cause);
  g_assert_nonnull (strstr (facts.cause, cause));
  g_assert_cmpuint (facts.turns_ended, ==, 1);
}

/* An escalation whose approver (answering `answer`) does not answer within its 1 s. */
static void
run_timed_out (Scratch *s, DshTestRun *run, const char *answer)
{
  gint64 start;

  scratch_init_session (s, RO, DSH_APPROVAL_POLICY_ASK);
  start = g_get_monotonic_time ();
  run_escalation (s, run, answer, s->approver, "DSH_SANDBOX_APPROVER_TIMEOUT=1");
  /* Also what a child the approver left running would hold up: the call's stderr is open. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
  assert_unavailable (s, run, "the approver did not answer within 1 s");
}

static void
test_approver_timeout (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };

  run_timed_out (&s, &run, "hang");
}

/* Whether process pid exists and is no zombie. */
static gboolean
is_running (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *stat = NULL;
  const char *end;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;
  end = strrchr (stat, ')');
  return end != NULL && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
}

/* What a timed-out approver started and waits for goes with it. */
static void
test_approver_timeout_takes_its_child (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *child_file = NULL;
  g_autofree char *child_text = NULL;
  gint64 deadline;
  int child;

  run_timed_out (&s, &run, "hang-with-child");
  child_file = g_strconcat (s.request, ".child", NULL);
  child_text = dsh_test_read_file (child_file);
  child = atoi (child_text);
  g_assert_cmpint (child, >, 1);
  /* Killed: gone, or a zombie until whoever it was left to reaps it. */
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (is_running (child))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the approver's child %d outlived the approver", child);
      g_usleep (10 * 1000);
    }
}

static void
test_approver_failures (void)
{
  static const char *const answers[] = { "nonzero", "two-words", "crash", "garbage", "" };
  static const char *const causes[] = {
    "the approver exited with status ", "the approver's answer is not one of ",
    "the approver was killed by signal ", "the approver's answer is not one of ",
    "the approver's answer is not one of ",
  };

  for (guint i = 0; i < G_N_ELEMENTS (answers); i++)
    {
      g_auto (Scratch) s = { 0 };
      g_auto (DshTestRun) run = { 0 };

      g_test_message ("answer \"%s\"", answers[i]);
      scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
      run_escalation (&s, &run, answers[i], s.approver, NULL);
      assert_unavailable (&s, &run, causes[i]);
    }
}

static void
test_interrupt_while_asking (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (LogFacts) facts = { 0 };
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *target = NULL;
  g_autofree char *script = NULL;
  g_autofree char *err = NULL;
  gint64 deadline;

  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  script = script_writing (s.ws, "f", &target);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, detach_from_terminal, NULL, NULL);
  set_common_env (launcher);
  g_subprocess_launcher_setenv (launcher, "ANSWER", "hang", TRUE);
  process = g_subprocess_launcher_spawn (launcher, &error, dsh_test_cli (), "exec",
                                         "--session", s.session, "--approver", s.approver,
                                         "--sandbox-permissions", "workspace-write",
                                         "--justification", JUSTIFICATION, "--", "/bin/sh", "-c",
                                         script, NULL);
  g_assert_no_error (error);

  /* Once the approver holds the request, the user presses ^C: the question is withdrawn. */
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!g_file_test (s.request, G_FILE_TEST_EXISTS))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (10 * 1000);
    }
  g_usleep (100 * 1000);
  g_subprocess_send_signal (process, SIGINT);
  g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 125);
  g_assert_cmpstr (err, ==,
                   "dsh-sandbox: approval for escalating to \"workspace-write\" was cancelled\n");
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  read_log (s.session, &facts);
  g_assert_cmpstr (facts.outcome, ==, "cancelled");
  g_assert_cmpuint (facts.turns_ended, ==, 1);
}

static void
test_approver_missing (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };

  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  run_escalation (&s, &run, "allowed-once", "/nonexistent/approver --flag", NULL);
  assert_unavailable (&s, &run, "/nonexistent/approver");
}

static void
test_no_channel (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };

  /* No --approver and no controlling terminal: nobody can be asked. */
  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  run_escalation (&s, &run, "allowed-once", NULL, NULL);
  assert_unavailable (&s, &run, "no answerer answered");
}

static void
test_sessionless_escalation (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *target = NULL;
  g_autofree char *script = NULL;

  scratch_init (&s);
  script = script_writing (s.ws, "f", &target);
  {
    const char *options[] = { "--workspace", s.ws, "--approver", s.approver,
                              "--sandbox-permissions", "workspace-write", "--justification",
                              JUSTIFICATION, NULL };
    const char *command[] = { "/bin/sh", "-c", script, NULL };
    const char *env[] = { "ANSWER=allowed-once", NULL };

    run_exec (&run, options, command, env);
  }
  /* No session: no agent to route through and nowhere to write the audit pair. */
  g_assert_cmpint (run.exit_code, ==, 125);
  g_assert_cmpstr (run.err, ==,
                   "dsh-sandbox: sandbox escalation to \"workspace-write\" requires approval, but "
                   "the call has no agent to route it through\n");
  g_assert_false (g_file_test (s.request, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
}

/* Widening is checked first and has its own text, whatever else is wrong with the request
 * (here an argv no person could be shown faithfully). */
static void
test_non_widening_checked_first (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  const char *options[] = { "--session", NULL, "--sandbox-permissions", "workspace-write",
                            "--justification", JUSTIFICATION, "--approver", NULL, NULL };
  const char *command[] = { "/bin/echo", "\xff", NULL };
  const char *env[] = { "ANSWER=allowed-once", NULL };

  scratch_init_session (&s, DSH_SANDBOX_MODE_WORKSPACE_WRITE, DSH_APPROVAL_POLICY_ASK);
  options[1] = s.session;
  options[7] = s.approver;
  run_exec (&run, options, command, env);
  g_assert_cmpint (run.exit_code, ==, 125);
  g_assert_cmpstr (run.err, ==,
                   "dsh-sandbox: sandbox escalation to \"workspace-write\" is not strictly wider "
                   "than this call's current \"workspace-write\" mode\n");
  g_assert_false (g_file_test (s.request, G_FILE_TEST_EXISTS));
}

static void
test_usage_errors (void)
{
  static const struct {
    const char *options[8];
    const char *err;
  } cases[] = {
    { { "--sandbox-permissions", "workspace-write", NULL },
      "dsh-sandbox: invalid escalation: sandbox_permissions requires a justification\n" },
    { { "--justification", "because", NULL },
      "dsh-sandbox: invalid escalation: justification is only valid together with "
      "sandbox_permissions\n" },
    { { "--sandbox-permissions", "workspace-write", "--justification", " \t ", NULL },
      "dsh-sandbox: invalid justification: expected a non-empty sentence\n" },
    { { "--sandbox-permissions", "workspace-write", "--justification", "\v\u00a0\ufeff",
        NULL },
      "dsh-sandbox: invalid justification: expected a non-empty sentence\n" },
    { { "--sandbox-permissions", "read-only", "--justification", "because", NULL },
      "dsh-sandbox: invalid escalation: sandbox_permissions \"read-only\" is not one of "
      "workspace-write, danger-full-access\n" },
    { { "--approval-policy", "sometimes", NULL },
      "dsh-sandbox: unknown approval policy \"sometimes\": expected one of ask, never\n" },
    { { "--approver", "'unterminated", "--sandbox-permissions", "workspace-write",
        "--justification", "because", NULL },
      NULL },
    { { "--workspace", "/", NULL },
      "dsh-sandbox: --workspace cannot be combined with --session: the session's cwd is its "
      "workspace\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Scratch) s = { 0 };
      g_auto (DshTestRun) run = { 0 };
      g_auto (LogFacts) facts = { 0 };
      g_autoptr (GPtrArray) options = g_ptr_array_new ();
      g_autofree char *target = NULL;
      g_autofree char *script = NULL;

      scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
      script = script_writing (s.ws, "f", &target);
      g_ptr_array_add (options, (gpointer) "--session");
      g_ptr_array_add (options, s.session);
      for (guint j = 0; cases[i].options[j] != NULL; j++)
        g_ptr_array_add (options, (gpointer) cases[i].options[j]);
      g_ptr_array_add (options, NULL);
      {
        const char *command[] = { "/bin/sh", "-c", script, NULL };

        run_exec (&run, (const char *const *) options->pdata, command, NULL);
      }
      g_assert_cmpint (run.exit_code, ==, 125);
      if (cases[i].err != NULL)
        g_assert_cmpstr (run.err, ==, cases[i].err);
      else
        g_assert_true (g_str_has_prefix (run.err, "dsh-sandbox: cannot parse the --approver"));
      g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
      /* A usage error is not a turn. */
      read_log (s.session, &facts);
      g_assert_cmpuint (facts.turns_started, ==, 0);
    }
}

static void
test_danger_grant_runs_raw (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonObject) report = NULL;
  g_autofree char *target = NULL;
  g_autofree char *script = NULL;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, WW, DSH_APPROVAL_POLICY_ASK);
  target = g_build_filename (s.out, "f", NULL);
  script = g_strdup_printf ("echo ran > '%s'; exit 7", target);
  {
    const char *options[] = { "--session", s.session, "--approver", s.approver,
                              "--sandbox-permissions", "danger-full-access", "--justification",
                              JUSTIFICATION, "--report", s.report, NULL };
    const char *command[] = { "/bin/sh", "-c", script, NULL };
    const char *env[] = { "ANSWER=allowed-once", NULL };

    run_exec (&run, options, command, env);
  }
  /* The raw argv ran: the exit status passes through, no provider was involved. */
  g_assert_cmpint (run.exit_code, ==, 7);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_true (g_file_test (target, G_FILE_TEST_EXISTS));
  report = read_json_object (s.report, "exec-report.schema.json");
  g_assert_cmpstr (json_object_get_string_member (report, "mode"), ==, "danger-full-access");
  g_assert_cmpstr (json_object_get_string_member (report, "standingMode"), ==,
                   "workspace-write");
  g_assert_null (nullable_string (report, "backend"));
  g_assert_cmpint (json_object_get_int_member (report, "exitCode"), ==, 7);
}

/* ---- a planted approver -------------------------------------------------------------------- */

#define PLANTED_REFUSAL \
  "dsh-sandbox: the approver %s %s lies where confined commands may write (%s): a command " \
  "could rewrite it to approve its own escalation; keep the approver and what it runs outside " \
  "the workspace, /tmp and the temp directory\n"

/* Escalates a write outside every root to danger-full-access through approver_command; the
 * request must be refused before anyone is asked, and nothing may run. */
static void
assert_approver_refused (Scratch *s, const char *approver_command, const char *const *env,
                         const char *expected_err)
{
  g_auto (DshTestRun) run = { 0 };
  g_auto (LogFacts) facts = { 0 };
  g_autofree char *victim = g_build_filename (s->out, "victim", NULL);
  g_autofree char *script = g_strdup_printf ("echo escaped > '%s'", victim);
  const char *options[] = { "--session", s->session, "--approver", approver_command,
                            "--sandbox-permissions", "danger-full-access", "--justification",
                            JUSTIFICATION, NULL };
  const char *command[] = { "/bin/sh", "-c", script, NULL };

  g_test_message ("approver \"%s\"", approver_command);
  run_exec (&run, options, command, env);
  dsh_test_assert_never_ran (&run, victim);
  g_assert_cmpstr (run.err, ==, expected_err);
  read_log (s->session, &facts);
  g_assert_cmpuint (facts.asked, ==, 0);
}

/* The attack end to end: a confined command rewrites the approver that lies in its workspace
 * to approve everything; the next escalation must not run unconfined on that say-so. */
static void
test_planted_approver (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *planted = NULL;
  g_autofree char *plant = NULL;
  g_autofree char *command_line = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *contents = NULL;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, WW, DSH_APPROVAL_POLICY_ASK);
  planted = g_build_filename (s.ws, "approve.sh", NULL);
  dsh_test_write_file (planted, "#!/bin/sh\ncat > /dev/null\necho rejected\n");
  g_assert_cmpint (g_chmod (planted, 0755), ==, 0);

  /* An ordinary confined call may write its workspace, the approver included. */
  plant = g_strdup_printf ("printf '#!/bin/sh\\ncat > /dev/null\\necho allowed-once\\n' > '%s'",
                           planted);
  {
    const char *options[] = { "--session", s.session, NULL };
    const char *command[] = { "/bin/sh", "-c", plant, NULL };

    run_exec (&run, options, command, NULL);
  }
  g_assert_cmpint (run.exit_code, ==, 0);
  contents = dsh_test_read_file (planted);
  g_assert_nonnull (strstr (contents, "allowed-once"));

  /* Run by an interpreter, and as the program itself. */
  command_line = g_strdup_printf ("/bin/sh %s", planted);
  expected = g_strdup_printf (PLANTED_REFUSAL, "script", planted, s.ws);
  assert_approver_refused (&s, command_line, NULL, expected);
  g_free (expected);
  expected = g_strdup_printf (PLANTED_REFUSAL, "program", planted, s.ws);
  assert_approver_refused (&s, planted, NULL, expected);
}

/* An approver resolves names in its working directory by itself ("python3 -m NAME" imports
 * NAME from there first): run from a workspace, it would load a module a confined command put
 * there, which no argument names. It runs from / then, and the planted module is not found. */
static void
test_approver_not_run_in_reach (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *module = NULL;
  g_autofree char *victim = NULL;
  g_autofree char *script = NULL;

  if (!dsh_test_require (g_find_program_in_path ("python3") != NULL, "python3"))
    return;
  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  module = g_build_filename (s.ws, "dsh_test_planted_approver.py", NULL);
  dsh_test_write_file (module, "import sys\nsys.stdin.read()\nprint('allowed-once')\n");
  victim = g_build_filename (s.out, "victim", NULL);
  script = g_strdup_printf ("echo escaped > '%s'", victim);
  {
    const char *argv[] = { dsh_test_cli (), "exec", "--session", s.session, "--approver",
                           "python3 -m dsh_test_planted_approver", "--sandbox-permissions",
                           "danger-full-access", "--justification", JUSTIFICATION, "--",
                           "/bin/sh", "-c", script, NULL };

    dsh_test_run_full (&run, argv, common_env, s.ws, NULL, detach_from_terminal, NULL);
  }
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.exit_code, !=, 0);
  g_assert_false (g_file_test (victim, G_FILE_TEST_EXISTS));
}

/* The same planted by another call: a sessionless call given the approver's directory as an
 * extra writable root rewrites it; this session's escalation, whose own roots do not reach it,
 * must still refuse it, since the record of granted roots says some call's commands could. */
static void
test_planted_approver_by_another_call (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *tools = NULL;
  g_autofree char *planted = NULL;
  g_autofree char *plant = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *contents = NULL;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, WW, DSH_APPROVAL_POLICY_ASK);
  tools = g_build_filename (s.dir, "tools", NULL);
  g_assert_cmpint (g_mkdir (tools, 0700), ==, 0);
  planted = g_build_filename (tools, "approve.sh", NULL);
  dsh_test_write_file (planted, "#!/bin/sh\ncat > /dev/null\necho rejected\n");
  g_assert_cmpint (g_chmod (planted, 0755), ==, 0);

  plant = g_strdup_printf ("printf '#!/bin/sh\\ncat > /dev/null\\necho allowed-once\\n' > '%s'",
                           planted);
  {
    const char *options[] = { "--mode", "workspace-write", "--workspace", s.ws,
                              "--writable-root", tools, NULL };
    const char *command[] = { "/bin/sh", "-c", plant, NULL };

    run_exec (&run, options, command, NULL);
  }
  g_assert_cmpint (run.exit_code, ==, 0);
  contents = dsh_test_read_file (planted);
  g_assert_nonnull (strstr (contents, "allowed-once"));

  expected = g_strdup_printf ("dsh-sandbox: the approver program %s lies inside %s, which was "
                              "granted to confined commands as a writable root before: one of "
                              "them could have rewritten it to approve its own escalation; keep "
                              "the approver and what it runs outside every directory ever "
                              "granted\n",
                              planted, tools);
  assert_approver_refused (&s, planted, NULL, expected);
}

/* Every place a confined command of this call may write, and every way of naming it: a
 * relative script, a bare name found on a PATH that leads into the workspace, /tmp, $TMPDIR,
 * a symlink outside the workspace whose way leads through it, and a script's interpreter. */
static void
test_planted_approver_places (void)
{
  g_auto (Scratch) s = { 0 };
  g_autofree char *bin = NULL;
  g_autofree char *in_bin = NULL;
  g_autofree char *tmp_script = NULL;
  g_autofree char *tmpdir = NULL;
  g_autofree char *tmpdir_script = NULL;
  g_autofree char *real = NULL;
  g_autofree char *hop = NULL;
  g_autofree char *inner = NULL;
  g_autofree char *via_hop = NULL;
  g_autofree char *interpreted = NULL;
  g_autofree char *interpreter = NULL;
  g_autofree char *command_line = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *path_env = NULL;
  g_autofree char *tmpdir_env = NULL;
  g_autofree char *canonical_tmp = realpath ("/tmp", NULL);
  const char approve[] = "#!/bin/sh\ncat > /dev/null\necho allowed-once\n";

  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);

  /* A bare name, found on PATH in the workspace. */
  bin = g_build_filename (s.ws, "bin", NULL);
  g_assert_cmpint (g_mkdir (bin, 0755), ==, 0);
  in_bin = g_build_filename (bin, "dsh-test-approve", NULL);
  dsh_test_write_file (in_bin, approve);
  g_assert_cmpint (g_chmod (in_bin, 0755), ==, 0);
  path_env = g_strdup_printf ("PATH=%s:/usr/bin:/bin", bin);
  expected = g_strdup_printf (PLANTED_REFUSAL, "program", in_bin, s.ws);
  {
    const char *env[] = { path_env, NULL };

    assert_approver_refused (&s, "dsh-test-approve", env, expected);
    /* Through env, which looks it up when it runs. */
    assert_approver_refused (&s, "/usr/bin/env -u HOME dsh-test-approve", env, expected);
  }
  /* Through env -S, whose string env splits into the program and its script. */
  command_line = g_strdup_printf ("/usr/bin/env -S '/bin/sh %s'", in_bin);
  g_free (expected);
  expected = g_strdup_printf (PLANTED_REFUSAL, "script", in_bin, s.ws);
  assert_approver_refused (&s, command_line, NULL, expected);
  /* An env option whose effect the check cannot follow (-C moves where names resolve), given
   * as itself or inside a split string. */
  for (guint i = 0; i < 2; i++)
    {
      g_free (command_line);
      command_line = g_strdup_printf (i == 0 ? "/usr/bin/env -C %s /bin/sh bin/dsh-test-approve"
                                             : "/usr/bin/env -S '-C %s /bin/sh "
                                               "bin/dsh-test-approve'",
                                      s.ws);
      assert_approver_refused (&s, command_line, NULL,
                               "dsh-sandbox: the approver's env option \"-C\" is not one whose "
                               "effect on what runs can be checked; name the approver program "
                               "itself\n");
    }
  g_clear_pointer (&command_line, g_free);

  /* /tmp. */
  tmp_script = g_strdup_printf ("%s/dsh-test-approve-%d.sh", canonical_tmp, (int) getpid ());
  dsh_test_write_file (tmp_script, approve);
  command_line = g_strdup_printf ("/bin/sh -u %s", tmp_script);
  g_free (expected);
  expected = g_strdup_printf (PLANTED_REFUSAL, "script", tmp_script, canonical_tmp);
  assert_approver_refused (&s, command_line, NULL, expected);
  g_unlink (tmp_script);

  /* $TMPDIR. */
  tmpdir = g_build_filename (s.dir, "tmpdir", NULL);
  g_assert_cmpint (g_mkdir (tmpdir, 0755), ==, 0);
  tmpdir_script = g_build_filename (tmpdir, "approve.sh", NULL);
  dsh_test_write_file (tmpdir_script, approve);
  tmpdir_env = g_strdup_printf ("TMPDIR=%s", tmpdir);
  g_free (command_line);
  command_line = g_strdup_printf ("/bin/sh %s", tmpdir_script);
  g_free (expected);
  expected = g_strdup_printf (PLANTED_REFUSAL, "script", tmpdir_script, tmpdir);
  {
    const char *env[] = { tmpdir_env, NULL };

    assert_approver_refused (&s, command_line, env, expected);
  }

  /* A path outside that is reached through a symlink inside: the symlink can be retargeted. */
  real = g_build_filename (s.dir, "real", NULL);
  g_assert_cmpint (g_mkdir (real, 0755), ==, 0);
  interpreted = g_build_filename (real, "approve.sh", NULL);
  dsh_test_write_file (interpreted, approve);
  inner = g_build_filename (s.ws, "inner", NULL);
  g_assert_cmpint (symlink (real, inner), ==, 0);
  hop = g_build_filename (s.dir, "hop", NULL);
  g_assert_cmpint (symlink (inner, hop), ==, 0);
  via_hop = g_build_filename (hop, "approve.sh", NULL);
  g_free (command_line);
  command_line = g_strdup_printf ("/bin/sh %s", via_hop);
  g_free (expected);
  expected = g_strdup_printf (PLANTED_REFUSAL, "script", via_hop, s.ws);
  assert_approver_refused (&s, command_line, NULL, expected);

  /* A trusted script whose interpreter lies in the workspace. */
  interpreter = g_build_filename (s.ws, "interp", NULL);
  g_assert_cmpint (symlink ("/bin/sh", interpreter), ==, 0);
  g_free (interpreted);
  interpreted = g_build_filename (real, "shebang.sh", NULL);
  {
    g_autofree char *text = g_strdup_printf ("#!%s\ncat > /dev/null\necho allowed-once\n",
                                             interpreter);

    dsh_test_write_file (interpreted, text);
  }
  g_assert_cmpint (g_chmod (interpreted, 0755), ==, 0);
  g_free (expected);
  expected = g_strdup_printf (PLANTED_REFUSAL, "interpreter", interpreter, s.ws);
  assert_approver_refused (&s, interpreted, NULL, expected);
  /* The same script run by env, and as the interpreter of another trusted script. */
  g_free (command_line);
  command_line = g_strdup_printf ("/usr/bin/env %s", interpreted);
  assert_approver_refused (&s, command_line, NULL, expected);
  {
    g_autofree char *outer = g_build_filename (real, "outer.sh", NULL);
    g_autofree char *text = g_strdup_printf ("#!%s\n", interpreted);

    dsh_test_write_file (outer, text);
    g_assert_cmpint (g_chmod (outer, 0755), ==, 0);
    assert_approver_refused (&s, outer, NULL, expected);
  }

  /* A path joined to a short option, an assignment's value, an element of a list. */
  {
    g_autofree char *lib = g_build_filename (s.ws, "lib", NULL);
    const char *spellings[][2] = { { "/bin/true -I", "" },
                                   { "/usr/bin/env PERL5LIB=", " /bin/true" },
                                   { "/bin/true --path=/usr/lib:", "" } };

    g_assert_cmpint (g_mkdir (lib, 0755), ==, 0);
    g_free (expected);
    expected = g_strdup_printf (PLANTED_REFUSAL, "script", lib, s.ws);
    for (guint i = 0; i < G_N_ELEMENTS (spellings); i++)
      {
        g_free (command_line);
        command_line = g_strconcat (spellings[i][0], lib, spellings[i][1], NULL);
        assert_approver_refused (&s, command_line, NULL, expected);
      }
  }

  /* A wrapper that looks its program up on PATH when it runs. */
  g_free (expected);
  g_free (in_bin);
  in_bin = g_build_filename (bin, "dsh-test-approve", NULL);
  expected = g_strdup_printf (PLANTED_REFUSAL, "program", in_bin, s.ws);
  {
    const char *env[] = { path_env, NULL };

    assert_approver_refused (&s, "/usr/bin/nice dsh-test-approve", env, expected);
  }
  g_clear_pointer (&command_line, g_free);

  /* "#!/usr/bin/env NAME": wherever the lookup could find NAME, even before it exists there. */
  g_free (interpreted);
  interpreted = g_build_filename (real, "env-shebang.sh", NULL);
  dsh_test_write_file (interpreted, "#!/usr/bin/env -S  dsh-test-missing -x\necho allowed-once\n");
  g_assert_cmpint (g_chmod (interpreted, 0755), ==, 0);
  g_free (in_bin);
  in_bin = g_build_filename (bin, "dsh-test-missing", NULL);
  g_free (expected);
  expected = g_strdup_printf (PLANTED_REFUSAL, "interpreter", in_bin, s.ws);
  {
    const char *env[] = { path_env, NULL };

    assert_approver_refused (&s, interpreted, env, expected);
  }
}

/* ---- describe bash ------------------------------------------------------------------------- */

/* An exec is a resumed session's first use: the facts its log lacks are pinned then, and a
 * changed deployment default does not move the next exec. */
static void
test_exec_pins_resumed_session (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (DshSessionLog) log = NULL;
  g_autofree char *config = NULL;
  g_autofree char *config_env = NULL;
  g_autofree char *target = NULL;
  g_autofree char *script = NULL;
  DshSandboxMode mode;
  DshApprovalPolicy policy;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init (&s);
  g_object_unref (dsh_test_create_session_log (s.session, s.ws));
  script = script_writing (s.ws, "f", &target);
  {
    const char *options[] = { "--session", s.session, NULL };
    const char *command[] = { "/bin/true", NULL };

    run_exec (&run, options, command, NULL);
  }
  g_assert_cmpint (run.exit_code, ==, 0);
  log = dsh_test_load_session_log (s.session);
  g_assert_true (dsh_session_log_last_mode (log, &mode));
  g_assert_true (dsh_session_log_last_approval_policy (log, &policy));
  g_assert_cmpint (mode, ==, RO);
  g_assert_cmpint (policy, ==, DSH_APPROVAL_POLICY_ASK);

  /* The operator now defaults to workspace-write: this session still cannot write. */
  config = g_build_filename (s.dir, "config.json", NULL);
  dsh_test_write_file (config, "{\"defaultMode\":\"workspace-write\"}");
  config_env = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", config);
  {
    const char *options[] = { "--session", s.session, NULL };
    const char *command[] = { "/bin/sh", "-c", script, NULL };
    const char *env[] = { config_env, NULL };
    g_auto (DshTestRun) second = { 0 };

    run_exec (&second, options, command, env);
    g_assert_cmpint (second.exit_code, !=, 0);
    g_assert_nonnull (strstr (second.err, "[sandbox: file access denied under read-only mode]"));
  }
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
}

/* Registry-level: the same bytes for every session state of one deployment and without a
 * session, while the runtime context ("policy context") carries the session's facts. */
static void
test_describe (void)
{
  static const struct {
    DshSandboxMode mode;
    DshApprovalPolicy policy;
  } cases[] = {
    { RO, DSH_APPROVAL_POLICY_ASK },
    { WW, DSH_APPROVAL_POLICY_ASK },
    { RO, DSH_APPROVAL_POLICY_NEVER },
    { WW, DSH_APPROVAL_POLICY_NEVER },
    { DFA, DSH_APPROVAL_POLICY_ASK },
    { DFA, DSH_APPROVAL_POLICY_NEVER },
  };
  const char *expected = SEED_BASH_DESCRIPTION_BASE "\n\n" SEED_BASH_ESCALATION_PARAGRAPH "\n";
  g_auto (DshTestRun) sessionless = { 0 };
  const char *argv[] = { dsh_test_cli (), "describe", "bash", NULL };

  run_argv (&sessionless, argv, NULL);
  g_assert_cmpint (sessionless.exit_code, ==, 0);
  g_assert_cmpstr (sessionless.out, ==, expected);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Scratch) s = { 0 };
      g_auto (DshTestRun) run = { 0 };
      g_auto (DshTestRun) context = { 0 };
      g_autofree char *expected_context = NULL;
      g_autofree char *policy_context = NULL;

      scratch_init_session (&s, cases[i].mode, cases[i].policy);
      {
        const char *with_session[] = { dsh_test_cli (), "describe", "bash", "--session",
                                       s.session, NULL };
        const char *context_argv[] = { dsh_test_cli (), "policy", "context", "--session",
                                       s.session, NULL };

        run_argv (&run, with_session, NULL);
        run_argv (&context, context_argv, NULL);
      }
      g_assert_cmpint (run.exit_code, ==, 0);
      g_assert_cmpstr (run.out, ==, expected);

      policy_context = seed_policy_context (cases[i].mode, s.ws);
      expected_context = cases[i].policy == DSH_APPROVAL_POLICY_NEVER
                           ? g_strdup_printf ("%s\n\n%s\n", policy_context, SEED_APPROVAL_NEVER)
                           : g_strdup_printf ("%s\n", policy_context);
      g_assert_cmpint (context.exit_code, ==, 0);
      g_assert_cmpstr (context.out, ==, expected_context);
    }
}

/* ---- a session log on a full tmpfs --------------------------------------------------------- */

static const char full_tmpfs_script[] =
  "set -u\n"
  "mount -t tmpfs -o size=512k dsh-approval-test \"$MNT\" || exit 99\n"
  "cp \"$SOURCE\" \"$LOG\" || exit 98\n"
  "if [ \"$FILL\" = before ]; then dd if=/dev/zero of=\"$MNT/fill\" bs=4096 >/dev/null 2>&1; fi\n"
  "\"$DSH\" exec --session \"$LOG\" --approver \"/bin/sh $SCRATCH/filler.sh\" \\\n"
  "  --sandbox-permissions workspace-write --justification \"$JUSTIFICATION\" \\\n"
  "  --report \"$SCRATCH/report.json\" -- /bin/sh -c \"echo ran > $SCRATCH/ws/f\" \\\n"
  "  2> \"$SCRATCH/stderr.txt\"\n"
  "echo $? > \"$SCRATCH/status.txt\"\n"
  "cp \"$LOG\" \"$SCRATCH/after.jsonl\"\n";

/* The approver that fills the disk while "the person decides": it first pads the log to a page
 * boundary (a foreign event, as another writer sharing the file might append), so the next
 * append needs a page the full tmpfs cannot give. */
static const char filler_script[] =
  "#!/bin/sh\n"
  "cat > /dev/null\n"
  ": > \"$SCRATCH/invoked\"\n"
  "page=$(getconf PAGESIZE)\n"
  "size=$(stat -c %s \"$LOG\")\n"
  "empty='{\"type\":\"test/padding\",\"data\":{\"pad\":\"\"},\"time\":\"2026-01-01T00:00:00.000Z\"}'\n"
  "over=$(( ${#empty} + 1 ))\n"
  "need=$(( (page - (size + over) % page) % page ))\n"
  "pad=$(head -c \"$need\" /dev/zero | tr '\\0' x)\n"
  "printf '{\"type\":\"test/padding\",\"data\":{\"pad\":\"%s\"},\"time\":\"2026-01-01T00:00:00.000Z\"}\\n' \"$pad\" >> \"$LOG\"\n"
  "dd if=/dev/zero of=\"$MNT/fill\" bs=\"$page\" >/dev/null 2>&1\n"
  "echo allowed-once\n";

/* Pads a session file to a whole number of pages with one foreign event. */
static void
pad_to_page (const char *path)
{
  static const char head[] = "{\"type\":\"test/padding\",\"data\":{\"pad\":\"";
  static const char tail[] = "\"},\"time\":\"2026-01-01T00:00:00.000Z\"}\n";
  long page = sysconf (_SC_PAGESIZE);
  g_autofree char *contents = NULL;
  g_autoptr (GString) line = g_string_new (head);
  gsize length = 0;
  gsize need;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  need = ((gsize) page - (length + strlen (head) + strlen (tail)) % (gsize) page) % (gsize) page;
  for (gsize i = 0; i < need; i++)
    g_string_append_c (line, 'x');
  g_string_append (line, tail);
  {
    g_autofree char *padded = g_strconcat (contents, line->str, NULL);

    dsh_test_write_file (path, padded);
    g_assert_cmpuint (strlen (padded) % (gsize) page, ==, 0);
  }
}

static void
run_on_full_tmpfs (Scratch *s, const char *fill, int *status, char **err, LogFacts *facts)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *mnt = g_build_filename (s->dir, "mnt", NULL);
  g_autofree char *log = g_build_filename (mnt, "session.jsonl", NULL);
  g_autofree char *filler = g_build_filename (s->dir, "filler.sh", NULL);
  g_autofree char *status_path = g_build_filename (s->dir, "status.txt", NULL);
  g_autofree char *status_text = NULL;
  g_autofree char *stderr_path = g_build_filename (s->dir, "stderr.txt", NULL);
  g_autofree char *after = g_build_filename (s->dir, "after.jsonl", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_assert_cmpint (g_mkdir (mnt, 0755), ==, 0);
  dsh_test_write_file (filler, filler_script);

  /* A private mount namespace: the tmpfs exists for this script only. Unprivileged runs map
   * themselves to root in a user namespace first. */
  g_ptr_array_add (argv, (gpointer) "unshare");
  if (geteuid () != 0)
    g_ptr_array_add (argv, (gpointer) "--map-root-user");
  g_ptr_array_add (argv, (gpointer) "--mount");
  g_ptr_array_add (argv, (gpointer) "--propagation");
  g_ptr_array_add (argv, (gpointer) "private");
  g_ptr_array_add (argv, (gpointer) "/bin/sh");
  g_ptr_array_add (argv, (gpointer) "-c");
  g_ptr_array_add (argv, (gpointer) full_tmpfs_script);
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_child_setup (launcher, detach_from_terminal, NULL, NULL);
  set_common_env (launcher);
  g_subprocess_launcher_setenv (launcher, "MNT", mnt, TRUE);
  g_subprocess_launcher_setenv (launcher, "LOG", log, TRUE);
  g_subprocess_launcher_setenv (launcher, "SOURCE", s->session, TRUE);
  g_subprocess_launcher_setenv (launcher, "SCRATCH", s->dir, TRUE);
  g_subprocess_launcher_setenv (launcher, "DSH", dsh_test_cli (), TRUE);
  g_subprocess_launcher_setenv (launcher, "FILL", fill, TRUE);
  g_subprocess_launcher_setenv (launcher, "JUSTIFICATION", JUSTIFICATION, TRUE);
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);

  if (!dsh_test_require (g_subprocess_get_if_exited (process) &&
                           g_subprocess_get_exit_status (process) < 98,
                         "a private mount namespace with a tmpfs (unshare, mount)"))
    {
      *status = -1;
      return;
    }
  status_text = dsh_test_read_file (status_path);
  g_assert_nonnull (status_text);
  *status = atoi (status_text);
  *err = dsh_test_read_file (stderr_path);
  g_assert_nonnull (*err);
  g_test_message ("exit %d, stderr:\n%s", *status, *err);
  read_log (after, facts);
}

static void
test_full_tmpfs_before (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (LogFacts) facts = { 0 };
  g_autofree char *err = NULL;
  g_autofree char *invoked = NULL;
  g_autofree char *target = NULL;
  int status;

  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  pad_to_page (s.session);
  run_on_full_tmpfs (&s, "before", &status, &err, &facts);
  if (status < 0)
    return;

  /* The turn cannot be recorded, so neither could the audit: nothing is asked, nothing runs. */
  invoked = g_build_filename (s.dir, "invoked", NULL);
  target = g_build_filename (s.ws, "f", NULL);
  g_assert_cmpint (status, ==, 125);
  g_assert_true (g_str_has_prefix (err, "dsh-sandbox: "));
  g_assert_true (g_str_has_suffix (err, "No space left on device\n"));
  g_assert_nonnull (strstr (err, "cannot append to the session log"));
  g_assert_cmpuint (strchr (err, '\n') - err, ==, strlen (err) - 1);
  g_assert_false (g_file_test (invoked, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (facts.turns_started, ==, 0);
  g_assert_cmpuint (facts.asked, ==, 0);
}

static void
test_full_tmpfs_during (void)
{
  g_auto (Scratch) s = { 0 };
  g_auto (LogFacts) facts = { 0 };
  g_autoptr (JsonObject) report = NULL;
  g_autofree char *err = NULL;
  g_autofree char *invoked = NULL;
  g_autofree char *target = NULL;
  int status;

  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  run_on_full_tmpfs (&s, "during", &status, &err, &facts);
  if (status < 0)
    return;

  /* The person said allowed-once, but the decision could not be logged: no grant. */
  invoked = g_build_filename (s.dir, "invoked", NULL);
  target = g_build_filename (s.ws, "f", NULL);
  g_assert_true (g_file_test (invoked, G_FILE_TEST_EXISTS));
  g_assert_cmpint (status, ==, 125);
  g_assert_true (g_str_has_prefix (err, "dsh-sandbox: the approval decision could not be "
                                        "logged: "));
  g_assert_true (g_str_has_suffix (err, "No space left on device\n"));
  g_assert_cmpuint (strchr (err, '\n') - err, ==, strlen (err) - 1);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (facts.turns_started, ==, 1);
  g_assert_cmpuint (facts.asked, ==, 1);
  g_assert_cmpuint (facts.decided, ==, 0);

  report = read_json_object (s.report, "exec-report.schema.json");
  g_assert_cmpstr (json_object_get_string_member (report, "outcome"), ==, "escalation-refused");
  g_assert_false (json_object_get_boolean_member (report, "commandRan"));
  g_assert_null (nullable_string (report, "approvalOutcome"));
}

/* ---- the interactive prompt through a pseudo-terminal -------------------------------------- */

typedef struct {
  const char *name;
  /* What is typed at each prompt, in order. */
  const char *inputs[3];
  const char *justification;
  const char *outcome;
  int status;
} PtyCase;

static const PtyCase pty_cases[] = {
  { "yes", { "y\n" }, JUSTIFICATION, "allowed-once", 0 },
  { "yes-word", { "YES\n" }, JUSTIFICATION, "allowed-once", 0 },
  { "no", { "n\n" }, JUSTIFICATION, "rejected", 125 },
  { "reprompt", { "maybe\n", "no\n" }, JUSTIFICATION, "rejected", 125 },
  { "end-of-input", { "\004" }, JUSTIFICATION, "cancelled", 125 },
  { "interrupt", { "\003" }, JUSTIFICATION, "cancelled", 125 },
  { "escapes-shown-inert", { "n\n" }, "clear \033[2J and \342\200\256reversed", "rejected", 125 },
};

static guint
count_prompts (const char *transcript)
{
  guint n = 0;

  for (const char *p = transcript; (p = strstr (p, "[y/n] ")) != NULL; p++)
    n++;
  for (const char *p = transcript; (p = strstr (p, "Please answer y or n: ")) != NULL; p++)
    n++;
  return n;
}

static void
test_pty (gconstpointer data)
{
  const PtyCase *pc = data;
  g_auto (Scratch) s = { 0 };
  g_auto (LogFacts) facts = { 0 };
  g_autoptr (GString) transcript = g_string_new (NULL);
  g_autoptr (GString) err = g_string_new (NULL);
  g_autofree char *target = NULL;
  g_autofree char *script = NULL;
  g_auto (GStrv) envp = NULL;
  guint typed = 0;
  int errpipe[2];
  int master = -1;
  int wstatus = 0;
  pid_t pid;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  script = script_writing (s.ws, "f", &target);

  envp = g_get_environ ();
  envp = g_environ_setenv (envp, "DSH_SANDBOX_BACKEND", "bwrap", TRUE);
  envp = g_environ_setenv (envp, "DSH_SANDBOX_PROBE_CACHE", "off", TRUE);
  envp = g_environ_unsetenv (envp, "DSH_SANDBOX_CONFIG");
  g_assert_cmpint (pipe2 (errpipe, O_CLOEXEC), ==, 0);
  {
    const char *argv[] = { dsh_test_cli (), "exec", "--session", s.session,
                           "--sandbox-permissions", "workspace-write",
                           "--justification", pc->justification,
                           "--", "/bin/sh", "-c", script, NULL };

    /* The child gets the pty as its controlling terminal and stdio, stderr apart. */
    pid = forkpty (&master, NULL, NULL, NULL);
    g_assert_cmpint (pid, >=, 0);
    if (pid == 0)
      {
        dup2 (errpipe[1], STDERR_FILENO);
        execve (argv[0], (char **) argv, envp);
        _exit (127);
      }
  }
  close (errpipe[1]);

  for (;;)
    {
      struct pollfd pfd = { master, POLLIN, 0 };
      char buffer[4096];
      gssize n;
      int ready = poll (&pfd, 1, 30 * 1000);

      g_assert_cmpint (ready, >, 0);
      n = read (master, buffer, sizeof (buffer));
      if (n <= 0)
        break;  /* EIO: the child and everything on the pty are gone. */
      g_string_append_len (transcript, buffer, n);
      while (typed < G_N_ELEMENTS (pc->inputs) && pc->inputs[typed] != NULL &&
             count_prompts (transcript->str) > typed)
        {
          const char *input = pc->inputs[typed++];

          g_assert_cmpint (write (master, input, strlen (input)), ==, (gssize) strlen (input));
        }
    }
  g_assert_cmpint (waitpid (pid, &wstatus, 0), ==, pid);
  close (master);
  for (;;)
    {
      char buffer[4096];
      gssize n = read (errpipe[0], buffer, sizeof (buffer));

      if (n <= 0)
        break;
      g_string_append_len (err, buffer, n);
    }
  close (errpipe[0]);
  g_test_message ("transcript:\n%s\nstderr:\n%s", transcript->str, err->str);

  /* The person saw the command, the modes and the justification — control characters and
   * bidirectional overrides shown as escapes, never interpreted. */
  g_assert_nonnull (strstr (transcript->str, "requested mode: workspace-write (standing mode: "
                                             "read-only)"));
  {
    g_autofree char *quoted = g_shell_quote (script);
    g_autofree char *shown = g_strconcat ("command:        /bin/sh -c ", quoted, NULL);

    g_assert_nonnull (strstr (transcript->str, shown));
  }
  /* The one sequence the terminal gets is the prompt's own reset, right before the question:
   * a command that ran before on this terminal may have turned autowrap off (the end of the
   * command line would not show), set a scrolling region or drawn a question below. */
  {
    static const char reset[] = "\0337\033[r\0338\033[0m\033(B\017\033[4l\033[?6l\033[?69l"
                                "\033[?7h\033[?25h\033[J";
    g_autofree char *question = g_strconcat (reset, "\r\ndsh-sandbox: approval requested for bash",
                                             NULL);
    g_auto (GStrv) pieces = NULL;

    g_assert_nonnull (strstr (transcript->str, question));
    pieces = g_strsplit (transcript->str, reset, -1);
    g_string_assign (transcript, "");
    for (guint i = 0; pieces[i] != NULL; i++)
      g_string_append (transcript, pieces[i]);
  }
  g_assert_null (strchr (transcript->str, '\033'));
  g_assert_null (strstr (transcript->str, "\342\200\256"));
  if (strchr (pc->justification, '\033') != NULL)
    g_assert_nonnull (strstr (transcript->str, "clear \\u{001B}[2J and \\u{202E}reversed"));
  else
    g_assert_nonnull (strstr (transcript->str, pc->justification));

  g_assert_true (WIFEXITED (wstatus));
  g_assert_cmpint (WEXITSTATUS (wstatus), ==, pc->status);
  g_assert_cmpint (g_file_test (target, G_FILE_TEST_EXISTS), ==, pc->status == 0);
  if (pc->status == 0)
    g_assert_cmpstr (err->str, ==, "");
  else
    {
      g_autofree char *expected = expected_refusal (pc->outcome, WW);

      g_assert_cmpstr (err->str, ==, expected);
    }
  read_log (s.session, &facts);
  g_assert_cmpstr (facts.outcome, ==, pc->outcome);
  g_assert_true (facts.pair_inside_turn);
  g_assert_cmpuint (facts.turns_ended, ==, 1);
}

/* ---- registration -------------------------------------------------------------------------- */

static const char *
answer_list[] = { "allowed-once", "rejected", "cancelled", "unavailable", "garbage", "crash" };

/* An escalation of a workspace-write command in a read-only session, run by prefix (NULL:
 * none) then exec, asked of an approver that notes what its stdin is, tries to write it through
 * /proc/self/fd/0 unless changed is NULL, keeps the request it read (s->request) and rejects.
 * The command never runs. Returns the target of the approver's stdin; *changed says whether the
 * write went through. */
static char *
ask_recording_approver (Scratch *s, const char *const *prefix, gboolean *changed)
{
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *changed_path = g_build_filename (s->dir, "changed", NULL);
  g_autofree char *link = g_build_filename (s->dir, "stdin-link", NULL);
  g_autofree char *approver_path = g_build_filename (s->dir, "approver.sh", NULL);
  g_autofree char *script = NULL;
  g_autofree char *target = NULL;
  g_autofree char *command_script = NULL;
  char *shown = NULL;

  script = g_strdup_printf ("#!/bin/sh\n"
                            "readlink /proc/self/fd/0 > '%s'\n"
                            "%s'%s'%s\n"
                            "cat > '%s'\n"
                            "echo rejected\n",
                            link,
                            changed != NULL ? "if printf X 1<>/proc/self/fd/0 2>/dev/null; "
                                              "then : > " : "# ",
                            changed_path, changed != NULL ? "; fi" : "", s->request);
  dsh_test_write_file (approver_path, script);
  command_script = script_writing (s->ws, "f", &target);
  dsh_test_argv_append (argv, prefix);
  dsh_test_argv_append (argv, (const char *const[]) {
    dsh_test_cli (), "exec", "--session", s->session, "--approver", s->approver,
    "--sandbox-permissions", "workspace-write", "--justification", JUSTIFICATION, "--",
    "/bin/sh", "-c", command_script, NULL });
  g_ptr_array_add (argv, NULL);
  run_argv (&run, (const char *const *) argv->pdata, NULL);
  dsh_test_assert_never_ran (&run, target);
  g_assert_nonnull (strstr (run.err, "rejected"));

  g_assert_true (g_file_get_contents (link, &shown, NULL, NULL));
  if (changed != NULL)
    *changed = g_file_test (changed_path, G_FILE_TEST_EXISTS);
  return shown;
}

static void
assert_request_intact (const Scratch *s)
{
  g_autoptr (JsonObject) request = read_json_object (s->request, "approval-request.schema.json");

  g_assert_cmpstr (json_object_get_string_member (request, "justification"), ==, JUSTIFICATION);
}

/* The request the approver reads is the one that was asked: it never had a name in the temp
 * directory (a writable root of every confined command, which could have opened it there and
 * rewritten it after it was written), and reopening it cannot change it either. */
static void
test_request_cannot_be_changed (void)
{
  g_auto (Scratch) s = { 0 };
  g_autofree char *shown = NULL;
  gboolean changed = TRUE;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  shown = ask_recording_approver (&s, NULL, &changed);
  g_assert_false (g_str_has_prefix (shown, g_get_tmp_dir ()));
  g_assert_false (changed);
  assert_request_intact (&s);
}

/* Where no memfd can be made, the request is an unlinked file in the record of granted roots,
 * which no call's roots reach: never a name in the temp directory, every command's root. It is
 * read-only and opened for reading (root, as these tests may run, could still reopen it for
 * writing: no write is tried here). */
static void
test_request_without_memfd (void)
{
  const char *const deny_memfd[] = { dsh_test_getenv_required ("DSH_TEST_DENY_SYSCALLS"),
                                     "--errno", "EPERM", "--syscall", "memfd_create", "--",
                                     NULL };
  g_auto (Scratch) s = { 0 };
  g_autofree char *shown = NULL;
  g_autofree char *record_prefix = NULL;

  if (!dsh_test_require (bwrap_works (), "a working bwrap"))
    return;
  scratch_init_session (&s, RO, DSH_APPROVAL_POLICY_ASK);
  shown = ask_recording_approver (&s, deny_memfd, NULL);
  record_prefix = g_strconcat (dsh_test_getenv_required ("DSH_SANDBOX_STATE_DIR"),
                               "/approval-request-", NULL);
  g_assert_true (g_str_has_prefix (shown, record_prefix));
  g_assert_nonnull (strstr (shown, " (deleted)"));
  assert_request_intact (&s);
}

int
main (int argc, char **argv)
{
  static const char *const policy_names[] = { "ask", "never-session", "never-flag" };
  static const DshSandboxMode standing_modes[] = { RO, WW, DFA };
  static const DshSandboxMode requested_modes[] = { WW, DFA };

  g_test_init (&argc, &argv, NULL);

  for (guint p = 0; p < G_N_ELEMENTS (policy_names); p++)
    for (guint st = 0; st < G_N_ELEMENTS (standing_modes); st++)
      for (guint rq = 0; rq < G_N_ELEMENTS (requested_modes); rq++)
        for (guint a = 0; a < G_N_ELEMENTS (answer_list); a++)
          {
            Scenario *sc = g_new0 (Scenario, 1);
            g_autofree char *path = NULL;

            sc->policy = (PolicySource) p;
            sc->standing = standing_modes[st];
            sc->requested = requested_modes[rq];
            sc->answer = answer_list[a];
            path = g_strdup_printf ("/approval-cli/matrix/%s/%s/%s/%s", policy_names[p],
                                    mode_name (sc->standing), mode_name (sc->requested),
                                    sc->answer);
            g_test_add_data_func_full (path, sc, test_matrix, g_free);
          }

  g_test_add_func ("/approval-cli/grant-is-one-shot", test_grant_is_one_shot);
  for (guint i = 0; i < G_N_ELEMENTS (hint_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/approval-cli/hint/%s", hint_cases[i].name);

      g_test_add_data_func (path, &hint_cases[i], test_hint);
    }
  g_test_add_func ("/approval-cli/hint/marker-starts-a-line", test_marker_starts_a_line);
  g_test_add_func ("/approval-cli/approver/timeout", test_approver_timeout);
  g_test_add_func ("/approval-cli/approver/timeout-takes-its-child",
                   test_approver_timeout_takes_its_child);
  g_test_add_func ("/approval-cli/approver/failures", test_approver_failures);
  g_test_add_func ("/approval-cli/approver/missing", test_approver_missing);
  g_test_add_func ("/approval-cli/approver/interrupted", test_interrupt_while_asking);
  g_test_add_func ("/approval-cli/no-channel", test_no_channel);
  g_test_add_func ("/approval-cli/sessionless", test_sessionless_escalation);
  g_test_add_func ("/approval-cli/usage-errors", test_usage_errors);
  g_test_add_func ("/approval-cli/non-widening-first", test_non_widening_checked_first);
  g_test_add_func ("/approval-cli/danger-grant-runs-raw", test_danger_grant_runs_raw);
  g_test_add_func ("/approval-cli/describe", test_describe);
  g_test_add_func ("/approval-cli/exec-pins-resumed-session", test_exec_pins_resumed_session);
  g_test_add_func ("/approval-cli/planted-approver", test_planted_approver);
  g_test_add_func ("/approval-cli/planted-approver/places", test_planted_approver_places);
  g_test_add_func ("/approval-cli/planted-approver/not-run-in-reach",
                   test_approver_not_run_in_reach);
  g_test_add_func ("/approval-cli/planted-approver/by-another-call",
                   test_planted_approver_by_another_call);
  g_test_add_func ("/approval-cli/approver/request-cannot-be-changed",
                   test_request_cannot_be_changed);
  g_test_add_func ("/approval-cli/approver/request-without-memfd", test_request_without_memfd);
  g_test_add_func ("/approval-cli/full-tmpfs/before", test_full_tmpfs_before);
  g_test_add_func ("/approval-cli/full-tmpfs/during", test_full_tmpfs_during);
  for (guint i = 0; i < G_N_ELEMENTS (pty_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/approval-cli/pty/%s", pty_cases[i].name);

      g_test_add_data_func (path, &pty_cases[i], test_pty);
    }

  return g_test_run ();
}
