/* test-policy-service.c — policy resolution from a session's log (three layers, canonical
 * workspace root, session id), mode switches as single events, restart equality, isolation
 * between sessions, and the model-facing policy context texts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "dsh-test-util.h"

static DshSessionLog *
new_session (const char *dir, const char *name, const char *cwd)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return dsh_test_create_session_log (path, cwd);
}

static void
test_three_layers (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *canonical_dir = dsh_canonical_path (dir);
  g_autoptr (DshPolicyService) service = dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY, "/");
  g_autoptr (DshSessionLog) session = new_session (dir, "s.jsonl", dir);
  g_autoptr (DshSandboxPolicy) p1 = NULL;
  g_autoptr (DshSandboxPolicy) p2 = NULL;
  g_autoptr (DshSandboxPolicy) p3 = NULL;
  g_autoptr (DshSandboxPolicy) p4 = NULL;
  g_autoptr (GError) error = NULL;
  DshSandboxMode mode;

  /* Deployment default. */
  p1 = dsh_policy_service_resolve (service, session);
  g_assert_cmpint (p1->mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
  g_assert_cmpstr (p1->workspace_root, ==, canonical_dir);
  g_assert_cmpstr (p1->session_id, ==, dsh_session_log_get_id (session));
  g_assert_false (dsh_policy_service_override_of (service, session, &mode));

  /* The session's last sandbox/mode. */
  g_assert_true (dsh_policy_service_set_mode (service, session, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                              &error));
  g_assert_no_error (error);
  p2 = dsh_policy_service_resolve (service, session);
  g_assert_cmpint (p2->mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  g_assert_true (dsh_policy_service_override_of (service, session, &mode));
  g_assert_cmpint (mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);

  /* An explicit approved mode wins for this call only. */
  p3 = dsh_policy_service_resolve_with_mode (service, session,
                                             DSH_SANDBOX_MODE_DANGER_FULL_ACCESS);
  g_assert_cmpint (p3->mode, ==, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS);
  p4 = dsh_policy_service_resolve (service, session);
  g_assert_cmpint (p4->mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
}

static void
test_configurable_default_and_fallback (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *canonical_dir = dsh_canonical_path (dir);
  g_autoptr (DshPolicyService) service =
    dsh_policy_service_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, dir);
  g_autoptr (DshSandboxPolicy) policy = dsh_policy_service_resolve (service, NULL);
  g_autoptr (DshPolicyService) here = dsh_policy_service_new (DSH_SANDBOX_MODE_DEFAULT, NULL);
  g_autoptr (DshSandboxPolicy) here_policy = dsh_policy_service_resolve (here, NULL);
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *canonical_cwd = dsh_canonical_path (cwd);

  /* Agentless: no session id, the configured root. */
  g_assert_cmpint (policy->mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  g_assert_cmpstr (policy->workspace_root, ==, canonical_dir);
  g_assert_null (policy->session_id);
  g_assert_cmpint (here_policy->mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
  g_assert_cmpstr (here_policy->workspace_root, ==, canonical_cwd);
}

static void
test_workspace_root_is_what_chdir_reaches (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *canonical_dir = dsh_canonical_path (dir);
  g_autofree char *a = g_build_filename (dir, "a", NULL);
  g_autofree char *deep = g_build_filename (dir, "x", "y", NULL);
  g_autofree char *link = g_build_filename (a, "link", NULL);
  g_autofree char *b_via_x = g_build_filename (canonical_dir, "x", "b", NULL);
  g_autofree char *cwd = g_build_filename (a, "link", "..", "b", NULL);
  g_autoptr (DshPolicyService) service = dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY, "/");
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;

  /* a/link -> x/y, so a/link/../b is x/b for chdir, not the lexical a/b. */
  g_assert_cmpint (g_mkdir_with_parents (deep, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (a, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (b_via_x, 0700), ==, 0);
  g_assert_cmpint (symlink (deep, link), ==, 0);
  /* A symlink made within the clock's margin before the session is one made after it. */
  g_usleep (1200 * 1000);

  session = new_session (dir, "s.jsonl", cwd);
  g_assert_cmpstr (dsh_session_log_get_cwd (session), ==, cwd);
  policy = dsh_policy_service_resolve (service, session);
  g_assert_cmpstr (policy->workspace_root, ==, b_via_x);
}

static void
test_set_mode_appends_exactly_one_event (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autoptr (DshPolicyService) service = dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY, "/");
  g_autoptr (DshSessionLog) session = new_session (dir, "s.jsonl", dir);
  const char *path = dsh_session_log_get_path (session);
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < 3; i++)
    {
      guint before = dsh_test_count_lines (path);

      g_assert_true (dsh_policy_service_set_mode (service, session, (DshSandboxMode) i, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (dsh_test_count_lines (path), ==, before + 1);
    }
  g_assert_false (dsh_policy_service_set_mode (service, session, (DshSandboxMode) 9, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 4);
}

static void
test_restart_gives_same_answer (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autoptr (DshSessionLog) session = new_session (dir, "s.jsonl", dir);
  g_autoptr (GError) error = NULL;
  static const DshSandboxMode sequence[] = {
    DSH_SANDBOX_MODE_WORKSPACE_WRITE, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
    DSH_SANDBOX_MODE_READ_ONLY, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
  };

  for (guint i = 0; i < G_N_ELEMENTS (sequence); i++)
    {
      /* A fresh service and a fresh load each time: nothing survives but the file. */
      g_autoptr (DshPolicyService) before_service =
        dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY, "/");
      g_autoptr (DshPolicyService) after_service =
        dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY, "/");
      g_autoptr (DshSessionLog) restarted = NULL;
      g_autoptr (DshSandboxPolicy) before = NULL;
      g_autoptr (DshSandboxPolicy) after = NULL;

      g_assert_true (dsh_policy_service_set_mode (before_service, session, sequence[i], &error));
      before = dsh_policy_service_resolve (before_service, session);
      restarted = dsh_test_load_session_log (dsh_session_log_get_path (session));
      after = dsh_policy_service_resolve (after_service, restarted);
      g_assert_cmpint (before->mode, ==, sequence[i]);
      g_assert_cmpint (after->mode, ==, before->mode);
      g_assert_cmpstr (after->workspace_root, ==, before->workspace_root);
      g_assert_cmpstr (after->session_id, ==, before->session_id);
    }
}

static void
test_sessions_are_isolated (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *wa = g_build_filename (dir, "wa", NULL);
  g_autofree char *wb = g_build_filename (dir, "wb", NULL);
  g_autoptr (DshPolicyService) service = dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY, "/");
  g_autoptr (DshSessionLog) a = NULL;
  g_autoptr (DshSessionLog) b = NULL;
  g_autoptr (DshSandboxPolicy) pa = NULL;
  g_autoptr (DshSandboxPolicy) pb = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (wa, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (wb, 0700), ==, 0);
  a = new_session (dir, "a.jsonl", wa);
  b = new_session (dir, "b.jsonl", wb);

  /* One service, two sessions: a's switch never shows in b. */
  g_assert_true (dsh_policy_service_set_mode (service, a, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
                                              &error));
  pa = dsh_policy_service_resolve (service, a);
  pb = dsh_policy_service_resolve (service, b);
  g_assert_cmpint (pa->mode, ==, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS);
  g_assert_cmpint (pb->mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
  g_assert_cmpstr (pa->session_id, !=, pb->session_id);
  g_assert_cmpstr (pa->workspace_root, !=, pb->workspace_root);
}

/* ---- the model-facing policy context ----------------------------------------------------- */

static const char read_only_text[] =
  "Current DSH file policy: read-only. Any available operation enforced by the DSH file sandbox "
  "cannot modify files in the standing mode. Do not refuse a required modification from this "
  "policy alone: try an available tool normally and follow any denial and escalation guidance "
  "it returns.";

static void
test_context_texts (void)
{
  g_autofree char *ro = dsh_text_policy_context (DSH_SANDBOX_MODE_READ_ONLY, "/w");
  g_autofree char *ww = dsh_text_policy_context (DSH_SANDBOX_MODE_WORKSPACE_WRITE, "/srv/ws");
  g_autofree char *dfa = dsh_text_policy_context (DSH_SANDBOX_MODE_DANGER_FULL_ACCESS, "/w");
  const char *const all[] = { ro, ww, dfa };

  /* The model-facing texts, verbatim. */
  g_assert_cmpstr (ro, ==, read_only_text);
  g_assert_cmpstr (ww, ==,
                   "Current DSH file policy: workspace-write. Any available operation enforced "
                   "by the DSH file sandbox can modify files only inside the session workspace "
                   "/srv/ws in the standing mode. Some platform temporary areas may also be "
                   "writable. Do not refuse a required modification from this policy alone: try "
                   "an available tool normally and follow any denial and escalation guidance it "
                   "returns.");
  g_assert_cmpstr (dfa, ==,
                   "Current DSH file policy: danger-full-access. Available operations are not "
                   "confined by the DSH file sandbox in the standing mode, so this policy does "
                   "not prevent file modifications. Do not refuse a required modification from "
                   "this policy alone: try an available tool normally and follow any error "
                   "guidance it returns.");

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      /* Capability-neutral: no tool names, no enumerated temp areas. */
      static const char *const never[] = { "bash", "write_file", "edit", "apply_patch", "/tmp",
                                           "TMPDIR", "shell" };

      g_assert_nonnull (strstr (all[i], "Do not refuse a required modification from this "
                                        "policy alone"));
      for (guint j = 0; j < G_N_ELEMENTS (never); j++)
        g_assert_null (strstr (all[i], never[j]));
    }
}

static void
test_render_context_for_session (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *canonical_dir = dsh_canonical_path (dir);
  g_autoptr (DshPolicyService) service = dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY, "/");
  g_autoptr (DshSessionLog) session = new_session (dir, "s.jsonl", dir);
  g_autoptr (GError) error = NULL;
  g_autofree char *before = dsh_policy_service_render_context (service, session);
  g_autofree char *after = NULL;

  g_assert_cmpstr (before, ==, read_only_text);
  g_assert_true (dsh_policy_service_set_mode (service, session, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                              &error));
  after = dsh_policy_service_render_context (service, session);
  g_assert_nonnull (strstr (after, canonical_dir));
  g_assert_true (g_str_has_prefix (after, "Current DSH file policy: workspace-write."));
}

/* The context names the extra roots a call would grant: one that is no directory is left out
 * of every call, so the model is not told it may write there; once made, it is named. */
static void
test_context_names_present_roots (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *log = g_build_filename (dir, "s.jsonl", NULL);
  g_autofree char *present = g_build_filename (dir, "present", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  const char *roots[] = { present, missing, NULL };
  g_autoptr (DshPolicyService) service = dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY, "/");
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *both_expected = NULL;
  g_autofree char *one = NULL;
  g_autofree char *both = NULL;

  g_assert_cmpint (g_mkdir (present, 0700), ==, 0);
  session = dsh_session_log_create_with_roots (log, dir, roots, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_policy_service_set_mode (service, session, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                              &error));
  one = dsh_policy_service_render_context (service, session);
  g_assert_nonnull (strstr (one, "These extra directories are writable as well: "));
  g_assert_nonnull (strstr (one, present));
  g_assert_null (strstr (one, missing));

  g_assert_cmpint (g_mkdir (missing, 0700), ==, 0);
  both = dsh_policy_service_render_context (service, session);
  both_expected = g_strdup_printf ("writable as well: %s, %s.", present, missing);
  g_assert_nonnull (strstr (both, both_expected));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/policy-service/three-layers", test_three_layers);
  g_test_add_func ("/policy-service/default-and-fallback", test_configurable_default_and_fallback);
  g_test_add_func ("/policy-service/workspace-root-chdir", test_workspace_root_is_what_chdir_reaches);
  g_test_add_func ("/policy-service/set-mode-one-event", test_set_mode_appends_exactly_one_event);
  g_test_add_func ("/policy-service/restart", test_restart_gives_same_answer);
  g_test_add_func ("/policy-service/isolation", test_sessions_are_isolated);
  g_test_add_func ("/policy-context/texts", test_context_texts);
  g_test_add_func ("/policy-context/session", test_render_context_for_session);
  g_test_add_func ("/policy-context/names-present-roots", test_context_names_present_roots);

  return g_test_run ();
}
