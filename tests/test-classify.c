/* test-classify.c — each clause of result classification: runner failure needs a nonzero exit,
 * the exit-code gate, and a fatal signature on a line that is not informational; denial needs
 * a nonzero exit and this backend's own dialect; anything else is the command's own result.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dsh-sandbox.h>

static DshConfinedArgv *
make_confined (gboolean with_exit_gate, gboolean with_informational)
{
  const char *argv[] = { "runner", "--", "cmd", NULL };
  const char *denials[] = { "Read-only file system", NULL };
  const char *fatal[] = { "runner: fatal:", "runner: cannot create namespace", NULL };
  const char *info[] = { "runner: fatal: this line is only a notice", NULL };
  const int codes[] = { 1, 125 };
  g_autoptr (GPtrArray) rules = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_runner_failure_rule_free);

  g_ptr_array_add (rules, dsh_runner_failure_rule_new (with_exit_gate ? codes : NULL,
                                                      with_exit_gate ? 2 : 0, fatal,
                                                      with_informational ? info : NULL));
  return dsh_confined_argv_new (argv, "test", DSH_ENFORCEMENT_FULL, NULL, denials, rules);
}

static DshOutcome
classify (DshConfinedArgv *confined, int exit_code, const char *stderr_text, char **detail)
{
  return dsh_classify_result (confined, exit_code, stderr_text, detail);
}

static void
test_exit_zero_is_completed (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (FALSE, FALSE);

  /* Even with both kinds of evidence on stderr, success is success. */
  g_assert_cmpint (classify (confined, 0, "runner: fatal: x\nRead-only file system\n", NULL), ==,
                   DSH_OUTCOME_COMPLETED);
}

static void
test_fatal_signature_is_runner_failure (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (FALSE, FALSE);
  g_autofree char *detail = NULL;

  g_assert_cmpint (classify (confined, 3, "noise\nRUNNER: FATAL: no namespaces\nmore\n", &detail),
                   ==, DSH_OUTCOME_RUNNER_FAILURE);
  /* The matched line, unchanged, is the detail. */
  g_assert_cmpstr (detail, ==, "RUNNER: FATAL: no namespaces");
}

static void
test_runner_failure_checked_before_denial (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (FALSE, FALSE);
  g_autofree char *detail = NULL;

  g_assert_cmpint (classify (confined, 1,
                             "sh: x: Read-only file system\nrunner: cannot create namespace: EPERM",
                             &detail),
                   ==, DSH_OUTCOME_RUNNER_FAILURE);
  g_assert_cmpstr (detail, ==, "runner: cannot create namespace: EPERM");
}

static void
test_exit_code_gate (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (TRUE, FALSE);

  g_assert_cmpint (classify (confined, 125, "runner: fatal: x\n", NULL), ==,
                   DSH_OUTCOME_RUNNER_FAILURE);
  g_assert_cmpint (classify (confined, 1, "runner: fatal: x\n", NULL), ==,
                   DSH_OUTCOME_RUNNER_FAILURE);
  /* Outside the gate the same line proves nothing. */
  g_assert_cmpint (classify (confined, 2, "runner: fatal: x\n", NULL), ==,
                   DSH_OUTCOME_COMPLETED);
}

static void
test_exit_status_alone_proves_nothing (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (TRUE, FALSE);

  g_assert_cmpint (classify (confined, 125, "", NULL), ==, DSH_OUTCOME_COMPLETED);
  g_assert_cmpint (classify (confined, 125, "the command failed on its own\n", NULL), ==,
                   DSH_OUTCOME_COMPLETED);
  g_assert_cmpint (classify (confined, 125, NULL, NULL), ==, DSH_OUTCOME_COMPLETED);
}

static void
test_informational_lines_excluded (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (FALSE, TRUE);
  g_autofree char *detail = NULL;

  /* Exact whole-line equality, case-insensitively, also with CRLF. */
  g_assert_cmpint (classify (confined, 1, "runner: fatal: this line is only a notice\n", NULL), ==,
                   DSH_OUTCOME_COMPLETED);
  g_assert_cmpint (classify (confined, 1, "RUNNER: Fatal: This Line Is Only A Notice\r\n", NULL),
                   ==, DSH_OUTCOME_COMPLETED);
  /* A longer line is not the informational line. */
  g_assert_cmpint (classify (confined, 1, "runner: fatal: this line is only a notice!\n", &detail),
                   ==, DSH_OUTCOME_RUNNER_FAILURE);
  g_assert_cmpstr (detail, ==, "runner: fatal: this line is only a notice!");
}

static void
test_denial_dialect (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (FALSE, FALSE);

  g_assert_cmpint (classify (confined, 2, "sh: 1: cannot create f: Read-only file system\n", NULL),
                   ==, DSH_OUTCOME_DENIED);
  g_assert_cmpint (classify (confined, 2, "sh: 1: cannot create f: READ-ONLY FILE SYSTEM\n", NULL),
                   ==, DSH_OUTCOME_DENIED);
  /* Another backend's dialect is not this backend's denial. */
  g_assert_cmpint (classify (confined, 1, "touch: cannot touch 'f': Permission denied\n", NULL),
                   ==, DSH_OUTCOME_COMPLETED);
  g_assert_cmpint (classify (confined, 1, "Operation not permitted\n", NULL), ==,
                   DSH_OUTCOME_COMPLETED);
}

/* An SSH login refused in the dialect's own words, as a Landlock-like backend excludes it. */
static DshConfinedArgv *
make_confined_with_exclusions (void)
{
  const char *argv[] = { "runner", "--", "cmd", NULL };
  const char *denials[] = { "Permission denied", NULL };
  const char *exclusions[] = { "Permission denied (publickey", NULL };
  const char *fatal[] = { "runner: fatal:", NULL };
  g_autoptr (GPtrArray) rules = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_runner_failure_rule_free);

  g_ptr_array_add (rules, dsh_runner_failure_rule_new (NULL, 0, fatal, NULL));
  return dsh_confined_argv_new_full (argv, "test", DSH_ENFORCEMENT_FULL, NULL, denials,
                                     exclusions, rules);
}

static void
test_denial_exclusions (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined_with_exclusions ();
  g_autoptr (DshConfinedArgv) plain = make_confined (FALSE, FALSE);
  static const char ssh[] = "git@github.com: Permission denied (publickey).\r\n"
                            "fatal: Could not read from remote repository.\n";
  static const char both[] = "git@host: PERMISSION DENIED (PUBLICKEY,PASSWORD).\n"
                             "sh: 1: cannot create /etc/x: Permission denied\n";
  static const char nul_hidden[] = "git@host: Permission denied (publickey).\0\n"
                                   "touch: cannot touch 'f': Permission denied\n";

  g_assert_cmpstr (dsh_confined_argv_get_denial_exclusions (confined)[0], ==,
                   "Permission denied (publickey");
  g_assert_null (dsh_confined_argv_get_denial_exclusions (plain)[0]);

  /* The excluded line alone is the command's own failure... */
  g_assert_cmpint (classify (confined, 128, ssh, NULL), ==, DSH_OUTCOME_COMPLETED);
  /* ...a real denial on another line of the same stderr still counts, whichever entry point... */
  g_assert_cmpint (classify (confined, 128, both, NULL), ==, DSH_OUTCOME_DENIED);
  g_assert_cmpint (dsh_classify_result_len (confined, 1, nul_hidden, sizeof nul_hidden - 1, NULL),
                   ==, DSH_OUTCOME_DENIED);
  /* ...and an exclusion only takes out the line it is on, not text that merely looks alike. */
  g_assert_cmpint (classify (confined, 101, "error: Permission denied (os error 13)\n", NULL), ==,
                   DSH_OUTCOME_DENIED);
  /* Exclusions never turn a runner failure into anything else. */
  g_assert_cmpint (classify (confined, 1, "runner: fatal: Permission denied (publickey)\n", NULL),
                   ==, DSH_OUTCOME_RUNNER_FAILURE);
}

static void
test_denial_exclusions_json (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined_with_exclusions ();
  g_autoptr (DshConfinedArgv) plain = make_confined (FALSE, FALSE);
  g_autoptr (JsonNode) node = dsh_confined_argv_to_json (confined);
  g_autoptr (JsonNode) plain_node = dsh_confined_argv_to_json (plain);
  JsonArray *exclusions = json_object_get_array_member (json_node_get_object (node),
                                                        "denialExclusions");

  g_assert_cmpuint (json_array_get_length (exclusions), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (exclusions, 0), ==,
                   "Permission denied (publickey");
  exclusions = json_object_get_array_member (json_node_get_object (plain_node),
                                             "denialExclusions");
  g_assert_nonnull (exclusions);
  g_assert_cmpuint (json_array_get_length (exclusions), ==, 0);
}

static void
test_non_utf8_stderr (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (FALSE, FALSE);
  g_autofree char *detail = NULL;

  g_assert_cmpint (classify (confined, 1, "\xff\xfe runner: fatal: \xc3\n", &detail), ==,
                   DSH_OUTCOME_RUNNER_FAILURE);
  g_assert_true (g_utf8_validate (detail, -1, NULL));
}

static void
test_nul_bytes_hide_nothing (void)
{
  g_autoptr (DshConfinedArgv) confined = make_confined (FALSE, FALSE);
  static const char denial[] = "noise\0\nsh: 1: cannot create f: Read-only file system\n";
  static const char fatal[] = "\0runner: fatal: no namespaces\n";
  g_autofree char *detail = NULL;

  g_assert_cmpint (dsh_classify_result_len (confined, 2, denial, sizeof denial - 1, NULL), ==,
                   DSH_OUTCOME_DENIED);
  g_assert_cmpint (dsh_classify_result_len (confined, 1, fatal, sizeof fatal - 1, &detail), ==,
                   DSH_OUTCOME_RUNNER_FAILURE);
}

static void
test_outcome_names (void)
{
  g_assert_cmpstr (dsh_outcome_to_string (DSH_OUTCOME_COMPLETED), ==, "completed");
  g_assert_cmpstr (dsh_outcome_to_string (DSH_OUTCOME_DENIED), ==, "denied");
  g_assert_cmpstr (dsh_outcome_to_string (DSH_OUTCOME_RUNNER_FAILURE), ==, "runner-failure");
  g_assert_cmpstr (dsh_outcome_to_string (DSH_OUTCOME_UNAVAILABLE), ==, "unavailable");
  g_assert_cmpstr (dsh_outcome_to_string (DSH_OUTCOME_ESCALATION_REFUSED), ==,
                   "escalation-refused");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/classify/exit-zero", test_exit_zero_is_completed);
  g_test_add_func ("/classify/runner-failure/fatal-signature",
                   test_fatal_signature_is_runner_failure);
  g_test_add_func ("/classify/runner-failure/before-denial",
                   test_runner_failure_checked_before_denial);
  g_test_add_func ("/classify/runner-failure/exit-code-gate", test_exit_code_gate);
  g_test_add_func ("/classify/runner-failure/exit-status-alone",
                   test_exit_status_alone_proves_nothing);
  g_test_add_func ("/classify/runner-failure/informational", test_informational_lines_excluded);
  g_test_add_func ("/classify/denial/dialect", test_denial_dialect);
  g_test_add_func ("/classify/denial/exclusions", test_denial_exclusions);
  g_test_add_func ("/classify/denial/exclusions-json", test_denial_exclusions_json);
  g_test_add_func ("/classify/non-utf8", test_non_utf8_stderr);
  g_test_add_func ("/classify/nul-bytes", test_nul_bytes_hide_nothing);
  g_test_add_func ("/classify/outcome-names", test_outcome_names);
  return g_test_run ();
}
