/* test-dialects.c — each backend's denial dialect against what real tools print through the real
 * `dsh-sandbox exec` on this kernel: a refusal is `denied` with the marker in whatever words
 * the tool uses for it (npm's error code, the JVM's exception, EROFS from a read-only mount met
 * first), and a line in the dialect's words that is no file effect (an SSH login refused) is not.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <string.h>

#include "dsh-test-linux.h"

static const char *backend;

typedef struct {
  char *base;
  char *ws;
  char *home;
  char *outside;
  char *outside_file;
  char *report_path;
  JsonNode *report;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  (void) data;
  f->base = dsh_test_scratch_dir ("dialects");
  f->ws = dsh_test_make_dir (f->base, "ws");
  f->home = dsh_test_make_dir (f->base, "home");
  f->outside = dsh_test_make_dir (f->base, "outside");
  f->outside_file = dsh_test_make_file (f->outside, "file", "original\n");
  f->report_path = g_build_filename (f->base, "report.json", NULL);
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
  g_free (f->outside_file);
  g_free (f->report_path);
  g_clear_pointer (&f->report, json_node_unref);
}

/* `prefix... dsh-sandbox exec --report R OPTIONS -- command` from the workspace, with HOME
 * outside every writable root; OPTIONS default to workspace-write in the workspace. Loads the
 * report into f->report. */
static void
exec_full (Fixture *f,
           const char *const *prefix,
           const char *const *options,
           const char *const *command,
           DshTestRun *run)
{
  g_autofree char *home_env = g_strdup_printf ("HOME=%s", f->home);
  g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend);
  const char *env[] = { home_env, backend_env, "DSH_SANDBOX_PROBE_CACHE=off",
                        "npm_config_update_notifier=false", NULL };
  const char *plain_options[] = { "--mode", "workspace-write", "--workspace", f->ws, NULL };
  const DshTestExec exec = { .prefix = prefix,
                             .options = options != NULL ? options : plain_options,
                             .report_path = f->report_path, .env = env, .cwd = f->ws,
                             .backend = backend };

  g_clear_pointer (&f->report, json_node_unref);
  f->report = dsh_test_exec (run, &exec, command);
}

static void
exec_under (Fixture *f, const char *const *prefix, const char *const *command, DshTestRun *run)
{
  exec_full (f, prefix, NULL, command, run);
}

static void
exec_command (Fixture *f, const char *const *command, DshTestRun *run)
{
  exec_full (f, NULL, NULL, command, run);
}

/* workspace-write in a session whose approval policy asks, with an approver: a denial there
 * is followed by the escalation hint. */
static void
exec_in_session (Fixture *f, const char *const *command, DshTestRun *run)
{
  g_autofree char *log_path = g_build_filename (f->base, "session.jsonl", NULL);
  g_autoptr (DshSessionLog) log = dsh_test_create_session_log (log_path, f->ws);
  g_autoptr (GError) error = NULL;
  const char *options[] = { "--session", log_path, "--approver", "false", NULL };

  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_WORKSPACE_WRITE, &error));
  g_assert_true (dsh_session_log_append_approval_policy (log, DSH_APPROVAL_POLICY_ASK, &error));
  g_assert_no_error (error);
  exec_full (f, NULL, options, command, run);
  g_unlink (log_path);
}

static const char *
report_outcome (Fixture *f)
{
  return json_object_get_string_member (json_node_get_object (f->report), "outcome");
}

static guint
report_markers (Fixture *f)
{
  return json_array_get_length (
    json_object_get_array_member (json_node_get_object (f->report), "markers"));
}

/* denied, the tool's line (containing evidence) first, the marker after it, once. */
static void
assert_denied_after (Fixture *f, const DshTestRun *run, const char *evidence)
{
  const char *marker = "[sandbox: file access denied under workspace-write mode]";
  const char *evidence_at = strstr (run->err, evidence);
  const char *marker_at = strstr (run->err, marker);

  g_assert_cmpint (run->exit_code, !=, 0);
  g_assert_cmpstr (report_outcome (f), ==, "denied");
  g_assert_nonnull (evidence_at);
  g_assert_nonnull (marker_at);
  g_assert_true (marker_at > evidence_at);
  g_assert_cmpuint (report_markers (f), ==, 1);
}

/* ------------------------------------------------------------------------------------------ */

static const char ssh_refused[] =
  "echo 'git@github.com: Permission denied (publickey).' >&2; "
  "echo 'fatal: Could not read from remote repository.' >&2; ";

/* git's exit after ssh could not log in: no file was refused, so no marker and no hint. */
static void
test_ssh_login_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *script = g_strconcat (ssh_refused, "exit 128", NULL);
  const char *command[] = { "sh", "-c", script, NULL };
  g_auto (DshTestRun) run = { 0 };

  (void) data;
  exec_command (f, command, &run);
  g_assert_cmpint (run.exit_code, ==, 128);
  g_assert_nonnull (strstr (run.err, "Permission denied (publickey)."));
  g_assert_cmpstr (report_outcome (f), ==, "completed");
  g_assert_cmpuint (report_markers (f), ==, 0);
  g_assert_null (strstr (run.err, "[sandbox:"));
  g_assert_null (strstr (run.err, "dsh-sandbox:"));
}

/* In a session that could escalate, the refused login gets no hint; a real denial beside it
 * gets the marker and the hint. */
static void
test_ssh_login_refused_no_hint (Fixture *f, gconstpointer data)
{
  const char *hint = "[sandbox: escalation available";
  g_autofree char *alone = g_strconcat (ssh_refused, "exit 128", NULL);
  g_autofree char *beside = g_strdup_printf ("%secho changed > '%s'; exit 128", ssh_refused,
                                             f->outside_file);
  const char *alone_command[] = { "sh", "-c", alone, NULL };
  const char *beside_command[] = { "sh", "-c", beside, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_auto (DshTestRun) denied = { 0 };

  (void) data;
  exec_in_session (f, alone_command, &run);
  g_assert_cmpint (run.exit_code, ==, 128);
  g_assert_cmpstr (report_outcome (f), ==, "completed");
  g_assert_cmpuint (report_markers (f), ==, 0);
  g_assert_null (strstr (run.err, "[sandbox:"));

  exec_in_session (f, beside_command, &denied);
  g_assert_cmpstr (report_outcome (f), ==, "denied");
  g_assert_nonnull (strstr (denied.err, hint));
  g_assert_cmpuint (report_markers (f), ==, 2);
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

/* The same stderr with a write the sandbox really refused is still a denial. */
static void
test_ssh_line_beside_real_denial (Fixture *f, gconstpointer data)
{
  g_autofree char *script = g_strdup_printf ("%secho changed > '%s'; exit 128", ssh_refused,
                                             f->outside_file);
  const char *command[] = { "sh", "-c", script, NULL };
  g_auto (DshTestRun) run = { 0 };

  (void) data;
  exec_command (f, command, &run);
  assert_denied_after (f, &run, "Permission denied (publickey).");
  g_assert_nonnull (strstr (run.err, g_str_equal (backend, "bwrap") ? "Read-only file system"
                                                                    : ": Permission denied\n"));
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

/* A tarball install goes through npm's cache in $HOME/.npm, outside the writable roots. Landlock
 * refuses the mkdir with EACCES, which npm reports as "code EACCES" and advice to chown, not in
 * strerror's words. */
static void
test_npm_cache_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *pkg = g_build_filename (f->ws, "package", NULL);
  g_autofree char *manifest = g_build_filename (pkg, "package.json", NULL);
  g_autofree char *cache = g_build_filename (f->home, ".npm", NULL);
  g_autofree char *npm = g_find_program_in_path ("npm");
  const char *tar[] = { "tar", "-czf", "pkg-1.0.0.tgz", "package", NULL };
  const char *install[] = { "npm", "install", "--offline", "--no-audit", "--no-fund",
                            "./pkg-1.0.0.tgz", NULL };
  g_auto (DshTestRun) packed = { 0 };
  g_auto (DshTestRun) run = { 0 };

  (void) data;
  if (!dsh_test_require (npm != NULL, "npm is not installed"))
    return;
  g_assert_cmpint (g_mkdir (pkg, 0755), ==, 0);
  dsh_test_write_file (manifest, "{ \"name\": \"pkg\", \"version\": \"1.0.0\" }\n");
  dsh_test_run (&packed, tar, NULL, f->ws, NULL);
  g_assert_cmpint (packed.exit_code, ==, 0);

  exec_command (f, install, &run);
  assert_denied_after (f, &run, "code EACCES");
  g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
}

/* The JVM names a refused write only by its exception (seen from OpenJDK 17's
 * Files.createDirectories here; a JDK is too big a dependency for CI): the write below is
 * really refused, then the line the JVM prints for exactly that refusal follows. */
static void
test_jvm_access_denied (Fixture *f, gconstpointer data)
{
  const char *script = "if ! (: > \"$0\") 2>/dev/null; then "
                       "echo \"Exception in thread \\\"main\\\" "
                       "java.nio.file.AccessDeniedException: $0\" >&2; "
                       "echo \"\tat java.base/sun.nio.fs.UnixException.translateToIOException"
                       "(UnixException.java:90)\" >&2; exit 1; fi";
  const char *command[] = { "sh", "-c", script, f->outside_file, NULL };
  g_auto (DshTestRun) run = { 0 };

  (void) data;
  exec_command (f, command, &run);
  g_assert_cmpint (run.exit_code, ==, 1);
  assert_denied_after (f, &run, "java.nio.file.AccessDeniedException: ");
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

/* Under a read-only mount (here one bwrap lays over the outside directory, as a container or
 * an outer sandbox would), a write Landlock would refuse fails with EROFS before Landlock is
 * asked. */
static void
test_erofs_met_first (Fixture *f, gconstpointer data)
{
  g_autofree char *script = g_strdup_printf ("echo changed > '%s'", f->outside_file);
  const char *command[] = { "sh", "-c", script, NULL };
  const char *read_only_mount[] = { "bwrap", "--unshare-user", "--dev-bind", "/", "/",
                                    "--ro-bind", f->outside, f->outside, "--", NULL };
  g_auto (DshTestRun) run = { 0 };

  (void) data;
  if (!dsh_test_require_bwrap ())
    return;
  exec_under (f, read_only_mount, command, &run);
  assert_denied_after (f, &run, "Read-only file system");
  g_assert_null (strstr (run.err, "Permission denied"));
  dsh_test_assert_file_is (f->outside_file, "original\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  backend = dsh_test_getenv_required ("DSH_SANDBOX_BACKEND");

#define ADD(path, fn) \
  g_test_add (dsh_test_backend_case_path ("dialects", backend, path), Fixture, NULL, fixture_set_up, \
              fn, fixture_tear_down)
  ADD ("ssh-login-refused", test_ssh_login_refused);
  ADD ("ssh-line-beside-real-denial", test_ssh_line_beside_real_denial);
  ADD ("ssh-login-refused-no-hint", test_ssh_login_refused_no_hint);
  if (g_str_equal (backend, "landlock"))
    {
      ADD ("npm-cache-refused", test_npm_cache_refused);
      ADD ("jvm-access-denied", test_jvm_access_denied);
      ADD ("erofs-met-first", test_erofs_met_first);
    }
#undef ADD
  return g_test_run ();
}
