/* test-vocabulary.c — the closed mode vocabulary parses strictly: exact spellings only, and
 * every refusal names the three valid values.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dsh-sandbox.h>

static void
test_modes_round_trip (void)
{
  const DshSandboxMode modes[] = { DSH_SANDBOX_MODE_READ_ONLY, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                   DSH_SANDBOX_MODE_DANGER_FULL_ACCESS };

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autoptr (GError) error = NULL;
      DshSandboxMode parsed = -1;

      g_assert_true (dsh_sandbox_mode_from_string (dsh_sandbox_mode_to_string (modes[i]),
                                                   &parsed, &error));
      g_assert_no_error (error);
      g_assert_cmpint (parsed, ==, modes[i]);
    }
  g_assert_cmpstr (dsh_sandbox_mode_to_string (DSH_SANDBOX_MODE_READ_ONLY), ==, "read-only");
  g_assert_cmpstr (dsh_sandbox_mode_to_string (DSH_SANDBOX_MODE_WORKSPACE_WRITE), ==,
                   "workspace-write");
  g_assert_cmpstr (dsh_sandbox_mode_to_string (DSH_SANDBOX_MODE_DANGER_FULL_ACCESS), ==,
                   "danger-full-access");
}

static void
test_modes_reject_near_misses (void)
{
  const char *bad[] = {
    "", "read_only", "Read-Only", "READ-ONLY", "readonly", " read-only", "read-only ",
    "read-only\n", "workspace", "workspace_write", "full", "danger", "danger-full-access2",
    "danger-full", "\xff\xfe", "r\xc3\xa9" "ad-only",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      DshSandboxMode parsed = DSH_SANDBOX_MODE_WORKSPACE_WRITE;

      g_assert_false (dsh_sandbox_mode_from_string (bad[i], &parsed, &error));
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message,
                                "expected one of read-only, workspace-write, danger-full-access"));
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      /* No default is ever picked for a misspelling. */
      g_assert_cmpint (parsed, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
    }
}

static void
test_modes_reject_null (void)
{
  g_autoptr (GError) error = NULL;
  DshSandboxMode parsed;

  g_assert_false (dsh_sandbox_mode_from_string (NULL, &parsed, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
}

static void
test_confined_modes (void)
{
  g_assert_true (dsh_sandbox_mode_is_confined (DSH_SANDBOX_MODE_READ_ONLY));
  g_assert_true (dsh_sandbox_mode_is_confined (DSH_SANDBOX_MODE_WORKSPACE_WRITE));
  g_assert_false (dsh_sandbox_mode_is_confined (DSH_SANDBOX_MODE_DANGER_FULL_ACCESS));
  g_assert_cmpint (DSH_SANDBOX_MODE_DEFAULT, ==, DSH_SANDBOX_MODE_READ_ONLY);
  g_assert_cmpstr (dsh_enforcement_to_string (DSH_ENFORCEMENT_FULL), ==, "full");
  g_assert_cmpstr (dsh_enforcement_to_string (DSH_ENFORCEMENT_PARTIAL), ==, "partial");
}

static void
test_error_code_names (void)
{
  g_assert_cmpstr (dsh_sandbox_error_code_name (DSH_SANDBOX_ERROR_UNAVAILABLE), ==,
                   "SANDBOX_UNAVAILABLE");
  g_assert_cmpstr (dsh_sandbox_error_code_name (DSH_SANDBOX_ERROR_FS_DENIED), ==,
                   "FS_SANDBOX_DENIED");
}

static void
test_exact_texts (void)
{
  g_autofree char *unavailable = dsh_text_unavailable ("workspace-write");
  g_autofree char *failure = dsh_text_runner_failure ("read-only", "bwrap: Can't mount proc");
  g_autofree char *marker = dsh_text_denial_marker (DSH_SANDBOX_MODE_READ_ONLY);
  g_autofree char *hint = dsh_text_escalation_hint ("command");

  g_assert_cmpstr (unavailable, ==,
                   "sandbox mode \"workspace-write\" is requested but no sandbox backend is usable "
                   "on this host; refusing to run the command unconfined. Install bubblewrap or "
                   "run a Landlock-enforcing kernel (Linux), ensure sandbox-exec is usable "
                   "(macOS), or ensure the ACL restricted-token runner can start (Windows) "
                   "\xe2\x80\x94 otherwise switch the consumer to danger-full-access.");
  g_assert_true (g_str_has_suffix (failure, ". Runner failure: bwrap: Can't mount proc"));
  g_assert_cmpstr (marker, ==, "[sandbox: file access denied under read-only mode]");
  g_assert_cmpstr (hint, ==,
                   "[sandbox: escalation available \xe2\x80\x94 retry this exact command once "
                   "with sandbox_permissions (the narrowest wider mode that suffices) + "
                   "justification; the approval prompt asks the user]");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/vocabulary/modes/round-trip", test_modes_round_trip);
  g_test_add_func ("/vocabulary/modes/near-misses", test_modes_reject_near_misses);
  g_test_add_func ("/vocabulary/modes/null", test_modes_reject_null);
  g_test_add_func ("/vocabulary/modes/confined", test_confined_modes);
  g_test_add_func ("/vocabulary/error-codes", test_error_code_names);
  g_test_add_func ("/vocabulary/texts", test_exact_texts);
  return g_test_run ();
}
