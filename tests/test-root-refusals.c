/* test-root-refusals.c — no writable root a call hands out may be wider than the caller meant,
 * whatever earlier confined commands did: a workspace swapped for a symlink to /, a symlink
 * planted inside an earlier call's workspace and then named as the next workspace (with or
 * without a session), a temp directory that would widen the roots. Each attack runs against the
 * real runners and is judged by the victim file afterwards; each refusal is ROOT_REFUSED, exit
 * 125, naming the path and the reason.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* unshare */

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/loop.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-test-util.h"
#include "dsh-test-seed-texts.h"

static const char *const backends[] = { "bwrap", "landlock" };

/* A scratch directory of the test's own, and a private record of granted roots in it, so that
 * the test depends on nothing else. */
typedef struct {
  char *dir;
  char *state;
  /* Bind mounts a test made in dir, unmounted before dir is removed. */
  GPtrArray *mounts;
} Refusals;

static void
refusals_set_up (Refusals *f, gconstpointer data)
{
  f->dir = dsh_test_scratch_dir ("refusals");
  f->state = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s/state", f->dir);
  f->mounts = g_ptr_array_new_with_free_func (g_free);
}

static void
refusals_tear_down (Refusals *f, gconstpointer data)
{
  /* Last made first: one may lie inside another. */
  for (guint i = f->mounts->len; i > 0; i--)
    umount2 (f->mounts->pdata[i - 1], MNT_DETACH);
  g_ptr_array_unref (f->mounts);
  dsh_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->state);
}

/* The directory path (with its parents) made in the scratch directory. */
static char *
make_dir (Refusals *f, const char *path)
{
  char *made = g_build_filename (f->dir, path, NULL);

  g_assert_cmpint (g_mkdir_with_parents (made, 0755), ==, 0);
  return made;
}

static void
run_with_backend (DshTestRun *run, const char *backend, const char *state,
                  const char *const *args, const char *cwd)
{
  g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend);
  const char *env[] = { backend_env, state, "DSH_SANDBOX_PROBE_CACHE=off", NULL };

  dsh_test_run_cli (run, args, env, cwd);
  g_test_message ("%s: exit %d: %s", backend, run->exit_code, run->err);
}

/* A workspace-write command under /tmp (writable under Landlock) moves its own workspace away
 * and puts a symlink to / in its place; the next call with the same --workspace must not get /
 * as its writable root, on either backend: the symlink is not even followed, for a confined
 * command made it (a / reached otherwise is refused below). */
static void
test_workspace_swapped_for_root (Refusals *f, gconstpointer data)
{
  g_autofree char *victim = g_build_filename (f->dir, "victim", NULL);
  g_autofree char *tmp = dsh_test_make_tmp_dir ();
  g_autofree char *ws = g_build_filename (tmp, "ws", NULL);
  g_autofree char *swap = g_strdup_printf ("cd / && mv '%s' '%s.real' && ln -s / '%s'", ws, ws,
                                           ws);
  g_autofree char *write = g_strdup_printf ("echo escaped > '%s'", victim);

  g_assert_cmpint (g_mkdir_with_parents (ws, 0755), ==, 0);
  dsh_test_write_file (victim, "original\n");
  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                           "-c", swap, NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "landlock", f->state, args, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (ws, G_FILE_TEST_IS_SYMLINK));
  }
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                             "-c", write, NULL };
      const char *confine_args[] = { "confine", "--mode", "workspace-write", "--workspace", ws,
                                     "--", "true", NULL };
      g_auto (DshTestRun) run = { 0 };

      g_autofree char *planted = g_strdup_printf ("the writable root %s is reached through the "
                                                  "symlink %s, made inside ", ws, ws);

      run_with_backend (&run, backends[i], f->state, args, f->dir);
      dsh_test_assert_refused (&run, planted);
      dsh_test_assert_file_is (victim, "original\n");
      run_with_backend (&run, backends[i], f->state, confine_args, f->dir);
      dsh_test_assert_refused (&run, planted);
    }
}

/* --workspace / under workspace-write is refused outright, whatever spells it; read-only is
 * not. The report says root-refused, and serve says ROOT_REFUSED. */
static void
test_workspace_of_root_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *victim = g_build_filename (f->dir, "victim", NULL);
  g_autofree char *report = g_build_filename (f->dir, "report.json", NULL);
  g_autofree char *link = g_build_filename (f->dir, "root-link", NULL);
  g_autofree char *write = g_strdup_printf ("echo escaped > '%s'", victim);
  const char *spellings[] = { "/", "//", "/usr/..", link };

  g_assert_cmpint (symlink ("/", link), ==, 0);
  dsh_test_write_file (victim, "original\n");
  for (guint i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", spellings[i],
                             "--report", report, "--", "sh", "-c", write, NULL };
      g_auto (DshTestRun) run = { 0 };
      g_autoptr (JsonNode) node = NULL;
      g_autofree char *text = NULL;

      run_with_backend (&run, "landlock", f->state, args, f->dir);
      dsh_test_assert_refused (&run, "the workspace root / would make the whole host writable");
      dsh_test_assert_file_is (victim, "original\n");
      text = dsh_test_read_file (report);
      node = dsh_test_parse_valid_json (text, "exec-report.schema.json");
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "outcome"),
                       ==, "root-refused");
    }
  {
    const char *args[] = { "confine", "--mode", "workspace-write", "--workspace", "/", "--",
                           "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "bwrap", f->state, args, f->dir);
    dsh_test_assert_refused (&run, "the workspace root / would make the whole host writable");
  }
  {
    const char *env[] = { f->state, NULL };
    const char *request = "{\"id\": 1, \"method\": \"confine\", \"params\": {\"argv\": [\"true\"], "
                          "\"mode\": \"workspace-write\", \"workspace\": \"/\"}}\n";
    const char *argv[] = { dsh_test_cli (), "serve", NULL };
    g_auto (DshTestRun) run = { 0 };
    g_autoptr (JsonNode) node = NULL;
    JsonObject *error;

    dsh_test_run (&run, argv, env, f->dir, request);
    g_assert_cmpint (run.exit_code, ==, 0);
    node = dsh_test_parse_valid_json (run.out, "serve-response.schema.json");
    error = json_object_get_object_member (json_node_get_object (node), "error");
    g_assert_cmpstr (json_object_get_string_member (error, "code"), ==, "ROOT_REFUSED");
  }
  {
    const char *args[] = { "exec", "--mode", "read-only", "--workspace", "/", "--", "true",
                           NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "landlock", f->state, args, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
}

/* A command confined to A replaces A/pkg with a symlink to a victim directory. A later call with
 * --workspace A/pkg (no session), or a session created afterwards with --cwd A/pkg, must not get
 * the victim as its root. A symlink the user made in A before A was ever granted still works. */
static void
test_nested_workspace_symlink_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *outer = g_build_filename (f->dir, "A", NULL);
  g_autofree char *pkg = make_dir (f, "A/pkg");
  g_autofree char *own = g_build_filename (outer, "own", NULL);
  g_autofree char *victim = make_dir (f, "victim");
  g_autofree char *mine = make_dir (f, "mine");
  g_autofree char *victim_file = g_build_filename (victim, "file", NULL);
  g_autofree char *log = g_build_filename (f->dir, "inner.jsonl", NULL);
  g_autofree char *plant = g_strdup_printf ("rmdir '%s' && ln -s '%s' '%s'", pkg, victim, pkg);
  g_autofree char *write = g_strdup_printf ("echo escaped > '%s/file'", pkg);

  dsh_test_write_file (victim_file, "original\n");
  /* The user's own symlink, made before any command was confined to A (beyond the second of
   * margin the comparison keeps for the coarse clock of file timestamps). */
  g_assert_cmpint (symlink (mine, own), ==, 0);
  g_usleep (1200 * 1000);

  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", outer, "--", "sh",
                           "-c", plant, NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "landlock", f->state, args, outer);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (pkg, G_FILE_TEST_IS_SYMLINK));
  }

  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      const char *exec_args[] = { "exec", "--mode", "workspace-write", "--workspace", pkg, "--",
                                  "sh", "-c", write, NULL };
      const char *confine_args[] = { "confine", "--mode", "workspace-write", "--workspace", pkg,
                                     "--", "true", NULL };
      g_auto (DshTestRun) run = { 0 };

      run_with_backend (&run, backends[i], f->state, exec_args, f->dir);
      dsh_test_assert_refused (&run, "after confined commands were allowed to write there");
      g_assert_nonnull (strstr (run.err, pkg));
      dsh_test_assert_file_is (victim_file, "original\n");

      run_with_backend (&run, backends[i], f->state, confine_args, f->dir);
      dsh_test_assert_refused (&run, "after confined commands were allowed to write there");
      g_assert_null (strstr (run.out, victim));
    }

  /* The session variant: created afterwards, refused at creation with the reason. */
  {
    const char *args[] = { "session", "new", log, "--cwd", pkg, NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "landlock", f->state, args, f->dir);
    dsh_test_assert_refused (&run, "after confined commands were allowed to write there");
    g_assert_false (g_file_test (log, G_FILE_TEST_EXISTS));
  }

  /* The user's own older symlink in A is followed: its target becomes the workspace. */
  {
    g_autofree char *touch = g_strdup_printf ("touch '%s/ok'", own);
    g_autofree char *ok = g_build_filename (mine, "ok", NULL);
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", own, "--", "sh",
                           "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "landlock", f->state, args, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (ok, G_FILE_TEST_EXISTS));
  }
}

/* The same with sessions: a session on A plants A/pkg; a session created on A/pkg afterwards is
 * refused at creation, and one created before is refused at its next call. */
static void
test_nested_workspace_session_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *outer = g_build_filename (f->dir, "A", NULL);
  g_autofree char *pkg = make_dir (f, "A/pkg");
  g_autofree char *victim = make_dir (f, "victim");
  g_autofree char *victim_file = g_build_filename (victim, "file", NULL);
  g_autofree char *outer_log = g_build_filename (f->dir, "outer.jsonl", NULL);
  g_autofree char *later_log = g_build_filename (f->dir, "later.jsonl", NULL);
  g_autofree char *plant = g_strdup_printf ("rmdir '%s' && ln -s '%s' '%s'", pkg, victim, pkg);
  g_autofree char *write = g_strdup_printf ("echo escaped > '%s/file'", pkg);

  dsh_test_write_file (victim_file, "original\n");

  {
    const char *new_args[] = { "session", "new", outer_log, "--cwd", outer, NULL };
    const char *mode_args[] = { "session", "set-mode", outer_log, "workspace-write", NULL };
    const char *exec_args[] = { "exec", "--session", outer_log, "--", "sh", "-c", plant, NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "landlock", f->state, new_args, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    run_with_backend (&run, "landlock", f->state, mode_args, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    run_with_backend (&run, "landlock", f->state, exec_args, outer);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (pkg, G_FILE_TEST_IS_SYMLINK));
  }
  {
    const char *args[] = { "session", "new", later_log, "--cwd", pkg, NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "landlock", f->state, args, f->dir);
    dsh_test_assert_refused (&run, "after confined commands were allowed to write there");
    g_assert_false (g_file_test (later_log, G_FILE_TEST_EXISTS));
  }
  /* Had it been created anyway (by an older version, say), its calls are refused. */
  {
    g_autoptr (DshSessionLog) later = dsh_test_create_session_log (later_log, pkg);
    g_autoptr (GError) error = NULL;

    g_assert_true (dsh_session_log_append_mode (later, DSH_SANDBOX_MODE_WORKSPACE_WRITE, &error));
    g_assert_no_error (error);
    for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
      {
        const char *args[] = { "exec", "--session", later_log, "--", "sh", "-c", write, NULL };
        g_auto (DshTestRun) run = { 0 };

        run_with_backend (&run, backends[i], f->state, args, f->dir);
        /* Made after A was granted (and, within the clock margin, after this session). */
        dsh_test_assert_refused (&run, "is reached through the symlink");
        dsh_test_assert_file_is (victim_file, "original\n");
      }
  }
}

/* The build's directory of the named backend's module. */
static char *
built_backend_dir (const char *backend)
{
  g_auto (GStrv) dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_BACKEND_DIRS"), ":", -1);
  g_autofree char *suffix = g_strconcat ("/", backend, NULL);

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      if (g_str_has_suffix (dirs[i], suffix))
        return g_strdup (dirs[i]);
    }
  g_error ("no built %s module directory in DSH_TEST_BACKEND_DIRS", backend);
}

/* A root over the directories this installation loads code from would let its call's command
 * replace a module or a helper that the next call runs unconfined: a call with such a root loads
 * nothing from there, and once any call has granted one (another installation's, whose modules
 * lie elsewhere), no later call loads from there either. */
static void
test_code_dirs_out_of_reach (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *mods = make_dir (f, "mods");
  g_autofree char *bwrap_dir = built_backend_dir ("bwrap");
  g_autofree char *landlock_dir = built_backend_dir ("landlock");
  g_autofree char *landlock_module = g_build_filename (landlock_dir, "libdsh-backend-landlock.so",
                                                       NULL);
  g_autofree char *copy = NULL;
  g_autofree char *copy_dir = NULL;
  g_autofree char *marker = NULL;
  g_autofree char *touch = NULL;

  marker = g_build_filename (bwrap_dir, "planted-by-a-command", NULL);
  touch = g_strdup_printf ("touch '%s'", marker);
  copy = dsh_test_copy_module (landlock_module, mods);
  copy_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", mods);

  /* The call itself, with the module's own directory or the whole (uninstalled) build tree as
   * its extra root; the latter only from a workspace and a record outside the tree. */
  {
    g_autofree char *tmp = dsh_test_make_tmp_dir ();
    g_autofree char *tmp_ws = g_build_filename (tmp, "ws", NULL);
    /* Neither in the build tree nor where every call writes. */
    g_autofree char *state_dir = g_mkdtemp_full (g_strdup ("/var/tmp/dsh-test-state-XXXXXX"),
                                                 0700);
    g_autofree char *tmp_state = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s", state_dir);
    g_autofree char *linux_dir = g_path_get_dirname (bwrap_dir);
    g_autofree char *build = g_path_get_dirname (linux_dir);
    struct {
      const char *root, *ws, *state;
    } calls[] = { { bwrap_dir, ws, f->state }, { build, tmp_ws, tmp_state } };

    g_assert_cmpint (g_mkdir (tmp_ws, 0755), ==, 0);
    for (guint i = 0; i < G_N_ELEMENTS (calls); i++)
      {
        const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", calls[i].ws,
                               "--writable-root", calls[i].root, "--", "sh", "-c", touch, NULL };
        g_auto (DshTestRun) run = { 0 };

        run_with_backend (&run, "bwrap", calls[i].state, args, calls[i].ws);
        dsh_test_assert_never_ran (&run, marker);
        /* The build tree holds the command itself: refused before any module is looked at. */
        g_assert_nonnull (strstr (run.err, i == 0 ? "no sandbox backend is usable"
                                                  : "holds the dsh-sandbox executable"));
      }
    dsh_test_remove_tree (state_dir);
  }
  /* Another installation's call grants it, and its command writes there. */
  {
    const char *env[] = { "DSH_SANDBOX_BACKEND=landlock", copy_dir, f->state,
                          "DSH_SANDBOX_PROBE_CACHE=off", NULL };
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                           "--writable-root", bwrap_dir, "--", "sh", "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
  }
  /* Every later call refuses that module, even a read-only one, which grants nothing. */
  {
    const char *args[] = { "exec", "--mode", "read-only", "--workspace", ws, "--", "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "bwrap", f->state, args, ws);
    g_assert_cmpint (run.exit_code, ==, 125);
    g_assert_nonnull (strstr (run.err, "no sandbox backend is usable"));
  }
  g_assert_cmpint (g_unlink (marker), ==, 0);
}

/* The file's contents, or NULL when it cannot be read. */
static GBytes *
contents_of (const char *path)
{
  char *text = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &text, &length, NULL))
    return NULL;
  return g_bytes_new_take (text, length);
}

/* A root over the dsh-sandbox executable itself would let its call's command replace it, and the
 * user's next dsh-sandbox call, even a read-only one, would run the command's code unconfined.
 * Refused on both backends, whichever command resolves the call (the plain exec of the front
 * command, exec with an extra root and confine in the full one), naming the file: nothing there
 * is replaced, nor even written. */
static void
test_own_executable_out_of_reach (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *cli = g_canonicalize_filename (dsh_test_cli (), NULL);
  g_autofree char *cli_dir = g_path_get_dirname (cli);
  g_autofree char *marker = g_build_filename (cli_dir, "planted-by-a-command", NULL);
  g_autofree char *write = g_strdup_printf ("touch '%s' && cat '%s' > '%s.new' && "
                                            "mv '%s.new' '%s'",
                                            marker, cli, cli, cli, cli);
  g_autoptr (GBytes) before = contents_of (cli);

  g_assert_nonnull (before);
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      const char *extra[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                              "--writable-root", cli_dir, "--", "sh", "-c", write, NULL };
      const char *plain[] = { "exec", "--mode", "workspace-write", "--workspace", cli_dir, "--",
                              "sh", "-c", write, NULL };
      const char *confine[] = { "confine", "--mode", "workspace-write", "--workspace", ws,
                                "--writable-root", cli_dir, "--", "sh", "-c", write, NULL };
      const char *const *calls[] = { extra, plain, confine };
      const char *cwds[] = { ws, cli_dir, ws };

      for (guint c = 0; c < G_N_ELEMENTS (calls); c++)
        {
          g_auto (DshTestRun) run = { 0 };
          g_autoptr (GBytes) after = NULL;

          run_with_backend (&run, backends[i], f->state, calls[c], cwds[c]);
          dsh_test_assert_refused (&run, "holds the dsh-sandbox executable");
          g_assert_nonnull (strstr (run.err, cli_dir));
          g_assert_nonnull (strstr (run.err, "the next call would run its code unconfined"));
          dsh_test_assert_never_ran (&run, marker);
          after = contents_of (cli);
          g_assert_true (after != NULL && g_bytes_equal (before, after));
        }
    }
}

/* A module file that is a symlink leads where its directory does not: into a workspace some call
 * granted, its command could have replaced what the link names. Such a module is refused. */
static void
test_module_linked_into_granted_dir (Refusals *f, gconstpointer data)
{
  g_autofree char *granted_ws = make_dir (f, "granted-ws");
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *mods = make_dir (f, "mods");
  g_autofree char *bwrap_dir = built_backend_dir ("bwrap");
  g_autofree char *module = g_build_filename (bwrap_dir, "libdsh-backend-bwrap.so", NULL);
  g_autofree char *copy = NULL;
  g_autofree char *link = g_build_filename (mods, "libdsh-backend-bwrap.so", NULL);
  g_autofree char *dir_env = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", mods);

  copy = dsh_test_copy_module (module, granted_ws);
  g_assert_cmpint (symlink (copy, link), ==, 0);
  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", granted_ws, "--",
                           "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    run_with_backend (&run, "landlock", f->state, args, granted_ws);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  {
    const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", dir_env, f->state,
                          "DSH_SANDBOX_PROBE_CACHE=off", NULL };
    const char *args[] = { "exec", "--mode", "read-only", "--workspace", ws, "--", "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    g_assert_cmpint (run.exit_code, ==, 125);
    g_assert_nonnull (strstr (run.err, "no sandbox backend is usable"));
  }
}

/* The record of granted roots must be out of confined reach and trustworthy, or nothing runs
 * under workspace-write; read-only grants nothing and does not need it. */
static void
test_untrusted_record_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *open_dir = make_dir (f, "open");
  g_autofree char *file = g_build_filename (f->dir, "file", NULL);
  g_autofree char *in_ws = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s/state", ws);
  g_autofree char *not_private = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s", open_dir);
  g_autofree char *not_dir = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s", file);
  const char *states[] = { in_ws, not_private, not_dir, "DSH_SANDBOX_STATE_DIR=relative" };
  const char *reasons[] = { "lies inside the writable root", "is not a private directory",
                            "cannot be created", "is not an absolute path" };

  dsh_test_write_file (file, "");
  for (guint i = 0; i < G_N_ELEMENTS (states); i++)
    {
      const char *ww[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "true",
                           NULL };
      const char *ro[] = { "exec", "--mode", "read-only", "--workspace", ws, "--", "true", NULL };
      g_auto (DshTestRun) run = { 0 };

      run_with_backend (&run, "landlock", states[i], ww, ws);
      dsh_test_assert_refused (&run, reasons[i]);
      g_assert_nonnull (strstr (run.err, "the record of granted writable roots"));
      run_with_backend (&run, "landlock", states[i], ro, ws);
      g_assert_cmpint (run.exit_code, ==, 0);
    }
}

/* $TMPDIR is refused as a writable root when it is /, a system directory, $HOME, or an ancestor
 * of $HOME or of the workspace; read-only never looks at it. */
static void
test_temp_dir_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *home = make_dir (f, "home/me");
  g_autofree char *home_parent = g_build_filename (f->dir, "home", NULL);
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *victim = g_build_filename (home, "victim", NULL);
  g_autofree char *home_env = g_strdup_printf ("HOME=%s", home);
  g_autofree char *write = g_strdup_printf ("echo escaped > '%s'", victim);
  struct {
    const char *tmpdir;
    const char *reason;
  } cases[] = {
    { "/", "is /" },
    { "/usr", "is a system directory" },
    { "/etc/ssh", "is a system directory" },
    { home, "is $HOME" },
    { home_parent, "is an ancestor of $HOME" },
    { f->dir, "is an ancestor of $HOME" },
  };

  dsh_test_write_file (victim, "original\n");
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
        {
          g_autofree char *tmpdir_env = g_strdup_printf ("TMPDIR=%s", cases[c].tmpdir);
          g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backends[i]);
          const char *env[] = { tmpdir_env, home_env, f->state, backend_env,
                                "DSH_SANDBOX_PROBE_CACHE=off", NULL };
          const char *ww[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                               "-c", write, NULL };
          const char *ro[] = { "exec", "--mode", "read-only", "--workspace", ws, "--", "true",
                               NULL };
          g_auto (DshTestRun) run = { 0 };

          dsh_test_run_cli (&run, ww, env, ws);
          g_test_message ("TMPDIR=%s %s: %s", cases[c].tmpdir, backends[i], run.err);
          dsh_test_assert_refused (&run, cases[c].reason);
          g_assert_nonnull (strstr (run.err, "the temp directory"));
          dsh_test_assert_file_is (victim, "original\n");

          dsh_test_run_cli (&run, ro, env, ws);
          g_assert_cmpint (run.exit_code, ==, 0);
        }
    }
  /* An ancestor of the workspace (HOME elsewhere). */
  {
    g_autofree char *tmpdir_env = g_strdup_printf ("TMPDIR=%s", f->dir);
    const char *env[] = { tmpdir_env, f->state, "DSH_SANDBOX_BACKEND=landlock", NULL };
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "true",
                           NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    dsh_test_assert_refused (&run, "is an ancestor of the workspace");
  }
  /* A temp directory of its own is fine, and writable. */
  {
    g_autofree char *own = g_build_filename (f->dir, "own-tmp", NULL);
    g_autofree char *tmpdir_env = g_strdup_printf ("TMPDIR=%s", own);
    g_autofree char *touch = g_strdup_printf ("touch '%s/t'", own);
    g_autofree char *made = g_build_filename (own, "t", NULL);
    const char *env[] = { tmpdir_env, home_env, f->state, "DSH_SANDBOX_BACKEND=landlock", NULL };
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                           "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    g_assert_cmpint (g_mkdir (own, 0700), ==, 0);
    dsh_test_run_cli (&run, args, env, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (made, G_FILE_TEST_EXISTS));
  }
}

/* A session whose cwd is /, or whose log lies where its own commands write, is refused when it
 * is created, with the reason — not by every later call. */
static void
test_session_refused_at_creation (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *outside_log = g_build_filename (f->dir, "root.jsonl", NULL);
  g_autofree char *inside_log = g_build_filename (ws, "session.jsonl", NULL);
  g_autofree char *tmp = dsh_test_make_tmp_dir ();
  g_autofree char *tmp_log = g_build_filename (tmp, "session.jsonl", NULL);
  g_autofree char *tmp_env = g_strdup_printf ("TMPDIR=%s", tmp);
  const char *env[] = { f->state, tmp_env, NULL };

  {
    const char *args[] = { "session", "new", outside_log, "--cwd", "/", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, f->dir);
    dsh_test_assert_refused (&run, "the workspace root / would make the whole host writable");
    g_assert_false (g_file_test (outside_log, G_FILE_TEST_EXISTS));
  }
  {
    const char *args[] = { "session", "new", "session.jsonl", "--cwd", ws, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    dsh_test_assert_refused (&run, "which confined commands may write");
    g_assert_nonnull (strstr (run.err, inside_log));
    g_assert_false (g_file_test (inside_log, G_FILE_TEST_EXISTS));
  }
  {
    const char *args[] = { "session", "new", tmp_log, "--cwd", ws, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, f->dir);
    dsh_test_assert_refused (&run, "which confined commands may write");
    g_assert_false (g_file_test (tmp_log, G_FILE_TEST_EXISTS));
  }
  {
    const char *args[] = { "session", "new", outside_log, "--cwd", ws, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
}

/* probe --mode M --workspace DIR answers for the call exec would make: modules beneath that
 * workspace are refused there too, and so is a root exec would refuse. */
static void
test_probe_answers_for_the_call (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = g_build_filename (f->dir, "ws", NULL);
  g_autofree char *modules = make_dir (f, "ws/modules");
  g_autofree char *alpha = dsh_test_module_path ("fake-alpha");
  g_autofree char *copy = NULL;
  g_autofree char *backend_dir = NULL;

  copy = dsh_test_copy_module (alpha, modules);
  backend_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", modules);
  {
    const char *env[] = { backend_dir, f->state, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
    const char *probe[] = { "probe", "--json", "--mode", "workspace-write", "--workspace", ws,
                            NULL };
    const char *exec[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "true",
                           NULL };
    g_auto (DshTestRun) run = { 0 };
    g_autoptr (JsonNode) report = NULL;

    dsh_test_run_cli (&run, probe, env, f->dir);
    g_assert_cmpint (run.exit_code, ==, 1);
    report = dsh_test_parse_valid_json (run.out, "probe.schema.json");
    g_assert_true (json_object_get_null_member (json_node_get_object (report), "selected"));
    g_assert_cmpstr (dsh_test_candidate_string (report, "fake-alpha", "status"), ==, "refused");

    dsh_test_run_cli (&run, exec, env, f->dir);
    dsh_test_assert_refused (&run, "Cause: ");
    g_assert_nonnull (strstr (run.err, "fake-alpha: refused: "));
  }
  /* A workspace of / is refused by exec, so probe selects nothing for it either. */
  {
    const char *env[] = { f->state, NULL };
    const char *probe[] = { "probe", "--json", "--mode", "workspace-write", "--workspace", "/",
                            NULL };
    g_auto (DshTestRun) run = { 0 };
    g_autoptr (JsonNode) report = NULL;
    JsonObject *object;

    dsh_test_run_cli (&run, probe, env, f->dir);
    g_assert_cmpint (run.exit_code, ==, 1);
    report = dsh_test_parse_valid_json (run.out, "probe.schema.json");
    object = json_node_get_object (report);
    g_assert_true (json_object_get_null_member (object, "selected"));
    g_assert_nonnull (strstr (json_object_get_string_member (object, "error"),
                              "the workspace root / would make"));
  }
  /* The same workspace without the planted modules: selected. */
  {
    const char *env[] = { f->state, NULL };
    const char *probe[] = { "probe", "--json", "--mode", "workspace-write", "--workspace", ws,
                            NULL };
    g_auto (DshTestRun) run = { 0 };
    g_autoptr (JsonNode) report = NULL;

    dsh_test_run_cli (&run, probe, env, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    report = dsh_test_parse_valid_json (run.out, "probe.schema.json");
    g_assert_false (json_object_get_null_member (json_node_get_object (report), "selected"));
  }
}

/* SANDBOX_UNAVAILABLE carries the exact text, then " Cause: " naming why each candidate was not
 * usable; nothing else uses that code. */
static void
test_unavailable_names_the_cause (Refusals *f, gconstpointer data)
{
  const char *expected = "dsh-sandbox: " SEED_UNAVAILABLE ("read-only")
    " Cause: DSH_SANDBOX_BACKEND=nope names no usable backend module\n";
  const char *env[] = { "DSH_SANDBOX_BACKEND=nope", NULL };
  const char *args[] = { "exec", "--workspace", f->dir, "--", "true", NULL };
  g_auto (DshTestRun) run = { 0 };

  dsh_test_run_cli (&run, args, env, f->dir);
  g_assert_cmpint (run.exit_code, ==, 125);
  g_assert_cmpstr (run.err, ==, expected);
}

/* An old symlink moved into a granted directory inside a directory of its own: the symlink's
 * time predates the grant, but the directory renamed in does not. Here a command granted T makes
 * T/evil/x -> victim; much later a command granted A (and T) moves T/evil to A/pkg; the next
 * call naming A/pkg/x must still be refused. */
static void
test_old_symlink_moved_in_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *staging = make_dir (f, "T");
  g_autofree char *outer = make_dir (f, "A");
  g_autofree char *victim = make_dir (f, "victim");
  g_autofree char *link = g_build_filename (outer, "pkg", "x", NULL);
  g_autofree char *make = g_strdup_printf ("mkdir '%s/evil' && ln -s '%s' '%s/evil/x'", staging,
                                           victim, staging);
  g_autofree char *move = g_strdup_printf ("mv '%s/evil' '%s/pkg'", staging, outer);
  g_autofree char *touch = g_strdup_printf ("touch '%s/pwned'", link);
  g_autofree char *pwned = g_build_filename (victim, "pwned", NULL);
  const char *first[] = { "exec", "--mode", "workspace-write", "--workspace", staging, "--", "sh",
                          "-c", make, NULL };
  const char *second[] = { "exec", "--mode", "workspace-write", "--workspace", outer,
                           "--writable-root", staging, "--", "sh", "-c", move, NULL };
  const char *third[] = { "exec", "--mode", "workspace-write", "--workspace", link, "--", "sh",
                          "-c", touch, NULL };
  g_auto (DshTestRun) run = { 0 };

  run_with_backend (&run, "landlock", f->state, first, staging);
  g_assert_cmpint (run.exit_code, ==, 0);
  /* Beyond the clock margin: A is granted well after the symlink was made. */
  g_usleep (1300 * 1000);
  run_with_backend (&run, "landlock", f->state, second, outer);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      run_with_backend (&run, backends[i], f->state, third, f->dir);
      dsh_test_assert_refused (&run, "after confined commands were allowed to write there");
      g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
    }
}

/* ---- extra writable roots ------------------------------------------------------------------ */

static char *
write_config (const char *dir, const char *json)
{
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);

  dsh_test_write_file (path, json);
  return g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", path);
}

/* A deployment's extraWritableRoots and a call's --writable-root are writable under
 * workspace-write on both backends, and nothing else is; read-only writes neither. */
static void
test_extra_roots_enforced (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *cache = make_dir (f, "cache");
  g_autofree char *asked = make_dir (f, "asked");
  g_autofree char *other = make_dir (f, "other");
  g_autofree char *json = g_strdup_printf ("{\"extraWritableRoots\": [\"%s\"]}", cache);
  g_autofree char *config = NULL;

  config = write_config (f->dir, json);
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backends[i]);
      const char *env[] = { backend_env, f->state, config, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
      g_autofree char *script = g_strdup_printf (
        "echo c > '%s/%s'; echo a > '%s/%s'; echo o > '%s/%s'", cache, backends[i], asked,
        backends[i], other, backends[i]);
      const char *ww[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                           "--writable-root", asked, "--", "sh", "-c", script, NULL };
      const char *ro[] = { "exec", "--mode", "read-only", "--workspace", ws, "--writable-root",
                           asked, "--", "sh", "-c", script, NULL };
      g_autofree char *in_cache = g_build_filename (cache, backends[i], NULL);
      g_autofree char *in_asked = g_build_filename (asked, backends[i], NULL);
      g_autofree char *in_other = g_build_filename (other, backends[i], NULL);
      g_auto (DshTestRun) run = { 0 };

      dsh_test_run_cli (&run, ro, env, ws);
      g_test_message ("%s read-only: %s", backends[i], run.err);
      g_assert_false (g_file_test (in_cache, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (in_asked, G_FILE_TEST_EXISTS));

      dsh_test_run_cli (&run, ww, env, ws);
      g_test_message ("%s workspace-write: %s", backends[i], run.err);
      dsh_test_assert_file_is (in_cache, "c\n");
      dsh_test_assert_file_is (in_asked, "a\n");
      g_assert_false (g_file_test (in_other, G_FILE_TEST_EXISTS));
      g_assert_nonnull (strstr (run.err, "[sandbox: file access denied under workspace-write"));
    }
  /* confine and serve hand the same roots out. */
  {
    const char *env[] = { f->state, config, "DSH_SANDBOX_BACKEND=landlock", NULL };
    const char *args[] = { "confine", "--mode", "workspace-write", "--workspace", ws,
                           "--writable-root", asked, "--", "true", NULL };
    g_autofree char *request = g_strdup_printf (
      "{\"id\": 1, \"method\": \"confine\", \"params\": {\"argv\": [\"true\"], \"mode\": "
      "\"workspace-write\", \"workspace\": \"%s\", \"writableRoots\": [\"%s\"]}}\n", ws, asked);
    const char *serve[] = { dsh_test_cli (), "serve", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_nonnull (strstr (run.out, cache));
    g_assert_nonnull (strstr (run.out, asked));
    g_assert_null (strstr (run.out, other));

    dsh_test_run (&run, serve, env, ws, request);
    g_assert_cmpint (run.exit_code, ==, 0);
    dsh_test_assert_valid_json (run.out, "serve-response.schema.json");
    g_assert_nonnull (strstr (run.out, cache));
    g_assert_nonnull (strstr (run.out, asked));
  }
}

/* An extra root that is missing when the call resolves its roots has no grant recorded: were
 * it handed to the runner and made before the runner opened it, its command could plant a
 * symlink there that a later call takes for the user's own. It is left out of the call, on
 * both backends: the argv does not name it, and its command cannot write there. */
static void
test_missing_extra_root_left_out (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *victim = make_dir (f, "victim");

  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autofree char *cache = g_strdup_printf ("%s/cache-%s", f->dir, backends[i]);
      g_autofree char *link = g_build_filename (cache, "link", NULL);
      g_autofree char *script = g_strdup_printf ("ln -s '%s' '%s'", victim, link);
      const char *args[] = { "confine", "--mode", "workspace-write", "--workspace", ws,
                             "--writable-root", cache, "--", "sh", "-c", script, NULL };
      g_auto (DshTestRun) run = { 0 };
      g_autoptr (JsonNode) node = NULL;
      g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      JsonArray *items, *warnings;

      /* exec says it after the command's stderr, and runs the command all the same. */
      {
        const char *exec_args[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                                    "--writable-root", cache, "--", "true", NULL };
        g_auto (DshTestRun) exec_run = { 0 };

        run_with_backend (&exec_run, backends[i], f->state, exec_args, ws);
        g_assert_cmpint (exec_run.exit_code, ==, 0);
        dsh_test_assert_one_line (exec_run.err, "dsh-sandbox warning: the extra writable root ",
                                  "is no directory, so this call left it out");
      }
      run_with_backend (&run, backends[i], f->state, args, ws);
      g_assert_cmpint (run.exit_code, ==, 0);
      /* Said, so that the command's denial there does not read as if it had the root. */
      dsh_test_assert_one_line (run.err, "dsh-sandbox warning: the extra writable root ",
                                "is no directory, so this call left it out");
      node = dsh_test_parse_valid_json (run.out, "confined-argv.schema.json");
      /* The document says it too, for a harness that reads no stderr. */
      warnings = json_object_get_array_member (json_node_get_object (node), "warnings");
      g_assert_cmpuint (json_array_get_length (warnings), ==, 1);
      g_assert_true (g_str_has_prefix (json_array_get_string_element (warnings, 0), "the extra "
                                       "writable root "));
      g_assert_nonnull (strstr (json_array_get_string_element (warnings, 0), cache));
      items = json_object_get_array_member (json_node_get_object (node), "argv");
      for (guint k = 0; k < json_array_get_length (items); k++)
        {
          g_assert_cmpstr (json_array_get_string_element (items, k), !=, cache);
          g_ptr_array_add (argv, g_strdup (json_array_get_string_element (items, k)));
        }
      g_ptr_array_add (argv, NULL);

      /* Made afterwards, by the user or a tool, before the harness runs the argv. */
      g_assert_cmpint (g_mkdir (cache, 0755), ==, 0);
      dsh_test_run (&run, (const char *const *) argv->pdata, NULL, ws, NULL);
      g_test_message ("%s: %s", backends[i], run.err);
      g_assert_cmpint (run.exit_code, !=, 0);
      g_assert_false (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
    }
}

/* An extra root that is a file is refused, saying so: not as a root that changed while it was
 * checked, which would send the user looking for a race. */
static void
test_file_extra_root_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *file = g_build_filename (f->dir, "not-a-dir", NULL);

  dsh_test_write_file (file, "a file\n");
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      const char *args[] = { "confine", "--mode", "workspace-write", "--workspace", ws,
                             "--writable-root", file, "--", "true", NULL };
      g_auto (DshTestRun) run = { 0 };
      g_autofree char *expected = g_strdup_printf ("dsh-sandbox: the writable root %s is no "
                                                   "directory (%s); refusing to run the "
                                                   "command\n", file, g_strerror (ENOTDIR));

      run_with_backend (&run, backends[i], f->state, args, ws);
      g_assert_cmpint (run.exit_code, ==, 125);
      g_assert_cmpstr (run.err, ==, expected);
    }
}

/* A root that goes up (..) from a directory that does not exist names no directory: the kernel
 * stops at the missing one. Tidying its spelling instead (ws/missing/../../victim is victim)
 * would grant a directory the path never reached; the call is refused, and a policy nothing was
 * pinned into leaves such a root out. */
static void
test_up_from_missing_dir (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *victim = make_dir (f, "victim");
  g_autofree char *file = g_build_filename (victim, "f", NULL);
  g_autofree char *through = g_build_filename (ws, "missing", "..", "..", "victim", NULL);
  g_autofree char *write = g_strdup_printf ("echo escaped > '%s'", file);
  g_autofree char *tmpdir_env = g_strdup_printf ("TMPDIR=%s", through);
  g_autofree char *state_dir = g_build_filename (f->dir, "state", NULL);
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) roots = NULL;
  const char *extra[] = { through, NULL };
  int fd;

  dsh_test_write_file (file, "original\n");
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backends[i]);
      const char *env[] = { f->state, backend_env, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
      const char *tmp_env[] = { tmpdir_env, f->state, backend_env, "DSH_SANDBOX_PROBE_CACHE=off",
                                NULL };
      const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                             "--writable-root", through, "--", "sh", "-c", write, NULL };
      const char *plain[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                              "-c", write, NULL };
      g_auto (DshTestRun) run = { 0 };

      dsh_test_run_cli (&run, args, env, ws);
      g_test_message ("%s: %s", backends[i], run.err);
      dsh_test_assert_refused (&run, "goes up");
      g_assert_nonnull (strstr (run.err, "the extra writable root"));
      dsh_test_assert_file_is (file, "original\n");

      dsh_test_run_cli (&run, plain, tmp_env, ws);
      g_test_message ("TMPDIR, %s: %s", backends[i], run.err);
      dsh_test_assert_refused (&run, "goes up");
      g_assert_nonnull (strstr (run.err, "the temp directory"));
      dsh_test_assert_file_is (file, "original\n");
    }

  /* The library's own resolution keeps the spelling, and a policy not pinned leaves it out. */
  g_assert_cmpstr (dsh_canonical_path (through), ==, through);
  g_setenv ("DSH_SANDBOX_STATE_DIR", state_dir, TRUE);
  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws, NULL);
  policy->extra_writable_roots = g_strdupv ((char **) extra);
  roots = dsh_writable_roots (policy);
  g_assert_false (g_strv_contains ((const char *const *) roots, victim));
  g_assert_false (g_strv_contains ((const char *const *) roots, through));
  fd = dsh_fs_fence_open (policy, file, O_WRONLY | O_TRUNC, 0, &error);
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_FS_DENIED);
  g_assert_cmpint (fd, <, 0);
  dsh_test_assert_file_is (file, "original\n");

  /* Nor a workspace root kept as spelled (a session's cwd whose directory a command removed):
   * victim/gone/.. is no name of victim's while gone is missing. */
  {
    g_autofree char *gone = g_build_filename (victim, "gone", "..", NULL);
    g_autoptr (DshSandboxPolicy) kept =
      dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, gone, NULL);
    g_auto (GStrv) kept_roots = dsh_writable_roots (kept);
    g_autoptr (GError) kept_error = NULL;

    g_assert_false (g_strv_contains ((const char *const *) kept_roots, victim));
    fd = dsh_fs_fence_open (kept, file, O_WRONLY | O_TRUNC, 0, &kept_error);
    g_assert_error (kept_error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_FS_DENIED);
    g_assert_cmpint (fd, <, 0);
    dsh_test_assert_file_is (file, "original\n");
  }
  g_unsetenv ("DSH_SANDBOX_STATE_DIR");
}

/* serve keeps its provider, and so its choice of modules and helpers, for its lifetime: once
 * another call grants the directory of one of them (whose command could then rewrite it),
 * serve's next confine must fail closed rather than hand out an argv that runs what is there
 * now. Each runner's helper directory in turn. */
static void
test_serve_code_dir_granted_later (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_auto (GStrv) helper_dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_HELPER_DIRS"),
                                           ":", -1);

  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backends[i]);
      g_autofree char *state = g_strdup_printf ("%s/state-%s", f->dir, backends[i]);
      g_autofree char *state_env = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s", state);
      const char *env[] = { backend_env, state_env, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
      /* The granting call runs under the other backend, whose own code lies elsewhere. */
      g_autofree char *other_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s",
                                                    backends[(i + 1) % G_N_ELEMENTS (backends)]);
      const char *other[] = { other_env, state_env, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
      g_autofree char *request = g_strdup_printf (
        "{\"id\": 1, \"method\": \"confine\", \"params\": {\"argv\": [\"true\"], "
        "\"mode\": \"workspace-write\", \"workspace\": \"%s\"}}\n", ws);
      g_autoptr (GSubprocessLauncher) launcher =
        g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
      g_autoptr (GSubprocess) serve = NULL;
      g_autoptr (GDataInputStream) out = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *first = NULL;
      g_autofree char *second = NULL;
      const char *code_dir = NULL;

      for (guint d = 0; helper_dirs[d] != NULL; d++)
        if (g_str_has_suffix (helper_dirs[d], backends[i]))
          code_dir = helper_dirs[d];
      g_assert_nonnull (code_dir);
      g_assert_cmpint (g_mkdir (state, 0700), ==, 0);
      dsh_test_launcher_set_env (launcher, env);
      serve = g_subprocess_launcher_spawn (launcher, &error, dsh_test_cli (), "serve", NULL);
      g_assert_no_error (error);
      out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (serve));
      g_assert_true (g_output_stream_write_all (g_subprocess_get_stdin_pipe (serve), request,
                                                strlen (request), NULL, NULL, &error));
      first = g_data_input_stream_read_line (out, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (strstr (first, "\"argv\""));

      /* Another call grants that directory (its command does nothing with it here). */
      {
        const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                               "--writable-root", code_dir, "--", "true", NULL };
        g_auto (DshTestRun) run = { 0 };

        dsh_test_run_cli (&run, args, other, ws);
        g_assert_cmpint (run.exit_code, ==, 0);
      }

      g_assert_true (g_output_stream_write_all (g_subprocess_get_stdin_pipe (serve), request,
                                                strlen (request), NULL, NULL, &error));
      g_assert_true (g_output_stream_close (g_subprocess_get_stdin_pipe (serve), NULL, &error));
      second = g_data_input_stream_read_line (out, NULL, NULL, &error);
      g_assert_no_error (error);
      g_test_message ("%s: %s", backends[i], second);
      g_assert_null (strstr (second, "\"argv\""));
      g_assert_nonnull (strstr (second, "was granted to a confined command since"));
      g_assert_true (g_subprocess_wait (serve, NULL, &error));
    }
}

/* The record of granted roots must be out of every root's reach whatever the root's path: a
 * bind mount (a container's volume) gives the directory holding the state directory a second
 * path, and a call whose workspace is that path could have its command erase the record, and
 * with it every grant a planted symlink is judged by. Refused on both backends, by identity. */
static void
test_record_reached_through_bind_mount (Refusals *f, gconstpointer data)
{
  g_autofree char *state_dir = g_build_filename (f->dir, "state", NULL);
  g_autofree char *alias = make_dir (f, "alias");
  g_autofree char *record_there = g_build_filename (alias, "state", NULL);
  g_autofree char *touch = g_strdup_printf ("rm -rf '%s'", record_there);

  /* The record exists before the call that reaches it. */
  g_assert_cmpint (g_mkdir_with_parents (state_dir, 0700), ==, 0);
  if (mount (f->dir, alias, NULL, MS_BIND, NULL) != 0)
    {
      dsh_test_require (FALSE, "cannot bind-mount here");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", alias, "--",
                             "sh", "-c", touch, NULL };
      g_auto (DshTestRun) run = { 0 };

      run_with_backend (&run, backends[i], f->state, args, alias);
      g_test_message ("%s: %s", backends[i], run.err);
      dsh_test_assert_refused (&run, "is reached through the writable root");
      g_assert_true (g_file_test (state_dir, G_FILE_TEST_IS_DIR));
    }
  g_assert_cmpint (umount2 (alias, MNT_DETACH), ==, 0);
}

/* Binds source at path (made in the scratch directory), to be unmounted at teardown; FALSE
 * (the test skipped, or failed in CI) where this process may not mount. The mounts are made
 * in a mount namespace of this test process's own (and its children's): a test that aborts
 * leaves no bind of /etc in the build tree for a later rm -rf to descend into. */
static gboolean
bind_alias (Refusals *f, const char *source, const char *path, char **out_alias)
{
  static gboolean own_namespace;
  g_autofree char *alias = make_dir (f, path);

  if (!own_namespace)
    {
      if (geteuid () != 0 || unshare (CLONE_NEWNS) != 0 ||
          mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        {
          dsh_test_require (FALSE, "mounting file systems needs root (CI runs as root)");
          return FALSE;
        }
      own_namespace = TRUE;
    }
  if (mount (source, alias, NULL, MS_BIND, NULL) != 0)
    {
      dsh_test_require (FALSE, "cannot bind-mount here");
      return FALSE;
    }
  g_ptr_array_add (f->mounts, g_strdup (alias));
  *out_alias = g_steal_pointer (&alias);
  return TRUE;
}

/* What is refused by path is refused by identity too: a bind mount gives $HOME, a directory above
 * it or the workspace, or a system directory another, innocent path, and a root or temp directory
 * of that path would hand the same directory to confined commands. Refused on both backends,
 * with the path form's reason, and ~/.bashrc stays as it was. */
static void
test_roots_reached_through_bind_mount (Refusals *f, gconstpointer data)
{
  g_autofree char *home = make_dir (f, "home/me");
  g_autofree char *home_parent = g_build_filename (f->dir, "home", NULL);
  g_autofree char *home_env = g_strdup_printf ("HOME=%s", home);
  g_autofree char *ws = make_dir (f, "A/ws");
  g_autofree char *ws_parent = g_build_filename (f->dir, "A", NULL);
  g_autofree char *bashrc = g_build_filename (home, ".bashrc", NULL);
  g_autofree char *victim = g_build_filename (ws_parent, "victim", NULL);
  g_autofree char *home_alias = NULL;
  g_autofree char *parent_alias = NULL;
  g_autofree char *ws_alias = NULL;
  g_autofree char *etc_alias = NULL;

  dsh_test_write_file (bashrc, "# original\n");
  dsh_test_write_file (victim, "# original\n");
  if (!bind_alias (f, home, "alias/home", &home_alias) ||
      !bind_alias (f, home_parent, "alias/home-parent", &parent_alias) ||
      !bind_alias (f, ws_parent, "alias/ws-parent", &ws_alias) ||
      !bind_alias (f, "/etc", "alias/etc", &etc_alias))
    return;
  {
    struct {
      const char *alias;
      /* What the command appends to (NULL: it only runs true: /etc is the host's own). */
      const char *bashrc;
      const char *reason;
    } cases[] = {
      { home_alias, ".bashrc", "is $HOME" },
      { parent_alias, "me/.bashrc", "is an ancestor of $HOME" },
      { ws_alias, "victim", "is an ancestor of the workspace" },
      { etc_alias, NULL, "is a system directory" },
    };

    for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        g_autofree char *write =
          cases[c].bashrc != NULL
            ? g_strdup_printf ("echo 'echo PWNED' >> '%s/%s'", cases[c].alias, cases[c].bashrc)
            : g_strdup ("true");
        g_autofree char *tmpdir_env = g_strdup_printf ("TMPDIR=%s", cases[c].alias);

        for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
          {
            g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s",
                                                            backends[i]);
            const char *extra_env[] = { home_env, f->state, backend_env,
                                        "DSH_SANDBOX_PROBE_CACHE=off", NULL };
            const char *temp_env[] = { home_env, f->state, backend_env, tmpdir_env,
                                       "DSH_SANDBOX_PROBE_CACHE=off", NULL };
            const char *extra[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                                    "--writable-root", cases[c].alias, "--", "sh", "-c", write,
                                    NULL };
            const char *temp[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--",
                                   "sh", "-c", write, NULL };
            g_auto (DshTestRun) run = { 0 };

            dsh_test_run_cli (&run, extra, extra_env, ws);
            g_test_message ("--writable-root %s %s: %s", cases[c].alias, backends[i], run.err);
            dsh_test_assert_refused (&run, cases[c].reason);
            g_assert_nonnull (strstr (run.err, "the extra writable root"));
            g_assert_nonnull (strstr (run.err, "reached by another path"));
            dsh_test_assert_file_is (bashrc, "# original\n");
            dsh_test_assert_file_is (victim, "# original\n");

            dsh_test_run_cli (&run, temp, temp_env, ws);
            g_test_message ("TMPDIR=%s %s: %s", cases[c].alias, backends[i], run.err);
            dsh_test_assert_refused (&run, cases[c].reason);
            g_assert_nonnull (strstr (run.err, "the temp directory"));
            g_assert_nonnull (strstr (run.err, "reached by another path"));
            dsh_test_assert_file_is (bashrc, "# original\n");
            dsh_test_assert_file_is (victim, "# original\n");
          }
      }
  }
  /* A directory of its own reached through a bind mount is no such directory: granted. */
  {
    g_autofree char *own = make_dir (f, "own");
    g_autofree char *own_alias = NULL;
    g_autofree char *touch = NULL;
    g_autofree char *made = g_build_filename (own, "t", NULL);

    if (!bind_alias (f, own, "alias/own", &own_alias))
      return;
    touch = g_strdup_printf ("touch '%s/t'", own_alias);
    for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
      {
        const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                               "--writable-root", own_alias, "--", "sh", "-c", touch, NULL };
        g_auto (DshTestRun) run = { 0 };

        run_with_backend (&run, backends[i], f->state, args, ws);
        g_assert_cmpint (run.exit_code, ==, 0);
        g_assert_true (g_file_test (made, G_FILE_TEST_EXISTS));
        g_assert_cmpint (g_unlink (made), ==, 0);
      }
  }
}

/* Every rule for writable roots applies to extra ones. */
static void
test_extra_roots_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *home = make_dir (f, "home");
  g_autofree char *home_env = g_strdup_printf ("HOME=%s", home);
  g_autofree char *ws = make_dir (f, "A/ws");
  g_autofree char *parent = g_build_filename (f->dir, "A", NULL);
  g_autofree char *victim = make_dir (f, "victim");
  g_autofree char *planted = g_build_filename (ws, "cache", NULL);
  g_autofree char *plant = g_strdup_printf ("ln -s '%s' '%s'", victim, planted);
  struct {
    const char *root;
    const char *reason;
  } cases[] = {
    { "/", "is /" },
    { "/usr/lib", "is a system directory" },
    /* Where the system finds what it runs later, as root: crontabs, service state, units. */
    { "/var/spool/cron", "is a system directory" },
    { "/var/lib/dpkg", "is a system directory" },
    { "/run/systemd/system", "is a system directory" },
    { "/var/cache/apt", "is a system directory" },
    { home, "is $HOME" },
    { f->dir, "is an ancestor of $HOME" },
    { parent, "is an ancestor of the workspace" },
    { "relative", NULL },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const char *env[] = { home_env, f->state, "DSH_SANDBOX_BACKEND=landlock", NULL };
      const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws,
                             "--writable-root", cases[c].root, "--", "true", NULL };
      g_auto (DshTestRun) run = { 0 };

      dsh_test_run_cli (&run, args, env, ws);
      if (cases[c].reason == NULL)
        {
          /* A relative one is taken against the current directory, as spelled. */
          g_assert_cmpint (run.exit_code, ==, 0);
          continue;
        }
      dsh_test_assert_refused (&run, cases[c].reason);
      g_assert_nonnull (strstr (run.err, "the extra writable root"));
    }
  /* A symlink planted by a confined command of the workspace, named as an extra root. */
  {
    const char *env[] = { home_env, f->state, "DSH_SANDBOX_BACKEND=landlock", NULL };
    const char *first[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                            "-c", plant, NULL };
    g_autofree char *elsewhere = g_build_filename (home, "w", NULL);
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", elsewhere,
                           "--writable-root", planted, "--", "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, first, env, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (planted, G_FILE_TEST_IS_SYMLINK));
    g_assert_cmpint (g_mkdir (elsewhere, 0755), ==, 0);
    dsh_test_run_cli (&run, args, env, ws);
    dsh_test_assert_refused (&run, "after confined commands were allowed to write there");
  }
  /* A configuration naming a relative root is refused as malformed. */
  {
    g_autofree char *config = write_config (f->dir, "{\"extraWritableRoots\": [\"cache\"]}");
    const char *env[] = { config, f->state, NULL };
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "true",
                           NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    dsh_test_assert_refused (&run, "extraWritableRoots[0] must be an absolute path");
  }
}

/* A session pins the deployment's extra roots at creation: later changes of the configuration
 * never alter it, and its policy context names them. A session log inside one is refused. */
static void
test_extra_roots_pinned_into_session (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *cache = make_dir (f, "cache");
  g_autofree char *later = make_dir (f, "later");
  g_autofree char *log = g_build_filename (f->dir, "s.jsonl", NULL);
  g_autofree char *log_in_cache = g_build_filename (cache, "s.jsonl", NULL);
  g_autofree char *first = g_strdup_printf ("{\"extraWritableRoots\": [\"%s\"]}", cache);
  g_autofree char *second = g_strdup_printf ("{\"extraWritableRoots\": [\"%s\"]}", later);
  g_autofree char *config = NULL;
  g_autofree char *write = g_strdup_printf ("echo c > '%s/f'; echo l > '%s/f'", cache, later);
  g_autofree char *in_cache = g_build_filename (cache, "f", NULL);
  g_autofree char *in_later = g_build_filename (later, "f", NULL);

  config = write_config (f->dir, first);
  {
    const char *env[] = { config, f->state, NULL };
    const char *in_reach[] = { "session", "new", log_in_cache, "--cwd", ws, NULL };
    const char *args[] = { "session", "new", log, "--cwd", ws, "--preset", "workspace-write",
                           NULL };
    const char *context[] = { "policy", "context", "--session", log, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, in_reach, env, f->dir);
    dsh_test_assert_refused (&run, "which confined commands may write");
    dsh_test_run_cli (&run, args, env, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    dsh_test_run_cli (&run, context, env, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_nonnull (strstr (run.out, "These extra directories are writable as well: "));
    g_assert_nonnull (strstr (run.out, cache));
  }
  /* The deployment changes its mind; the session does not. */
  g_free (config);
  config = write_config (f->dir, second);
  {
    const char *env[] = { config, f->state, "DSH_SANDBOX_BACKEND=landlock", NULL };
    const char *args[] = { "exec", "--session", log, "--", "sh", "-c", write, NULL };
    const char *context[] = { "policy", "context", "--session", log, NULL };
    const char *show[] = { "session", "show", log, "--json", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    dsh_test_assert_file_is (in_cache, "c\n");
    g_assert_false (g_file_test (in_later, G_FILE_TEST_EXISTS));
    dsh_test_run_cli (&run, context, env, f->dir);
    g_assert_nonnull (strstr (run.out, cache));
    g_assert_null (strstr (run.out, later));
    dsh_test_run_cli (&run, show, env, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    dsh_test_assert_valid_json (run.out, "session-show.schema.json");
  }
  /* Sessionless, the current configuration's roots are named. */
  {
    g_autofree char *third = g_strdup_printf (
      "{\"defaultMode\": \"workspace-write\", \"extraWritableRoots\": [\"%s\"]}", later);
    g_autofree char *ww_config = write_config (f->dir, third);
    const char *env[] = { ww_config, f->state, NULL };
    const char *context[] = { "policy", "context", NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, context, env, f->dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_str_has_prefix (run.out, "Current DSH file policy: workspace-write."));
    g_assert_nonnull (strstr (run.out, later));
    g_assert_null (strstr (run.out, cache));
  }
}

/* The fence writes beneath pinned extra roots and nowhere else. */
static void
test_extra_roots_fenced (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *cache = make_dir (f, "cache");
  g_autofree char *other = make_dir (f, "other");
  g_autofree char *in_cache = g_build_filename (cache, "f", NULL);
  g_autofree char *in_other = g_build_filename (other, "f", NULL);
  g_autofree char *state_dir = g_build_filename (f->dir, "state", NULL);
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (GError) error = NULL;
  const char *extra[] = { cache, NULL };
  int fd;

  g_setenv ("DSH_SANDBOX_STATE_DIR", state_dir, TRUE);
  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws, NULL);
  policy->extra_writable_roots = g_strdupv ((char **) extra);
  g_assert_true (dsh_roots_pin (policy, NULL, NULL, &error));
  g_assert_no_error (error);
  g_unsetenv ("DSH_SANDBOX_STATE_DIR");
  g_assert_true (g_strv_contains ((const char *const *) policy->writable_roots, cache));

  fd = dsh_fs_fence_open (policy, in_cache, O_WRONLY | O_CREAT, 0644, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  fd = dsh_fs_fence_open (policy, in_other, O_WRONLY | O_CREAT, 0644, &error);
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_FS_DENIED);
  g_assert_cmpint (fd, <, 0);
  g_assert_false (g_file_test (in_other, G_FILE_TEST_EXISTS));
}

/* Mounts the overlay of the directories below base at base/m. */
static void
mount_overlay (const char *base)
{
  g_autofree char *merged = g_build_filename (base, "m", NULL);
  g_autofree char *options = g_strdup_printf ("lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/work",
                                              base, base, base);

  g_assert_cmpint (mount ("overlay", merged, "overlay", 0, options), ==, 0);
}

/* An overlay at base/m of directories on a tmpfs at base, both this test process's own (and
 * its children's): none outlives it. FALSE (the test skipped) without root. */
static gboolean
overlay_of_own (const char *base)
{
  if (geteuid () != 0)
    {
      g_test_skip ("mounting file systems needs root (CI runs as root)");
      return FALSE;
    }
  g_assert_cmpint (unshare (CLONE_NEWNS), ==, 0);
  g_assert_cmpint (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), ==, 0);
  g_assert_cmpint (mount ("tmpfs", base, "tmpfs", 0, "size=4m,mode=0755"), ==, 0);
  for (guint i = 0; i < 4; i++)
    {
      const char *names[] = { "lower", "upper", "work", "m" };
      g_autofree char *dir = g_build_filename (base, names[i], NULL);

      g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
    }
  mount_overlay (base);
  return TRUE;
}

/* A call confined to ws (under Landlock) whose command plants link, a symlink to victim. */
static void
plant_symlink (Refusals *f, const char *ws, const char *link, const char *victim)
{
  g_autofree char *plant = g_strdup_printf ("ln -s '%s' '%s'", victim, link);
  const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh", "-c",
                         plant, NULL };
  g_auto (DshTestRun) run = { 0 };

  run_with_backend (&run, "landlock", f->state, args, f->dir);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
}

/* A later call named through link (planted by plant_symlink()) is refused under either backend,
 * and victim_file, which holds "original", stays so. */
static void
assert_named_through_refused (Refusals *f, const char *link, const char *victim_file)
{
  g_autofree char *write = g_strdup_printf ("echo escaped > '%s/file'", link);

  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", link, "--", "sh",
                             "-c", write, NULL };
      g_auto (DshTestRun) run = { 0 };

      run_with_backend (&run, backends[i], f->state, args, f->dir);
      dsh_test_assert_refused (&run, "after confined commands were allowed to write there");
      dsh_test_assert_file_is (victim_file, "original\n");
    }
}

/* Mounts the overlay at base/m again once other file systems took the device numbers it could
 * get back, until ws (whose stat was *before) is on another one: how many fillers that took,
 * for unmount_fillers(). */
static guint
remount_under_another_device (Refusals *f, const char *base, const char *ws,
                              const struct stat *before)
{
  g_autofree char *merged = g_build_filename (base, "m", NULL);
  struct stat after;
  guint fillers = 0;

  do
    {
      g_autofree char *filler = g_strdup_printf ("%s/filler-%u", f->dir, fillers++);

      g_assert_cmpint (umount (merged), ==, 0);
      g_assert_cmpint (g_mkdir (filler, 0755), ==, 0);
      g_assert_cmpint (mount ("tmpfs", filler, "tmpfs", 0, "size=64k"), ==, 0);
      mount_overlay (base);
      g_assert_cmpint (stat (ws, &after), ==, 0);
    }
  while (after.st_dev == before->st_dev && fillers < 256);
  g_assert_cmpuint (after.st_dev, !=, before->st_dev);
  g_assert_cmpuint (after.st_ino, ==, before->st_ino);
  return fillers;
}

static void
unmount_fillers (Refusals *f, guint fillers)
{
  for (guint i = 0; i < fillers; i++)
    {
      g_autofree char *filler = g_strdup_printf ("%s/filler-%u", f->dir, i);

      g_assert_cmpint (umount (filler), ==, 0);
    }
}

/* A workspace on an overlay that comes from its lower layer (a repository in a container's
 * image) is copied up when a command first writes in it: the same inode number on the same
 * device, but the birth time of the upper copy. The command that does so plants a symlink to a
 * victim directory; a later call named through it must not get the victim as its root. With
 * data, the overlay also comes back under another device number before that call, as a
 * container restarted on its image does: only the overlay's own file system id (kept in its
 * upper layer) and the inode stay. */
static void
test_granted_root_copied_up (Refusals *f, gconstpointer data)
{
  g_autofree char *base = make_dir (f, "fs");
  g_autofree char *victim = make_dir (f, "victim");
  g_autofree char *victim_file = g_build_filename (victim, "file", NULL);
  g_autofree char *lower_ws = g_build_filename (base, "lower", "ws", NULL);
  g_autofree char *merged = g_build_filename (base, "m", NULL);
  g_autofree char *ws = g_build_filename (merged, "ws", NULL);
  g_autofree char *link = g_build_filename (ws, "link", NULL);
  struct stat before;
  guint fillers = 0;

  if (!overlay_of_own (base))
    return;
  /* Made in the lower layer before the overlay saw it, as an image's directories are. */
  g_assert_cmpint (umount (merged), ==, 0);
  g_assert_cmpint (g_mkdir (lower_ws, 0755), ==, 0);
  mount_overlay (base);
  dsh_test_write_file (victim_file, "original\n");
  g_assert_cmpint (stat (ws, &before), ==, 0);

  plant_symlink (f, ws, link, victim);
  if (data != NULL)
    fillers = remount_under_another_device (f, base, ws, &before);

  assert_named_through_refused (f, link, victim_file);
  g_assert_cmpint (umount (merged), ==, 0);
  g_assert_cmpint (umount (base), ==, 0);
  unmount_fillers (f, fillers);
}

/* A free loop device attached to image, its descriptor (closed, and no longer mounted, the
 * device lets go of image); its path in *path.
 * -1, the test skipped, on a machine without loop devices. */
static int
attach_loop (const char *image, char **path)
{
  int control = open ("/dev/loop-control", O_RDWR | O_CLOEXEC);
  int file, loop = -1;

  if (control < 0)
    {
      g_test_skip ("this machine has no loop devices (/dev/loop-control)");
      return -1;
    }
  file = open (image, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (file, >=, 0);
  /* Another process may take the free one first. */
  for (int tries = 0; tries < 16 && loop < 0; tries++)
    {
      int n = ioctl (control, LOOP_CTL_GET_FREE);

      g_assert_cmpint (n, >=, 0);
      g_free (*path);
      *path = g_strdup_printf ("/dev/loop%d", n);
      loop = open (*path, O_RDWR | O_CLOEXEC);
      g_assert_cmpint (loop, >=, 0);
      if (ioctl (loop, LOOP_SET_FD, file) != 0)
        {
          g_assert_cmpint (errno, ==, EBUSY);
          close (loop);
          loop = -1;
        }
    }
  g_assert_cmpint (loop, >=, 0);
  /* Detached by itself once nothing uses it, should the test stop half-way. */
  {
    struct loop_info64 info = { .lo_flags = LO_FLAGS_AUTOCLEAR };

    g_assert_cmpint (ioctl (loop, LOOP_SET_STATUS64, &info), ==, 0);
  }
  close (file);
  close (control);
  return loop;
}

/* On a file system that keeps no birth times (NFS; ext4 made with 128-byte inodes, as here) a
 * directory is known by its device number and inode, and the device number can change at the
 * next mount (here: another loop device; for NFS, the order of mounts at boot). A command
 * confined to a workspace there plants a symlink to a victim directory; once the file system
 * is back under another device number, a later call named through the symlink must not get
 * the victim as its root. */
static void
test_granted_root_without_birth_time_remounted (Refusals *f, gconstpointer data)
{
  g_autofree char *image = g_build_filename (f->dir, "fs.img", NULL);
  g_autofree char *mounted = make_dir (f, "m");
  g_autofree char *ws = g_build_filename (mounted, "ws", NULL);
  g_autofree char *victim = make_dir (f, "victim");
  g_autofree char *victim_file = g_build_filename (victim, "file", NULL);
  g_autofree char *link = g_build_filename (ws, "link", NULL);
  g_autofree char *first_path = NULL, *second_path = NULL;
  const char *mkfs[] = { "/sbin/mkfs.ext4", "-q", "-F", "-I", "128", image, "8M", NULL };
  struct stat before, after;
  struct statx stx;
  int first, second;

  if (geteuid () != 0)
    {
      g_test_skip ("mounting file systems needs root (CI runs as root)");
      return;
    }
  {
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run (&run, mkfs, NULL, f->dir, NULL);
    g_assert_cmpint (run.exit_code, ==, 0);
  }
  if ((first = attach_loop (image, &first_path)) < 0)
    return;
  g_assert_cmpint (unshare (CLONE_NEWNS), ==, 0);
  g_assert_cmpint (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), ==, 0);
  g_assert_cmpint (mount (first_path, mounted, "ext4", 0, NULL), ==, 0);
  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  g_assert_cmpint (statx (AT_FDCWD, ws, 0, STATX_BASIC_STATS | STATX_BTIME, &stx), ==, 0);
  g_assert_false (stx.stx_mask & STATX_BTIME);
  g_assert_cmpint (stat (ws, &before), ==, 0);
  dsh_test_write_file (victim_file, "original\n");

  plant_symlink (f, ws, link, victim);

  /* Back under another loop device, so another device number. */
  g_assert_cmpint (umount (mounted), ==, 0);
  second = attach_loop (image, &second_path);
  close (first);
  g_assert_cmpint (mount (second_path, mounted, "ext4", 0, NULL), ==, 0);
  g_assert_cmpint (stat (ws, &after), ==, 0);
  g_assert_cmpuint (after.st_dev, !=, before.st_dev);
  g_assert_cmpuint (after.st_ino, ==, before.st_ino);

  assert_named_through_refused (f, link, victim_file);

  g_assert_cmpint (umount (mounted), ==, 0);
  close (second);
}

/* Leaves in the record at state only what versions before stable entry names wrote: names
 * beginning with the device number. */
static void
forget_stable_names (const char *state)
{
  g_autoptr (GDir) dir = g_dir_open (state, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (state, name, NULL);

      if (g_str_has_prefix (name, "i-") || g_str_equal (name, "stable-names"))
        g_assert_cmpint (g_unlink (path), ==, 0);
    }
}

/* The device number a file system gets can change between one mount and the next: another
 * mount took its number meanwhile, a disk was found in another order at boot, an overlay or a
 * btrfs subvolume was mounted after another. A command confined to a workspace there plants a
 * symlink to a victim directory in it; after the file system comes back under another device
 * number, the workspace is the same directory (same inode, same birth time) and still one that
 * was granted: a later call named through the symlink must not get the victim as its root.
 * With data, the grant is one an earlier version recorded (by its device number only). */
static void
test_granted_root_remounted (Refusals *f, gconstpointer data)
{
  g_autofree char *state = g_build_filename (f->dir, "state", NULL);
  g_autofree char *base = make_dir (f, "fs");
  g_autofree char *victim = make_dir (f, "victim");
  g_autofree char *victim_file = g_build_filename (victim, "file", NULL);
  g_autofree char *merged = g_build_filename (base, "m", NULL);
  g_autofree char *ws = g_build_filename (merged, "ws", NULL);
  g_autofree char *link = g_build_filename (ws, "link", NULL);
  struct stat before;
  guint fillers;

  if (!overlay_of_own (base))
    return;
  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  g_assert_cmpint (stat (ws, &before), ==, 0);
  dsh_test_write_file (victim_file, "original\n");

  plant_symlink (f, ws, link, victim);
  if (data != NULL)
    forget_stable_names (state);

  fillers = remount_under_another_device (f, base, ws, &before);

  assert_named_through_refused (f, link, victim_file);

  g_assert_cmpint (umount (merged), ==, 0);
  g_assert_cmpint (umount (base), ==, 0);
  unmount_fillers (f, fillers);
}

/* A grant is on disk before the command runs (a crash would otherwise forget it, and a symlink
 * the command planted beneath the root would widen the first call after the reboot): where the
 * record cannot be written to disk the call is refused and nothing runs; once it can, the next
 * call records the grant anew and runs. */
static void
test_grant_not_durable_refused (Refusals *f, gconstpointer data)
{
  g_autofree char *ws = make_dir (f, "ws");
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch '%s'", marker);
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", f->state, "DSH_SANDBOX_PROBE_CACHE=off",
                        NULL };

  {
    const char *argv[] = { dsh_test_getenv_required ("DSH_TEST_DENY_SYSCALLS"), "--errno",
                           "EIO", "--syscall", "fsync", "--", dsh_test_cli (), "exec", "--mode",
                           "workspace-write", "--workspace", ws, "--", "sh", "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run (&run, argv, env, ws, NULL);
    dsh_test_assert_never_ran (&run, marker);
    g_assert_nonnull (strstr (run.err, "cannot be written to disk (Input/output error)"));
  }
  {
    const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
                           "-c", touch, NULL };
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run_cli (&run, args, env, ws);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add (path, Refusals, NULL, refusals_set_up, fn, refusals_tear_down)
  ADD ("/root-refusals/workspace-swapped-for-root", test_workspace_swapped_for_root);
  ADD ("/root-refusals/workspace-of-root", test_workspace_of_root_refused);
  ADD ("/root-refusals/nested-workspace", test_nested_workspace_symlink_refused);
  ADD ("/root-refusals/nested-workspace-session", test_nested_workspace_session_refused);
  ADD ("/root-refusals/old-symlink-moved-in", test_old_symlink_moved_in_refused);
  ADD ("/root-refusals/missing-extra-root-left-out", test_missing_extra_root_left_out);
  ADD ("/root-refusals/file-extra-root-refused", test_file_extra_root_refused);
  ADD ("/root-refusals/up-from-missing-dir", test_up_from_missing_dir);
  ADD ("/root-refusals/record-reached-through-bind-mount",
       test_record_reached_through_bind_mount);
  ADD ("/root-refusals/roots-reached-through-bind-mount", test_roots_reached_through_bind_mount);
  ADD ("/root-refusals/serve-code-dir-granted-later", test_serve_code_dir_granted_later);
  ADD ("/root-refusals/granted-root-remounted", test_granted_root_remounted);
  ADD ("/root-refusals/granted-root-copied-up", test_granted_root_copied_up);
  ADD ("/root-refusals/granted-root-without-birth-time-remounted",
       test_granted_root_without_birth_time_remounted);
  g_test_add ("/root-refusals/granted-root-remounted/earlier-record", Refusals, "earlier",
              refusals_set_up, test_granted_root_remounted, refusals_tear_down);
  g_test_add ("/root-refusals/granted-root-copied-up/remounted", Refusals, "remounted",
              refusals_set_up, test_granted_root_copied_up, refusals_tear_down);
  ADD ("/root-refusals/untrusted-record", test_untrusted_record_refused);
  ADD ("/root-refusals/temp-dir", test_temp_dir_refused);
  ADD ("/root-refusals/session-at-creation", test_session_refused_at_creation);
  ADD ("/root-refusals/probe-for-the-call", test_probe_answers_for_the_call);
  ADD ("/root-refusals/unavailable-cause", test_unavailable_names_the_cause);
  ADD ("/root-refusals/extra-roots/enforced", test_extra_roots_enforced);
  ADD ("/root-refusals/extra-roots/refused", test_extra_roots_refused);
  ADD ("/root-refusals/extra-roots/pinned-into-session", test_extra_roots_pinned_into_session);
  ADD ("/root-refusals/extra-roots/fenced", test_extra_roots_fenced);
  ADD ("/root-refusals/code-dirs-out-of-reach", test_code_dirs_out_of_reach);
  ADD ("/root-refusals/own-executable-out-of-reach", test_own_executable_out_of_reach);
  ADD ("/root-refusals/module-linked-into-granted-dir", test_module_linked_into_granted_dir);
  ADD ("/root-refusals/grant-not-durable", test_grant_not_durable_refused);
#undef ADD
  return g_test_run ();
}
