/* test-reach-around.c — nothing a confined command may write can change what runs unconfined
 * later or reach around the sandbox now: an inherited writable descriptor is closed, a backend
 * module or helper inside the workspace or /tmp is refused before its code runs, a session log a
 * confined command could rewrite is refused, and so is a writable root reached through a
 * symlink an earlier command could have planted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-test-util.h"
#include "dsh-test-seed-texts.h"

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
  const char *expected = "dsh-sandbox: " SEED_UNAVAILABLE ("read-only")
    " Cause: no backend module for this host could be loaded; fake-alpha: refused: the module "
    "lies inside a directory confined commands may write (the workspace, /tmp, the temp "
    "directory, an extra writable root, or one an earlier call granted)\n";
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
    dsh_test_assert_never_ran (&run, marker);
    g_assert_cmpstr (run.err, ==, expected);
  }
  /* Nor below /tmp, which Landlock leaves writable — unless this very build lives there (an
   * uninstalled build trusts its own tree). */
  {
    g_autofree char *tmp_modules = dsh_test_make_tmp_dir ();
    g_autofree char *copy3 = dsh_test_copy_module (alpha, tmp_modules);
    g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", tmp_modules);
    g_autofree char *cli = dsh_canonical_path (dsh_test_cli ());
    g_autofree char *tmp = dsh_canonical_path ("/tmp");
    const char *env[] = { env_dir, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
    const char *args[] = { "exec", "--workspace", ws, "--", "sh", "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    g_assert_cmpint (g_chmod (tmp_modules, 0755), ==, 0);
    dsh_test_run_cli (&run, args, env, ws);
    if (dsh_path_is_beneath (cli, tmp))
      g_assert_cmpint (run.exit_code, ==, 0);
    else
      {
        dsh_test_assert_never_ran (&run, marker);
        g_assert_cmpstr (run.err, ==, expected);
      }
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
  dsh_test_assert_never_ran (&run, marker);
  pattern = g_strdup_printf ("dsh-sandbox: the session log %s lies inside, or is reached "
                             "through, %s, which confined commands may write: *\n", inside, ws);
  g_assert_true (g_pattern_match_simple (pattern, run.err));
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

/* An earlier workspace-write call renamed its workspace (or TMPDIR) under /tmp and put a symlink
 * in its place: the next call must not follow it to wherever it points. */
static void
test_planted_root_symlink_refused (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *target = g_build_filename (dir, "elsewhere", NULL);
  g_autofree char *link_dir = NULL;
  g_autofree char *link = NULL;
  g_autofree char *written = g_build_filename (target, "written", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", written);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (target, 0755), ==, 0);
  link_dir = g_dir_make_tmp ("dsh-planted-XXXXXX", &error);
  g_assert_no_error (error);
  link = g_build_filename (link_dir, "proj", NULL);
  g_assert_cmpint (symlink (target, link), ==, 0);

  /* The workspace itself. */
  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", link, "--", "sh",
                           "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };
    g_autofree char *expected = g_strdup_printf (
      "dsh-sandbox: the writable root %s is reached through the symlink %s, *: a command could "
      "have planted it *\n", link, link);

    dsh_test_run_cli (&run, args, NULL, ws);
    dsh_test_assert_never_ran (&run, written);
    g_assert_true (g_pattern_match_simple (expected, run.err));
  }
  /* TMPDIR. */
  {
    g_autofree char *tmpdir_env = g_strdup_printf ("TMPDIR=%s", link);
    const char *env[] = { tmpdir_env, NULL };
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                           "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    dsh_test_assert_never_ran (&run, written);
    g_assert_nonnull (strstr (run.err, "is reached through the symlink"));
  }
  /* A symlink outside every writable root is the caller's own and is followed. */
  {
    g_autofree char *own_link = g_build_filename (dir, "own-link", NULL);
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", own_link, "--",
                           "sh", "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    g_assert_cmpint (symlink (target, own_link), ==, 0);
    dsh_test_run_cli (&run, args, NULL, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (written, G_FILE_TEST_EXISTS));
  }
  dsh_test_remove_tree (link_dir);
  dsh_test_remove_tree (dir);
}

/* The report is written unconfined: a symlink or FIFO planted at its path by a confined command
 * must neither redirect the write nor stall it. */
static void
test_planted_report_refused (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *precious = g_build_filename (dir, "precious", NULL);
  g_autofree char *report = g_build_filename (ws, "report.json", NULL);
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  const char *args[] = { "exec", "--workspace", ws, "--report", report, "--", "sh", "-c", touch,
                         NULL };

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  dsh_test_write_file (precious, "precious\n");

  {
    g_auto (DshTestRun) run = { 0 };

    g_autofree char *expected = g_strdup_printf ("dsh-sandbox: cannot open the report file %s: "
                                                 "it is a symbolic link\n", report);

    g_assert_cmpint (symlink (precious, report), ==, 0);
    dsh_test_run_cli (&run, args, NULL, ws);
    dsh_test_assert_never_ran (&run, marker);
    g_assert_cmpstr (run.err, ==, expected);
    dsh_test_assert_file_is (precious, "precious\n");
    g_assert_cmpint (g_unlink (report), ==, 0);
  }
  {
    g_auto (DshTestRun) run = { 0 };

    g_autofree char *expected = g_strdup_printf ("dsh-sandbox: cannot open the report file %s: "
                                                 "it is not a regular file\n", report);

    g_assert_cmpint (mkfifo (report, 0644), ==, 0);
    dsh_test_run_cli (&run, args, NULL, ws);
    dsh_test_assert_never_ran (&run, marker);
    g_assert_cmpstr (run.err, ==, expected);
  }
  dsh_test_remove_tree (dir);
}

/* A directory on the way to the report, swapped for a symlink out of the workspace by an earlier
 * call's command: the report must not follow it out, spelled through the workspace or reaching
 * it through the user's own older link (a walk asks every directory it passes, not only the
 * spelling's and the end's). */
static void
test_report_through_planted_dir_refused (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *other = g_build_filename (dir, "other", NULL);
  g_autofree char *user_link = g_build_filename (dir, "ws-link", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);
  g_autofree char *precious = g_build_filename (outside, "report.json", NULL);
  g_autofree char *reports = g_build_filename (ws, "reports", NULL);
  g_autofree char *report = g_build_filename (reports, "report.json", NULL);
  g_autofree char *linked_report = g_build_filename (user_link, "reports", "report.json", NULL);
  g_autofree char *plant = g_strdup_printf ("rm -r %s && ln -s %s %s", reports, outside,
                                            reports);
  const char *planting[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                             "-c", plant, NULL };
  const char *spelled[] = { ws, report };
  const char *through_link[] = { other, linked_report };
  const char *const *reporting[] = { spelled, through_link };

  g_assert_cmpint (g_mkdir_with_parents (reports, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (other, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (outside, 0755), ==, 0);
  g_assert_cmpint (symlink (ws, user_link), ==, 0);
  dsh_test_write_file (precious, "precious\n");
  {
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, planting, NULL, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  for (guint i = 0; i < G_N_ELEMENTS (reporting); i++)
    {
      const char *args[] = { "exec", "--mode", "read-only", "--workspace", reporting[i][0],
                             "--report", reporting[i][1], "--", "true", NULL };
      g_auto (DshTestRun) run = { 0 };
      g_autofree char *expected = g_strdup_printf (
        "dsh-sandbox: cannot open the report file %s: the way to it passes a symbolic link "
        "beneath %s, a directory confined commands were given to write\n",
        reporting[i][1], ws);

      dsh_test_run_cli (&run, args, NULL, reporting[i][0]);
      g_assert_cmpstr (run.err, ==, expected);
      g_assert_cmpint (run.exit_code, ==, 125);
      dsh_test_assert_file_is (precious, "precious\n");
    }
  dsh_test_remove_tree (dir);
}

/* Two sessions, one workspace inside the other: a command of the outer session replaces the
 * inner one's cwd with a symlink out of both. The inner session must refuse to follow it. */
static void
test_nested_session_cwd_swap_refused (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *outer = g_build_filename (dir, "outer", NULL);
  g_autofree char *inner = g_build_filename (outer, "inner", NULL);
  g_autofree char *target = g_build_filename (dir, "elsewhere", NULL);
  g_autofree char *outer_log = g_build_filename (dir, "outer.jsonl", NULL);
  g_autofree char *inner_log = g_build_filename (dir, "inner.jsonl", NULL);
  g_autofree char *written = g_build_filename (target, "written", NULL);
  g_autofree char *swap = g_strdup_printf ("rmdir '%s' && ln -s '%s' '%s'", inner, target,
                                           inner);
  g_autofree char *touch = g_strdup_printf ("touch '%s'", written);
  g_autoptr (DshSessionLog) outer_session = NULL;
  g_autoptr (DshSessionLog) inner_session = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (inner, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (target, 0755), ==, 0);
  outer_session = dsh_test_create_session_log (outer_log, outer);
  inner_session = dsh_test_create_session_log (inner_log, inner);
  g_assert_true (dsh_session_log_append_mode (outer_session, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                              &error));
  g_assert_true (dsh_session_log_append_mode (inner_session, DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                              &error));
  g_assert_no_error (error);

  {
    const char *args[] = { "exec", "--session", outer_log, "--", "sh", "-c", swap, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, NULL, outer);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  {
    const char *args[] = { "exec", "--session", inner_log, "--", "sh", "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };
    g_autofree char *expected = g_strdup_printf (
      "dsh-sandbox: the session's cwd %s is reached through the symlink %s, made after the "
      "session was created: *\n", inner, inner);

    dsh_test_run_cli (&run, args, NULL, dir);
    dsh_test_assert_never_ran (&run, written);
    g_assert_true (g_pattern_match_simple (expected, run.err));
  }
  /* Nor does the library's resolution of that session, nor the fence given what it resolves. */
  {
    g_autoptr (DshPolicyService) service = dsh_policy_service_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                   dir);
    g_autoptr (DshSandboxPolicy) policy = dsh_policy_service_resolve (service, inner_session);
    g_autoptr (GError) fence_error = NULL;

    g_assert_cmpint (policy->mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
    g_assert_cmpstr (policy->workspace_root, ==, inner);
    g_assert_cmpint (dsh_fs_fence_open (policy, written, O_WRONLY | O_CREAT, 0644, &fence_error),
                     ==, -1);
    g_assert_nonnull (fence_error);
    g_assert_false (g_file_test (written, G_FILE_TEST_EXISTS));
  }
  dsh_test_remove_tree (dir);
}

/* A session log that one call's extra root reached, rewritten by its command to a wider policy:
 * what the read-only subcommands answer from it (a harness acts on policy resolve as on exec)
 * is refused as exec refuses it, not believed. */
static void
test_forged_session_log_not_believed (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *other = g_build_filename (dir, "other", NULL);
  g_autofree char *logs = g_build_filename (dir, "logs", NULL);
  g_autofree char *log = g_build_filename (logs, "s.jsonl", NULL);
  g_autofree char *forged = g_build_filename (dir, "forged.jsonl", NULL);
  g_autofree char *copy = g_strdup_printf ("cp '%s' '%s'", forged, log);
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSessionLog) wider = NULL;
  g_autoptr (GError) error = NULL;
  const char *const subcommands[][6] = {
    { "policy", "resolve", "--session", log, "--json", NULL },
    { "policy", "context", "--session", log, NULL },
    { "session", "show", log, NULL },
  };

  g_assert_cmpint (g_mkdir_with_parents (ws, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (other, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (logs, 0755), ==, 0);
  session = dsh_test_create_session_log (log, ws);
  wider = dsh_test_create_session_log (forged, dir);
  g_assert_true (dsh_session_log_append_mode (wider, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
                                              &error));
  g_assert_no_error (error);
  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", other,
                           "--writable-root", logs, "--", "sh", "-c", copy, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, NULL, other);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  for (guint i = 0; i < G_N_ELEMENTS (subcommands); i++)
    {
      g_auto (DshTestRun) run = { 0 };
      /* Its forged cwd holds it now, and it was granted before: either refuses it. */
      g_autofree char *expected = g_strdup_printf ("dsh-sandbox: the session log %s lies inside",
                                                   log);

      dsh_test_run_cli (&run, subcommands[i], NULL, other);
      g_test_message ("%s %s: %s", subcommands[i][0], subcommands[i][1], run.err);
      g_assert_cmpint (run.exit_code, !=, 0);
      g_assert_null (strstr (run.out, "danger-full-access"));
      g_assert_nonnull (strstr (run.err, expected));
    }
  dsh_test_remove_tree (dir);
}

/* The fence given a policy nothing was pinned into resolves the temp directory itself: a TMPDIR
 * that an earlier call's command swapped for a symlink out of its workspace is left out of the
 * roots, not followed. The temp directory is read once per process, so a subprocess asks. */
static void
test_fence_planted_tmpdir_refused (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *ws = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *outside = NULL;
  g_autofree char *victim = NULL;
  g_autofree char *plant = NULL;

  if (g_test_subprocess ())
    {
      g_autoptr (DshSandboxPolicy) policy = NULL;
      g_autoptr (GError) error = NULL;

      /* The record of the grant made below, not the one this process was started with. */
      g_setenv ("DSH_SANDBOX_STATE_DIR", g_getenv ("DSH_TEST_STATE_DIR"), TRUE);
      policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, g_getenv ("DSH_TEST_WS"),
                                       NULL);
      g_assert_cmpint (dsh_fs_fence_open (policy, g_getenv ("DSH_TEST_VICTIM"),
                                          O_WRONLY | O_TRUNC, 0, &error), ==, -1);
      g_assert_nonnull (error);
      return;
    }
  dir = dsh_test_scratch_dir ("reach");
  ws = g_build_filename (dir, "ws", NULL);
  tmp = g_build_filename (ws, ".tmp", NULL);
  outside = g_build_filename (dir, "outside", NULL);
  victim = g_build_filename (outside, "victim", NULL);
  plant = g_strdup_printf ("rmdir '%s' && ln -s '%s' '%s'", tmp, outside, tmp);
  g_assert_cmpint (g_mkdir_with_parents (tmp, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (outside, 0755), ==, 0);
  dsh_test_write_file (victim, "precious\n");
  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                           "-c", plant, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, NULL, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  {
    g_autofree char *saved_tmpdir = g_strdup (g_getenv ("TMPDIR"));

    g_setenv ("TMPDIR", tmp, TRUE);
    g_setenv ("DSH_TEST_WS", ws, TRUE);
    g_setenv ("DSH_TEST_VICTIM", victim, TRUE);
    g_setenv ("DSH_TEST_STATE_DIR", g_getenv ("DSH_SANDBOX_STATE_DIR"), TRUE);
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
    if (saved_tmpdir != NULL)
      g_setenv ("TMPDIR", saved_tmpdir, TRUE);
    else
      g_unsetenv ("TMPDIR");
  }
  g_test_trap_assert_passed ();
  dsh_test_assert_file_is (victim, "precious\n");
  dsh_test_remove_tree (dir);
}

/* A probe cache the command could write (a HOME inside the workspace, say) is neither read nor
 * written. */
static void
test_probe_cache_in_reach_unused (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *cache = g_build_filename (dir, "probe-cache.ini", NULL);
  g_autofree char *cache_env = g_strdup_printf ("DSH_SANDBOX_PROBE_CACHE=%s", cache);
  const char *env[] = { cache_env, "DSH_SANDBOX_BACKEND", NULL };
  const char *args[] = { "exec", "--workspace", dir, "--", "true", NULL };
  g_auto (DshTestRun) run = { 0 };

  dsh_test_run_cli (&run, args, env, dir);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (dir);
}

/* Nor one beneath a directory an earlier call granted, though this call grants elsewhere: that
 * call's command could have planted an entry listing the chain in another order. */
static void
test_probe_cache_in_granted_dir_unused (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *granted = g_build_filename (dir, "granted", NULL);
  g_autofree char *now = g_build_filename (dir, "now", NULL);
  g_autofree char *cache = g_build_filename (granted, "probe-cache.ini", NULL);
  g_autofree char *cache_env = g_strdup_printf ("DSH_SANDBOX_PROBE_CACHE=%s", cache);
  const char *env[] = { cache_env, "DSH_SANDBOX_BACKEND", NULL };
  const char *off[] = { "DSH_SANDBOX_PROBE_CACHE=off", NULL };

  g_assert_cmpint (g_mkdir (granted, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (now, 0755), ==, 0);
  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", granted, "--",
                           "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, off, granted);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", now, "--", "true",
                           NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, now);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
  }
  dsh_test_remove_tree (dir);
}

static const char *const backends[] = { "bwrap", "landlock" };

/* A read-only stdin file must not be reopened for writing through /proc/self/fd/0 (under bwrap
 * that path would reach the host's own read-write mount): confined commands read a pipe. */
static void
test_stdin_file_not_reopened (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autofree char *backend = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backends[i]);
      const char *env[] = { backend, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
      const char *argv[] = { "sh", "-c", "exec \"$1\" exec --workspace \"$2\" -- sh -c "
                             "'echo escaped > /proc/self/fd/0; cat' < \"$3\"",
                             "sh", dsh_test_cli (), ws, outside, NULL };
      g_auto (DshTestRun) run = { 0 };

      dsh_test_write_file (outside, "original\n");
      dsh_test_run (&run, argv, env, ws, NULL);
      g_test_message ("%s: %s", backends[i], run.err);
      dsh_test_assert_file_is (outside, "original\n");
      /* The command still reads its stdin (its own write into the pipe may come first). */
      g_assert_nonnull (strstr (run.out, "original\n"));
    }
  dsh_test_remove_tree (dir);
}

/* Nor any other file or directory handed over as stdin, stdout or stderr: a read-only file or a
 * directory must not become writable through /proc/self/fd/N, nor a file opened for appending be
 * truncated there. The command gets pipes, and its output still reaches the file. */
static void
test_stdio_files_not_writable (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);
  g_autofree char *outside_dir = g_build_filename (dir, "outside-dir", NULL);
  g_autofree char *planted = g_build_filename (outside_dir, "planted", NULL);
  /* $1 the CLI, $2 the workspace, $3 the fd, $4 what it is opened on, $5 "<" or ">>", then the
   * command's script. */
  const char *wrapper = "cli=$1 ws=$2 fd=$3 file=$4 how=$5 script=$6; "
                        "eval \"exec $fd$how\\\"\\$file\\\"\"; "
                        "exec \"$cli\" exec --mode workspace-write --workspace \"$ws\" -- "
                        "sh -c \"$script\" sh \"$fd\"";

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (outside_dir, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    for (int fd = 0; fd <= 2; fd++)
      {
        g_autofree char *backend = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backends[i]);
        g_autofree char *fd_text = g_strdup_printf ("%d", fd);
        const char *env[] = { backend, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
        const char *read_only[] = { "sh", "-c", wrapper, "sh", dsh_test_cli (), ws, fd_text,
                                    outside, "<", "echo escaped > /proc/self/fd/$1", NULL };
        const char *directory[] = { "sh", "-c", wrapper, "sh", dsh_test_cli (), ws, fd_text,
                                    outside_dir, "<",
                                    "echo escaped > /proc/self/fd/$1/planted", NULL };
        const char *appending[] = { "sh", "-c", wrapper, "sh", dsh_test_cli (), ws, fd_text,
                                    outside, ">>",
                                    ": > /proc/self/fd/$1; echo appended >&$1", NULL };
        g_auto (DshTestRun) r1 = { 0 };
        g_auto (DshTestRun) r2 = { 0 };
        g_auto (DshTestRun) r3 = { 0 };

        dsh_test_write_file (outside, "original\n");
        dsh_test_run (&r1, read_only, env, ws, NULL);
        dsh_test_assert_file_is (outside, "original\n");
        dsh_test_run (&r2, directory, env, ws, NULL);
        g_assert_false (g_file_test (planted, G_FILE_TEST_EXISTS));
        if (fd == 0)
          continue;
        dsh_test_run (&r3, appending, env, ws, NULL);
        g_test_message ("%s fd %d: %s", backends[i], fd, r3.err);
        g_assert_cmpint (r3.exit_code, ==, 0);
        dsh_test_assert_file_is (outside, "original\nappended\n");
      }
  dsh_test_remove_tree (dir);
}

/* A root caller's command keeps no capability to undo the sandbox: no remount of / read-write,
 * no sysctl (kernel.core_pattern would run a file of its choosing on the host), and none at all
 * (with CAP_SYS_TIME it could step the clock back and date a symlink it plants before a grant,
 * which the roots then follow). */
static void
test_root_cannot_undo_the_sandbox (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);
  g_autofree char *script = g_strdup_printf (
    "mount -o remount,rw,bind / 2>/dev/null; echo escaped > '%s'; "
    "cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname && echo sysctl-written; "
    "grep '^Cap' /proc/self/status",
    outside);

  if (!dsh_test_require (getuid () == 0, "root (the case is a root caller)"))
    return;
  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autofree char *backend = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backends[i]);
      const char *env[] = { backend, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
      const char *args[] = { "exec", "--workspace", ws, "--", "sh", "-c", script, NULL };
      g_auto (DshTestRun) run = { 0 };

      dsh_test_write_file (outside, "original\n");
      dsh_test_run_cli (&run, args, env, ws);
      g_test_message ("%s: %s", backends[i], run.err);
      dsh_test_assert_file_is (outside, "original\n");
      g_assert_null (strstr (run.out, "sysctl-written"));
      g_assert_cmpstr (run.out, ==,
                       "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\n"
                       "CapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"
                       "CapAmb:\t0000000000000000\n");
    }
  dsh_test_remove_tree (dir);
}

/* What an earlier call granted stays out of trust: a module directory or a runner's PATH
 * directory that one call handed out as an extra writable root (its command could have put a
 * module or a runner there) is refused by every later call, whose own roots do not reach it. */
static void
test_module_and_runner_in_granted_dir (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("reach");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *modules = g_build_filename (dir, "modules", NULL);
  g_autofree char *bin = g_build_filename (dir, "bin", NULL);
  g_autofree char *runner = g_build_filename (bin, "fake-runner", NULL);
  g_autofree char *alpha = dsh_test_module_path ("fake-alpha");
  g_autofree char *copy = NULL;
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", modules);
  g_autofree char *path_env = g_strdup_printf ("PATH=%s:%s", bin, g_getenv ("PATH"));
  const char *env[] = { env_dir, path_env, "DSH_FAKE_ALPHA_RUNNER=fake-runner",
                        "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  const char *args[] = { "exec", "--workspace", ws, "--", "sh", "-c", touch, NULL };
  const char *grantor[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_BACKEND_DIR",
                            "DSH_SANDBOX_PROBE_CACHE=off", NULL };

  if (!dsh_test_require_bwrap ())
    return;
  for (const char *const *d = (const char *const[]) { ws, modules, bin, NULL }; *d != NULL; d++)
    g_assert_cmpint (g_mkdir (*d, 0755), ==, 0);
  copy = dsh_test_copy_module (alpha, modules);
  dsh_test_write_file (runner, "#!/bin/sh\nexit 0\n");
  g_assert_cmpint (g_chmod (runner, 0755), ==, 0);

  /* Before any grant, the module is loaded and its runner found on PATH. */
  {
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
    g_assert_cmpint (g_unlink (marker), ==, 0);
  }
  /* One call gets the runner's directory as an extra writable root... */
  {
    const char *grant[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                            "--writable-root", bin, "--", "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, grant, grantor, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  /* ...and from then on the runner found there is no runner. */
  {
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    dsh_test_assert_never_ran (&run, marker);
    g_assert_nonnull (strstr (run.err, "the runner file is not on PATH"));
  }
  /* The same for the module directory. */
  {
    const char *grant[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                            "--writable-root", modules, "--", "true", NULL };
    const char *no_runner[] = { env_dir, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
    g_auto (DshTestRun) run = { 0 };
    g_auto (DshTestRun) later = { 0 };

    dsh_test_run_cli (&run, grant, grantor, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    dsh_test_run_cli (&later, args, no_runner, ws);
    dsh_test_assert_never_ran (&later, marker);
    g_assert_nonnull (strstr (later.err, "fake-alpha: refused: the module lies inside a "
                                         "directory confined commands may write"));
  }
  /* A library harness that never names roots of its own gets the same refusal. */
  {
    g_autoptr (DshLocalProvider) provider = NULL;
    g_autoptr (GError) error = NULL;

    g_setenv ("DSH_SANDBOX_BACKEND_DIR", modules, TRUE);
    provider = dsh_local_provider_new ();
    g_unsetenv ("DSH_SANDBOX_BACKEND_DIR");
    g_assert_null (dsh_local_provider_get_selected (provider, &error));
    g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
    g_assert_nonnull (strstr (error->message, "fake-alpha: refused: the module lies inside a "
                                              "directory confined commands may write"));
  }
  dsh_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reach-around/path-is-beneath", test_path_is_beneath);
  g_test_add_func ("/reach-around/inherited-descriptor", test_inherited_descriptor_closed);
  g_test_add_func ("/reach-around/module-in-workspace", test_module_in_workspace_refused);
  g_test_add_func ("/reach-around/module-and-runner-in-granted-dir",
                   test_module_and_runner_in_granted_dir);
  g_test_add_func ("/reach-around/session-log-in-reach", test_session_log_in_reach_refused);
  g_test_add_func ("/reach-around/planted-root-symlink", test_planted_root_symlink_refused);
  g_test_add_func ("/reach-around/planted-report", test_planted_report_refused);
  g_test_add_func ("/reach-around/report-through-planted-dir",
                   test_report_through_planted_dir_refused);
  g_test_add_func ("/reach-around/probe-cache-in-reach", test_probe_cache_in_reach_unused);
  g_test_add_func ("/reach-around/probe-cache-in-granted-dir",
                   test_probe_cache_in_granted_dir_unused);
  g_test_add_func ("/reach-around/stdin-file-not-reopened", test_stdin_file_not_reopened);
  g_test_add_func ("/reach-around/stdio-files-not-writable", test_stdio_files_not_writable);
  g_test_add_func ("/reach-around/root-cannot-undo-the-sandbox",
                   test_root_cannot_undo_the_sandbox);
  g_test_add_func ("/reach-around/nested-session-cwd-swap", test_nested_session_cwd_swap_refused);
  g_test_add_func ("/reach-around/fence-planted-tmpdir", test_fence_planted_tmpdir_refused);
  g_test_add_func ("/reach-around/forged-session-log", test_forged_session_log_not_believed);
  return g_test_run ();
}
