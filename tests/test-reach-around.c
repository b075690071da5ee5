/* test-reach-around.c — nothing a confined command may write can change what runs unconfined
 * later or reach around the sandbox now: an inherited writable descriptor is closed, a backend
 * module or helper inside the workspace is refused before its code runs, and a session log a
 * confined command could rewrite is refused.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>

#include "dsh-test-util.h"

/* Outside /tmp and TMPDIR, which are writable roots themselves. */
static char *
make_scratch (void)
{
  g_autofree char *base = dsh_canonical_path (g_getenv ("DSH_TEST_SCRATCH"));
  g_autofree char *tmp = dsh_canonical_path ("/tmp");
  g_autofree char *tmpdir = dsh_canonical_path (g_get_tmp_dir ());
  g_autofree char *template = NULL;
  char *dir;

  if (dsh_path_is_beneath (base, tmp) || dsh_path_is_beneath (base, tmpdir))
    {
      g_free (base);
      base = g_strdup ("/var/tmp");
    }
  template = g_build_filename (base, "reach-XXXXXX", NULL);

  g_assert_nonnull (g_mkdtemp_full (template, 0755));
  dir = realpath (template, NULL);
  return dir;
}

static void
remove_scratch (const char *dir)
{
  g_autofree char *quoted = g_shell_quote (dir);
  g_autofree char *command = g_strdup_printf ("rm -rf %s", quoted);

  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
}

static void
test_inherited_descriptor_closed (void)
{
  g_autofree char *dir = make_scratch ();
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  /* The caller holds fd 7 open for appending to a file outside the workspace. */
  const char *script = "exec 7>>\"$1\"; shift; exec \"$@\"";
  const char *modes[] = { "read-only", "workspace-write" };
  g_autofree char *contents = NULL;

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  g_assert_true (g_file_set_contents (outside, "original\n", -1, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      const char *argv[] = { "sh", "-c", script, "sh", outside, dsh_test_cli (), "exec",
                             "--mode", modes[i], "--workspace", ws, "--", "sh", "-c",
                             "echo escaped >&7", NULL };
      g_auto (DshTestRun) run = { 0 };

      dsh_test_run (&run, argv, NULL, ws, NULL);
      g_assert_cmpint (run.exit_code, !=, 0);
      g_assert_nonnull (strstr (run.err, "Bad file descriptor"));
      contents = dsh_test_read_file (outside);
      g_assert_cmpstr (contents, ==, "original\n");
      g_clear_pointer (&contents, g_free);
    }

  /* danger-full-access is a raw spawn: it keeps what a raw spawn would keep. */
  {
    const char *argv[] = { "sh", "-c", script, "sh", outside, dsh_test_cli (), "exec", "--mode",
                           "danger-full-access", "--workspace", ws, "--", "sh", "-c",
                           "echo raw >&7", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run (&run, argv, NULL, ws, NULL);
    g_assert_cmpint (run.exit_code, ==, 0);
    contents = dsh_test_read_file (outside);
    g_assert_cmpstr (contents, ==, "original\nraw\n");
  }
  remove_scratch (dir);
}

static void
test_module_in_workspace_refused (void)
{
  g_autofree char *dir = make_scratch ();
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
    const char *argv[] = { dsh_test_cli (), "exec", "--workspace", ws, "--", "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run (&run, argv, env, ws, NULL);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  /* ...but inside the workspace it is refused before its code runs, and nothing runs. */
  {
    g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", planted);
    const char *env[] = { env_dir, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
    const char *argv[] = { dsh_test_cli (), "exec", "--workspace", ws, "--", "sh", "-c", touch,
                           NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run (&run, argv, env, ws, NULL);
    g_assert_cmpint (run.exit_code, ==, 125);
    g_assert_cmpstr (run.err, ==, expected);
    g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
  }
  remove_scratch (dir);
}

static void
test_session_log_in_reach_refused (void)
{
  g_autofree char *dir = make_scratch ();
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *inside = g_build_filename (ws, "session.jsonl", NULL);
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSessionLog) log = NULL;
  const char *argv[] = { dsh_test_cli (), "exec", "--session", inside, "--", "sh", "-c", touch,
                         NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *pattern = NULL;

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  log = dsh_session_log_create (inside, ws, &error);
  g_assert_no_error (error);

  dsh_test_run (&run, argv, NULL, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 125);
  pattern = g_strdup_printf ("dsh-sandbox: the session log %s lies inside %s, which confined "
                             "commands may write: *\n", inside, ws);
  g_assert_true (g_pattern_match_simple (pattern, run.err));
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
  remove_scratch (dir);
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
