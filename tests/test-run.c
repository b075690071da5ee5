/* test-run.c — dsh_run() as a C harness calls it, against the real bwrap and the real Landlock
 * kernel interface: a denied write leaves the file unchanged and comes back denied with the
 * marker, a permitted one completes (in an extra writable root too), a descriptor the caller
 * held open never reaches the command, no usable backend or a module beneath the workspace means
 * nothing runs, with the exact text, and a planted workspace symlink or an extra root of a
 * system directory is root-refused before anything runs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "dsh-test-util.h"

static const char unavailable_read_only[] =
  "sandbox mode \"read-only\" is requested but no sandbox backend is usable on this host; "
  "refusing to run the command unconfined. Install bubblewrap or run a Landlock-enforcing "
  "kernel (Linux), ensure sandbox-exec is usable (macOS), or ensure the ACL restricted-token "
  "runner can start (Windows) \u2014 otherwise switch the consumer to danger-full-access.";

typedef struct {
  const char *backend;
  /* The denial dialect the command's own stderr shows. */
  const char *dialect;
} Backend;

static const Backend backends[] = {
  { "bwrap", "Read-only file system" },
  { "landlock", "Permission denied" },
};

/* dsh_run() of argv under policy with the build tree's modules and helpers, as the meson test
 * names them; spelled_workspace (NULL: none) is the workspace as the caller spelled it. */
static DshRunResult *
run_from_build_tree (const char *const *argv, const DshSandboxPolicy *policy,
                     const char *spelled_workspace)
{
  g_auto (GStrv) backend_dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_BACKEND_DIRS"),
                                            ":", -1);
  g_auto (GStrv) helper_dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_HELPER_DIRS"),
                                           ":", -1);
  const DshRunOptions options = { .backend_dirs = (const char *const *) backend_dirs,
                                  .helper_dirs = (const char *const *) helper_dirs,
                                  .spelled_workspace = spelled_workspace };

  return dsh_run (argv, policy, &options);
}

/* The command ran, under backend (NULL: none), and ended with outcome. */
static void
assert_ran (const DshRunResult *result, DshOutcome outcome, const char *backend)
{
  g_assert_no_error (result->error);
  g_assert_true (result->command_ran);
  g_assert_cmpint (result->outcome, ==, outcome);
  g_assert_cmpstr (result->backend, ==, backend);
}

static DshSandboxPolicy *
policy_for (DshSandboxMode mode, const char *workspace)
{
  g_autofree char *root = dsh_workspace_root (workspace, NULL);

  return dsh_sandbox_policy_new (mode, root, NULL);
}

/* Runs in a subprocess per backend, so that DSH_SANDBOX_BACKEND and the streamed stderr stay
 * there. */
static gboolean
in_backend_subprocess (const Backend *backend)
{
  if (g_test_subprocess ())
    {
      g_setenv ("DSH_SANDBOX_BACKEND", backend->backend, TRUE);
      return TRUE;
    }
  g_test_message ("backend: %s", backend->backend);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  return FALSE;
}

static void
check_denied_write (const Backend *backend)
{
  g_autofree char *ws = NULL;
  g_autofree char *victim = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshRunResult) result = NULL;

  if (!in_backend_subprocess (backend))
    {
      /* The command's own stderr streamed through unchanged, and the marker is the caller's
       * to print. */
      g_autofree char *dialect = g_strdup_printf ("*%s*", backend->dialect);

      g_test_trap_assert_stderr_unmatched ("*[sandbox:*");
      g_test_trap_assert_stderr (dialect);
      return;
    }

  ws = dsh_test_scratch_dir ("run");
  victim = g_build_filename (ws, "victim", NULL);
  dsh_test_write_file (victim, "original\n");
  policy = policy_for (DSH_SANDBOX_MODE_READ_ONLY, ws);
  {
    const char *argv[] = { "sh", "-c", "echo changed > \"$1\"", "sh", victim, NULL };

    result = run_from_build_tree (argv, policy, NULL);
  }

  dsh_test_assert_file_is (victim, "original\n");
  assert_ran (result, DSH_OUTCOME_DENIED, backend->backend);
  g_assert_cmpint (result->exit_code, !=, 0);
  g_assert_cmpint (result->mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
  g_assert_nonnull (result->enforcement_reasons);
  g_assert_cmpstr (result->marker, ==, "[sandbox: file access denied under read-only mode]");
  dsh_test_remove_tree (ws);
}

static void
check_completed (const Backend *backend)
{
  g_autofree char *ws = NULL;
  g_autofree char *target = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshRunResult) result = NULL;

  if (!in_backend_subprocess (backend))
    return;

  ws = dsh_test_scratch_dir ("run");
  target = g_build_filename (ws, "made", NULL);
  policy = policy_for (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws);
  {
    const char *argv[] = { "sh", "-c", "echo made > \"$1\"; exit 3", "sh", target, NULL };

    result = run_from_build_tree (argv, policy, NULL);
  }

  dsh_test_assert_file_is (target, "made\n");
  assert_ran (result, DSH_OUTCOME_COMPLETED, backend->backend);
  /* The command's own status, passed through. */
  g_assert_cmpint (result->exit_code, ==, 3);
  g_assert_cmpint (result->term_signal, ==, 0);
  g_assert_null (result->marker);
  dsh_test_remove_tree (ws);
}

/* The caller holds a writable descriptor to a file outside the workspace: the command never
 * gets it, under either confined mode. */
static void
check_inherited_descriptor (const Backend *backend)
{
  g_autofree char *dir = NULL;
  g_autofree char *outside = NULL;
  g_autoptr (DshRunResult) result = NULL;
  int fd;

  if (!in_backend_subprocess (backend))
    return;

  dir = dsh_test_scratch_dir ("run");
  outside = g_build_filename (dir, "outside", NULL);
  dsh_test_write_file (outside, "original\n");
  fd = open (outside, O_WRONLY | O_APPEND);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (dup2 (fd, 7), ==, 7);
  close (fd);

  for (DshSandboxMode mode = DSH_SANDBOX_MODE_READ_ONLY; mode <= DSH_SANDBOX_MODE_WORKSPACE_WRITE;
       mode++)
    {
      g_autoptr (DshSandboxPolicy) policy = policy_for (mode, dir);
      const char *argv[] = { "sh", "-c", "echo escaped >&7 || echo escaped >/proc/self/fd/7",
                             NULL };

      g_clear_pointer (&result, dsh_run_result_free);
      result = run_from_build_tree (argv, policy, NULL);
      g_assert_true (result->command_ran);
      g_assert_cmpint (result->exit_code, !=, 0);
      dsh_test_assert_file_is (outside, "original\n");
    }
  close (7);
  dsh_test_remove_tree (dir);
}

/* The command never ran (no marker file), nothing was confined, and the error says why: no
 * usable backend, or a writable root refused. */
static void
assert_never_ran (const DshRunResult *result, const char *ran, DshOutcome outcome, int code)
{
  g_assert_false (result->command_ran);
  g_assert_cmpint (result->outcome, ==, outcome);
  g_assert_error (result->error, DSH_SANDBOX_ERROR, code);
  g_assert_null (result->marker);
  g_assert_null (result->backend);
  g_assert_false (g_file_test (ran, G_FILE_TEST_EXISTS));
}

static void
test_unavailable_without_backend (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("run");
  g_autofree char *empty = g_build_filename (ws, "no-modules", NULL);
  g_autofree char *ran = g_build_filename (ws, "ran", NULL);
  g_autoptr (DshSandboxPolicy) policy = policy_for (DSH_SANDBOX_MODE_READ_ONLY, ws);
  g_autoptr (DshRunResult) result = NULL;
  const char *dirs[] = { empty, NULL };
  const char *argv[] = { "touch", ran, NULL };
  DshRunOptions options = { 0 };
  const char *rest;

  g_assert_cmpint (g_mkdir (empty, 0755), ==, 0);
  options.backend_dirs = dirs;
  options.helper_dirs = dirs;
  g_unsetenv ("DSH_SANDBOX_BACKEND");
  g_unsetenv ("DSH_SANDBOX_BACKEND_DIR");
  result = dsh_run (argv, policy, &options);

  assert_never_ran (result, ran, DSH_OUTCOME_UNAVAILABLE, DSH_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_true (g_str_has_prefix (result->error->message, unavailable_read_only));
  /* The exact text, optionally followed by why each candidate was unusable. */
  rest = result->error->message + strlen (unavailable_read_only);
  g_assert_true (rest[0] == '\0' || g_str_has_prefix (rest, " Cause: "));
  dsh_test_remove_tree (ws);
}

/* A module a confined command of this workspace could have written is never loaded, even when
 * the caller points there: nothing else is usable, so nothing runs. */
static void
test_module_beneath_workspace_refused (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("run");
  g_autofree char *planted = g_build_filename (ws, "modules", NULL);
  g_autofree char *ran = g_build_filename (ws, "ran", NULL);
  g_autoptr (DshSandboxPolicy) policy = policy_for (DSH_SANDBOX_MODE_READ_ONLY, ws);
  g_autoptr (DshRunResult) result = NULL;
  g_autofree char *module = dsh_test_module_path ("fake-alpha");
  g_autofree char *copy = NULL;
  const char *dirs[] = { planted, NULL };
  const char *argv[] = { "touch", ran, NULL };
  DshRunOptions options = { 0 };

  g_assert_cmpint (g_mkdir (planted, 0755), ==, 0);
  copy = dsh_test_copy_module (module, planted);
  options.backend_dirs = dirs;
  options.helper_dirs = dirs;
  g_unsetenv ("DSH_SANDBOX_BACKEND");
  result = dsh_run (argv, policy, &options);

  assert_never_ran (result, ran, DSH_OUTCOME_UNAVAILABLE, DSH_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_true (g_str_has_prefix (result->error->message, unavailable_read_only));
  dsh_test_remove_tree (ws);
}

/* The workspace as the caller spelled it goes through a symlink in /tmp, where any confined
 * command may write: it could have been planted to move this call's writable root. */
static void
test_planted_workspace_symlink_refused (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("run");
  g_autofree char *ran = g_build_filename (ws, "ran", NULL);
  g_autofree char *tmp = dsh_test_make_tmp_dir ();
  g_autofree char *link = g_build_filename (tmp, "ws-link", NULL);
  g_autoptr (DshSandboxPolicy) policy = policy_for (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws);
  g_autoptr (DshRunResult) result = NULL;
  const char *argv[] = { "touch", ran, NULL };

  g_assert_cmpint (symlink (ws, link), ==, 0);
  result = run_from_build_tree (argv, policy, link);

  assert_never_ran (result, ran, DSH_OUTCOME_ROOT_REFUSED, DSH_SANDBOX_ERROR_ROOT_REFUSED);
  g_assert_nonnull (strstr (result->error->message, link));
  g_assert_nonnull (strstr (result->error->message, "refusing to run the command"));
  dsh_test_remove_tree (ws);
}

/* An extra writable root of the policy is writable, and what lies beside it is not. */
static void
check_extra_root (const Backend *backend)
{
  g_autofree char *ws = NULL;
  g_autofree char *extra = NULL;
  g_autofree char *other = NULL;
  g_autofree char *made = NULL;
  g_autofree char *victim = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshRunResult) result = NULL;

  if (!in_backend_subprocess (backend))
    return;

  ws = dsh_test_scratch_dir ("run");
  extra = dsh_test_scratch_dir ("run-extra");
  other = dsh_test_scratch_dir ("run-other");
  made = g_build_filename (extra, "made", NULL);
  victim = g_build_filename (other, "victim", NULL);
  dsh_test_write_file (victim, "original\n");
  policy = policy_for (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws);
  policy->extra_writable_roots = g_new0 (char *, 2);
  policy->extra_writable_roots[0] = g_strdup (extra);
  {
    const char *argv[] = { "sh", "-c", "echo made > \"$1\" && echo changed > \"$2\"", "sh",
                           made, victim, NULL };

    result = run_from_build_tree (argv, policy, NULL);
  }

  dsh_test_assert_file_is (made, "made\n");
  dsh_test_assert_file_is (victim, "original\n");
  assert_ran (result, DSH_OUTCOME_DENIED, backend->backend);
  /* The caller's policy is its own: the pinned roots live in dsh_run()'s copy. */
  g_assert_null (policy->writable_roots);
  dsh_test_remove_tree (ws);
  dsh_test_remove_tree (extra);
  dsh_test_remove_tree (other);
}

/* An extra root that would open a system directory to confined commands is refused before
 * anything runs. */
static void
test_extra_root_refused (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("run");
  g_autofree char *ran = g_build_filename (ws, "ran", NULL);
  g_autoptr (DshSandboxPolicy) policy = policy_for (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws);
  g_autoptr (DshRunResult) result = NULL;
  const char *argv[] = { "touch", ran, NULL };

  policy->extra_writable_roots = g_new0 (char *, 2);
  policy->extra_writable_roots[0] = g_strdup ("/usr");
  result = run_from_build_tree (argv, policy, NULL);

  assert_never_ran (result, ran, DSH_OUTCOME_ROOT_REFUSED, DSH_SANDBOX_ERROR_ROOT_REFUSED);
  g_assert_nonnull (strstr (result->error->message, "/usr"));
  dsh_test_remove_tree (ws);
}

/* danger-full-access spawns the raw argv without asking any backend, even with none usable. */
static void
test_danger_full_access_raw (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("run");
  g_autofree char *made = g_build_filename (ws, "made", NULL);
  g_autoptr (DshSandboxPolicy) policy = policy_for (DSH_SANDBOX_MODE_DANGER_FULL_ACCESS, ws);
  g_autoptr (DshRunResult) result = NULL;
  const char *dirs[] = { ws, NULL };
  const char *argv[] = { "sh", "-c", "echo raw > \"$1\"", "sh", made, NULL };
  DshRunOptions options = { .backend_dirs = dirs, .helper_dirs = dirs };

  result = dsh_run (argv, policy, &options);
  assert_ran (result, DSH_OUTCOME_COMPLETED, NULL);
  dsh_test_assert_file_is (made, "raw\n");
  dsh_test_remove_tree (ws);
}

/* A mode outside the vocabulary (a stale enum, a cast from a binding) is no
 * danger-full-access: nothing runs, even with backends at hand. */
static void
test_unknown_mode_refused (void)
{
  static const int modes[] = { DSH_SANDBOX_MODE_DANGER_FULL_ACCESS + 1, 99, -1 };

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *ws = dsh_test_scratch_dir ("run");
      g_autofree char *ran = g_build_filename (ws, "ran", NULL);
      g_autoptr (DshSandboxPolicy) policy = policy_for (DSH_SANDBOX_MODE_READ_ONLY, ws);
      g_autoptr (DshRunResult) result = NULL;
      const char *argv[] = { "touch", ran, NULL };

      policy->mode = (DshSandboxMode) modes[i];
      result = run_from_build_tree (argv, policy, NULL);

      assert_never_ran (result, ran, DSH_OUTCOME_INVALID_ARGUMENT,
                        DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
      dsh_test_remove_tree (ws);
    }
}

/* A malformed call is no missing sandbox: it says invalid-argument, as exec's report does, so a
 * harness does not tell its user that this host cannot confine. */
static void
test_malformed_call_invalid (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("run");
  g_autofree char *ran = g_build_filename (ws, "ran", NULL);
  const char *touch[] = { "touch", ran, NULL };
  const char *empty_word[] = { "", NULL };
  const char *none[] = { NULL };
  /* An empty first word, an empty argv, no argv at all. */
  const char *const *commands[] = { empty_word, none, NULL };
  g_autoptr (DshSandboxPolicy) relative = dsh_sandbox_policy_new (
    DSH_SANDBOX_MODE_WORKSPACE_WRITE, "ws", NULL);
  g_autoptr (DshRunResult) result = run_from_build_tree (touch, relative, NULL);

  assert_never_ran (result, ran, DSH_OUTCOME_INVALID_ARGUMENT, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (dsh_outcome_to_string (result->outcome), ==, "invalid-argument");
  /* The mode it would have run under. */
  g_assert_cmpint (result->mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autoptr (DshSandboxPolicy) policy = policy_for (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws);
      g_autoptr (DshRunResult) refused = run_from_build_tree (commands[i], policy, NULL);

      assert_never_ran (refused, ran, DSH_OUTCOME_INVALID_ARGUMENT,
                        DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpint (refused->mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
    }
  dsh_test_remove_tree (ws);
}

/* An extra root that is no directory is left out of the call, and the result says so, in the
 * sentence exec prints: a harness on the library can tell its user why a write there fails. One
 * that exists draws no warning. */
static void
test_left_out_root_said (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("run");
  g_autofree char *present = dsh_test_scratch_dir ("run-extra");
  g_autofree char *missing = g_build_filename (present, "missing", NULL);
  g_autoptr (DshSandboxPolicy) policy = policy_for (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws);
  g_autoptr (DshRunResult) left_out = NULL;
  g_autoptr (DshRunResult) copy = NULL;
  g_autoptr (DshRunResult) granted = NULL;
  const char *with_missing[] = { present, missing, NULL };
  const char *argv[] = { "true", NULL };

  dsh_sandbox_policy_set_extra_writable_roots (policy, with_missing);
  left_out = run_from_build_tree (argv, policy, NULL);
  g_assert_true (left_out->command_ran);
  g_assert_nonnull (left_out->warnings);
  g_assert_cmpuint (g_strv_length (left_out->warnings), ==, 1);
  g_assert_true (g_str_has_prefix (left_out->warnings[0], "the extra writable root "));
  g_assert_nonnull (strstr (left_out->warnings[0], missing));
  copy = dsh_run_result_copy (left_out);
  g_assert_cmpstr (copy->warnings[0], ==, left_out->warnings[0]);

  with_missing[1] = NULL;
  dsh_sandbox_policy_set_extra_writable_roots (policy, with_missing);
  granted = run_from_build_tree (argv, policy, NULL);
  g_assert_true (granted->command_ran);
  g_assert_null (granted->warnings);
  dsh_test_remove_tree (present);
  dsh_test_remove_tree (ws);
}

/* A check run once per backend, as PATH/BACKEND; the bwrap one wants bwrap installed. */
typedef void (*BackendCheck) (const Backend *backend);

typedef struct {
  const Backend *backend;
  BackendCheck check;
} BackendCase;

static void
run_backend_case (gconstpointer data)
{
  const BackendCase *backend_case = data;

  if (g_str_equal (backend_case->backend->backend, "bwrap") && !dsh_test_require_bwrap ())
    return;
  backend_case->check (backend_case->backend);
}

static void
add_backend_cases (const char *path, BackendCheck check)
{
  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autofree char *test_path = g_strdup_printf ("%s/%s", path, backends[i].backend);
      BackendCase *backend_case = g_new (BackendCase, 1);

      backend_case->backend = &backends[i];
      backend_case->check = check;
      g_test_add_data_func_full (test_path, backend_case, run_backend_case, g_free);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  add_backend_cases ("/run/denied-write", check_denied_write);
  add_backend_cases ("/run/completed", check_completed);
  add_backend_cases ("/run/inherited-descriptor", check_inherited_descriptor);
  g_test_add_func ("/run/unavailable-without-backend", test_unavailable_without_backend);
  g_test_add_func ("/run/module-beneath-workspace-refused",
                   test_module_beneath_workspace_refused);
  g_test_add_func ("/run/planted-workspace-symlink-refused",
                   test_planted_workspace_symlink_refused);
  add_backend_cases ("/run/extra-root", check_extra_root);
  g_test_add_func ("/run/extra-root-refused", test_extra_root_refused);
  g_test_add_func ("/run/danger-full-access-raw", test_danger_full_access_raw);
  g_test_add_func ("/run/unknown-mode-refused", test_unknown_mode_refused);
  g_test_add_func ("/run/malformed-call-invalid", test_malformed_call_invalid);
  g_test_add_func ("/run/left-out-root-said", test_left_out_root_said);
  return g_test_run ();
}
