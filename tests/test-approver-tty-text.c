/* test-approver-tty-text.c — the terminal approver's text: which typed lines answer, and the
 * question it shows, exactly, for plain and for hostile requests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dsh-approver-tty-text.h"

static void
assert_answer (const char *line, gsize length, gboolean overlong, gboolean settled,
               DshApprovalOutcome expected)
{
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;

  g_assert_cmpint (dsh_tty_answer_from_line (line, length, overlong, &outcome), ==, settled);
  g_assert_cmpint (outcome, ==, settled ? expected : DSH_APPROVAL_OUTCOME_UNAVAILABLE);
}

static void
test_answers (void)
{
  const char *yes[] = { "y", "yes", "Y", "YeS", " yes\t", "\fy\r", NULL };
  const char *no[] = { "n", "no", "N", "nO", "  no  ", NULL };
  const char *neither[] = { "", " ", "ye", "yess", "yes no", "yes!", "nope", "allowed-once",
                            "\vy", "\xc2\xa0yes", "\xef\xbd\x99", "\x1b[Ay", NULL };

  for (guint i = 0; yes[i] != NULL; i++)
    assert_answer (yes[i], strlen (yes[i]), FALSE, TRUE, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);
  for (guint i = 0; no[i] != NULL; i++)
    assert_answer (no[i], strlen (no[i]), FALSE, TRUE, DSH_APPROVAL_OUTCOME_REJECTED);
  for (guint i = 0; neither[i] != NULL; i++)
    assert_answer (neither[i], strlen (neither[i]), FALSE, FALSE, 0);
  /* What follows past the limit was typed on the same line: the line is not an answer. */
  assert_answer ("yes", 3, TRUE, FALSE, 0);
  assert_answer ("n", 1, TRUE, FALSE, 0);
}

/* A typed NUL used to end the word: "y<NUL>anything" answered yes (regression-nul-in-line). */
static void
test_nul_is_no_answer (void)
{
  assert_answer ("y\0junk", 6, FALSE, FALSE, 0);
  assert_answer ("yes\0", 4, FALSE, FALSE, 0);
  assert_answer ("\0no", 3, FALSE, FALSE, 0);
  assert_answer ("n\0", 2, FALSE, FALSE, 0);
}

static char *
prompt_for (JsonObject *details)
{
  g_autoptr (DshApprovalRequest) request =
    dsh_approval_request_new ("req-1", "shell", "escalate sandbox to workspace-write: why",
                              "session-1", NULL, details);

  return dsh_tty_format_prompt (request);
}

static JsonArray *
strings (const char *const *words)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; words[i] != NULL; i++)
    json_array_add_string_element (array, words[i]);
  return array;
}

static void
test_plain_prompt (void)
{
  const char *argv[] = { "make", "-j4", "a b", "", "it's", NULL };
  g_autoptr (JsonObject) details = json_object_new ();
  g_autoptr (JsonObject) no_details = json_object_new ();
  g_autofree char *prompt = NULL;
  g_autofree char *reason_only = NULL;

  json_object_set_array_member (details, "command", strings (argv));
  json_object_set_string_member (details, "requestedMode", "workspace-write");
  json_object_set_string_member (details, "standingMode", "read-only");
  json_object_set_string_member (details, "justification", "needs to write build/");
  prompt = prompt_for (details);
  g_assert_cmpstr (prompt, ==,
                   "\ndsh-sandbox: approval requested for shell\n"
                   "  justification:  needs to write build/\n"
                   "  command:        make -j4 'a b' '' 'it'\\''s'\n"
                   "  requested mode: workspace-write (standing mode: read-only)\n"
                   "Run this command once under workspace-write? [y/n] ");

  reason_only = prompt_for (no_details);
  g_assert_cmpstr (reason_only, ==,
                   "\ndsh-sandbox: approval requested for shell\n"
                   "  reason:         escalate sandbox to workspace-write: why\n"
                   "Allow this once? [y/n] ");
}

/* The extra roots a workspace-write grant opens are shown, escaped like the command. */
static void
test_extra_roots_prompt (void)
{
  const char *argv[] = { "make", NULL };
  const char *extra[] = { "/home/me/.npm", "/srv/a b", NULL };
  g_autoptr (JsonObject) details = json_object_new ();
  g_autofree char *prompt = NULL;

  json_object_set_array_member (details, "command", strings (argv));
  json_object_set_string_member (details, "requestedMode", "workspace-write");
  json_object_set_string_member (details, "standingMode", "read-only");
  json_object_set_array_member (details, "extraWritableRoots", strings (extra));
  json_object_set_string_member (details, "justification", "needs to write build/");
  prompt = prompt_for (details);
  g_assert_cmpstr (prompt, ==,
                   "\ndsh-sandbox: approval requested for shell\n"
                   "  justification:  needs to write build/\n"
                   "  command:        make\n"
                   "  requested mode: workspace-write (standing mode: read-only)\n"
                   "  also writable:  /home/me/.npm '/srv/a b'\n"
                   "Run this command once under workspace-write? [y/n] ");
}

/* Escape sequences, C0 and C1 controls, DEL, every bidirectional control and invalid UTF-8
 * from the request are shown escaped or replaced, never sent to the terminal as they are. */
static void
test_hostile_prompt (void)
{
  const char *argv[] = { "echo", "\x1b]0;owned\x07", "\xc2\x9b" "2J", NULL };
  g_autoptr (JsonObject) details = json_object_new ();
  g_autofree char *prompt = NULL;

  json_object_set_array_member (details, "command", strings (argv));
  json_object_set_string_member (details, "requestedMode", "read-only\x1b[2J");
  json_object_set_string_member (details, "justification",
                                 "a\rb\x7f" "c\xe2\x80\xae" "d\xd8\x9c" "e\xe2\x81\xa6"
                                 "f\xe2\x80\x8f" "g\xff" "h\n");
  prompt = prompt_for (details);
  g_assert_cmpstr (prompt, ==,
                   "\ndsh-sandbox: approval requested for shell\n"
                   "  justification:  a\\u{000D}b\\u{007F}c\\u{202E}d\\u{061C}e\\u{2066}"
                   "f\\u{200F}g\xef\xbf\xbdh\\u{000A}\n"
                   "  command:        echo '\\u{001B}]0;owned\\u{0007}' '\\u{009B}2J'\n"
                   "  requested mode: read-only\\u{001B}[2J\n"
                   "Run this command once under read-only\\u{001B}[2J? [y/n] ");
}

/* Text that wraps at the terminal's width draws lines of its own: padded with blanks, a
 * justification (or an argument) could scroll the real command away and show a harmless one
 * in the prompt's own layout right above the question. Runs of blanks and blank-looking
 * characters are escaped or collapsed, the prose is shown first and cut short, and the last
 * lines before the question are the command and the mode as they are. */
static void
test_forged_prompt (void)
{
  const char *argv[] = { "sh", "-c", "rm -rf ~ #        \xe2\xa0\x80\xe3\x85\xa4\xc2\xa0x", NULL };
  g_autoptr (JsonObject) details = json_object_new ();
  g_autoptr (GString) justification = g_string_new ("the build needs it");
  g_autofree char *prompt = NULL;
  g_autofree char *tail = NULL;

  g_string_append_printf (justification, "%*s", 62 + 80 * 40, "");
  g_string_append (justification, "  command:        ls -la build");
  g_string_append_printf (justification, "%*s", 50, "");
  json_object_set_array_member (details, "command", strings (argv));
  json_object_set_string_member (details, "requestedMode", "danger-full-access");
  json_object_set_string_member (details, "standingMode", "read-only");
  json_object_set_string_member (details, "justification", justification->str);
  prompt = prompt_for (details);
  g_assert_cmpstr (prompt, ==,
                   "\ndsh-sandbox: approval requested for shell\n"
                   "  justification:  the build needs it command: ls -la build \n"
                   "  command:        sh -c 'rm -rf ~ # \\u{0020}\\u{0020}\\u{0020}\\u{0020}"
                   "\\u{0020}\\u{0020}\\u{0020}\\u{2800}\\u{3164}\\u{00A0}x'\n"
                   "  requested mode: danger-full-access (standing mode: read-only)\n"
                   "Run this command once under danger-full-access? [y/n] ");

  /* Prose too long to read is cut, and says so. */
  g_string_truncate (justification, 0);
  for (guint i = 0; i < 300; i++)
    g_string_append (justification, "ab ");
  json_object_set_string_member (details, "justification", justification->str);
  g_clear_pointer (&prompt, g_free);
  prompt = prompt_for (details);
  g_assert_nonnull (strstr (prompt, "ab ab [400 more characters not shown]\n  command:  "));
}

/* The details may hold any JSON: what is not a string shows as an empty word, and a mode or a
 * justification that is not a string is left out, without a critical. */
static void
test_odd_details (void)
{
  g_autoptr (JsonObject) details = json_object_new ();
  JsonArray *command = json_array_new ();
  g_autofree char *prompt = NULL;

  json_array_add_string_element (command, "ls");
  json_array_add_int_element (command, 7);
  json_array_add_null_element (command);
  json_array_add_array_element (command, json_array_new ());
  json_array_add_object_element (command, json_object_new ());
  json_object_set_array_member (details, "command", command);
  json_object_set_int_member (details, "requestedMode", 3);
  json_object_set_boolean_member (details, "justification", TRUE);
  prompt = prompt_for (details);
  g_assert_cmpstr (prompt, ==,
                   "\ndsh-sandbox: approval requested for shell\n"
                   "  reason:         escalate sandbox to workspace-write: why\n"
                   "  command:        ls '' '' '' ''\n"
                   "Allow this once? [y/n] ");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/approver-tty/answers", test_answers);
  g_test_add_func ("/approver-tty/nul-is-no-answer", test_nul_is_no_answer);
  g_test_add_func ("/approver-tty/plain-prompt", test_plain_prompt);
  g_test_add_func ("/approver-tty/extra-roots-prompt", test_extra_roots_prompt);
  g_test_add_func ("/approver-tty/hostile-prompt", test_hostile_prompt);
  g_test_add_func ("/approver-tty/forged-prompt", test_forged_prompt);
  g_test_add_func ("/approver-tty/odd-details", test_odd_details);
  return g_test_run ();
}
