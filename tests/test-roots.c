/* test-roots.c — canonical paths resolve the way chdir does (symlinks before ".."), missing
 * roots stay as spelled, and writable roots are exactly [workspace, /tmp, tmpdir] de-duplicated.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <glib/gstdio.h>
#include <unistd.h>

#include "dsh-test-util.h"

static char *
real_tmp_dir (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();

  return realpath (dir, NULL);
}

static void
make_dirs (const char *root, const char *const *relative)
{
  for (gsize i = 0; relative[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (root, relative[i], NULL);

      g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
    }
}

static void
test_canonical_follows_symlinks (void)
{
  g_autofree char *root = real_tmp_dir ();
  g_autofree char *real = g_build_filename (root, "real", NULL);
  g_autofree char *link = g_build_filename (root, "link", NULL);
  g_autofree char *canonical = NULL;
  const char *dirs[] = { "real", NULL };

  make_dirs (root, dirs);
  g_assert_cmpint (symlink (real, link), ==, 0);
  canonical = dsh_canonical_path (link);
  g_assert_cmpstr (canonical, ==, real);
}

static void
test_canonical_dotdot_after_symlink (void)
{
  /* root/a/link -> root/x/y, so root/a/link/../b is root/x/b for chdir, not lexical root/a/b. */
  g_autofree char *root = real_tmp_dir ();
  const char *dirs[] = { "a/b", "x/y", "x/b", NULL };
  g_autofree char *target = g_build_filename (root, "x", "y", NULL);
  g_autofree char *link = g_build_filename (root, "a", "link", NULL);
  g_autofree char *spelled = g_build_filename (root, "a", "link", "..", "b", NULL);
  g_autofree char *expected = g_build_filename (root, "x", "b", NULL);
  g_autofree char *canonical = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *chdir_lands = NULL;
  g_autofree char *saved_cwd = g_get_current_dir ();

  make_dirs (root, dirs);
  g_assert_cmpint (symlink (target, link), ==, 0);

  canonical = dsh_canonical_path (spelled);
  g_assert_cmpstr (canonical, ==, expected);
  workspace = dsh_workspace_root (spelled, "/");
  g_assert_cmpstr (workspace, ==, expected);

  /* And that is where the kernel's own chdir lands. */
  g_assert_cmpint (chdir (spelled), ==, 0);
  chdir_lands = g_get_current_dir ();
  g_assert_cmpint (chdir (saved_cwd), ==, 0);
  g_assert_cmpstr (chdir_lands, ==, expected);
}

static void
test_canonical_missing_kept_as_spelled (void)
{
  const char *spelled = "/nonexistent-dsh-root/x/../y";
  g_autofree char *canonical = dsh_canonical_path (spelled);
  g_autofree char *workspace = dsh_workspace_root (spelled, "/");

  g_assert_cmpstr (canonical, ==, spelled);
  /* Nor is the workspace root tidied: /nonexistent-dsh-root/y is not where this path leads,
   * which is nowhere until x exists (and then wherever x leads). */
  g_assert_cmpstr (workspace, ==, spelled);
}

static void
test_workspace_root_fallback (void)
{
  g_autofree char *root = real_tmp_dir ();
  g_autofree char *from_fallback = dsh_workspace_root (NULL, root);
  g_autofree char *from_session = dsh_workspace_root ("/", root);

  g_assert_cmpstr (from_fallback, ==, root);
  g_assert_cmpstr (from_session, ==, "/");
}

static GStrv
roots_for (DshSandboxMode mode, const char *workspace)
{
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (mode, workspace, NULL);

  return dsh_writable_roots (policy);
}

static void
test_writable_roots_by_mode (void)
{
  g_autofree char *root = real_tmp_dir ();
  g_auto (GStrv) ro = roots_for (DSH_SANDBOX_MODE_READ_ONLY, root);
  g_auto (GStrv) dfa = roots_for (DSH_SANDBOX_MODE_DANGER_FULL_ACCESS, root);
  g_auto (GStrv) ww = roots_for (DSH_SANDBOX_MODE_WORKSPACE_WRITE, root);
  g_autofree char *tmp = dsh_canonical_path ("/tmp");
  g_autofree char *tmpdir = dsh_canonical_path (g_get_tmp_dir ());

  g_assert_cmpuint (g_strv_length (ro), ==, 0);
  g_assert_cmpuint (g_strv_length (dfa), ==, 0);
  g_assert_cmpstr (ww[0], ==, root);
  g_assert_cmpstr (ww[1], ==, tmp);
  if (g_str_equal (tmp, tmpdir))
    g_assert_null (ww[2]);
  else
    {
      g_assert_cmpstr (ww[2], ==, tmpdir);
      g_assert_null (ww[3]);
    }
}

/* Each case runs in a subprocess, since the temp directory is read once per process: in the
 * subprocess this prints the roots and returns TRUE, and the case returns at once. */
static gboolean
print_roots_in_subprocess (void)
{
  g_auto (GStrv) roots = NULL;
  g_autofree char *joined = NULL;

  if (!g_test_subprocess ())
    return FALSE;
  roots = roots_for (DSH_SANDBOX_MODE_WORKSPACE_WRITE, g_getenv ("DSH_TEST_WORKSPACE"));
  joined = g_strjoinv ("|", roots);
  g_print ("%s", joined);
  return TRUE;
}

/* Runs the case's subprocess with TMPDIR and the workspace set; it must print the roots that
 * follow, in order (NULL-terminated). */
static void G_GNUC_NULL_TERMINATED
run_with_tmpdir (const char *tmpdir, const char *workspace, ...)
{
  g_autoptr (GPtrArray) expected = g_ptr_array_new ();
  va_list args;

  va_start (args, workspace);
  for (const char *root = va_arg (args, const char *); root != NULL;
       root = va_arg (args, const char *))
    g_ptr_array_add (expected, (gpointer) root);
  va_end (args);
  g_ptr_array_add (expected, NULL);

  g_setenv ("TMPDIR", tmpdir, TRUE);
  g_setenv ("DSH_TEST_WORKSPACE", workspace, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv ("TMPDIR");
  g_test_trap_assert_passed ();
  {
    g_autofree char *want = g_strjoinv ("|", (char **) expected->pdata);

    g_test_trap_assert_stdout (want);
  }
}

static void
test_writable_roots_tmpdir_is_tmp (void)
{
  g_autofree char *root = NULL;
  g_autofree char *tmp = dsh_canonical_path ("/tmp");

  if (print_roots_in_subprocess ())
    return;
  root = real_tmp_dir ();
  run_with_tmpdir ("/tmp", root, root, tmp, NULL);
}

static void
test_writable_roots_tmpdir_symlink_to_tmp (void)
{
  g_autofree char *root = NULL;
  g_autofree char *link = NULL;
  g_autofree char *tmp = dsh_canonical_path ("/tmp");

  if (print_roots_in_subprocess ())
    return;
  root = real_tmp_dir ();
  link = g_build_filename (root, "tmp-link", NULL);
  g_assert_cmpint (symlink ("/tmp", link), ==, 0);
  run_with_tmpdir (link, root, root, tmp, NULL);
}

static void
test_writable_roots_workspace_is_tmp (void)
{
  g_autofree char *tmp = dsh_canonical_path ("/tmp");
  g_autofree char *root = NULL;
  g_autofree char *tmpdir = NULL;

  if (print_roots_in_subprocess ())
    return;
  root = real_tmp_dir ();
  tmpdir = g_build_filename (root, "own-tmp", NULL);
  g_assert_cmpint (g_mkdir (tmpdir, 0700), ==, 0);
  /* Workspace /tmp and /tmp itself are one root. */
  run_with_tmpdir (tmpdir, "/tmp", tmp, tmpdir, NULL);
}

static void
test_writable_roots_missing_tmpdir (void)
{
  g_autofree char *root = NULL;
  g_autofree char *tmp = dsh_canonical_path ("/tmp");

  if (print_roots_in_subprocess ())
    return;
  root = real_tmp_dir ();
  run_with_tmpdir ("/nonexistent-dsh-tmpdir", root, root, tmp, "/nonexistent-dsh-tmpdir", NULL);
}

/* A temp directory that would widen the roots is left out when the roots are derived (the call
 * that pins them refuses it instead). */
static void
test_writable_roots_refused_tmpdir_left_out (void)
{
  g_autofree char *root = NULL;
  g_autofree char *tmp = dsh_canonical_path ("/tmp");

  if (print_roots_in_subprocess ())
    return;
  root = real_tmp_dir ();
  run_with_tmpdir ("/", root, root, tmp, NULL);
  run_with_tmpdir ("/usr", root, root, tmp, NULL);
}

/* The workspace root of a policy is the call's one resolution: swapping it for a symlink
 * afterwards must not move the roots derived from it. */
static void
test_writable_roots_not_resolved_again (void)
{
  g_autofree char *dir = real_tmp_dir ();
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *moved = g_build_filename (dir, "moved", NULL);
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_auto (GStrv) roots = NULL;

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws, NULL);
  g_assert_cmpint (g_rename (ws, moved), ==, 0);
  g_assert_cmpint (symlink ("/usr", ws), ==, 0);
  roots = dsh_writable_roots (policy);
  g_assert_cmpstr (roots[0], ==, ws);
}

/* Pinned roots are returned exactly, and only under workspace-write. */
static void
test_writable_roots_pinned (void)
{
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshSandboxPolicy) copy = NULL;
  const char *pinned[] = { "/pinned/ws", "/pinned/tmp", NULL };
  g_auto (GStrv) roots = NULL;
  g_auto (GStrv) copied = NULL;
  g_auto (GStrv) read_only = NULL;

  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, "/pinned/ws", NULL);
  policy->writable_roots = g_strdupv ((char **) pinned);
  roots = dsh_writable_roots (policy);
  g_assert_true (g_strv_equal ((const char *const *) roots, pinned));
  copy = dsh_sandbox_policy_copy (policy);
  copied = dsh_writable_roots (copy);
  g_assert_true (g_strv_equal ((const char *const *) copied, pinned));
  copy->mode = DSH_SANDBOX_MODE_READ_ONLY;
  read_only = dsh_writable_roots (copy);
  g_assert_cmpuint (g_strv_length (read_only), ==, 0);
}

/* read-only and danger-full-access pin nothing and never look at the temp directory. */
static void
test_pin_other_modes (void)
{
  g_autoptr (DshSandboxPolicy) ro = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/", NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (dsh_roots_pin (ro, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (ro->writable_roots);
  g_assert_false (dsh_roots_check_workspace ("/", &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED);
  g_assert_cmpstr (dsh_sandbox_error_code_name (DSH_SANDBOX_ERROR_ROOT_REFUSED), ==,
                   "ROOT_REFUSED");
}

/* The roots pinned are recorded as granted by the identity of the directory each walk reached,
 * and a root that is not a directory is refused, naming it. */
static void
test_pin_records_what_was_walked (void)
{
  g_autofree char *dir = real_tmp_dir ();
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  /* The test's own record, kept beside its scratch space (out of /tmp's reach). */
  const char *state = g_getenv ("DSH_SANDBOX_STATE_DIR");
  g_autofree char *file = g_build_filename (dir, "a-file", NULL);
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshSandboxPolicy) refused = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) entries = NULL;
  g_autofree char *expected_line = NULL;
  const char *extra[] = { file, NULL };
  const char *name;
  gboolean found = FALSE;

  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  dsh_test_write_file (file, "");
  g_assert_nonnull (state);
  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws, NULL);
  g_assert_true (dsh_roots_pin (policy, ws, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (policy->writable_roots[0], ==, ws);

  expected_line = g_strdup_printf (" %s\n", ws);
  entries = g_dir_open (state, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (entries)) != NULL)
    {
      g_autofree char *path = g_build_filename (state, name, NULL);
      g_autofree char *text = dsh_test_read_file (path);

      found = found || g_str_has_suffix (text, expected_line);
    }
  g_assert_true (found);

  refused = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, ws, NULL);
  refused->extra_writable_roots = g_strdupv ((char **) extra);
  g_assert_false (dsh_roots_pin (refused, ws, NULL, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED);
  g_assert_nonnull (strstr (error->message, file));
  g_assert_nonnull (strstr (error->message, g_strerror (ENOTDIR)));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/roots/canonical/symlink", test_canonical_follows_symlinks);
  g_test_add_func ("/roots/canonical/dotdot-after-symlink", test_canonical_dotdot_after_symlink);
  g_test_add_func ("/roots/canonical/missing", test_canonical_missing_kept_as_spelled);
  g_test_add_func ("/roots/workspace/fallback", test_workspace_root_fallback);
  g_test_add_func ("/roots/writable/by-mode", test_writable_roots_by_mode);
  g_test_add_func ("/roots/writable/tmpdir-is-tmp", test_writable_roots_tmpdir_is_tmp);
  g_test_add_func ("/roots/writable/tmpdir-symlink-to-tmp",
                   test_writable_roots_tmpdir_symlink_to_tmp);
  g_test_add_func ("/roots/writable/workspace-is-tmp", test_writable_roots_workspace_is_tmp);
  g_test_add_func ("/roots/writable/missing-tmpdir", test_writable_roots_missing_tmpdir);
  g_test_add_func ("/roots/writable/refused-tmpdir-left-out",
                   test_writable_roots_refused_tmpdir_left_out);
  g_test_add_func ("/roots/writable/not-resolved-again", test_writable_roots_not_resolved_again);
  g_test_add_func ("/roots/writable/pinned", test_writable_roots_pinned);
  g_test_add_func ("/roots/pin/other-modes", test_pin_other_modes);
  g_test_add_func ("/roots/pin/records-what-was-walked", test_pin_records_what_was_walked);
  return g_test_run ();
}
