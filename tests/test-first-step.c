/* test-first-step.c — `dsh-sandbox exec` under bwrap does the launcher's first step itself: bwrap
 * is its own child (one exec fewer), what the launcher checked and undid is checked and undone
 * all the same (even when the front, or the launcher, is killed), and a step that fails reads
 * exactly as the launcher's own failure.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsh-test-util.h"

static const char *const bwrap_env[] = { "DSH_SANDBOX_BACKEND=bwrap", NULL };

/* Whether a process whose parent is pid runs a program ending in suffix, waiting for one. */
static gboolean
has_child_running (GPid pid, const char *suffix)
{
  for (int tries = 0; tries < 500; tries++)
    {
      g_autoptr (GDir) proc = g_dir_open ("/proc", 0, NULL);
      const char *name;

      while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
        {
          g_autofree char *stat_path = g_build_filename ("/proc", name, "stat", NULL);
          g_autofree char *stat = NULL;
          const char *after_comm;
          int ppid = 0;
          char state;

          if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (stat_path, &stat, NULL, NULL))
            continue;
          after_comm = strrchr (stat, ')');
          if (after_comm != NULL && sscanf (after_comm + 1, " %c %d", &state, &ppid) == 2 &&
              ppid == pid)
            {
              g_autofree char *exe = g_build_filename ("/proc", name, "exe", NULL);
              g_autofree char *target = g_file_read_link (exe, NULL);

              if (target != NULL && g_str_has_suffix (target, suffix))
                return TRUE;
            }
        }
      g_usleep (10 * 1000);
    }
  return FALSE;
}

/* In a repository, whose missing config names the launcher watches, the launcher would stay
 * as bwrap's parent until the command is gone. With a session (data) too: that exec also ends
 * its process. */
static void
test_bwrap_is_the_fronts_child (gconstpointer data)
{
  gboolean with_session = GPOINTER_TO_INT (data);
  g_autofree char *dir = dsh_test_scratch_dir ("first-step");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *log = g_build_filename (dir, "session.jsonl", NULL);
  const char *init[] = { "git", "init", "-q", ws, NULL };
  const char *session_new[] = { "session", "new", log, "--cwd", ws, NULL };
  const char *set_mode[] = { "session", "set-mode", log, "workspace-write", NULL };
  const char *plain[] = { dsh_test_cli (), "exec", "--mode", "workspace-write", "--workspace", ws,
                          "--", "sleep", "2", NULL };
  const char *in_session[] = { dsh_test_cli (), "exec", "--session", log, "--", "sleep", "2",
                               NULL };
  g_auto (DshTestRun) run = { 0 };
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "DSH_SANDBOX_BACKEND", "bwrap", TRUE);
  g_autoptr (GError) error = NULL;
  int status = 0;
  GPid pid;

  if (!dsh_test_require_bwrap ())
    return;
  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  dsh_test_run (&run, init, NULL, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  if (with_session)
    {
      dsh_test_run_cli (&run, session_new, NULL, ws);
      g_assert_cmpint (run.exit_code, ==, 0);
      dsh_test_run_cli (&run, set_mode, NULL, ws);
      g_assert_cmpint (run.exit_code, ==, 0);
    }
  g_assert_true (g_spawn_async (ws, (char **) (with_session ? in_session : plain), envp,
                                G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  /* Not the launcher, which would exec bwrap in turn. */
  g_assert_true (has_child_running (pid, "/bwrap"));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_spawn_close_pid (pid);
  dsh_test_remove_tree (dir);
}

/* The step keeps git's files read-only and, once the command is gone, takes away a config name
 * it planted where none was: the launcher's work, in the front. */
static void
test_git_protection_kept (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("first-step");
  g_autofree char *git = g_build_filename (ws, ".git", NULL);
  g_autofree char *config = g_build_filename (git, "config", NULL);
  g_autofree char *planted = g_build_filename (git, "config.worktree", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  const char *init[] = { "git", "init", "-q", ws, NULL };
  const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh", "-c",
                         "echo '[alias] x = !touch /tmp/x' >> .git/config; "
                         "echo '[core] fsmonitor = evil' > .git/config.worktree; echo done",
                         NULL };
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require_bwrap ())
    return;
  dsh_test_run (&run, init, NULL, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_true (g_file_get_contents (config, &before, NULL, NULL));
  dsh_test_run_cli (&run, args, bwrap_env, ws);
  g_assert_nonnull (strstr (run.err, "Read-only file system"));
  g_assert_nonnull (strstr (run.out, "done"));
  g_assert_true (g_file_get_contents (config, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  g_assert_false (g_file_test (planted, G_FILE_TEST_EXISTS));
  g_assert_nonnull (strstr (run.err, "config.worktree aside to "
                                     "config.worktree.dsh-sandbox-aside-1: it appeared during the "
                                     "call"));
  dsh_test_remove_tree (ws);
}

/* The argv confine returns for command in ws, under bwrap: the launcher's. */
static GStrv
confined_argv (const char *ws, const char *const *command)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonNode) answer = NULL;
  JsonArray *argv;
  GStrv out;

  for (const char *const *a = (const char *const[]) { "confine", "--mode", "workspace-write",
                                                      "--workspace", ws, "--", NULL };
       *a != NULL; a++)
    g_ptr_array_add (args, (char *) *a);
  for (gsize i = 0; command[i] != NULL; i++)
    g_ptr_array_add (args, (char *) command[i]);
  g_ptr_array_add (args, NULL);
  dsh_test_run_cli (&run, (const char *const *) args->pdata, bwrap_env, ws);
  g_assert_cmpint (run.exit_code, ==, 0);
  answer = json_from_string (run.out, NULL);
  argv = json_object_get_array_member (json_node_get_object (answer), "argv");
  out = g_new0 (char *, json_array_get_length (argv) + 1);
  for (guint i = 0; i < json_array_get_length (argv); i++)
    out[i] = g_strdup (json_array_get_string_element (argv, i));
  return out;
}

/* What starts bwrap for command in ws: the launcher of confine's argv (launcher TRUE), or the
 * front, `dsh-sandbox exec`. */
static GStrv
starter_argv (gboolean launcher, const char *ws, const char *const *command)
{
  g_autoptr (GStrvBuilder) builder = NULL;

  if (launcher)
    return confined_argv (ws, command);
  builder = g_strv_builder_new ();
  g_strv_builder_add_many (builder, dsh_test_cli (), "exec", "--mode", "workspace-write",
                           "--workspace", ws, "--", NULL);
  g_strv_builder_addv (builder, (const char **) command);
  return g_strv_builder_end (builder);
}

/* Makes ws a repository and starts command in it under bwrap, as starter_argv() says, without
 * waiting for it; its stderr comes through *err_fd when that is not NULL. */
static GPid
start_in_new_repository (gboolean launcher, const char *ws, const char *const *command,
                         int *err_fd)
{
  const char *init[] = { "git", "init", "-q", ws, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "DSH_SANDBOX_BACKEND", "bwrap", TRUE);
  g_auto (GStrv) argv = NULL;
  g_autoptr (GError) error = NULL;
  GPid pid;

  dsh_test_run (&run, init, NULL, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  argv = starter_argv (launcher, ws, command);
  g_assert_true (g_spawn_async_with_pipes (ws, argv, envp, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                           &pid, NULL, NULL, err_fd, &error));
  g_assert_no_error (error);
  return pid;
}

/* Whether path exists, or comes to within ten seconds. */
static gboolean
comes_to_exist (const char *path)
{
  for (int tries = 0; tries < 1000 && !g_file_test (path, G_FILE_TEST_EXISTS); tries++)
    g_usleep (10 * 1000);
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* A command plants .git/commondir and waits for the harness's timeout, which kills the process
 * that started bwrap (the front, data FALSE; the launcher of confine's argv, TRUE) with SIGKILL:
 * the planted name must go all the same, once the sandbox is gone. */
static void
test_undo_survives_killed_starter (gconstpointer data)
{
  gboolean launcher = GPOINTER_TO_INT (data);
  g_autofree char *ws = dsh_test_scratch_dir ("first-step");
  g_autofree char *planted = g_build_filename (ws, ".git", "commondir", NULL);
  g_autofree char *ready = g_build_filename (ws, "ready", NULL);
  const char *command[] = { "sh", "-c", "echo evil > .git/commondir; touch ready; exec sleep 60",
                            NULL };
  int status = 0;
  GPid pid;

  if (!dsh_test_require_bwrap ())
    return;
  pid = start_in_new_repository (launcher, ws, command, NULL);
  (void) comes_to_exist (ready);
  g_assert_true (g_file_test (planted, G_FILE_TEST_EXISTS));
  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  for (int tries = 0; tries < 1000 && g_file_test (planted, G_FILE_TEST_EXISTS); tries++)
    g_usleep (10 * 1000);
  g_assert_false (g_file_test (planted, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (ws);
}

/* confine's argv, run as a library harness runs it, works in a repository whose git directory
 * the launcher holds in a way of its own: read-only as a whole (hooks/ a symlink), or a bare
 * repository at the root (data). Each descriptor for bwrap must be open across its exec. */
static void
test_launcher_argv_runs (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *ws = dsh_test_scratch_dir ("first-step");
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch '%s'", marker);
  const char *bare[] = { "git", "init", "-q", "--bare", ws, NULL };
  const char *init[] = { "sh", "-c", "git init -q . && rm -rf .git/hooks && "
                                     "ln -s /nonexistent .git/hooks", NULL };
  const char *command[] = { "sh", "-c", touch, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_auto (GStrv) argv = NULL;

  if (!dsh_test_require_bwrap ())
    return;
  dsh_test_run (&run, g_str_equal (kind, "bare") ? bare : init, NULL, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  argv = confined_argv (ws, command);
  dsh_test_run_clear (&run);
  dsh_test_run (&run, (const char *const *) argv, NULL, ws, NULL);
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (ws);
}

/* The user's own git replaces .git/config while a call runs (`git config`, which renames a new
 * file over it): the command can then write the new file, so it must not stay where git reads
 * it; but it is the user's, so it is moved aside, not deleted. By the front (data's bit 0
 * clear) and by the launcher of confine's argv (set); with bit 1, the command first takes the
 * first thousand names the undo would move it to, and it goes to another. */
static void
test_undo_keeps_users_change (gconstpointer data)
{
  gboolean launcher = GPOINTER_TO_INT (data) & 1;
  gboolean names_taken = GPOINTER_TO_INT (data) & 2;
  g_autofree char *ws = dsh_test_scratch_dir ("first-step");
  g_autofree char *config = g_build_filename (ws, ".git", "config", NULL);
  g_autofree char *aside = g_build_filename (ws, ".git", "config.dsh-sandbox-aside-1", NULL);
  g_autofree char *started = g_build_filename (ws, "started", NULL);
  g_autofree char *go = g_build_filename (ws, "go", NULL);
  g_autofree char *kept = NULL;
  const char *users_change[] = { "git", "-C", ws, "config", "user.email", "user@example.org",
                                 NULL };
  g_autofree char *script = g_strdup_printf (
    "%stouch started; while [ ! -e go ]; do sleep 0.01; done; "
    "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' >> .git/config",
    names_taken ? "for i in $(seq 1000); do : > .git/config.dsh-sandbox-aside-$i; done; " : "");
  const char *command[] = { "sh", "-c", script, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *err = NULL;
  int status = 0;
  int err_fd = -1;
  GPid pid;

  if (!dsh_test_require_bwrap ())
    return;
  pid = start_in_new_repository (launcher, ws, command, &err_fd);
  g_assert_true (comes_to_exist (started));
  dsh_test_run (&run, users_change, NULL, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_true (g_file_set_contents (go, "", 0, NULL));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  {
    g_autoptr (GIOChannel) channel = g_io_channel_unix_new (err_fd);

    g_io_channel_set_close_on_unref (channel, TRUE);
    g_assert_cmpint (g_io_channel_read_to_end (channel, &err, NULL, NULL), ==, G_IO_STATUS_NORMAL);
  }
  g_test_message ("%s", err);
  /* Where git reads, nothing the command could have written; the user's change kept aside. */
  g_assert_false (g_file_test (config, G_FILE_TEST_EXISTS));
  if (names_taken)
    {
      /* Named by the undo's line: not one the command took. */
      const char *named = strstr (err, "config aside to config.dsh-sandbox-aside-");
      g_autofree char *name = NULL;

      g_assert_nonnull (named);
      named += strlen ("config aside to ");
      name = g_strndup (named, strcspn (named, ":"));
      g_clear_pointer (&aside, g_free);
      aside = g_build_filename (ws, ".git", name, NULL);
      g_assert_cmpuint (strlen (name), >, strlen ("config.dsh-sandbox-aside-1000"));
    }
  g_assert_true (g_file_get_contents (aside, &kept, NULL, NULL));
  g_assert_nonnull (strstr (kept, "user@example.org"));
  g_assert_nonnull (strstr (err, names_taken ? ": it was replaced or changed during the call"
                                             : "config aside to config.dsh-sandbox-aside-1: it "
                                               "was replaced or changed during the call"));
  dsh_test_remove_tree (ws);
}

/* Where the launcher would have failed, its one line and the runner failure follow. */
static void
test_failed_step_reads_as_the_launchers (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("first-step");
  g_autofree char *ws = g_build_filename (dir, "new\nline", NULL);
  g_autofree char *marker = g_build_filename (dir, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch '%s'", marker);
  const char *init[] = { "git", "init", "-q", ws, NULL };
  const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh", "-c",
                         touch, NULL };
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require_bwrap ())
    return;
  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  dsh_test_run (&run, init, NULL, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  dsh_test_run_cli (&run, args, bwrap_env, ws);
  dsh_test_assert_never_ran (&run, marker);
  g_assert_true (g_str_has_prefix (run.err, "dsh-bwrap-exec: fatal: cannot protect a path with "
                                            "a newline in it: "));
  g_assert_nonnull (strstr (run.err, "\ndsh-sandbox: sandbox mode \"workspace-write\" is "
                                     "requested but no sandbox backend is usable"));
  g_assert_nonnull (strstr (run.err, "Runner failure: dsh-bwrap-exec: fatal: cannot protect"));
  dsh_test_remove_tree (dir);
}

/* A command can make thousands of directories beneath .git/modules/, each of which is held in
 * place by a mount of its own: more than the 9000 arguments bwrap takes. The call is the
 * launcher's failure, said as such, never bwrap's refusal read as the command's exit 1. */
static void
test_too_many_mounts (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("first-step");
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *report = g_build_filename (ws, "report.json", NULL);
  g_autofree char *report_arg = g_strdup_printf ("--report=%s", report);
  g_autofree char *report_text = NULL;
  const char *init[] = { "git", "init", "-q", ws, NULL };
  const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, report_arg,
                         "--", "touch", marker, NULL };
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require_bwrap ())
    return;
  dsh_test_run (&run, init, NULL, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  for (guint i = 0; i < 3100; i++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/.git/modules/x/d%u", ws, i);

      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
    }
  dsh_test_run_cli (&run, args, bwrap_env, ws);
  dsh_test_assert_never_ran (&run, marker);
  g_assert_nonnull (strstr (run.err, "Runner failure: dsh-bwrap-exec: fatal: the sandbox needs "));
  g_assert_nonnull (strstr (run.err, "more than the 9000 bwrap takes"));
  report_text = dsh_test_read_file (report);
  g_assert_nonnull (strstr (report_text, "\"runner-failure\""));
  dsh_test_remove_tree (ws);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/first-step/bwrap-is-the-fronts-child", GINT_TO_POINTER (FALSE),
                        test_bwrap_is_the_fronts_child);
  g_test_add_data_func ("/first-step/bwrap-is-the-fronts-child/session", GINT_TO_POINTER (TRUE),
                        test_bwrap_is_the_fronts_child);
  g_test_add_func ("/first-step/git-protection-kept", test_git_protection_kept);
  g_test_add_func ("/first-step/too-many-mounts", test_too_many_mounts);
  g_test_add_data_func ("/first-step/undo-survives-killed-front", GINT_TO_POINTER (FALSE),
                        test_undo_survives_killed_starter);
  g_test_add_data_func ("/first-step/undo-survives-killed-launcher", GINT_TO_POINTER (TRUE),
                        test_undo_survives_killed_starter);
  g_test_add_data_func ("/first-step/undo-keeps-users-change/front", GINT_TO_POINTER (FALSE),
                        test_undo_keeps_users_change);
  g_test_add_data_func ("/first-step/undo-keeps-users-change/launcher", GINT_TO_POINTER (TRUE),
                        test_undo_keeps_users_change);
  g_test_add_data_func ("/first-step/undo-keeps-users-change/aside-names-taken",
                        GINT_TO_POINTER (2), test_undo_keeps_users_change);
  g_test_add_data_func ("/first-step/launcher-argv-runs/read-only-git-dir", "hooks symlink",
                        test_launcher_argv_runs);
  g_test_add_data_func ("/first-step/launcher-argv-runs/bare", "bare", test_launcher_argv_runs);
  g_test_add_func ("/first-step/failed-step-reads-as-the-launchers",
                   test_failed_step_reads_as_the_launchers);
  return g_test_run ();
}
