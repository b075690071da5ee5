/* fuzz-paths.c — libFuzzer target for path canonicalisation, the planted-symlink walk and the
 * filesystem fence, over a small private tree with symlinks of every kind (inside, climbing,
 * absolute, looping, dangling) and paths with "..", NULs and overlong components:
 *   - canonicalisation never fails, agrees with realpath(3) when that resolves, and a workspace
 *     root is absolute and already normal;
 *   - the planted-symlink checks set an error exactly when they refuse;
 *   - a path that resolves beneath a writable root is within confined reach, and the root on its
 *     way is one of those roots;
 *   - what the fence opens (openat2 or the portable walk) really lies beneath a writable root,
 *     and what the stricter portable walk opens, openat2 opens too;
 *   - a directory the fence makes lies beneath a writable root, and is removed again.
 * Only reads happen outside the tree, but for an empty directory made and removed in /tmp
 * through the tree's link to it: mkdir/rmdir go through the fence, relative to the tree.
 *
 * Layout: NUL-separated: the path, a second path (a spelled workspace), a creation time.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dsh-sandbox.h>
#include <glib/gstdio.h>

#include "dsh-fs-fence-private.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

static char *workspace;     /* canonical */
static DshSandboxPolicy *policy;
static GStrv writable;

static void
make_tree (void)
{
  const char *scratch = fuzz_scratch_dir ();
  g_autofree char *ws = g_build_filename (scratch, "ws", NULL);
  const char *dirs[] = { "ws", "ws/dir", "ws/dir/sub", "outside" };
  const char *files[] = { "ws/file", "ws/dir/file", "outside/secret" };
  /* link name, target */
  const char *links[][2] = {
    { "ws/inner", "dir" },         { "ws/up", ".." },          { "ws/abs", "/etc" },
    { "ws/loop", "loop" },         { "ws/dangling", "missing" }, { "ws/out", "../outside" },
    { "ws/dir/back", "../file" },  { "ws/self", "." },          { "ws/tmp", "/tmp" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = g_build_filename (scratch, dirs[i], NULL);

      g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (scratch, files[i], NULL);

      fuzz_write_file (path, "x", 1);
    }
  for (guint i = 0; i < G_N_ELEMENTS (links); i++)
    {
      g_autofree char *path = g_build_filename (scratch, links[i][0], NULL);

      g_assert_cmpint (symlink (links[i][1], path), ==, 0);
    }
  workspace = realpath (ws, NULL);
  g_assert_nonnull (workspace);
  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, workspace, NULL);
  writable = dsh_writable_roots (policy);
}

static gboolean
beneath_any (const char *path, const char *const *roots)
{
  for (gsize i = 0; roots[i] != NULL; i++)
    {
      if (dsh_path_is_beneath (path, roots[i]))
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_dotdot (const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);

  return g_strv_contains ((const char *const *) parts, "..");
}

static void
assert_refusal (gboolean ok, const GError *error)
{
  g_assert_true (ok == (error == NULL));
  g_assert_true (error == NULL || g_utf8_validate (error->message, -1, NULL));
}

/* Whatever the way, it ends where realpath(3) ends: a path resolving beneath a root has one on
 * its way, and the answer is always one of the widest roots. */
static void
check_reach (const char *path, const char *resolved)
{
  g_autofree char *reach = dsh_writable_root_on_way (path, workspace, NULL);
  g_auto (GStrv) widest = dsh_writable_roots_widest (policy);

  if (resolved != NULL && beneath_any (resolved, (const char *const *) widest) && reach == NULL)
    g_error ("\"%s\" resolves to %s beneath a writable root, yet none is on its way", path,
             resolved);
  g_assert_true (reach == NULL || g_strv_contains ((const char *const *) widest, reach));
}

static void
check_roots (const char *path, const char *spelled, const char *created)
{
  g_autofree char *canonical = dsh_canonical_path (path);
  g_autofree char *resolved = realpath (path, NULL);
  g_autofree char *root = dsh_workspace_root (path, NULL);
  g_autofree char *fallback_root = dsh_workspace_root (NULL, path);
  g_autofree char *normal = g_canonicalize_filename (root, NULL);
  g_autofree char *child = g_build_filename (root, "child", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) cwd_error = NULL;
  g_autofree char *spelled_root = dsh_workspace_root (spelled, NULL);
  gboolean ok;

  g_assert_nonnull (canonical);
  g_assert_true (resolved == NULL || g_str_equal (canonical, resolved));
  g_assert_true (g_path_is_absolute (root));
  /* Tidied, except a missing one that goes up from where it stops, which names no directory
   * and is kept as spelled. */
  if (resolved != NULL || g_str_equal (root, normal) || !has_dotdot (root))
    g_assert_cmpstr (root, ==, normal);
  g_assert_cmpstr (root, ==, fallback_root);
  g_assert_true (dsh_path_is_beneath (root, root));
  g_assert_true (dsh_path_is_beneath (child, root));
  g_assert_true (dsh_path_is_beneath (root, "/"));

  ok = dsh_roots_check_unplanted (spelled, spelled_root, &error);
  assert_refusal (ok, error);
  g_assert_true (error == NULL ||
                 g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED));
  ok = dsh_roots_check_session_cwd (path, created, &cwd_error);
  assert_refusal (ok, cwd_error);
  check_reach (path, resolved);
}

/* Opens path through the fence; on success the descriptor must name a file beneath a writable
 * root, whatever the spelling. */
static gboolean
check_open (const char *path, gboolean portable)
{
  g_autoptr (GError) error = NULL;
  int fd;

  dsh_fs_fence_set_portable_walk_for_testing (portable);
  fd = dsh_fs_fence_open (policy, path, O_RDONLY | O_NOCTTY, 0, &error);
  dsh_fs_fence_set_portable_walk_for_testing (FALSE);
  assert_refusal (fd >= 0, error);
  if (fd < 0)
    {
      g_assert_true (error->domain == DSH_SANDBOX_ERROR || error->domain == G_IO_ERROR);
      return FALSE;
    }
  {
    g_autofree char *proc = g_strdup_printf ("/proc/self/fd/%d", fd);
    g_autofree char *opened = realpath (proc, NULL);

    g_assert_nonnull (opened);
    if (!beneath_any (opened, (const char *const *) writable))
      g_error ("the fence opened %s for \"%s\": not beneath a writable root", opened, path);
  }
  close (fd);
  return TRUE;
}

static void
check_mkdir (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) rmdir_error = NULL;
  g_autofree char *made = NULL;

  /* Relative spellings only: they start beneath the workspace. */
  if (g_path_is_absolute (path) || path[0] == '\0')
    return;
  if (!dsh_fs_fence_mkdir (policy, path, 0700, &error))
    {
      g_assert_nonnull (error);
      return;
    }
  made = realpath (path, NULL);
  g_assert_nonnull (made);
  /* A link from the workspace into /tmp may lead there: both are writable roots. */
  if (!beneath_any (made, (const char *const *) writable))
    g_error ("the fence made %s for \"%s\": not beneath a writable root", made, path);
  g_assert_true (dsh_fs_fence_unlink (policy, path, TRUE, &rmdir_error));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GPtrArray) fields = fuzz_split_fields (data, size, 3);
  const char *path = g_ptr_array_index (fields, 0);
  const char *spelled = fields->len > 1 ? g_ptr_array_index (fields, 1) : path;
  const char *created = fields->len > 2 ? g_ptr_array_index (fields, 2) : "2020-01-01T00:00:00Z";

  int saved_dir;

  if (workspace == NULL)
    make_tree ();

  /* Relative spellings are taken in the workspace. */
  saved_dir = fuzz_enter_dir (workspace);
  check_roots (path, spelled[0] != '\0' ? spelled : ".", created);
  /* The portable walk refuses every symlink and "..": a strict subset of what openat2 allows. */
  if (check_open (path, TRUE))
    g_assert_true (check_open (path, FALSE));
  else
    (void) check_open (path, FALSE);
  check_mkdir (path);
  fuzz_leave_dir (saved_dir);
  return 0;
}
