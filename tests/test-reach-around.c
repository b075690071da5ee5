/* test-reach-around.c — nothing a confined command may write can change what runs unconfined
 * later or reach around the sandbox now: an inherited writable descriptor is closed, a backend
 * module or helper inside the workspace is refused before its code runs, and a session log a
 * confined command could rewrite is refused.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>

#include "dsh-test-util.h"

static void
test_inherited_descriptor_closed (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  /* The caller holds fd 7 open for appending to a file outside the workspace. */
  const char *script = "exec 7>>\"$1\"; shift; exec \"$@\"";
  const char *modes[] = { "read-only", "workspace-write" };

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  dsh_test_write_file (outside, "original\n");

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      const char *argv[] = { "sh", "-c", script, "sh", outside, dsh_test_cli (), "exec",
                             "--mode", modes[i], "--workspace", ws, "--", "sh", "-c",
                             "echo escaped >&7", NULL };
      g_auto (DshTestRun) run = { 0 };

      dsh_test_run (&run, argv, NULL, ws, NULL);
      g_assert_cmpint (run.exit_code, !=, 0);
      g_assert_nonnull (strstr (run.err, "Bad file descriptor"));
      dsh_test_assert_file_is (outside, "original\n");
    }

  /* danger-full-access is a raw spawn: it keeps what a raw spawn would keep. */
  {
    const char *argv[] = { "sh", "-c", script, "sh", outside, dsh_test_cli (), "exec", "--mode",
                           "danger-full-access", "--workspace", ws, "--", "sh", "-c",
                           "echo raw >&7", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run (&run, argv, NULL, ws, NULL);
    g_assert_cmpint (run.exit_code, ==, 0);
    dsh_test_assert_file_is (outside, "original\nraw\n");
  }
  dsh_test_remove_tree (dir);
}

static void
test_module_in_workspace_refused (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *planted = g_build_filename (ws, "modules", NULL);
  g_autofree char *elsewhere = g_build_filename (dir, "modules", NULL);
  g_autofree char *alpha = dsh_test_module_path ("fake-alpha");
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  g_autofree char *unavailable = dsh_text_unavailable ("read-only");
  g_autofree char *expected = g_strdup_printf ("dsh-sandbox: %s\n", unavailable);
  g_autofree char *copy1 = NULL;
  g_autofree char *copy2 = NULL;

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (planted, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (elsewhere, 0755), ==, 0);
  copy1 = dsh_test_copy_module (alpha, planted);
  copy2 = dsh_test_copy_module (alpha, elsewhere);

  /* The same module outside the workspace is loaded and selected... */
  {
    g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", elsewhere);
    const char *env[] = { env_dir, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
    const char *args[] = { "exec", "--workspace", ws, "--", "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  /* ...but inside the workspace it is refused before its code runs, and nothing runs. */
  {
    g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", planted);
    const char *env[] = { env_dir, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
    const char *args[] = { "exec", "--workspace", ws, "--", "sh", "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    g_assert_cmpint (run.exit_code, ==, 125);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
  }
  dsh_test_remove_tree (dir);
}

static void
test_session_log_in_reach_refused (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *inside = g_build_filename (ws, "session.jsonl", NULL);
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  g_autoptr (DshSessionLog) log = NULL;
  const char *args[] = { "exec", "--session", inside, "--", "sh", "-c", touch, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *pattern = NULL;

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  log = dsh_test_create_session_log (inside, ws);

  dsh_test_run_cli (&run, args, NULL, ws);
  g_assert_cmpint (run.exit_code, ==, 125);
  pattern = g_strdup_printf ("dsh-sandbox: the session log %s lies inside %s, which confined "
                             "commands may write: *\n", inside, ws);
  g_assert_true (g_pattern_match_simple (pattern, run.err));
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (dir);
}

static void
test_path_is_beneath (void)
{
  g_assert_true (dsh_path_is_beneath ("/a/b", "/a"));
  g_assert_true (dsh_path_is_beneath ("/a", "/a"));
  g_assert_true (dsh_path_is_beneath ("/a/b", "/a/"));
  g_assert_true (dsh_path_is_beneath ("/anything", "/"));
  g_assert_false (dsh_path_is_beneath ("/ab", "/a"));
  g_assert_false (dsh_path_is_beneath ("/", "/a"));
  g_assert_false (dsh_path_is_beneath ("relative", "/"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reach-around/path-is-beneath", test_path_is_beneath);
  g_test_add_func ("/reach-around/inherited-descriptor", test_inherited_descriptor_closed);
  g_test_add_func ("/reach-around/module-in-workspace", test_module_in_workspace_refused);
  g_test_add_func ("/reach-around/session-log-in-reach", test_session_log_in_reach_refused);
  return g_test_run ();
}
