/* test-escalation.c — the strictly-wider ladder, argument pairing, the ordered fail-closed
 * sequence (a non-widening request never reaches an answerer), every verbatim text, and the
 * bash tool description.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gio/gio.h>

#include "dsh-test-answerer.h"
#include "dsh-test-util.h"
#include "dsh-test-seed-texts.h"

#define RO DSH_SANDBOX_MODE_READ_ONLY
#define WW DSH_SANDBOX_MODE_WORKSPACE_WRITE
#define DFA DSH_SANDBOX_MODE_DANGER_FULL_ACCESS

/* ---- the ladder ---------------------------------------------------------------------------- */

static void
test_wider_modes (void)
{
  /* [from][to]: strictly wider? */
  static const gboolean expected[3][3] = {
    /* to:      RO     WW     DFA */
    [RO] = { FALSE, TRUE, TRUE },
    [WW] = { FALSE, FALSE, TRUE },
    [DFA] = { FALSE, FALSE, FALSE },
  };
  const DshSandboxMode *modes;
  gsize n = 99;

  for (int from = RO; from <= DFA; from++)
    for (int to = RO; to <= DFA; to++)
      g_assert_cmpint (dsh_escalation_is_strictly_wider (from, to), ==, expected[from][to]);

  modes = dsh_escalation_wider_modes (RO, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (modes[0], ==, WW);
  g_assert_cmpint (modes[1], ==, DFA);
  modes = dsh_escalation_wider_modes (WW, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (modes[0], ==, DFA);
  dsh_escalation_wider_modes (DFA, &n);
  g_assert_cmpuint (n, ==, 0);
  dsh_escalation_wider_modes ((DshSandboxMode) 7, &n);
  g_assert_cmpuint (n, ==, 0);
}

static void
test_targets (void)
{
  g_autoptr (GError) error = NULL;
  const DshSandboxMode *targets;
  DshSandboxMode mode;
  gsize n = 0;

  /* Always both, whatever the standing mode: widening is checked at execution. */
  targets = dsh_escalation_targets (&n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (targets[0], ==, WW);
  g_assert_cmpint (targets[1], ==, DFA);

  g_assert_true (dsh_escalation_target_from_string ("workspace-write", &mode, &error));
  g_assert_cmpint (mode, ==, WW);
  g_assert_true (dsh_escalation_target_from_string ("danger-full-access", &mode, &error));
  g_assert_cmpint (mode, ==, DFA);
  g_assert_false (dsh_escalation_target_from_string ("read-only", &mode, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (dsh_escalation_target_from_string ("Workspace-Write", &mode, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
}

static void
test_validate_args (void)
{
  static const struct {
    const char *permissions;
    const char *justification;
    const char *message;
  } cases[] = {
    { NULL, NULL, NULL },
    { "workspace-write", "the build writes here", NULL },
    { "workspace-write", NULL,
      "invalid escalation: sandbox_permissions requires a justification" },
    { NULL, "because",
      "invalid escalation: justification is only valid together with sandbox_permissions" },
    { "workspace-write", "", "invalid justification: expected a non-empty sentence" },
    { "workspace-write", " \t\n", "invalid justification: expected a non-empty sentence" },
    /* Unicode white space, as a JavaScript trim() removes it. */
    { "workspace-write", "\u3000\u00a0\u2028\ufeff",
      "invalid justification: expected a non-empty sentence" },
    { "danger-full-access", "\xff\xfe", "invalid justification: not valid UTF-8" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      gboolean ok = dsh_escalation_validate_args (cases[i].permissions, cases[i].justification,
                                                  &error);

      if (cases[i].message == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
        }
      else
        {
          g_assert_false (ok);
          g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
          g_assert_cmpstr (error->message, ==, cases[i].message);
        }
    }
}

/* Every code point JavaScript's String.prototype.trim() removes (WhiteSpace and
 * LineTerminator), alone and together, is no justification; what trim() keeps is one. */
static void
test_justification_trim (void)
{
  static const gunichar trimmed[] = {
    0x0009, 0x000A, 0x000B, 0x000C, 0x000D, 0x0020, 0x00A0, 0x1680, 0x2000, 0x2001, 0x2002,
    0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F,
    0x205F, 0x3000, 0xFEFF,
  };
  /* NEL, the Mongolian vowel separator, zero-width space and joiner, word joiner. */
  static const gunichar kept[] = { 0x0085, 0x180E, 0x200B, 0x200D, 0x2060 };
  g_autoptr (GString) all = g_string_new (NULL);

  for (guint i = 0; i <= G_N_ELEMENTS (trimmed); i++)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      g_autoptr (GError) error = NULL;

      if (i < G_N_ELEMENTS (trimmed))
        {
          g_string_append_unichar (text, trimmed[i]);
          g_string_append_unichar (all, trimmed[i]);
        }
      else
        g_string_assign (text, all->str);
      g_test_message ("U+%04X", i < G_N_ELEMENTS (trimmed) ? trimmed[i] : 0);
      g_assert_false (dsh_escalation_validate_args ("workspace-write", text->str, &error));
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, "invalid justification: expected a non-empty sentence");
    }
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      g_autoptr (GString) text = g_string_new (all->str);
      g_autoptr (GError) error = NULL;

      g_string_append_unichar (text, kept[i]);
      g_string_append (text, all->str);
      g_test_message ("U+%04X", kept[i]);
      g_assert_true (dsh_escalation_validate_args ("workspace-write", text->str, &error));
      g_assert_no_error (error);
    }
}

static void
test_composition (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (dsh_escalation_check_composition (TRUE, "workspace-write", &error));
  g_assert_true (dsh_escalation_check_composition (FALSE, NULL, &error));
  g_assert_false (dsh_escalation_check_composition (FALSE, "workspace-write", &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ESCALATION_REFUSED);
  g_assert_cmpstr (error->message, ==,
                   "sandbox_permissions is not available in this composition (no sandboxing "
                   "executor to escalate)");
}

static void
test_could_be_approved (void)
{
  const DshApprovalPolicy ask = DSH_APPROVAL_POLICY_ASK;
  const DshApprovalPolicy never = DSH_APPROVAL_POLICY_NEVER;

  g_assert_true (dsh_escalation_could_be_approved (RO, ask, TRUE, TRUE));
  g_assert_true (dsh_escalation_could_be_approved (WW, ask, TRUE, TRUE));
  g_assert_false (dsh_escalation_could_be_approved (DFA, ask, TRUE, TRUE));
  g_assert_false (dsh_escalation_could_be_approved (RO, never, TRUE, TRUE));
  g_assert_false (dsh_escalation_could_be_approved (RO, ask, FALSE, TRUE));
  g_assert_false (dsh_escalation_could_be_approved (RO, ask, TRUE, FALSE));
}

/* ---- the ordered sequence ------------------------------------------------------------------ */

typedef struct {
  char *dir;
  char *path;
  DshSessionLog *log;
  DshApprovalService *service;
  DshTestAnswerer *answerer;
  DshEscalationChannel channel;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *turn = NULL;

  f->dir = dsh_test_make_tmp_dir ();
  f->path = g_build_filename (f->dir, "session.jsonl", NULL);
  f->log = dsh_test_create_session_log (f->path, f->dir);
  turn = dsh_session_log_begin_turn (f->log, &error);
  g_assert_no_error (error);
  f->service = dsh_approval_service_new ();
  f->answerer = dsh_test_answerer_new (DSH_APPROVAL_OUTCOME_UNAVAILABLE);
  dsh_approval_service_add_answerer (f->service, DSH_APPROVAL_ANSWERER (f->answerer), f->log);
  f->channel.service = f->service;
  f->channel.session = f->log;
  f->channel.call_policy = DSH_APPROVAL_POLICY_ASK;
  f->channel.tool_name = "bash";
  f->channel.call_id = "call-7";
  f->channel.subject = "command";
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_clear_object (&f->answerer);
  g_clear_object (&f->service);
  g_clear_object (&f->log);
  g_free (f->path);
  g_free (f->dir);
}

static guint
count_events (DshSessionLog *log, DshSessionEventKind kind)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (log);
  guint n = 0;

  for (guint i = 0; i < events->len; i++)
    n += dsh_session_event_get_kind (events->pdata[i]) == kind;
  return n;
}

/* Runs the sequence; returns the refusal text (NULL when granted). The out-arguments may be
 * NULL where a test does not look at them. */
static char *
approve (Fixture *f, DshSandboxMode effective, DshSandboxMode requested, DshSandboxMode *granted,
         gboolean *asked, DshApprovalOutcome *outcome)
{
  g_autoptr (GError) error = NULL;
  DshSandboxMode unused_granted;
  gboolean unused_asked;
  DshApprovalOutcome unused_outcome;

  if (dsh_escalation_approve (effective, requested, "the build writes here", &f->channel, NULL,
                              granted != NULL ? granted : &unused_granted,
                              asked != NULL ? asked : &unused_asked,
                              outcome != NULL ? outcome : &unused_outcome, &error))
    {
      g_assert_no_error (error);
      return NULL;
    }
  g_assert_nonnull (error);
  return g_strdup (error->message);
}

static void
test_not_wider_never_asks (Fixture *f, gconstpointer data)
{
  static const struct {
    DshSandboxMode effective;
    DshSandboxMode requested;
    const char *message;
  } cases[] = {
    { WW, WW, "sandbox escalation to \"workspace-write\" is not strictly wider than this "
              "call's current \"workspace-write\" mode" },
    { DFA, WW, "sandbox escalation to \"workspace-write\" is not strictly wider than this "
               "call's current \"danger-full-access\" mode" },
    { DFA, DFA, "sandbox escalation to \"danger-full-access\" is not strictly wider than this "
                "call's current \"danger-full-access\" mode" },
    { RO, RO, "sandbox escalation to \"read-only\" is not strictly wider than this call's "
              "current \"read-only\" mode" },
  };

  f->answerer->outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean asked = TRUE;
      g_autofree char *message = approve (f, cases[i].effective, cases[i].requested, NULL,
                                          &asked, NULL);

      g_assert_cmpstr (message, ==, cases[i].message);
      g_assert_false (asked);
    }
  /* Nobody was asked and nothing was logged: the model's mistake stays off the record. */
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  g_assert_cmpuint (count_events (f->log, DSH_SESSION_EVENT_APPROVAL_ASKED), ==, 0);
}

/* approve() of a request from effective to requested is refused with exactly expected. */
static void
assert_refused_with (Fixture *f, DshSandboxMode effective, DshSandboxMode requested,
                     const char *expected)
{
  g_autofree char *message = approve (f, effective, requested, NULL, NULL, NULL);

  g_assert_cmpstr (message, ==, expected);
}

static void
test_widening_checked_before_channel (Fixture *f, gconstpointer data)
{
  /* No service and no session either: the widening text still comes first. */
  f->channel.service = NULL;
  f->channel.session = NULL;
  assert_refused_with (f, WW, WW,
                       "sandbox escalation to \"workspace-write\" is not strictly wider than "
                       "this call's current \"workspace-write\" mode");
}

static void
test_no_service (Fixture *f, gconstpointer data)
{
  f->channel.service = NULL;
  f->channel.session = NULL;
  assert_refused_with (f, RO, WW,
                       "sandbox escalation to \"workspace-write\" requires approval, but no "
                       "approval service is composed");
}

static void
test_no_agent (Fixture *f, gconstpointer data)
{
  f->channel.session = NULL;
  assert_refused_with (f, RO, DFA,
                       "sandbox escalation to \"danger-full-access\" requires approval, but the "
                       "call has no agent to route it through");
  g_assert_cmpuint (f->answerer->calls, ==, 0);
}

static void
test_outcomes (Fixture *f, gconstpointer data)
{
  static const struct {
    DshApprovalOutcome outcome;
    const char *subject;
    const char *message;
  } cases[] = {
    { DSH_APPROVAL_OUTCOME_ALLOWED_ONCE, "command", NULL },
    { DSH_APPROVAL_OUTCOME_REJECTED, "command",
      "the user rejected escalating this command to \"danger-full-access\"" },
    { DSH_APPROVAL_OUTCOME_REJECTED, "operation",
      "the user rejected escalating this operation to \"danger-full-access\"" },
    { DSH_APPROVAL_OUTCOME_CANCELLED, "command",
      "approval for escalating to \"danger-full-access\" was cancelled" },
    { DSH_APPROVAL_OUTCOME_UNAVAILABLE, "command",
      "sandbox escalation to \"danger-full-access\" requires approval, but no approval channel "
      "is available" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean asked = FALSE;
      DshApprovalOutcome outcome = 99;
      DshSandboxMode granted = RO;
      g_autofree char *message = NULL;

      f->answerer->outcome = cases[i].outcome;
      f->channel.subject = cases[i].subject;
      message = approve (f, WW, DFA, &granted, &asked, &outcome);
      g_assert_cmpstr (message, ==, cases[i].message);
      g_assert_true (asked);
      g_assert_cmpint (outcome, ==, cases[i].outcome);
      if (cases[i].message == NULL)
        g_assert_cmpint (granted, ==, DFA);
      /* The reason names the target: it is part of the grant's identity. */
      g_assert_cmpstr (f->answerer->last_reason, ==,
                       "escalate sandbox to danger-full-access: the build writes here");
      /* The tool's own call id reaches the answerer. */
      g_assert_cmpstr (f->answerer->last_call_id, ==, "call-7");
    }
  g_assert_cmpuint (f->answerer->calls, ==, G_N_ELEMENTS (cases));
  g_assert_cmpuint (count_events (f->log, DSH_SESSION_EVENT_APPROVAL_DECIDED), ==,
                    G_N_ELEMENTS (cases));
}

static void
test_never (Fixture *f, gconstpointer data)
{
  g_autofree char *message = NULL;
  g_autoptr (GError) error = NULL;
  gboolean asked = FALSE;
  DshApprovalOutcome outcome;

  f->answerer->outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;
  g_assert_true (dsh_approval_service_set_policy (f->service, f->log, DSH_APPROVAL_POLICY_NEVER,
                                                  NULL, &error));
  message = approve (f, RO, WW, NULL, &asked, &outcome);
  g_assert_cmpstr (message, ==,
                   "the user rejected escalating this command to \"workspace-write\"");
  g_assert_true (asked);
  g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_REJECTED);
  g_assert_cmpuint (f->answerer->calls, ==, 0);
  /* Still on the record. */
  g_assert_cmpuint (count_events (f->log, DSH_SESSION_EVENT_APPROVAL_ASKED), ==, 1);
  g_assert_cmpuint (count_events (f->log, DSH_SESSION_EVENT_APPROVAL_DECIDED), ==, 1);
}

static void
test_request_failure_refuses (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (f->log);
  g_autofree char *message = NULL;
  g_autoptr (GError) error = NULL;
  gboolean asked = TRUE;

  /* Outside a turn the approval request itself fails: refused with its text, not granted. */
  for (guint i = 0; i < events->len; i++)
    {
      if (dsh_session_event_get_kind (events->pdata[i]) == DSH_SESSION_EVENT_TURN_START)
        g_assert_true (dsh_session_log_end_turn (
          f->log, dsh_session_event_get_string (events->pdata[i], "id"), &error));
    }
  f->answerer->outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;
  message = approve (f, RO, WW, NULL, &asked, NULL);
  g_assert_true (g_str_has_prefix (message, "approval.request() outside an open turn"));
  g_assert_false (asked);
  g_assert_cmpuint (f->answerer->calls, ==, 0);
}

/* ---- texts --------------------------------------------------------------------------------- */

static void
test_markers (void)
{
  g_autofree char *denied = dsh_text_denial_marker (WW);
  g_autofree char *hint = dsh_text_escalation_hint ("command");
  g_autofree char *reason = dsh_text_escalation_reason ("workspace-write", "needs to write");

  g_assert_cmpstr (denied, ==, "[sandbox: file access denied under workspace-write mode]");
  g_assert_cmpstr (hint, ==,
                   "[sandbox: escalation available \u2014 retry this exact command once with "
                   "sandbox_permissions (the narrowest wider mode that suffices) + "
                   "justification; the approval prompt asks the user]");
  g_assert_cmpstr (reason, ==, "escalate sandbox to workspace-write: needs to write");
}

static const char paragraph[] =
  "Attempting a command the sandbox may deny is safe and expected: run it and read the marker "
  "rather than assuming the denial. When a command is denied and a wider mode would let it "
  "succeed, escalate immediately in the same turn \u2014 the one sanctioned exception to a "
  "denial: retry the exact same command once with `sandbox_permissions` (the narrowest wider "
  "mode that suffices) plus a one-sentence `justification`. Do not detour through chat to ask "
  "permission first \u2014 the approval prompt raised by that retry is how the user consents. "
  "If the session states approval prompts are disabled, there is no exception: a denial is "
  "final \u2014 do not set `sandbox_permissions`. Never escalate speculatively: ground the "
  "request in a real denial \u2014 normally the one this command just hit; escalating up front "
  "is fine only when this session already denied the same access. A rejected escalation is "
  "final for that command \u2014 stop and explain, never work around it \u2014 but it does not "
  "forbid attempting or escalating other commands later.";

static const char never_text[] =
  "Approval prompts are disabled in this session: actions that require approval are rejected "
  "automatically \u2014 do not request sandbox escalation (do not set `sandbox_permissions`).";

static void
test_bash_description (void)
{
  g_autofree char *confining = dsh_bash_description (TRUE);
  g_autofree char *plain = dsh_bash_description (FALSE);
  g_autofree char *expected = NULL;

  g_assert_cmpstr (dsh_text_bash_escalation_paragraph (), ==, paragraph);
  expected = g_strconcat (SEED_BASH_DESCRIPTION_BASE, "\n\n", SEED_BASH_ESCALATION_PARAGRAPH,
                          NULL);
  g_assert_cmpstr (confining, ==, expected);
  /* Registry-level: no session fact, "never" included, ever enters it. */
  g_assert_null (strstr (confining, never_text));
  /* No confining executor: nothing to escalate, nothing advertised. */
  g_assert_cmpstr (plain, ==, SEED_BASH_DESCRIPTION_BASE);
  g_assert_null (strstr (plain, "sandbox_permissions"));
}

/* The per-session facts go to the runtime context instead. */
static void
test_runtime_context (void)
{
  g_autofree char *ask = dsh_text_runtime_context (DSH_SANDBOX_MODE_READ_ONLY, "/w", NULL,
                                                   DSH_APPROVAL_POLICY_ASK);
  g_autofree char *never = dsh_text_runtime_context (DSH_SANDBOX_MODE_WORKSPACE_WRITE, "/w", NULL,
                                                     DSH_APPROVAL_POLICY_NEVER);
  g_autofree char *ww = seed_policy_context (DSH_SANDBOX_MODE_WORKSPACE_WRITE, "/w");
  g_autofree char *expected = g_strconcat (ww, "\n\n", SEED_APPROVAL_NEVER, NULL);

  g_assert_cmpstr (ask, ==, SEED_POLICY_CONTEXT_READ_ONLY);
  g_assert_cmpstr (never, ==, expected);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/escalation/wider-modes", test_wider_modes);
  g_test_add_func ("/escalation/targets", test_targets);
  g_test_add_func ("/escalation/validate-args", test_validate_args);
  g_test_add_func ("/escalation/justification-trim", test_justification_trim);
  g_test_add_func ("/escalation/composition", test_composition);
  g_test_add_func ("/escalation/runtime-context", test_runtime_context);
  g_test_add_func ("/escalation/could-be-approved", test_could_be_approved);
#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/escalation/sequence/not-wider-never-asks", test_not_wider_never_asks);
  ADD ("/escalation/sequence/widening-first", test_widening_checked_before_channel);
  ADD ("/escalation/sequence/no-service", test_no_service);
  ADD ("/escalation/sequence/no-agent", test_no_agent);
  ADD ("/escalation/sequence/outcomes", test_outcomes);
  ADD ("/escalation/sequence/never", test_never);
  ADD ("/escalation/sequence/request-failure", test_request_failure_refuses);
#undef ADD
  g_test_add_func ("/escalation/texts/markers", test_markers);
  g_test_add_func ("/escalation/texts/bash-description", test_bash_description);
  g_test_add_func ("/escalation/texts/runtime-context", test_runtime_context);

  return g_test_run ();
}
