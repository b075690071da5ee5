/* test-conformance.c — one suite that every Linux backend must pass, run unchanged once per backend
 * (DSH_SANDBOX_BACKEND=bwrap, =landlock) through the real `dsh-sandbox exec` on this kernel.
 * What it expects of a backend comes from the key file DSH_CONFORMANCE_EXPECTATIONS names, kept
 * beside the backend (linux/bwrap/tests/conformance.ini), so a third-party module can be held to
 * the same suite.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every case asserts what the kernel did to the files, the exit status, the report's outcome and
 * the denial marker with the backend's own dialect. Where the backends honestly differ (bwrap's
 * private /tmp, /dev and PID namespace; Landlock's host /tmp and visible processes) the key file
 * says so and a case pins each side; linux/README-backends.md explains the differences.
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-test-linux.h"

/* What a backend is, as far as this suite can observe it. */
typedef struct {
  const char *name;
  /* Denial dialect: the strerror text a refused write produces. */
  const char *dialect;
  /* How dsh-test-deny-syscalls makes the runner itself fail for real. */
  const char *deny_errno;
  const char *deny_syscalls;
  /* The runner's fatal line (the runner-failure detail) starts with this. */
  const char *fatal_prefix;
  /* Exit codes the runner-failure rule allows. */
  int fatal_exit;
  /* A line that matches a fatal signature (blamed on the runner only with the right status). */
  const char *fatal_sample;
  /* A line the runner prints for the command's own failure; not a runner failure. */
  const char *lookalike_line;
  int lookalike_exit;
  /* The status for a command that cannot be executed, read-only and workspace-write. */
  int missing_command_exit;
  int missing_command_exit_write;
  const char *enforcement;
  /* Honest differences, each pinned by a case. */
  gboolean private_tmp;
  gboolean private_dev;
  gboolean hides_host_processes;
  gboolean governs_metadata;
  gboolean reports_signal;
  /* For a launcher in front of the runner: how to make it fail, and its fatal line's start. */
  /* What kind of .git at the workspace makes the launcher refuse ("fifo"). */
  const char *launcher_refused_git;
  const char *launcher_fatal_prefix;
  /* Whether .git/hooks and .git/config stay read-only inside the writable roots. */
  gboolean protects_git;
} Backend;

static const Backend *backend;

typedef enum {
  KEY_STRING,
  KEY_INT,
  KEY_BOOLEAN,
} KeyType;

typedef struct {
  const char *key;
  KeyType type;
  gsize offset;
} BackendKey;

#define KEY(name, type, field) { name, type, G_STRUCT_OFFSET (Backend, field) }
static const BackendKey backend_keys[] = {
  KEY ("Name", KEY_STRING, name),
  KEY ("Dialect", KEY_STRING, dialect),
  KEY ("DenyErrno", KEY_STRING, deny_errno),
  KEY ("DenySyscalls", KEY_STRING, deny_syscalls),
  KEY ("FatalPrefix", KEY_STRING, fatal_prefix),
  KEY ("FatalExit", KEY_INT, fatal_exit),
  KEY ("FatalSample", KEY_STRING, fatal_sample),
  KEY ("LookalikeLine", KEY_STRING, lookalike_line),
  KEY ("LookalikeExit", KEY_INT, lookalike_exit),
  KEY ("MissingCommandExit", KEY_INT, missing_command_exit),
  KEY ("Enforcement", KEY_STRING, enforcement),
  KEY ("PrivateTmp", KEY_BOOLEAN, private_tmp),
  KEY ("PrivateDev", KEY_BOOLEAN, private_dev),
  KEY ("HidesHostProcesses", KEY_BOOLEAN, hides_host_processes),
  KEY ("GovernsMetadata", KEY_BOOLEAN, governs_metadata),
  KEY ("ReportsSignal", KEY_BOOLEAN, reports_signal),
  KEY ("MissingCommandExitWrite", KEY_INT, missing_command_exit_write),
  KEY ("ProtectsGit", KEY_BOOLEAN, protects_git),
};
/* Only for a launcher in front of the runner: both keys or neither. */
static const BackendKey launcher_keys[] = {
  KEY ("LauncherRefusedGit", KEY_STRING, launcher_refused_git),
  KEY ("LauncherFatalPrefix", KEY_STRING, launcher_fatal_prefix),
};
#undef KEY

/* Reads the keys into b; a missing or malformed one ends the run, naming the file. */
static void
expect_keys (GKeyFile *file, const char *path, const BackendKey *keys, gsize n_keys, Backend *b)
{
  for (gsize i = 0; i < n_keys; i++)
    {
      g_autoptr (GError) error = NULL;
      gpointer field = G_STRUCT_MEMBER_P (b, keys[i].offset);

      switch (keys[i].type)
        {
        case KEY_STRING:
          *(char **) field = g_key_file_get_string (file, "Backend", keys[i].key, &error);
          break;
        case KEY_INT:
          *(int *) field = g_key_file_get_integer (file, "Backend", keys[i].key, &error);
          break;
        case KEY_BOOLEAN:
          *(gboolean *) field = g_key_file_get_boolean (file, "Backend", keys[i].key, &error);
          break;
        }
      if (error != NULL)
        g_error ("%s: %s", path, error->message);
    }
}

/* The expectations of one backend, every key required: a missing one is an error, never a
 * default that would let a case pass for the wrong reason. Kept for the whole run. */
static const Backend *
load_backend (const char *path)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  Backend *b = g_new0 (Backend, 1);

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &error))
    g_error ("%s: %s", path, error->message);
  expect_keys (file, path, backend_keys, G_N_ELEMENTS (backend_keys), b);
  if (g_key_file_has_key (file, "Backend", "LauncherRefusedGit", NULL) ||
      g_key_file_has_key (file, "Backend", "LauncherFatalPrefix", NULL))
    expect_keys (file, path, launcher_keys, G_N_ELEMENTS (launcher_keys), b);
  return b;
}

static gboolean backend_works (void);

typedef struct {
  char *base;
  char *ws;
  char *home;
  char *outside;
  char *tmpdir;
  char *report_path;
  char *ws_file;
  char *home_file;
  char *outside_file;
  /* The --workspace of the next exec when not ws. */
  const char *exec_workspace;
  JsonNode *report;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  const char *tmpdir_env = g_getenv ("TMPDIR");

  (void) data;
  f->base = dsh_test_scratch_dir (backend->name);
  /* "Outside" must be outside every writable root, and those include /tmp and TMPDIR. */
  g_assert_false (g_str_has_prefix (f->base, "/tmp/"));
  g_assert_true (tmpdir_env == NULL || !g_str_has_prefix (f->base, tmpdir_env));

  f->ws = dsh_test_make_dir (f->base, "ws");
  f->home = dsh_test_make_dir (f->base, "home");
  f->outside = dsh_test_make_dir (f->base, "outside");
  f->tmpdir = dsh_test_make_dir (f->base, "tmpdir");
  f->report_path = g_build_filename (f->base, "report.json", NULL);
  f->ws_file = dsh_test_make_file (f->ws, "file", "inside\n");
  f->home_file = dsh_test_make_file (f->home, "file", "original\n");
  f->outside_file = dsh_test_make_file (f->outside, "file", "original\n");
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  (void) data;
  dsh_test_remove_tree (f->base);
  g_free (f->base);
  g_free (f->ws);
  g_free (f->home);
  g_free (f->outside);
  g_free (f->tmpdir);
  g_free (f->report_path);
  g_free (f->ws_file);
  g_free (f->home_file);
  g_free (f->outside_file);
  g_clear_pointer (&f->report, json_node_unref);
}

static gboolean
require_backend (void)
{
  static int usable = -1;

  if (usable < 0)
    usable = backend_works ();
  return dsh_test_require (usable, "the backend is not usable on this host");
}

static char *fileop_dir;

/* The helper runs inside the sandbox, so it must not live under /tmp, which bwrap replaces with
 * a private tmpfs: a checkout under /tmp gets a copy in scratch space outside it. */
static const char *
fileop (void)
{
  static char *path;

  if (path == NULL)
    {
      g_autofree char *contents = NULL;
      gsize len = 0;

      fileop_dir = dsh_test_scratch_dir ("bin");
      path = g_build_filename (fileop_dir, "dsh-test-fileop", NULL);
      g_assert_true (g_file_get_contents (dsh_test_getenv_required ("DSH_TEST_FILEOP"),
                                          &contents, &len, NULL));
      g_assert_true (g_file_set_contents_full (path, contents, (gssize) len,
                                               G_FILE_SET_CONTENTS_NONE, 0755, NULL));
    }
  return path;
}

typedef enum {
  WRAP_NONE,
  /* In dsh-test-deny-syscalls: the runner fails for real. */
  WRAP_DENY,
  /* In `timeout -s KILL`: a call that would hang fails the case instead. */
  WRAP_TIMEOUT,
} Wrap;

/* `dsh-sandbox exec --mode MODE --workspace WS --report R -- ARGV` from inside the workspace,
 * optionally wrapped. Loads the report into f->report. */
static void
cli_exec_wrapped (Fixture *f,
                  Wrap wrap,
                  const char *mode,
                  const char *const *command,
                  const char *stdin_text,
                  DshTestRun *run)
{
  g_autoptr (GPtrArray) prefix = g_ptr_array_new ();
  g_autofree char *home_env = g_strdup_printf ("HOME=%s", f->home);
  g_autofree char *tmpdir_env = g_strdup_printf ("TMPDIR=%s", f->tmpdir);
  g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend->name);
  const char *env[] = { home_env, tmpdir_env, backend_env, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  const char *timeout[] = { "timeout", "-s", "KILL", "30", NULL };
  const char *options[] = { "--mode", mode, "--workspace",
                            f->exec_workspace != NULL ? f->exec_workspace : f->ws, NULL };
  DshTestExec exec = { .options = options, .report_path = f->report_path, .env = env,
                       .cwd = f->ws, .stdin_text = stdin_text, .backend = backend->name };

  if (wrap == WRAP_DENY)
    dsh_test_add_deny_syscalls (prefix, backend->deny_errno, backend->deny_syscalls);
  if (wrap == WRAP_TIMEOUT)
    dsh_test_argv_append (prefix, timeout);
  g_ptr_array_add (prefix, NULL);
  exec.prefix = (const char *const *) prefix->pdata;

  g_clear_pointer (&f->report, json_node_unref);
  f->report = dsh_test_exec (run, &exec, command);
}

static void
cli_exec (Fixture *f, const char *mode, const char *const *command, DshTestRun *run)
{
  cli_exec_wrapped (f, WRAP_NONE, mode, command, NULL, run);
}

static JsonObject *
report (Fixture *f)
{
  return json_node_get_object (f->report);
}

static const char *
report_outcome (Fixture *f)
{
  return json_object_get_string_member (report (f), "outcome");
}

/* The index of the first line of text containing needle, or -1. */
static int
line_index (const char *text, const char *needle)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (int i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      return i;
  return -1;
}

/* The number of lines of text containing needle. */
static guint
count_lines_with (const char *text, const char *needle)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;

  for (gsize i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      n++;
  return n;
}

/* The sandbox refused a file effect and said so in its own words, then the marker followed. */
static void
assert_denied (Fixture *f, const DshTestRun *run, const char *mode)
{
  g_autofree char *marker = g_strdup_printf ("[sandbox: file access denied under %s mode]", mode);
  JsonArray *markers = json_object_get_array_member (report (f), "markers");
  int dialect_at = line_index (run->err, backend->dialect);
  int marker_at = line_index (run->err, marker);

  g_assert_cmpint (run->exit_code, !=, 0);
  g_assert_cmpint (run->exit_code, !=, 125);
  g_assert_cmpstr (report_outcome (f), ==, "denied");
  g_assert_true (json_object_get_boolean_member (report (f), "commandRan"));
  g_assert_cmpint (json_object_get_int_member (report (f), "exitCode"), ==, run->exit_code);
  g_assert_cmpint (dialect_at, >=, 0);
  g_assert_cmpint (marker_at, >, dialect_at);
  g_assert_cmpuint (json_array_get_length (markers), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (markers, 0), ==, marker);
}

static void
assert_completed (Fixture *f, const DshTestRun *run, int status)
{
  g_assert_cmpint (run->exit_code, ==, status);
  g_assert_cmpstr (report_outcome (f), ==, "completed");
  g_assert_true (json_object_get_boolean_member (report (f), "commandRan"));
  g_assert_null (strstr (run->err, "[sandbox:"));
  g_assert_null (strstr (run->err, "dsh-sandbox:"));
}

static void
assert_exec_denied (Fixture *f, const char *mode, const char *const *command)
{
  g_auto (DshTestRun) run = { 0 };

  cli_exec (f, mode, command, &run);
  assert_denied (f, &run, mode);
}

static void
assert_exec_completes (Fixture *f, const char *mode, const char *const *command)
{
  g_auto (DshTestRun) run = { 0 };

  cli_exec (f, mode, command, &run);
  assert_completed (f, &run, 0);
}

/* ------------------------------------------------------------------------------------------ */

static void
test_read_only_denies_workspace (Fixture *f, gconstpointer data)
{
  g_autofree char *new_file = g_build_filename (f->ws, "new", NULL);
  const char *shell[] = { "sh", "-c", "echo changed > file", NULL };
  const char *create[] = { fileop (), "write", new_file, NULL };

  if (!require_backend ())
    return;

  assert_exec_denied (f, "read-only", shell);
  dsh_test_assert_file_is (f->ws_file, "inside\n");
  g_assert_cmpstr (json_object_get_string_member (report (f), "enforcement"), ==,
                   backend->enforcement);

  assert_exec_denied (f, "read-only", create);
  g_assert_false (g_file_test (new_file, G_FILE_TEST_EXISTS));
}

static void
test_read_only_denies_temp (Fixture *f, gconstpointer data)
{
  g_autofree char *in_tmpdir = g_build_filename (f->tmpdir, "x", NULL);
  g_autofree char *in_tmp = g_strdup_printf ("/tmp/dsh-conformance-ro-%s-%d", backend->name,
                                             (int) getpid ());
  const char *command[] = { fileop (), "write", in_tmpdir, NULL };
  const char *tmp_command[] = { fileop (), "write", in_tmp, NULL };

  if (!require_backend ())
    return;

  assert_exec_denied (f, "read-only", command);
  g_assert_false (g_file_test (in_tmpdir, G_FILE_TEST_EXISTS));

  assert_exec_denied (f, "read-only", tmp_command);
  g_assert_false (g_file_test (in_tmp, G_FILE_TEST_EXISTS));
}

static void
test_read_only_allows_sinks (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *command[] = { "sh", "-c", "echo x > /dev/null && echo sink-ok", NULL };

  if (!require_backend ())
    return;

  cli_exec (f, "read-only", command, &run);
  assert_completed (f, &run, 0);
  g_assert_cmpstr (run.out, ==, "sink-ok\n");
}

static void
test_workspace_write_allows_workspace (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *command[] = {
    "sh", "-c", "echo written > file && mkdir -p sub/dir && mv file sub/dir/moved && cat sub/dir/moved",
    NULL,
  };
  g_autofree char *moved = g_build_filename (f->ws, "sub", "dir", "moved", NULL);

  if (!require_backend ())
    return;

  cli_exec (f, "workspace-write", command, &run);
  assert_completed (f, &run, 0);
  g_assert_cmpstr (run.out, ==, "written\n");
  dsh_test_assert_file_is (moved, "written\n");
}

/* Mounts a user stacked on one point beneath the workspace (a filesystem mounted twice, an
 * automount point with its filesystem on top): the one beneath is out of every path's reach,
 * the command's too, and the command writes the one on top. bwrap's check inside the sandbox
 * took the hidden one for a mount a raced path had made and refused every call there. In a
 * private mount namespace of a child, so the mounts go with it, failed or not. */
static void
test_stacked_mounts_in_workspace (Fixture *f, gconstpointer data)
{
  g_autofree char *point = g_build_filename (f->ws, "data", NULL);
  g_autofree char *on_top = g_build_filename (point, "new", NULL);
  g_autofree char *beneath = g_build_filename (point, "old", NULL);
  const char *command[] = { "sh", "-c", "echo top > data/new && echo top > data/old", NULL };
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend ())
    return;
  if (!g_test_subprocess ())
    {
      if (!dsh_test_require (getuid () == 0, "root, to mount in a private namespace"))
        return;
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  g_assert_cmpint (unshare (CLONE_NEWNS), ==, 0);
  g_assert_cmpint (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), ==, 0);
  g_assert_cmpint (g_mkdir (point, 0755), ==, 0);
  g_assert_cmpint (mount ("beneath", point, "tmpfs", 0, "size=64k"), ==, 0);
  dsh_test_write_file (beneath, "beneath\n");
  g_assert_cmpint (mount ("on-top", point, "tmpfs", 0, "size=64k"), ==, 0);

  cli_exec (f, "workspace-write", command, &run);
  assert_completed (f, &run, 0);
  dsh_test_assert_file_is (on_top, "top\n");
  dsh_test_assert_file_is (beneath, "top\n");
  g_assert_cmpint (umount (point), ==, 0);
  dsh_test_assert_file_is (beneath, "beneath\n");
  g_assert_false (g_file_test (on_top, G_FILE_TEST_EXISTS));
  g_assert_cmpint (umount (point), ==, 0);
}

/* TMPDIR is a writable root on every backend, and lands on the host. */
static void
test_workspace_write_allows_tmpdir (Fixture *f, gconstpointer data)
{
  g_autofree char *in_tmpdir = g_build_filename (f->tmpdir, "x", NULL);
  const char *command[] = { fileop (), "write", in_tmpdir, "temp\n", NULL };

  if (!require_backend ())
    return;

  assert_exec_completes (f, "workspace-write", command);
  dsh_test_assert_file_is (in_tmpdir, "temp\n");
}

/* Pinned difference: /tmp is writable on both, but only Landlock's writes reach the host. */
static void
test_workspace_write_tmp_area (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *name = g_strdup_printf ("/tmp/dsh-conformance-%s-%d", backend->name,
                                           (int) getpid ());
  g_autofree char *script = g_strdup_printf ("echo temp > %s && cat %s", name, name);
  const char *command[] = { "sh", "-c", script, NULL };

  if (!require_backend ())
    return;

  g_unlink (name);
  cli_exec (f, "workspace-write", command, &run);
  assert_completed (f, &run, 0);
  g_assert_cmpstr (run.out, ==, "temp\n");
  if (backend->private_tmp)
    g_assert_false (g_file_test (name, G_FILE_TEST_EXISTS));
  else
    dsh_test_assert_file_is (name, "temp\n");
  g_unlink (name);
}

static void
test_workspace_write_denies_home (Fixture *f, gconstpointer data)
{
  const char *command[] = { "sh", "-c", "echo changed > \"$HOME/file\"", NULL };

  if (!require_backend ())
    return;

  assert_exec_denied (f, "workspace-write", command);
  dsh_test_assert_file_is (f->home_file, "original\n");
}

static void
test_workspace_write_denies_etc (Fixture *f, gconstpointer data)
{
  g_autofree char *name = g_strdup_printf ("/etc/dsh-conformance-%d", (int) getpid ());
  const char *command[] = { fileop (), "write", name, NULL };

  if (!require_backend ())
    return;

  assert_exec_denied (f, "workspace-write", command);
  g_assert_false (g_file_test (name, G_FILE_TEST_EXISTS));
}

static void
test_workspace_write_denies_symlink_escape (Fixture *f, gconstpointer data)
{
  g_autofree char *dir_link = g_build_filename (f->ws, "escape", NULL);
  g_autofree char *file_link = g_build_filename (f->ws, "file-link", NULL);
  const char *through_dir[] = { fileop (), "write", "escape/file", NULL };
  const char *through_file[] = { "sh", "-c", "echo changed > file-link", NULL };

  if (!require_backend ())
    return;

  g_assert_cmpint (symlink (f->outside, dir_link), ==, 0);
  g_assert_cmpint (symlink (f->outside_file, file_link), ==, 0);

  assert_exec_denied (f, "workspace-write", through_dir);
  assert_exec_denied (f, "workspace-write", through_file);
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

static void
test_workspace_write_denies_dotdot_escape (Fixture *f, gconstpointer data)
{
  const char *command[] = { fileop (), "write", "../outside/file", NULL };

  if (!require_backend ())
    return;

  assert_exec_denied (f, "workspace-write", command);
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

/* Moving or linking a file out of the workspace fails, whichever errno the backend's kernel
 * mechanism gives (EXDEV across bwrap's mounts or Landlock's reparenting rule, EROFS/EACCES). */
static void
test_rename_link_out_of_workspace (Fixture *f, gconstpointer data)
{
  g_autofree char *target = g_build_filename (f->outside, "escaped", NULL);
  g_autofree char *pulled = g_build_filename (f->ws, "pulled", NULL);
  const char *rename_out[] = { fileop (), "rename", f->ws_file, target, NULL };
  const char *link_out[] = { fileop (), "link", f->ws_file, target, NULL };
  const char *rename_in[] = { fileop (), "rename", f->outside_file, pulled, NULL };
  const char *const *commands[] = { rename_out, link_out, rename_in };

  if (!require_backend ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_auto (DshTestRun) run = { 0 };

      cli_exec (f, "workspace-write", commands[i], &run);
      g_assert_cmpint (run.exit_code, ==, 1);
      g_assert_true (g_str_equal (run.out, "EXDEV\n") || g_str_equal (run.out, "EACCES\n") ||
                     g_str_equal (run.out, "EROFS\n"));
      g_assert_true (json_object_get_boolean_member (report (f), "commandRan"));
      g_assert_cmpstr (report_outcome (f), !=, "runner-failure");
    }
  dsh_test_assert_file_is (f->ws_file, "inside\n");
  dsh_test_assert_file_is (f->outside_file, "original\n");
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (pulled, G_FILE_TEST_EXISTS));
}

/* Refused on every backend and every Landlock ABI (below ABI 3 by the launcher's seccomp
 * filter), by path and by opening for reading with O_TRUNC. */
static void
test_truncate_outside_denied (Fixture *f, gconstpointer data)
{
  const char *by_path[] = { fileop (), "truncate", f->outside_file, NULL };
  const char *by_open[] = { fileop (), "open-trunc", f->outside_file, NULL };

  if (!require_backend ())
    return;

  assert_exec_denied (f, "workspace-write", by_path);
  dsh_test_assert_file_is (f->outside_file, "original\n");
  assert_exec_denied (f, "workspace-write", by_open);
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

/* Moving a file into another directory of the workspace works, except under Landlock ABI 1,
 * which cannot grant reparenting: there the EXDEV is the sandbox's doing, and is reported as a
 * denial (the dialect has its text on that ABI only) with the marker as a hint. */
static void
test_rename_across_directories (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *sub = g_build_filename (f->ws, "sub", NULL);
  g_autofree char *moved = g_build_filename (sub, "moved", NULL);
  const char *command[] = { fileop (), "rename", f->ws_file, moved, NULL };

  if (!require_backend ())
    return;

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  cli_exec (f, "workspace-write", command, &run);
  if (g_str_equal (backend->name, "landlock") && dsh_test_landlock_abi () == 1)
    {
      g_assert_cmpstr (run.out, ==, "EXDEV\n");
      g_assert_cmpstr (report_outcome (f), ==, "denied");
      g_assert_nonnull (strstr (run.err, "Invalid cross-device link"));
      g_assert_nonnull (strstr (run.err, "[sandbox: file access denied under workspace-write "
                                         "mode]"));
      dsh_test_assert_file_is (f->ws_file, "inside\n");
      return;
    }
  assert_completed (f, &run, 0);
  dsh_test_assert_file_is (moved, "inside\n");
}

static void
test_proc_self_fd_reopen_denied (Fixture *f, gconstpointer data)
{
  const char *command[] = { fileop (), "procfd-write", f->outside_file, NULL };

  if (!require_backend ())
    return;

  assert_exec_denied (f, "workspace-write", command);
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

/* The host's /dev/shm never changes. Pinned difference: bwrap's /dev is its own (the write
 * succeeds there and vanishes), Landlock refuses it. */
static void
test_dev_shm (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *name = g_strdup_printf ("/dev/shm/dsh-conformance-%s-%d", backend->name,
                                           (int) getpid ());
  const char *command[] = { fileop (), "write", name, NULL };

  if (!require_backend ())
    return;
  if (!dsh_test_require (g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR), "no /dev/shm"))
    return;

  cli_exec (f, "workspace-write", command, &run);
  if (backend->private_dev)
    assert_completed (f, &run, 0);
  else
    assert_denied (f, &run, "workspace-write");
  g_assert_false (g_file_test (name, G_FILE_TEST_EXISTS));
}

static void
test_fifo_socket_outside_denied (Fixture *f, gconstpointer data)
{
  g_autofree char *fifo_out = g_build_filename (f->outside, "fifo", NULL);
  g_autofree char *sock_out = g_build_filename (f->outside, "sock", NULL);
  g_autofree char *fifo_in = g_build_filename (f->ws, "fifo", NULL);
  g_autofree char *sock_in = g_build_filename (f->ws, "sock", NULL);
  const char *fifo_cmd[] = { fileop (), "mkfifo", fifo_out, NULL };
  const char *sock_cmd[] = { fileop (), "bind", sock_out, NULL };
  const char *fifo_ok[] = { fileop (), "mkfifo", fifo_in, NULL };
  const char *sock_ok[] = { fileop (), "bind", sock_in, NULL };

  if (!require_backend ())
    return;

  assert_exec_denied (f, "workspace-write", fifo_cmd);
  g_assert_false (g_file_test (fifo_out, G_FILE_TEST_EXISTS));
  assert_exec_denied (f, "workspace-write", sock_cmd);
  g_assert_false (g_file_test (sock_out, G_FILE_TEST_EXISTS));

  assert_exec_completes (f, "workspace-write", fifo_ok);
  assert_exec_completes (f, "workspace-write", sock_ok);
}

/* What the report says Landlock leaves open at this ABI: reparenting below ABI 2, signals to other
 * processes below ABI 6, never truncation (the launcher closes it below ABI 3). */
static void
assert_landlock_reasons (JsonArray *reasons)
{
  long abi = dsh_test_landlock_abi ();
  gboolean reparenting = FALSE, signals = FALSE;

  for (guint i = 0; i < json_array_get_length (reasons); i++)
    {
      const char *reason = json_array_get_string_element (reasons, i);

      reparenting |= strstr (reason, "cannot grant reparenting") != NULL;
      signals |= strstr (reason, "cannot scope signals") != NULL;
      g_assert_null (strstr (reason, "truncat"));
    }
  g_assert_cmpint (reparenting, ==, abi < 2);
  g_assert_cmpint (signals, ==, abi < 6);
}

/* Pinned difference: metadata. bwrap's read-only mounts refuse chmod; Landlock has no right for
 * it, which is why it reports partial enforcement with that reason. */
static void
test_metadata_outside (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *command[] = { fileop (), "chmod", f->outside_file, "600", NULL };
  JsonArray *reasons;
  struct stat st;

  if (!require_backend ())
    return;

  g_assert_cmpint (g_chmod (f->outside_file, 0644), ==, 0);
  cli_exec (f, "workspace-write", command, &run);
  g_assert_cmpint (g_stat (f->outside_file, &st), ==, 0);
  reasons = json_object_get_array_member (report (f), "enforcementReasons");
  g_assert_cmpstr (json_object_get_string_member (report (f), "enforcement"), ==,
                   backend->enforcement);
  if (backend->governs_metadata)
    {
      assert_denied (f, &run, "workspace-write");
      g_assert_cmpint (st.st_mode & 0777, ==, 0644);
    }
  else
    {
      assert_completed (f, &run, 0);
      g_assert_cmpint (st.st_mode & 0777, ==, 0600);
      g_assert_cmpuint (json_array_get_length (reasons), >=, 1);
      g_assert_nonnull (strstr (json_array_get_string_element (reasons, 0), "metadata"));
      assert_landlock_reasons (reasons);
    }
}

static void
test_exit_status_passes_through (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *command[] = { "sh", "-c", "exit 42", NULL };

  if (!require_backend ())
    return;

  cli_exec (f, "read-only", command, &run);
  assert_completed (f, &run, 42);
  g_assert_cmpint (json_object_get_int_member (report (f), "exitCode"), ==, 42);
}

static void
test_signal_passes_through (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *command[] = { "sh", "-c", "kill -TERM $$", NULL };
  JsonNode *signal_node;

  if (!require_backend ())
    return;

  cli_exec (f, "read-only", command, &run);
  assert_completed (f, &run, 128 + SIGTERM);
  signal_node = json_object_get_member (report (f), "signal");
  if (backend->reports_signal)
    g_assert_cmpint (json_node_get_int (signal_node), ==, SIGTERM);
  else
    g_assert_true (JSON_NODE_HOLDS_NULL (signal_node));
}

static void
test_stdin_passes_through (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *command[] = { "sh", "-c", "read line; echo \"got:$line\"", NULL };

  if (!require_backend ())
    return;

  cli_exec_wrapped (f, WRAP_NONE, "read-only", command, "hello\n", &run);
  assert_completed (f, &run, 0);
  g_assert_cmpstr (run.out, ==, "got:hello\n");
}

/* A background child, even one that detaches into its own session, does not outlive the call
 * (bwrap's PID namespace dies with the command; the Landlock launcher is a subreaper that kills
 * what the command left behind): nothing keeps writing under this call's policy afterwards. */
static void
test_background_child (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *late = g_build_filename (f->ws, "late", NULL);
  g_autofree char *detached = g_build_filename (f->ws, "detached", NULL);
  const char *command[] = {
    "sh", "-c",
    "(sleep 0.5; echo late > \"$1\") </dev/null >/dev/null 2>&1 & "
    "setsid sh -c 'sleep 0.5; echo late > \"$0\"' \"$2\" </dev/null >/dev/null 2>&1 & exit 0",
    "sh", late, detached, NULL,
  };

  if (!require_backend ())
    return;

  cli_exec (f, "workspace-write", command, &run);
  assert_completed (f, &run, 0);
  g_usleep (1500 * 1000);
  g_assert_false (g_file_test (late, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (detached, G_FILE_TEST_EXISTS));
}

/* Nor can the command free what it leaves running by killing whatever supervises it: bwrap's
 * init ignores it from inside the PID namespace, and Landlock's signal scoping (ABI 6 on) keeps
 * the command from signalling the launcher outside its domain. */
static void
test_supervisor_cannot_be_killed (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *late = g_build_filename (f->ws, "late", NULL);
  const char *command[] = {
    "sh", "-c",
    "setsid sh -c 'sleep 0.5; echo late > \"$0\"' \"$1\" </dev/null >/dev/null 2>&1 & "
    "kill -9 $PPID; exit 0",
    "sh", late, NULL,
  };

  if (!require_backend ())
    return;

  cli_exec (f, "workspace-write", command, &run);
  g_usleep (1500 * 1000);
  g_assert_false (g_file_test (late, G_FILE_TEST_EXISTS));
}

/* Nor can it hang the call by stopping whatever supervises it. */
static void
test_supervisor_cannot_be_stopped (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *command[] = { "sh", "-c", "kill -STOP $PPID; echo done", NULL };

  if (!require_backend ())
    return;

  cli_exec_wrapped (f, WRAP_TIMEOUT, "workspace-write", command, NULL, &run);
  assert_completed (f, &run, 0);
  g_assert_cmpstr (run.out, ==, "done\n");
}

/* /proc magic links do not reach around the sandbox: not through PID 1's root, not through a
 * descriptor the (unconfined) test process holds open for writing. */
static void
test_proc_magic_links (Fixture *f, gconstpointer data)
{
  g_autofree char *via_init = g_strdup_printf ("/proc/1/root%s", f->outside_file);
  g_autofree char *via_fd = NULL;
  g_autofree char *visible = g_strdup_printf ("test -e /proc/%d && echo visible || echo hidden",
                                              (int) getpid ());
  const char *init_cmd[] = { fileop (), "append", via_init, NULL };
  const char *fd_cmd[] = { fileop (), "append", NULL, NULL };
  const char *visible_cmd[] = { "sh", "-c", visible, NULL };
  g_auto (DshTestRun) r1 = { 0 };
  g_auto (DshTestRun) r2 = { 0 };
  g_auto (DshTestRun) r3 = { 0 };
  int fd;

  if (!require_backend ())
    return;

  fd = open (f->outside_file, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  via_fd = g_strdup_printf ("/proc/%d/fd/%d", (int) getpid (), fd);
  fd_cmd[2] = via_fd;

  cli_exec (f, "workspace-write", init_cmd, &r1);
  g_assert_cmpint (r1.exit_code, ==, 1);
  cli_exec (f, "workspace-write", fd_cmd, &r2);
  g_assert_cmpint (r2.exit_code, ==, 1);
  dsh_test_assert_file_is (f->outside_file, "original\n");
  close (fd);

  /* Pinned difference: process visibility is not governed by Landlock. */
  cli_exec (f, "read-only", visible_cmd, &r3);
  assert_completed (f, &r3, 0);
  g_assert_cmpstr (r3.out, ==, backend->hides_host_processes ? "hidden\n" : "visible\n");
}

/* The runner itself fails for real (the kernel refuses it what it needs): 125, the unavailable
 * text with the runner's own fatal line as detail, and the command never ran. */
static void
test_runner_failure (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *marker = g_build_filename (f->ws, "ran", NULL);
  const char *command[] = { fileop (), "write", marker, NULL };
  const char *prefix = "dsh-sandbox: " UNAVAILABLE_TEXT ("workspace-write") " Runner failure: ";
  g_auto (GStrv) lines = NULL;
  const char *last = NULL;
  const char *detail;

  if (!require_backend ())
    return;

  cli_exec_wrapped (f, WRAP_DENY, "workspace-write", command, NULL, &run);
  dsh_test_assert_never_ran (&run, marker);
  g_assert_cmpstr (report_outcome (f), ==, "runner-failure");
  g_assert_false (json_object_get_boolean_member (report (f), "commandRan"));
  g_assert_null (strstr (run.err, "[sandbox:"));

  /* The last stderr line is ours; its detail is the runner's own line, printed above it. */
  lines = g_strsplit (run.err, "\n", -1);
  for (gsize i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      last = lines[i];
  g_assert_nonnull (last);
  g_assert_true (g_str_has_prefix (last, prefix));
  detail = last + strlen (prefix);
  g_assert_true (g_str_has_prefix (detail, backend->fatal_prefix));
  g_assert_cmpint (line_index (run.err, detail), ==, 0);
  g_assert_cmpuint (count_lines_with (run.err, "dsh-sandbox:"), ==, 1);
  g_assert_nonnull (strstr (json_object_get_string_member (report (f), "detail"), detail));
}

/* A launcher in front of the runner (bwrap's) that fails is a runner failure too: 125, its own
 * fatal line as the detail, and the command never ran. (The Landlock launcher is the runner.) */
static void
test_launcher_failure (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *marker = g_build_filename (f->ws, "ran", NULL);
  g_autofree char *report_arg = g_strdup_printf ("--report=%s", f->report_path);
  g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend->name);
  const char *env[] = { backend_env, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  const char *prefix = "dsh-sandbox: " UNAVAILABLE_TEXT ("workspace-write") " Runner failure: ";
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *report_text = NULL;

  if (!require_backend () || backend->launcher_refused_git == NULL)
    return;

  /* Something the launcher refuses for real, and the front's own checks let through. */
  g_assert_cmpstr (backend->launcher_refused_git, ==, "fifo");
  {
    g_autofree char *git = g_build_filename (f->ws, ".git", NULL);

    g_assert_cmpint (mkfifo (git, 0600), ==, 0);
  }
  g_ptr_array_add (argv, (char *) dsh_test_cli ());
  g_ptr_array_add (argv, (char *) "exec");
  g_ptr_array_add (argv, (char *) "--mode=workspace-write");
  g_ptr_array_add (argv, (char *) "--workspace");
  g_ptr_array_add (argv, f->ws);
  g_ptr_array_add (argv, report_arg);
  g_ptr_array_add (argv, (char *) "--");
  g_ptr_array_add (argv, (char *) fileop ());
  g_ptr_array_add (argv, (char *) "write");
  g_ptr_array_add (argv, marker);
  g_ptr_array_add (argv, NULL);
  dsh_test_run (&run, (const char *const *) argv->pdata, env, f->ws, NULL);

  dsh_test_assert_never_ran (&run, marker);
  g_assert_nonnull (strstr (run.err, prefix));
  g_assert_nonnull (strstr (strstr (run.err, prefix) + strlen (prefix),
                            backend->launcher_fatal_prefix));
  report_text = dsh_test_read_file (f->report_path);
  f->report = dsh_test_parse_json (report_text);
  g_assert_cmpstr (report_outcome (f), ==, "runner-failure");
  g_assert_false (json_object_get_boolean_member (report (f), "commandRan"));
}

/* A confined command that exits like the runner or prints something like its lines is still
 * the command: without the full fatal-signature match nothing is blamed on the runner. */
static void
test_lookalikes_not_runner_failure (Fixture *f, gconstpointer data)
{
  g_autofree char *lookalike_exit = g_strdup_printf ("%d", backend->lookalike_exit);
  g_autofree char *fatal_exit = g_strdup_printf ("%d", backend->fatal_exit);
  const char *script = "echo \"$1\" >&2; exit \"$2\"";
  struct {
    const char *line;
    const char *exit_code;
  } cases[] = {
    /* The runner's exit status with an unrelated fatal-sounding line. */
    { "fatal: the command's own failure", "125" },
    { "fatal: the command's own failure", fatal_exit },
    /* The runner's own wording for the command's failure. */
    { backend->lookalike_line, lookalike_exit },
    /* A real fatal signature, but an exit status the rule does not allow. */
    { backend->fatal_sample, "3" },
  };

  if (!require_backend ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (DshTestRun) run = { 0 };
      const char *command[] = { "sh", "-c", script, "sh", cases[i].line, cases[i].exit_code,
                                NULL };

      cli_exec (f, "workspace-write", command, &run);
      assert_completed (f, &run, atoi (cases[i].exit_code));
      g_assert_nonnull (strstr (run.err, cases[i].line));
    }
}

/* A command that cannot be executed is the command's failure on every backend. */
static void
test_missing_command (Fixture *f, gconstpointer data)
{
  g_auto (DshTestRun) run = { 0 };
  const char *command[] = { "dsh-conformance-no-such-command", NULL };

  if (!require_backend ())
    return;

  cli_exec (f, "read-only", command, &run);
  assert_completed (f, &run, backend->missing_command_exit);
  {
    g_auto (DshTestRun) write_run = { 0 };

    cli_exec (f, "workspace-write", command, &write_run);
    assert_completed (f, &write_run, backend->missing_command_exit_write);
  }
}

/* A workspace that is /tmp itself: the writes land in the host's /tmp on every backend (a private
 * tmpfs there would swallow them). */
static void
test_workspace_is_tmp (Fixture *f, gconstpointer data)
{
  g_autofree char *name = g_strdup_printf ("/tmp/dsh-conformance-ws-tmp-%s-%d", backend->name,
                                           (int) getpid ());
  const char *command[] = { fileop (), "write", name, "kept\n", NULL };

  if (!require_backend ())
    return;

  g_unlink (name);
  f->exec_workspace = "/tmp";
  assert_exec_completes (f, "workspace-write", command);
  dsh_test_assert_file_is (name, "kept\n");
  g_unlink (name);
}

/* Far more argv items than bwrap itself accepts (9000) still reach the command. */
static void
test_many_argv_items (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) command = g_ptr_array_new ();
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend ())
    return;

  g_ptr_array_add (command, (char *) "sh");
  g_ptr_array_add (command, (char *) "-c");
  g_ptr_array_add (command, (char *) "echo \"$# ${20000}\"");
  g_ptr_array_add (command, (char *) "sh");
  for (int i = 0; i < 19999; i++)
    g_ptr_array_add (command, (char *) "item");
  g_ptr_array_add (command, (char *) "last");
  g_ptr_array_add (command, NULL);

  cli_exec (f, "workspace-write", (const char *const *) command->pdata, &run);
  assert_completed (f, &run, 0);
  g_assert_cmpstr (run.out, ==, "20000 last\n");
  {
    g_auto (DshTestRun) read_only = { 0 };

    cli_exec (f, "read-only", (const char *const *) command->pdata, &read_only);
    assert_completed (f, &read_only, 0);
    g_assert_cmpstr (read_only.out, ==, "20000 last\n");
  }
}

static gboolean
require_git (void)
{
  g_autofree char *git = g_find_program_in_path ("git");

  return dsh_test_require (git != NULL, "git is not installed");
}

/* git, unconfined, with no user or system configuration but the identity a commit needs. */
static void
host_git (Fixture *f, const char *script, DshTestRun *run)
{
  g_autofree char *home_env = g_strdup_printf ("HOME=%s", f->home);
  const char *env[] = { home_env, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t",
                        "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t",
                        "GIT_COMMITTER_EMAIL=t@example.org", NULL };
  const char *argv[] = { "sh", "-c", script, NULL };

  dsh_test_run (run, argv, env, f->ws, NULL);
}

/* The workspace made a repository of its one file; and with a linked worktree inside it. */
#define INIT_REPOSITORY "git init -q -b main . && git add file && git commit -q -m init"
#define INIT_WITH_WORKTREE INIT_REPOSITORY " && git worktree add -q .worktrees/feat"

static void
make_repository (Fixture *f)
{
  g_auto (DshTestRun) run = { 0 };

  host_git (f, INIT_REPOSITORY, &run);
  g_assert_cmpint (run.exit_code, ==, 0);
}

/* What a command may plant in a repository to run code the next time the user runs git
 * unconfined: a hook, core.fsmonitor, an alias, each also by replacing .git/config or .git
 * itself, a commondir pointing at a git directory of its own, a config.worktree. */
static const char *const git_attacks[] = {
  "mkdir -p .git/hooks; printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/pre-commit; "
  "chmod +x .git/hooks/pre-commit",
  "git config core.fsmonitor 'touch PWNED; false'",
  "git config alias.st '!touch PWNED'",
  "mv .git/config .git/config.old; cp .git/config.old .git/config; "
  "git config core.fsmonitor 'touch PWNED; false'",
  "rm -f .git/config; printf '[core]\\n\\tfsmonitor = touch PWNED; false\\n' > .git/config",
  "mv .git .git-old && cp -r .git-old .git && git config core.fsmonitor 'touch PWNED; false'",
  "rm -rf .git/hooks .git/config; mkdir -p .git/hooks; "
  "printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/pre-commit",
  "mkdir -p .git/evil && cp -r .git/objects .git/refs .git/HEAD .git/evil/ && "
  "printf '[core]\\n\\tfsmonitor = touch PWNED; false\\n' > .git/evil/config && "
  "echo evil > .git/commondir",
  "printf '[core]\\n\\tfsmonitor = touch PWNED; false\\n' > .git/config.worktree",
  "git config core.hooksPath .myhooks; mkdir .myhooks; "
  "printf '#!/bin/sh\\ntouch PWNED\\n' > .myhooks/pre-commit; chmod +x .myhooks/pre-commit",
};

static void
assert_git_runs_nothing_planted (Fixture *f, const char *config_before)
{
  g_autofree char *pwned = g_build_filename (f->ws, "PWNED", NULL);
  g_autofree char *hook = g_build_filename (f->ws, ".git", "hooks", "pre-commit", NULL);
  g_autofree char *config = g_build_filename (f->ws, ".git", "config", NULL);
  g_autofree char *commondir = g_build_filename (f->ws, ".git", "commondir", NULL);
  g_autofree char *worktree_config = g_build_filename (f->ws, ".git", "config.worktree", NULL);
  g_auto (DshTestRun) run = { 0 };

  host_git (f, "git status >/dev/null; git st; echo more >> file; git commit -q -am more", &run);
  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (hook, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (commondir, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (worktree_config, G_FILE_TEST_EXISTS));
  dsh_test_assert_file_is (config, config_before);
}

static void
test_git_files_protected (Fixture *f, gconstpointer data)
{
  g_autofree char *config = g_build_filename (f->ws, ".git", "config", NULL);
  g_autofree char *hook = g_build_filename (f->ws, ".git", "hooks", "pre-commit", NULL);
  g_autofree char *config_before = NULL;
  JsonArray *reasons;
  gboolean reason_found = FALSE;

  if (!require_backend () || !require_git ())
    return;

  make_repository (f);
  config_before = dsh_test_read_file (config);
  for (gsize i = 0; i < G_N_ELEMENTS (git_attacks); i++)
    {
      const char *command[] = { "sh", "-c", git_attacks[i], NULL };
      g_auto (DshTestRun) run = { 0 };

      cli_exec (f, "workspace-write", command, &run);
      g_test_message ("attack %zu: %s", i, run.err);
      g_assert_true (json_object_get_boolean_member (report (f), "commandRan"));
      if (!backend->protects_git)
        break;
      assert_git_runs_nothing_planted (f, config_before);
    }

  /* Pinned difference: under Landlock the hook is planted, and a partial reason says so. */
  if (!backend->protects_git)
    {
      g_assert_true (g_file_test (hook, G_FILE_TEST_EXISTS));
      reasons = json_object_get_array_member (report (f), "enforcementReasons");
      for (guint i = 0; i < json_array_get_length (reasons); i++)
        reason_found |= strstr (json_array_get_string_element (reasons, i), ".git/hooks") != NULL;
      g_assert_true (reason_found);
    }
}

/* A repository whose .git is a mount point (a bind mount or volume the user keeps the git
 * directory on, as container setups do): bwrap's bind of the git directory then lies on top of
 * the host's mount there, which the check inside took for a raced mount, refusing every call.
 * Now the workflow runs and the attacks plant nothing. In a private mount namespace of a child,
 * so the mount goes with it, failed or not. */
static void
test_git_dir_mount_point (Fixture *f, gconstpointer data)
{
  g_autofree char *dotgit = g_build_filename (f->ws, ".git", NULL);
  g_autofree char *store = g_strconcat (f->ws, "-git-store", NULL);
  g_autofree char *config = g_build_filename (dotgit, "config", NULL);
  g_autofree char *config_before = NULL;
  const char *workflow[] = {
    "sh", "-c",
    "set -e; export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t "
    "GIT_COMMITTER_EMAIL=t@e GIT_CONFIG_NOSYSTEM=1; "
    "echo a > a; git add a; git commit -q -m a; git checkout -q -b topic; git log --oneline | wc -l",
    NULL,
  };
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend () || !require_git ())
    return;
  if (!g_test_subprocess ())
    {
      if (!dsh_test_require (getuid () == 0, "root, to mount in a private namespace"))
        return;
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  make_repository (f);
  g_assert_cmpint (g_rename (dotgit, store), ==, 0);
  g_assert_cmpint (g_mkdir (dotgit, 0755), ==, 0);
  g_assert_cmpint (unshare (CLONE_NEWNS), ==, 0);
  g_assert_cmpint (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), ==, 0);
  g_assert_cmpint (mount (store, dotgit, NULL, MS_BIND, NULL), ==, 0);
  config_before = dsh_test_read_file (config);

  cli_exec (f, "workspace-write", workflow, &run);
  g_test_message ("%s", run.err);
  assert_completed (f, &run, 0);
  g_assert_cmpstr (g_strstrip (run.out), ==, "2");
  if (!backend->protects_git)
    return; /* pinned by git/protected-paths */
  for (gsize i = 0; i < G_N_ELEMENTS (git_attacks); i++)
    {
      const char *command[] = { "sh", "-c", git_attacks[i], NULL };
      g_auto (DshTestRun) attack = { 0 };

      cli_exec (f, "workspace-write", command, &attack);
      g_test_message ("attack %zu: %s", i, attack.err);
      g_assert_true (json_object_get_boolean_member (report (f), "commandRan"));
      assert_git_runs_nothing_planted (f, config_before);
    }
}

/* A linked worktree's .git file and the git directory it names are held the same way. */
static void
test_git_worktree_protected (Fixture *f, gconstpointer data)
{
  g_autofree char *dotgit = g_build_filename (f->ws, "wt", ".git", NULL);
  g_autofree char *gitdir = g_build_filename (f->ws, ".git", "worktrees", "wt", NULL);
  g_autofree char *worktree_config = g_build_filename (gitdir, "config.worktree", NULL);
  g_autofree char *dotgit_before = NULL;
  const char *command[] = {
    "sh", "-c",
    "echo 'gitdir: /nowhere' > wt/.git; mv wt/.git wt/.git-old; "
    "printf '[core]\\n\\tfsmonitor = touch PWNED; false\\n' > .git/worktrees/wt/config.worktree; "
    "printf '#!/bin/sh\\ntouch PWNED\\n' > .git/worktrees/wt/commondir",
    NULL,
  };
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend () || !require_git ())
    return;
  if (!backend->protects_git)
    return; /* pinned by git/protected-paths */

  make_repository (f);
  host_git (f, "git worktree add -q wt", &run);
  g_assert_cmpint (run.exit_code, ==, 0);
  dotgit_before = dsh_test_read_file (dotgit);

  cli_exec (f, "workspace-write", command, &run);
  dsh_test_assert_file_is (dotgit, dotgit_before);
  g_assert_false (g_file_test (worktree_config, G_FILE_TEST_EXISTS));
  {
    g_autofree char *commondir = g_build_filename (gitdir, "commondir", NULL);
    g_autofree char *text = dsh_test_read_file (commondir);

    g_assert_cmpstr (text, ==, "../..\n");
  }
}

/* A submodule's git directory, the directories above it and its .git file are held the same
 * way: a later `git status` of the superproject enters the submodule and reads its config. */
static void
test_git_submodule_protected (Fixture *f, gconstpointer data)
{
  g_autofree char *pwned = g_build_filename (f->ws, "PWNED", NULL);
  /* Hooks and fsmonitor run in the submodule's working tree. */
  g_autofree char *pwned_in_lib = g_build_filename (f->ws, "lib", "PWNED", NULL);
  g_autofree char *dotgit = g_build_filename (f->ws, "lib", ".git", NULL);
  g_autofree char *lib_config = g_build_filename (f->ws, ".git", "modules", "lib", "config", NULL);
  g_autofree char *dotgit_before = NULL;
  g_autofree char *config_before = NULL;
  g_autofree char *setup = g_strdup_printf (
    "set -e; git init -q -b main '%s/lib-origin'; cd '%s/lib-origin'; echo l > l; git add l; "
    "git commit -q -m l; cd '%s'; git -c protocol.file.allow=always submodule add -q "
    "'%s/lib-origin' lib; git commit -q -m sub",
    f->base, f->base, f->ws, f->base);
  const char *attacks[] = {
    "git config -f .git/modules/lib/config core.fsmonitor 'touch PWNED; false'",
    "mkdir -p .git/modules/lib/hooks; printf '#!/bin/sh\\ntouch PWNED\\n' > "
    ".git/modules/lib/hooks/post-checkout",
    "mv .git/modules .git/modules-old && mkdir -p .git/modules && cp -r .git/modules-old/lib "
    ".git/modules/lib && git config -f .git/modules/lib/config core.fsmonitor 'touch PWNED; false'",
    "mkdir -p evil && cp -r .git/modules/lib evil/gitdir && "
    "git config -f evil/gitdir/config core.fsmonitor 'touch PWNED; false' && "
    "echo \"gitdir: $PWD/evil/gitdir\" > lib/.git",
  };
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend () || !require_git ())
    return;
  if (!backend->protects_git)
    return; /* pinned by git/protected-paths */

  make_repository (f);
  host_git (f, setup, &run);
  g_assert_cmpint (run.exit_code, ==, 0);
  dotgit_before = dsh_test_read_file (dotgit);
  config_before = dsh_test_read_file (lib_config);

  for (gsize i = 0; i < G_N_ELEMENTS (attacks); i++)
    {
      const char *command[] = { "sh", "-c", attacks[i], NULL };
      g_auto (DshTestRun) attack = { 0 };
      g_auto (DshTestRun) status = { 0 };

      cli_exec (f, "workspace-write", command, &attack);
      g_test_message ("submodule attack %zu: %s", i, attack.err);
      host_git (f, "git status >/dev/null; cd lib && git status >/dev/null", &status);
      g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (pwned_in_lib, G_FILE_TEST_EXISTS));
      dsh_test_assert_file_is (dotgit, dotgit_before);
      dsh_test_assert_file_is (lib_config, config_before);
    }
}

/* Planting core.fsmonitor where git, unconfined, reads it next: `$PWD` is the workspace. */
#define PLANT_FSMONITOR(config) \
  "printf '[core]\\n\\tfsmonitor = touch %s/PWNED; false\\n' \"$PWD\" >> " config

/* A repository whose git directory a pointer names the way git reads it, not the way a careful
 * reader would: set up unconfined (host_setup) or by a first call (plant, which creates the
 * repository: its own call is not protected), then attacked by a second call. git must run
 * nothing the attack planted; the attack may also be refused outright. */
/* Sets the repository up unconfined; then an ordinary call there must run: what holds its git
 * directories in place must not refuse the layout. */
static void
set_up_usable_repository (Fixture *f, const char *setup)
{
  const char *command[] = { "sh", "-c", "echo more >> file", NULL };
  g_auto (DshTestRun) run = { 0 };

  host_git (f, setup, &run);
  g_assert_cmpint (run.exit_code, ==, 0);
  dsh_test_run_clear (&run);
  cli_exec (f, "workspace-write", command, &run);
  assert_completed (f, &run, 0);
}

static void assert_attack_held_in (Fixture *f, const char *host_setup, const char *plant,
                                   gboolean plant_completes, const char *attack,
                                   const char *where);

static void
assert_pointer_attack_held (Fixture *f, const char *host_setup, const char *plant,
                            const char *attack)
{
  assert_attack_held_in (f, host_setup, plant, TRUE, attack, ".");
}

/* The same, git run in the directory where (relative to the workspace); a first call that
 * prepares the attack (plant) may also be refused or denied unless plant_completes. */
static void
assert_attack_held_in (Fixture *f, const char *host_setup, const char *plant,
                       gboolean plant_completes, const char *attack, const char *where)
{
  g_autofree char *check = g_strdup_printf (
    "cd '%s' && git status >/dev/null 2>&1; git st >/dev/null 2>&1; true", where);
  g_autofree char *pwned = g_build_filename (f->ws, "PWNED", NULL);
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend () || !require_git ())
    return;
  if (!backend->protects_git)
    return; /* pinned by git/protected-paths */

  if (host_setup != NULL)
    set_up_usable_repository (f, host_setup);
  if (plant != NULL)
    {
      const char *command[] = { "sh", "-c", plant, NULL };

      cli_exec (f, "workspace-write", command, &run);
      if (plant_completes)
        assert_completed (f, &run, 0);
      g_test_message ("plant: exit %d, %s", run.exit_code, run.err);
      dsh_test_run_clear (&run);
    }
  {
    const char *command[] = { "sh", "-c", attack, NULL };

    cli_exec (f, "workspace-write", command, &run);
    g_test_message ("attack: exit %d, %s", run.exit_code, run.err);
    dsh_test_run_clear (&run);
  }
  host_git (f, check, &run);
  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
}

/* git takes a .git file whole, a newline inside the path included. */
static void
test_git_pointer_with_newline (Fixture *f, gconstpointer data)
{
  assert_pointer_attack_held (
    f, NULL,
    "git init -q -b main t && mv t/.git \"$(printf 'g\\nx')\" && rmdir t && "
    "printf 'gitdir: g\\nx\\n' > .git",
    PLANT_FSMONITOR ("\"$(printf 'g\\nx')/config\""));
}

/* git follows a symlink and then "..": link/../realgit is not ./realgit. */
static void
test_git_pointer_through_symlink (Fixture *f, gconstpointer data)
{
  assert_pointer_attack_held (
    f, NULL,
    "mkdir -p deep/dir realgit && git init -q -b main t && mv t/.git deep/realgit && rmdir t && "
    "ln -s deep/dir link && printf 'gitdir: link/../realgit\\n' > .git",
    PLANT_FSMONITOR ("deep/realgit/config"));
}

/* A script that makes the workspace a repository with a submodule at path (its git directory
 * in .git/modules), cloned from an origin outside the workspace. */
static char *
superproject_script (Fixture *f, const char *path)
{
  return g_strdup_printf (
    "set -e; " INIT_REPOSITORY "; "
    "git init -q -b main '%s/origin'; cd '%s/origin'; echo l > l; git add l; "
    "git commit -q -m l; cd '%s'; git -c protocol.file.allow=always submodule add -q "
    "'%s/origin' '%s'; git commit -q -m sub",
    f->base, f->base, f->ws, f->base, path);
}

/* A symlink outside the writable roots on the way is not the command's to repoint: a submodule
 * whose .git file reaches its git directory through one (a symlinked home, say) still works. */
static void
test_git_pointer_through_outside_symlink (Fixture *f, gconstpointer data)
{
  g_autofree char *superproject = superproject_script (f, "lib");
  g_autofree char *setup = g_strdup_printf (
    "%s; ln -s '%s' '%s/link'; echo 'gitdir: %s/link/.git/modules/lib' > lib/.git; "
    "cd lib && git status >/dev/null",
    superproject, f->ws, f->outside, f->outside);
  const char *command[] = { "sh", "-c", "echo written > new-file", NULL };
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend () || !require_git ())
    return;
  host_git (f, setup, &run);
  g_assert_cmpint (run.exit_code, ==, 0);
  cli_exec (f, "workspace-write", command, &run);
  assert_completed (f, &run, 0);
}

/* A .git file naming a git directory that does not exist yet, made by the next call. */
static void
test_git_pointer_dangling (Fixture *f, gconstpointer data)
{
  assert_pointer_attack_held (f, NULL, "printf 'gitdir: later\\n' > .git",
                              "git init -q -b main t && mv t/.git later && rmdir t && "
                              PLANT_FSMONITOR ("later/config"));
}

/* A submodule whose name has more components than git directories nest deep. */
static void
test_git_submodule_deep_name (Fixture *f, gconstpointer data)
{
  g_autofree char *setup = superproject_script (f, "a/b/c/d/e/f/g/h");

  assert_pointer_attack_held (f, setup, NULL,
                              PLANT_FSMONITOR (".git/modules/a/b/c/d/e/f/g/h/config"));
}

/* A .git git cannot use (HEAD garbled) makes it take the work tree itself for a bare repository,
 * whose config the same call wrote. */
static void
test_git_bare_fallback (Fixture *f, gconstpointer data)
{
  assert_pointer_attack_held (
    f, INIT_REPOSITORY, NULL,
    "echo garbage > .git/HEAD && mkdir -p objects refs && echo 'ref: refs/heads/main' > HEAD && "
    "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n"
    "\\tworktree = %s\\n' \"$PWD\" > config && " PLANT_FSMONITOR ("config"));
}

/* A workspace that is a bare repository: its config and hooks are held as a .git's are. */
static void
test_git_bare_at_root (Fixture *f, gconstpointer data)
{
  if (!require_backend () || !require_git () || !backend->protects_git)
    return;
  set_up_usable_repository (f, "git init -q --bare .");
  assert_pointer_attack_held (f, NULL, NULL,
                              "git config alias.st '!touch PWNED'; "
                              "printf '[alias]\\n\\tst = !touch PWNED\\n' >> config");
}

/* A submodule the user added with its git directory in its own work tree (not absorbed into
 * .git/modules): git status of the superproject enters it, as the index records it. data: how
 * the superproject is made (its index format, its object names). */
static void
test_git_embedded_submodule (Fixture *f, gconstpointer data)
{
  const char *object_format =
    strstr ((const char *) data, "sha256") != NULL ? "--object-format=sha256" : "";
  g_autofree char *setup = g_strdup_printf (
    "set -e; git init -q -b main %s . && git add file && git commit -q -m init; "
    "git init -q -b main %s '%s/inner-origin'; cd '%s/inner-origin'; echo i > i; git add i; "
    "git commit -q -m i; cd '%s'; git clone -q '%s/inner-origin' a/b/inner; "
    "git add a/b/inner 2>/dev/null; git commit -q -m sub; %s",
    object_format, object_format, f->base, f->base, f->ws, f->base,
    strstr ((const char *) data, "v4") != NULL      ? "git update-index --index-version 4"
    : strstr ((const char *) data, "split") != NULL ? "git update-index --split-index && "
                                                      "echo b > b && git add b"
    /* An entry before the gitlink whose name is too long for its flags (4 224 bytes): its
     * size is found from its NUL. */
    : strstr ((const char *) data, "long") != NULL
      ? "x=$(printf '%0200d' 0 | tr 0 x); p=a/a; for i in $(seq 21); do p=$p/$x; done; "
        "git update-index --add --cacheinfo 100644,$(git hash-object -w file),$p"
      : "true");

  assert_pointer_attack_held (f, setup, NULL, PLANT_FSMONITOR ("a/b/inner/.git/config"));
}

/* A .git evil enough for git to use in place of a work tree's own: `$PWD/.evil`, with the work
 * tree at `$PWD/$1` and core.fsmonitor planted. */
#define EVIL_GIT_DIR(from, tree) \
  "mkdir .evil && cp -r " from "/objects " from "/refs " from "/HEAD .evil/ && " \
  "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tworktree = %s/" tree "\\n' " \
  "\"$PWD\" > .evil/config && " PLANT_FSMONITOR (".evil/config")

/* The directory holding a protected .git below the workspace root, renamed away so that a .git
 * the command made takes its place: an absorbed submodule, an embedded one, a linked worktree
 * (data). */
static void
test_git_work_tree_renamed (Fixture *f, gconstpointer data)
{
  const char *kind = data;
  g_autofree char *absorbed = superproject_script (f, "sub");
  g_autofree char *embedded = g_strdup_printf (
    "set -e; " INIT_REPOSITORY "; "
    "git init -q -b main '%s/origin'; cd '%s/origin'; echo i > i; git add i; "
    "git commit -q -m i; cd '%s'; git clone -q '%s/origin' sub; git add sub 2>/dev/null; "
    "git commit -q -m sub",
    f->base, f->base, f->ws, f->base);
  const char *worktree = INIT_WITH_WORKTREE;

  if (!require_backend () || !require_git () || !backend->protects_git)
    return;
  set_up_usable_repository (f, g_str_equal (kind, "absorbed")   ? absorbed
                               : g_str_equal (kind, "embedded") ? embedded
                                                                : worktree);
  if (g_str_equal (kind, "absorbed"))
    assert_attack_held_in (f, NULL, NULL, TRUE,
                           "mv sub .old; " EVIL_GIT_DIR (".git/modules/sub", "sub")
                           " && mkdir -p sub && echo \"gitdir: $PWD/.evil\" > sub/.git",
                           ".");
  else if (g_str_equal (kind, "embedded"))
    assert_attack_held_in (f, NULL, NULL, TRUE,
                           "mv sub .old; mkdir -p sub && cd sub && git init -q && "
                           "git config core.fsmonitor \"touch $PWD/../PWNED; false\"",
                           ".");
  else
    assert_attack_held_in (f, NULL, NULL, TRUE,
                           "mv .worktrees/feat .worktrees/.old; "
                           EVIL_GIT_DIR (".git", ".worktrees/feat")
                           " && mkdir -p .worktrees/feat && "
                           "echo \"gitdir: $PWD/.evil\" > .worktrees/feat/.git",
                           ".worktrees/feat");
}

/* A workspace whose .git is a file (a linked worktree of a repository elsewhere) with an
 * embedded submodule: the index of the git directory that file names records it. */
static void
test_git_embedded_submodule_of_worktree (Fixture *f, gconstpointer data)
{
  g_autofree char *setup = g_strdup_printf (
    "set -e; rm file; git init -q -b main '%s/main'; cd '%s/main'; echo m > m; git add m; "
    "git commit -q -m m; git worktree add -q '%s'; git init -q -b main '%s/origin'; "
    "cd '%s/origin'; echo i > i; git add i; git commit -q -m i; cd '%s'; "
    "git clone -q '%s/origin' inner; git add inner 2>/dev/null; git commit -q -m inner",
    f->base, f->base, f->ws, f->base, f->base, f->ws, f->base);

  assert_pointer_attack_held (f, setup, NULL, PLANT_FSMONITOR ("inner/.git/config"));
}

/* What decides which git directories are protected must be out of the command's reach: a
 * first call takes away what the protection recognised, a second plants. data: a linked
 * worktree outside the workspace (its HEAD removed), one inside (its gitdir pointed elsewhere),
 * an absorbed submodule (its gitlink and HEAD removed). */
static void
test_git_recognition_removed (Fixture *f, gconstpointer data)
{
  const char *kind = data;
  g_autofree char *outside_tree = g_build_filename (f->outside, "wt", NULL);
  g_autofree char *outside_setup = g_strdup_printf (
    INIT_REPOSITORY " && git worktree add -q '%s'",
    outside_tree);
  g_autofree char *absorbed = superproject_script (f, "sub");
  const char *inside_setup = INIT_WITH_WORKTREE;

  if (!require_backend () || !require_git () || !backend->protects_git)
    return;
  set_up_usable_repository (f, g_str_equal (kind, "outside-worktree")  ? outside_setup
                               : g_str_equal (kind, "inside-worktree") ? inside_setup
                                                                       : absorbed);
  if (g_str_equal (kind, "outside-worktree"))
    assert_attack_held_in (f, NULL,
                           "cp .git/worktrees/wt/HEAD .h && rm .git/worktrees/wt/HEAD", FALSE,
                           EVIL_GIT_DIR (".git", "nowhere")
                           " ; echo \"$PWD/.evil\" > .git/worktrees/wt/commondir; "
                           "mv .h .git/worktrees/wt/HEAD",
                           outside_tree);
  else if (g_str_equal (kind, "inside-worktree"))
    assert_attack_held_in (f, NULL,
                           "echo \"$PWD/nowhere/.git\" > .git/worktrees/feat/gitdir", FALSE,
                           EVIL_GIT_DIR (".git", ".worktrees/feat")
                           " ; echo \"gitdir: $PWD/.evil\" > .worktrees/feat/.git; "
                           "echo \"$PWD/.worktrees/feat/.git\" > .git/worktrees/feat/gitdir",
                           ".worktrees/feat");
  else
    assert_attack_held_in (f, NULL,
                           "cp .git/index .i; cp .git/modules/sub/HEAD .h; "
                           "git rm -q --cached sub; rm .git/modules/sub/HEAD", FALSE,
                           PLANT_FSMONITOR (".git/modules/sub/config")
                           "; mv .h .git/modules/sub/HEAD; mv .i .git/index",
                           ".");
}

/* Two calls at once on one repository: the first plants a name git reads (data: what), which
 * the second, starting then, holds read-only; the first's undo moves it aside (and with it the
 * second's hold), and the second's command plants it anew. The second call's own undo must take
 * that away:
 *   - NULL: .git/commondir, anew;
 *   - "relinked": .git/commondir, a second link of a file the first made, linked back;
 *   - "head": HEAD beside .git, with what makes git take the work tree for a bare repository. */
static void
test_git_concurrent_undo (Fixture *f, gconstpointer data)
{
  const char *what = data != NULL ? data : "";
  g_autofree char *pwned = g_build_filename (f->ws, "PWNED", NULL);
  g_autofree char *commondir = g_build_filename (f->ws, ".git", "commondir", NULL);
  g_autofree char *head = g_build_filename (f->ws, "HEAD", NULL);
  const char *name = g_str_equal (what, "head") ? "HEAD" : ".git/commondir";
  const char *first =
    g_str_equal (what, "relinked") ? "echo \"$PWD/.evil\" > .git/keep; ln .git/keep .git/commondir"
    : g_str_equal (what, "head")   ? "echo \"ref: refs/heads/main\" > HEAD"
                                   : "echo /nonexistent > .git/commondir";
  const char *second =
    g_str_equal (what, "relinked") ? "ln .git/keep .git/commondir"
    : g_str_equal (what, "head")
      ? "echo \"ref: refs/heads/main\" > HEAD; mkdir -p objects refs/heads; "
        "printf \"[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n"
        "\\tworktree = $PWD\\n\\tfsmonitor = touch $PWD/PWNED; false\\n\" > config; "
        "echo garbage > .git/HEAD"
      : "echo \"$PWD/.evil\" > .git/commondir";
  g_autofree char *exec = g_strdup_printf (
    "env HOME='%s' TMPDIR='%s' DSH_SANDBOX_BACKEND=%s DSH_SANDBOX_PROBE_CACHE=off '%s' exec "
    "--mode workspace-write --workspace '%s' --",
    f->home, f->tmpdir, backend->name, dsh_test_cli (), f->ws);
  g_autofree char *script = g_strdup_printf (
    "set -e; " INIT_REPOSITORY "; "
    "mkdir .evil && cp -r .git/objects .git/refs .git/HEAD .evil/; "
    "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch %%s/PWNED; false\\n' "
    "\"$PWD\" > .evil/config; "
    "%s sh -c '%s; for i in $(seq 100); do [ -e .b ] && break; sleep .1; done' & "
    "for i in $(seq 100); do [ -e %s ] && break; sleep .05; done; "
    "%s sh -c 'touch .b; for i in $(seq 100); do [ -e %s ] || break; sleep .1; done; "
    "  %s; rm .b' || true; "
    "wait; git status >/dev/null 2>&1 || true",
    exec, first, name, exec, name, second);
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend () || !require_git () || !backend->protects_git)
    return;
  host_git (f, script, &run);
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_false (g_file_test (commondir, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (head, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
}

/* Round three: a git directory made read-only as a whole (a config name planted as a directory)
 * still has its worktree's .git file held; a linked worktree's own submodules are held; and a
 * split index whose gitlink replaces a shared entry by position still names it. */
static void
test_git_round_three (Fixture *f, gconstpointer data)
{
  const char *kind = data;
  const char *worktree = INIT_WITH_WORKTREE;
  g_autofree char *worktree_submodule = g_strdup_printf (
    "%s && cd .worktrees/feat && git init -q lib && cd lib && echo l > l && git add l && "
    "git commit -q -m l && cd .. && git add lib 2>/dev/null && git commit -q -m sub",
    worktree);
  const char *split = "git init -q -b main . && for i in 0 1 2 3 4 5 6 7 8 9; do echo $i > f$i; "
                      "done && git init -q lib && cd lib && echo l > l && git add l && "
                      "git commit -q -m l && cd .. && git add file f* lib 2>/dev/null && "
                      "git commit -q -m sub";

  if (!require_backend () || !require_git () || !backend->protects_git)
    return;
  if (g_str_equal (kind, "read-only-git-dir"))
    {
      set_up_usable_repository (f, worktree);
      assert_attack_held_in (f, NULL, "mkdir -p .git/worktrees/feat/config.worktree/x", FALSE,
                             EVIL_GIT_DIR (".git", ".worktrees/feat")
                             "; echo \"gitdir: $PWD/.evil\" > .worktrees/feat/.git",
                             ".worktrees/feat");
    }
  else if (g_str_equal (kind, "linked-worktree-submodule"))
    {
      set_up_usable_repository (f, worktree_submodule);
      assert_attack_held_in (f, NULL, NULL, TRUE,
                             "git -C .worktrees/feat/lib config core.fsmonitor "
                             "\"touch $PWD/PWNED; false\"",
                             ".worktrees/feat");
    }
  else
    {
      set_up_usable_repository (f, split);
      assert_attack_held_in (f, NULL,
                             "C=$(git rev-parse :lib); B=$(git rev-parse :f0); "
                             "git update-index --cacheinfo 100644,$B,lib && "
                             "git update-index --split-index && "
                             "git update-index --cacheinfo 160000,$C,lib",
                             FALSE,
                             "git -C lib config core.fsmonitor \"touch $PWD/PWNED; false\"", ".");
    }
}

/* Round four: core.worktree read with git's escapes (a submodule path with a backslash); a
 * project file named HEAD beside .git cannot be made a bare repository's; and a submodule of a
 * submodule, checked out recursively, still lets a call run (nested git directories bound
 * parents first). */
static void
test_git_round_four (Fixture *f, gconstpointer data)
{
  const char *kind = data;
  g_autofree char *origin = g_strdup_printf (
    "git init -q -b main '%s/origin'; cd '%s/origin'; echo o > o; git add o; git commit -q -m o; "
    "cd '%s'",
    f->base, f->base, f->ws);
  g_autofree char *backslash = g_strdup_printf (
    "set -e; " INIT_REPOSITORY "; %s; "
    "git -c protocol.file.allow=always submodule add -q '%s/origin' 'x\\y'; git commit -q -m sub",
    origin, f->base);
  g_autofree char *nested = g_strdup_printf (
    "set -e; git init -q -b main '%s/inner'; cd '%s/inner'; echo i > i; git add i; "
    "git commit -q -m i; git init -q -b main '%s/middle'; cd '%s/middle'; echo m > m; "
    "git add m; git -c protocol.file.allow=always submodule add -q '%s/inner' inner; "
    "git commit -q -m m; cd '%s'; " INIT_REPOSITORY "; "
    "git -c protocol.file.allow=always submodule add -q '%s/middle' middle; "
    "git -c protocol.file.allow=always submodule update -q --init --recursive; "
    "git commit -q -m sub",
    f->base, f->base, f->base, f->base, f->base, f->ws, f->base);

  if (!require_backend () || !require_git () || !backend->protects_git)
    return;
  if (g_str_equal (kind, "escaped-worktree"))
    {
      set_up_usable_repository (f, backslash);
      assert_attack_held_in (
        f, NULL, "git rm -q --cached 'x\\y'", FALSE,
        "cp -r '.git/modules/x\\y' evilgit; "
        "git config -f evilgit/config core.worktree \"$PWD/x\\y\"; "
        "git config -f evilgit/config core.fsmonitor \"touch $PWD/PWNED; false\"; "
        "echo \"gitdir: $PWD/evilgit\" > 'x\\y/.git'; "
        "git update-index --add --cacheinfo 160000,$(git -C 'x\\y' rev-parse HEAD),'x\\y'",
        ".");
    }
  else if (g_str_equal (kind, "head-beside-git"))
    {
      set_up_usable_repository (
        f, "git init -q -b main . && echo notes > HEAD && git add file HEAD && "
           "git commit -q -m init");
      assert_attack_held_in (
        f, NULL, NULL, TRUE,
        "echo garbage > .git/HEAD; echo 'ref: refs/heads/main' > HEAD; mkdir -p objects refs; "
        "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = %s\\n' "
        "\"$PWD\" > config; " PLANT_FSMONITOR ("config"),
        ".");
    }
  else
    {
      set_up_usable_repository (f, nested);
      assert_attack_held_in (f, NULL, NULL, TRUE,
                             PLANT_FSMONITOR (".git/modules/middle/modules/inner/config"), ".");
    }
}

/* Round five: a worktree's git directory outside every root whose commondir points inside them
 * (git's config and hooks then come from there); and a writable root inside a git directory,
 * which would leave that git directory free to be renamed away with its protections. */
static void
test_git_round_five (Fixture *f, gconstpointer data)
{
  const char *kind = data;

  if (!require_backend () || !require_git () || !backend->protects_git)
    return;
  if (g_str_equal (kind, "outside-git-dir-commondir"))
    {
      g_autofree char *setup = g_strdup_printf (
        "set -e; git init -q -b main '%s/src'; cd '%s/src'; echo s > s; git add s; "
        "git commit -q -m s; mv .git '%s/c.git'; git --git-dir='%s/c.git' config core.bare true; "
        "mkdir '%s/wt'; echo '%s/c.git' > '%s/wt/commondir'; echo '%s/.git' > '%s/wt/gitdir'; "
        "git --git-dir='%s/c.git' rev-parse HEAD > '%s/wt/HEAD'; "
        "echo 'gitdir: %s/wt' > '%s/.git'",
        f->base, f->base, f->ws, f->ws, f->outside, f->ws, f->outside, f->ws, f->outside, f->ws,
        f->outside, f->outside, f->ws);

      set_up_usable_repository (f, setup);
      assert_attack_held_in (f, NULL, NULL, TRUE, PLANT_FSMONITOR ("c.git/config"), ".");
    }
  else
    {
      g_autofree char *pwned = g_build_filename (f->ws, "PWNED", NULL);
      g_autofree char *refs = g_build_filename (f->ws, ".git", "refs", NULL);
      g_autofree char *home_env = g_strdup_printf ("HOME=%s", f->home);
      g_autofree char *tmpdir_env = g_strdup_printf ("TMPDIR=%s", f->tmpdir);
      g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend->name);
      const char *env[] = { home_env, tmpdir_env, backend_env, "DSH_SANDBOX_PROBE_CACHE=off",
                            NULL };
      const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", f->ws,
                             "--writable-root", refs, "--", "sh", "-c",
                             "mv .git .git-old && cp -r .git-old .git-new && mv .git-new .git && "
                             PLANT_FSMONITOR (".git/config"),
                             NULL };
      g_auto (DshTestRun) run = { 0 };

      make_repository (f);
      dsh_test_run_cli (&run, args, env, f->ws);
      g_assert_cmpint (run.exit_code, ==, 125);
      g_assert_nonnull (strstr (run.err, "lies inside the git directory"));
      dsh_test_run_clear (&run);
      host_git (f, "git status >/dev/null 2>&1; true", &run);
      g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
    }
}

/* A symlink among the submodules' git directories leads git wherever it points: no call may
 * run with the git directory behind it unprotected. */
static void
test_git_modules_symlink (Fixture *f, gconstpointer data)
{
  g_autofree char *ran = g_build_filename (f->ws, "RAN", NULL);

  g_auto (DshTestRun) setup = { 0 };

  if (!require_backend () || !require_git () || !backend->protects_git)
    return;
  host_git (f,
            "set -e; git init -q -b main . && mkdir -p .git/modules evil && "
            "git init -q --bare evil/lib && ln -s ../../evil/lib .git/modules/lib",
            &setup);
  g_assert_cmpint (setup.exit_code, ==, 0);
  assert_pointer_attack_held (f, NULL, NULL, "touch RAN");
  if (backend->protects_git)
    g_assert_false (g_file_test (ran, G_FILE_TEST_EXISTS));
}

/* Ordinary git work inside the workspace keeps working on every backend, in the repository
 * there and in one created by the call. */
static void
test_git_workflow (Fixture *f, gconstpointer data)
{
  const char *command[] = {
    "sh", "-c",
    "set -e; export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t "
    "GIT_COMMITTER_EMAIL=t@e GIT_CONFIG_NOSYSTEM=1; "
    "echo a > a; git add a; git commit -q -m a; "
    "git checkout -q -b topic; echo b > b; git add b; git commit -q -m b; "
    "git checkout -q main; git branch other; git merge -q --no-edit topic; "
    "echo c >> a; git stash -q; git stash pop -q; git commit -q -am c; "
    "git checkout -q other; echo d > d; git add d; git commit -q -m d; git rebase -q main; "
    "git checkout -q main; git merge -q other; "
    "mkdir sub; cd sub; git init -q -b main .; echo e > e; git add e; git commit -q -m e; "
    "cd ..; git log --oneline | wc -l",
    NULL,
  };
  g_auto (DshTestRun) run = { 0 };

  if (!require_backend () || !require_git ())
    return;

  make_repository (f);
  cli_exec (f, "workspace-write", command, &run);
  g_test_message ("%s", run.err);
  assert_completed (f, &run, 0);
  g_assert_cmpstr (g_strstrip (run.out), ==, "5");
}

/* ------------------------------------------------------------------------------------------ */

/* A sole candidate is selected without a functional probe, so run a trivial command through the
 * real CLI once: an unusable runner then skips (or, in CI, fails) case by case. */
static gboolean
backend_works (void)
{
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend->name);
  const char *env[] = { backend_env, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  const char *args[] = { "exec", "--mode", "read-only", "--workspace", "/", "--", "true", NULL };

  dsh_test_run_cli (&run, args, env, "/");
  return run.exit_code == 0;
}

/* One case for each kind, PATH/KIND, the kind its data. */
static void
add_kinds (const char *backend_name, const char *path, const char *const *kinds,
           void (*test) (Fixture *f, gconstpointer data))
{
  for (; *kinds != NULL; kinds++)
    {
      g_autofree char *kind_path = g_strdup_printf ("%s/%s", path, *kinds);

      g_test_add (dsh_test_backend_case_path ("conformance", backend_name, kind_path), Fixture,
                  *kinds, fixture_set_up, test, fixture_tear_down);
    }
}

int
main (int argc, char **argv)
{
  const char *name;

  g_test_init (&argc, &argv, NULL);

  name = dsh_test_getenv_required ("DSH_SANDBOX_BACKEND");
  backend = load_backend (dsh_test_getenv_required ("DSH_CONFORMANCE_EXPECTATIONS"));
  if (!g_str_equal (backend->name, name))
    g_error ("DSH_SANDBOX_BACKEND is \"%s\" but the expectations are for \"%s\"", name,
             backend->name);

#define ADD(path, fn) \
  g_test_add (dsh_test_backend_case_path ("conformance", name, path), Fixture, NULL, fixture_set_up, \
              fn, fixture_tear_down)
  ADD ("read-only/denies-workspace", test_read_only_denies_workspace);
  ADD ("read-only/denies-temp", test_read_only_denies_temp);
  ADD ("read-only/allows-sinks", test_read_only_allows_sinks);
  ADD ("workspace-write/allows-workspace", test_workspace_write_allows_workspace);
  ADD ("workspace-write/allows-tmpdir", test_workspace_write_allows_tmpdir);
  ADD ("workspace-write/tmp-area", test_workspace_write_tmp_area);
  ADD ("workspace-write/denies-home", test_workspace_write_denies_home);
  ADD ("workspace-write/denies-etc", test_workspace_write_denies_etc);
  ADD ("workspace-write/denies-symlink-escape", test_workspace_write_denies_symlink_escape);
  ADD ("workspace-write/denies-dotdot-escape", test_workspace_write_denies_dotdot_escape);
  ADD ("workspace-write/rename-across-directories", test_rename_across_directories);
  ADD ("escape/rename-link-out", test_rename_link_out_of_workspace);
  ADD ("escape/truncate-outside", test_truncate_outside_denied);
  ADD ("escape/proc-self-fd-reopen", test_proc_self_fd_reopen_denied);
  ADD ("escape/dev-shm", test_dev_shm);
  ADD ("escape/fifo-socket-outside", test_fifo_socket_outside_denied);
  ADD ("escape/proc-magic-links", test_proc_magic_links);
  ADD ("difference/metadata-outside", test_metadata_outside);
  ADD ("workspace-write/workspace-is-tmp", test_workspace_is_tmp);
  ADD ("workspace-write/stacked-mounts", test_stacked_mounts_in_workspace);
  ADD ("passthrough/many-argv-items", test_many_argv_items);
  ADD ("git/protected-paths", test_git_files_protected);
  ADD ("git/dot-git-mount-point", test_git_dir_mount_point);
  ADD ("git/worktree-protected", test_git_worktree_protected);
  ADD ("git/submodule-protected", test_git_submodule_protected);
  ADD ("git/pointer-with-newline", test_git_pointer_with_newline);
  ADD ("git/pointer-through-symlink", test_git_pointer_through_symlink);
  ADD ("git/pointer-dangling", test_git_pointer_dangling);
  ADD ("git/pointer-through-outside-symlink", test_git_pointer_through_outside_symlink);
  ADD ("git/submodule-deep-name", test_git_submodule_deep_name);
  ADD ("git/modules-symlink", test_git_modules_symlink);
  ADD ("git/bare-fallback", test_git_bare_fallback);
  g_test_add (dsh_test_backend_case_path ("conformance", name, "git/embedded-submodule"), Fixture,
              "index v2", fixture_set_up, test_git_embedded_submodule, fixture_tear_down);
  g_test_add (dsh_test_backend_case_path ("conformance", name, "git/embedded-submodule/index-v4"),
              Fixture, "index v4", fixture_set_up, test_git_embedded_submodule, fixture_tear_down);
  g_test_add (dsh_test_backend_case_path ("conformance", name, "git/embedded-submodule/sha256"),
              Fixture, "sha256", fixture_set_up, test_git_embedded_submodule, fixture_tear_down);
  g_test_add (dsh_test_backend_case_path ("conformance", name, "git/embedded-submodule/split"),
              Fixture, "split index", fixture_set_up, test_git_embedded_submodule,
              fixture_tear_down);
  g_test_add (dsh_test_backend_case_path ("conformance", name,
                                          "git/embedded-submodule/after-long-name"),
              Fixture, "long name", fixture_set_up, test_git_embedded_submodule,
              fixture_tear_down);
  ADD ("git/embedded-submodule-of-worktree", test_git_embedded_submodule_of_worktree);
  ADD ("git/concurrent-undo", test_git_concurrent_undo);
  add_kinds (name, "git/concurrent-undo",
             (const char *const[]) { "relinked", "head", NULL }, test_git_concurrent_undo);
  add_kinds (name, "git/round-five",
             (const char *const[]) { "outside-git-dir-commondir", "root-inside-git-dir", NULL },
             test_git_round_five);
  add_kinds (name, "git/round-four",
             (const char *const[]) { "escaped-worktree", "head-beside-git", "nested-submodules",
                                     NULL },
             test_git_round_four);
  add_kinds (name, "git/round-three",
             (const char *const[]) { "read-only-git-dir", "linked-worktree-submodule",
                                     "split-index-replaced", NULL },
             test_git_round_three);
  add_kinds (name, "git/recognition-removed",
             (const char *const[]) { "outside-worktree", "inside-worktree", "absorbed-submodule",
                                     NULL },
             test_git_recognition_removed);
  ADD ("git/bare-at-root", test_git_bare_at_root);
  add_kinds (name, "git/work-tree-renamed",
             (const char *const[]) { "absorbed", "embedded", "worktree", NULL },
             test_git_work_tree_renamed);
  ADD ("git/workflow", test_git_workflow);
  ADD ("passthrough/background-child-dies", test_background_child);
  ADD ("passthrough/supervisor-cannot-be-killed", test_supervisor_cannot_be_killed);
  ADD ("passthrough/supervisor-cannot-be-stopped", test_supervisor_cannot_be_stopped);
  ADD ("passthrough/exit-status", test_exit_status_passes_through);
  ADD ("passthrough/signal", test_signal_passes_through);
  ADD ("passthrough/stdin", test_stdin_passes_through);
  ADD ("classification/runner-failure", test_runner_failure);
  ADD ("classification/launcher-failure", test_launcher_failure);
  ADD ("classification/lookalikes", test_lookalikes_not_runner_failure);
  ADD ("classification/missing-command", test_missing_command);
#undef ADD

  {
    int status = g_test_run ();

    if (fileop_dir != NULL)
      dsh_test_remove_tree (fileop_dir);
    return status;
  }
}
