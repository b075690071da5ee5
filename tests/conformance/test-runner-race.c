/* test-runner-race.c — a component of a writable root swapped for a symlink while calls run: no
 * interleaving may make the symlink's target writable. Run once per Linux backend
 * (DSH_SANDBOX_BACKEND=bwrap, =landlock) against the real runners on this kernel.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The racer (dsh-test-swap-racer) exchanges the workspace with a symlink to a victim directory as
 * fast as it can, for a bounded time, while the calls try to write into the victim. The workspace
 * lies in TMPDIR, where any confined command could have made that symlink. One case takes the
 * runner's argv from `dsh-sandbox confine` once, before the race starts, so the roots are the
 * right strings and every swap happens after they were computed: what is left is the runner's
 * own resolution, which must not follow the symlink. The other runs whole `dsh-sandbox exec`
 * calls, where the roots are resolved, checked and handed down during the race.
 */
#define _GNU_SOURCE

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsh-test-linux.h"

/* Bounded: a few seconds per case, whatever the machine's speed. */
#define RACE_SECONDS "2.5"
#define MAX_CALLS 3000

typedef struct {
  char *base;
  char *tmpdir;
  char *workspace;
  char *victim;
  char *home;
  char *fileop;
} Race;

static const char *backend;

static void
race_set_up (Race *r)
{
  g_autofree char *parent = NULL;
  g_autofree char *contents = NULL;
  gsize len = 0;

  r->base = dsh_test_scratch_dir (backend);
  r->tmpdir = g_build_filename (r->base, "tmpdir", NULL);
  /* A nested workspace: "shared" is what an earlier call confined to it may write, so its
   * commands are the racers; the temp directory is apart (one enclosing the workspace would be
   * refused outright). */
  r->workspace = g_build_filename (r->base, "shared", "pkg", NULL);
  r->victim = g_build_filename (r->base, "victim", NULL);
  r->home = g_build_filename (r->base, "home", NULL);
  /* The command runs inside the sandbox, so its binary must not live under a private /tmp. */
  r->fileop = g_build_filename (r->base, "dsh-test-fileop", NULL);
  g_assert_cmpint (g_mkdir_with_parents (r->workspace, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (r->victim, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (r->home, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (r->tmpdir, 0755), ==, 0);
  g_assert_true (g_file_get_contents (dsh_test_getenv_required ("DSH_TEST_FILEOP"), &contents,
                                      &len, NULL));
  g_assert_true (g_file_set_contents_full (r->fileop, contents, (gssize) len,
                                           G_FILE_SET_CONTENTS_NONE, 0755, NULL));
}

static void
race_tear_down (Race *r)
{
  dsh_test_remove_tree (r->base);
  g_free (r->base);
  g_free (r->tmpdir);
  g_free (r->workspace);
  g_free (r->victim);
  g_free (r->home);
  g_free (r->fileop);
}

static GStrv
race_env (Race *r)
{
  GStrv env = g_get_environ ();

  env = g_environ_setenv (env, "HOME", r->home, TRUE);
  env = g_environ_setenv (env, "TMPDIR", r->tmpdir, TRUE);
  env = g_environ_setenv (env, "DSH_SANDBOX_BACKEND", backend, TRUE);
  env = g_environ_setenv (env, "DSH_SANDBOX_PROBE_CACHE", "off", TRUE);
  return env;
}

static guint
count_entries (const char *dir)
{
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (handle);
  while (g_dir_read_name (handle) != NULL)
    n++;
  return n;
}

static GPid
start_racer (Race *r)
{
  /* Relative, as a confined command would make it: it resolves the same from any root, bwrap's
   * old-root view during setup included. */
  const char *argv[] = { dsh_test_getenv_required ("DSH_TEST_SWAP_RACER"), r->workspace,
                         "../victim", RACE_SECONDS, NULL };
  g_autoptr (GError) error = NULL;
  GPid pid = 0;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                NULL, &pid, &error));
  g_assert_no_error (error);
  return pid;
}

static gboolean
racer_running (GPid pid, int *status)
{
  return waitpid (pid, status, WNOHANG) == 0;
}

/* The racers stand for commands of an earlier call confined to the enclosing directory: that
 * call granted it, as it would have for real. */
static void
grant_enclosing (Race *r, GStrv env)
{
  g_autofree char *shared = g_path_get_dirname (r->workspace);
  const char *argv[] = { dsh_test_getenv_required ("DSH_SANDBOX_CLI"), "confine", "--mode",
                         "workspace-write", "--workspace", shared, "--", "true", NULL };
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (shared, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                               NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* The runner's argv for a call that tries to write into the victim, confined before any race. */
static GStrv
confined_argv (Race *r, GStrv env)
{
  g_autofree char *escaped = g_build_filename (r->victim, "escaped", NULL);
  const char *argv[] = { dsh_test_getenv_required ("DSH_SANDBOX_CLI"), "confine", "--mode",
                         "workspace-write", "--workspace", r->workspace, "--", r->fileop,
                         "write", escaped, NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *items;
  int status = 0;

  g_assert_true (g_spawn_sync (r->workspace, (char **) argv, env, G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  node = dsh_test_parse_json (out);
  items = json_object_get_array_member (json_node_get_object (node), "argv");
  for (guint i = 0; i < json_array_get_length (items); i++)
    g_strv_builder_add (builder, json_array_get_string_element (items, i));
  return g_strv_builder_end (builder);
}

/* Runs argv over and over (at most MAX_CALLS times) while the racer swaps a component of the
 * workspace for a symlink into the victim, then asserts the racer ended well. Counts the calls
 * and those refused with 125: the sandbox saw the symlink and refused, which is the point. */
static void
race_calls (Race *r, char **argv, GStrv env, guint *calls, guint *refused)
{
  int status = 0;
  GPid racer = start_racer (r);

  *calls = 0;
  *refused = 0;
  while (racer_running (racer, &status) && *calls < MAX_CALLS)
    {
      g_autoptr (GError) error = NULL;
      int call_status = 0;

      g_assert_true (g_spawn_sync (r->base, argv, env,
                                   G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                   NULL, NULL, NULL, &call_status, &error));
      g_assert_no_error (error);
      (*calls)++;
      if (WIFEXITED (call_status) && WEXITSTATUS (call_status) == 125)
        (*refused)++;
    }
  if (*calls == MAX_CALLS)
    waitpid (racer, &status, 0);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static void
test_component_swapped_after_confine (Race *r, gconstpointer data)
{
  g_auto (GStrv) env = race_env (r);
  g_auto (GStrv) runner = NULL;
  guint calls, refused;

  (void) data;
  grant_enclosing (r, env);
  runner = confined_argv (r, env);
  /* Refused by the runner, which confined nothing when the race began. */
  race_calls (r, runner, env, &calls, &refused);
  g_test_message ("%s: %u calls, %u refused by the runner", backend, calls, refused);

  g_assert_true (g_file_test (r->workspace, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (count_entries (r->victim), ==, 0);
  /* The race was real: some calls met the symlink. */
  g_assert_cmpuint (calls, >=, 10);
  g_assert_cmpuint (refused, >=, 1);
}

static void
test_exec_during_swaps (Race *r, gconstpointer data)
{
  g_auto (GStrv) env = race_env (r);
  g_autofree char *escaped = g_build_filename (r->victim, "escaped", NULL);
  const char *argv[] = { dsh_test_getenv_required ("DSH_SANDBOX_CLI"), "exec", "--mode",
                         "workspace-write", "--workspace", r->workspace, "--", r->fileop,
                         "write", escaped, NULL };
  guint calls, refused;

  (void) data;
  grant_enclosing (r, env);
  /* Refused by dsh-sandbox or by the runner. */
  race_calls (r, (char **) argv, env, &calls, &refused);
  g_test_message ("%s: %u exec calls, %u refused", backend, calls, refused);

  g_assert_cmpuint (count_entries (r->victim), ==, 0);
  g_assert_cmpuint (calls, >=, 10);
  g_assert_cmpuint (refused, >=, 1);
}

static void
set_up (Race *r, gconstpointer data)
{
  (void) data;
  race_set_up (r);
}

static void
tear_down (Race *r, gconstpointer data)
{
  (void) data;
  race_tear_down (r);
}

int
main (int argc, char **argv)
{
  g_autofree char *path = NULL;

  g_test_init (&argc, &argv, NULL);
  backend = dsh_test_getenv_required ("DSH_SANDBOX_BACKEND");
  path = g_strdup_printf ("/runner-race/%s/component-swapped-after-confine", backend);
  g_test_add (path, Race, NULL, set_up, test_component_swapped_after_confine, tear_down);
  g_free (path);
  path = g_strdup_printf ("/runner-race/%s/exec-during-swaps", backend);
  g_test_add (path, Race, NULL, set_up, test_exec_during_swaps, tear_down);
  return g_test_run ();
}
