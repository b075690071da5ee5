/* test-fs-fence.c — the in-process filesystem fence: writes inside the writable roots, every
 * escape refused with the bash denial marker ("..", absolute, symlink, magic link), through
 * openat2 and through the portable walk, and a directory flipped between a real directory and
 * a symlink out of the root while the fence is opening files beneath it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/fs.h> /* FS_IOC_GETFLAGS, FS_CASEFOLD_FL */
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "dsh-fs-fence-private.h"
#include <sys/stat.h>

#include "dsh-test-swapper.h"
#include "dsh-test-util.h"
#include "dsh-test-seed-texts.h"

typedef struct {
  char *base;      /* canonical, outside every writable root */
  char *ws;        /* the workspace root */
  char *outside;   /* a directory no policy here may write */
  DshSandboxPolicy *policy;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer portable)
{
  g_autofree char *ws_spelled = NULL;

  dsh_fs_fence_set_portable_walk_for_testing (GPOINTER_TO_INT (portable));
  /* Not under /tmp or $TMPDIR: those are writable roots themselves, and an escape into them
   * would rightly succeed. */
  f->base = dsh_test_scratch_dir ("fence");
  ws_spelled = g_build_filename (f->base, "ws", NULL);
  f->outside = g_build_filename (f->base, "outside", NULL);
  g_assert_cmpint (g_mkdir (ws_spelled, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (f->outside, 0700), ==, 0);
  f->ws = dsh_workspace_root (ws_spelled, NULL);
  f->policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, f->ws, NULL);
}

static void
fixture_tear_down (Fixture *f, gconstpointer portable)
{
  dsh_fs_fence_set_portable_walk_for_testing (FALSE);
  dsh_test_remove_tree (f->base);
  g_free (f->base);
  g_free (f->ws);
  g_free (f->outside);
  g_clear_pointer (&f->policy, dsh_sandbox_policy_free);
}

static char *
ws_path (Fixture *f, const char *rel)
{
  return g_build_filename (f->ws, rel, NULL);
}

/* ws_path, made a new directory. */
static char *
ws_mkdir (Fixture *f, const char *rel)
{
  char *path = ws_path (f, rel);

  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  return path;
}

/* ws_path, made a symlink to target. */
static char *
ws_symlink (Fixture *f, const char *rel, const char *target)
{
  char *path = ws_path (f, rel);

  g_assert_cmpint (symlink (target, path), ==, 0);
  return path;
}

static void
assert_denied (const GError *error, DshSandboxMode mode)
{
  g_autofree char *marker = g_strdup_printf (SEED_DENIAL_MARKER_FMT " ",
                                            dsh_sandbox_mode_to_string (mode));

  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_FS_DENIED);
  /* The same marker bash reports for a kernel denial, then the path. */
  g_assert_true (g_str_has_prefix (error->message, marker));
}

static gboolean
try_write (Fixture *f, const char *path, GError **error)
{
  int fd = dsh_fs_fence_open (f->policy, path, O_WRONLY | O_CREAT | O_TRUNC, 0600, error);

  if (fd < 0)
    return FALSE;
  g_assert_cmpint (write (fd, "x", 1), ==, 1);
  close (fd);
  return TRUE;
}

static void
assert_write_denied (Fixture *f, const char *path)
{
  g_autoptr (GError) error = NULL;

  g_test_message ("expect denial: %s", path);
  g_assert_false (try_write (f, path, &error));
  assert_denied (error, f->policy->mode);
  g_assert_cmpuint (dsh_test_count_entries (f->outside), ==, 0);
}

static void
assert_write_allowed (Fixture *f, const char *path)
{
  g_autoptr (GError) error = NULL;

  g_test_message ("expect success: %s", path);
  g_assert_true (try_write (f, path, &error));
  g_assert_no_error (error);
}

/* ---- opening ----------------------------------------------------------------------------- */

static void
test_inside_allowed (Fixture *f, gconstpointer portable)
{
  g_autofree char *file = NULL;
  g_autofree char *sub = NULL;
  g_autofree char *nested = NULL;
  g_autofree char *alias = NULL;
  g_autofree char *via_alias = NULL;
  g_autofree char *landed = NULL;
  g_autofree char *tmp_file = NULL;

  file = ws_path (f, "file");
  sub = ws_mkdir (f, "sub");
  nested = ws_path (f, "sub/nested");

  assert_write_allowed (f, file);
  assert_write_allowed (f, nested);
  dsh_test_assert_file_is (nested, "x");

  /* Spelled through a symlinked directory outside the roots, it still lands in the root. */
  alias = g_build_filename (f->base, "alias", NULL);
  g_assert_cmpint (symlink (f->ws, alias), ==, 0);
  via_alias = g_build_filename (alias, "via-alias", NULL);
  assert_write_allowed (f, via_alias);
  landed = ws_path (f, "via-alias");
  g_assert_true (g_file_test (landed, G_FILE_TEST_IS_REGULAR));

  /* /tmp is one of the writable roots of workspace-write. */
  tmp_file = g_strdup_printf ("/tmp/dsh-fence-test-%d", (int) getpid ());
  assert_write_allowed (f, tmp_file);
  g_unlink (tmp_file);
}

static void
test_escapes_denied (Fixture *f, gconstpointer portable)
{
  g_autofree char *dotdot = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *esc = NULL;
  g_autofree char *through_esc = NULL;
  g_autofree char *dangling = NULL;
  g_autofree char *dangling_target = NULL;
  g_autofree char *root_link = NULL;
  g_autofree char *through_root = NULL;
  g_autofree char *deep_dotdot = NULL;

  dotdot = g_strdup_printf ("%s/../outside/x", f->ws);
  assert_write_denied (f, dotdot);
  deep_dotdot = g_strdup_printf ("%s/a/../../outside/x", f->ws);
  g_free (ws_mkdir (f, "a"));
  assert_write_denied (f, deep_dotdot);

  absolute = g_build_filename (f->outside, "x", NULL);
  assert_write_denied (f, absolute);
  assert_write_denied (f, "/etc/dsh-fence-must-not-exist");

  /* A directory symlink inside the root pointing out. */
  esc = ws_symlink (f, "esc", f->outside);
  through_esc = ws_path (f, "esc/x");
  assert_write_denied (f, through_esc);

  /* A dangling final-component symlink: O_CREAT must not create its target outside. */
  dangling = ws_path (f, "dangling");
  dangling_target = g_build_filename (f->outside, "created-through-link", NULL);
  g_assert_cmpint (symlink (dangling_target, dangling), ==, 0);
  assert_write_denied (f, dangling);
  g_assert_false (g_file_test (dangling_target, G_FILE_TEST_EXISTS));

  /* An absolute symlink to / inside the root. */
  root_link = ws_symlink (f, "slash", "/");
  through_root = g_build_filename (root_link, f->outside, "x", NULL);
  assert_write_denied (f, through_root);
}

static void
test_magic_links_denied (Fixture *f, gconstpointer portable)
{
  g_autofree char *magic = NULL;
  g_autofree char *through_magic = NULL;
  g_autofree char *proc_path = NULL;
  g_autofree char *target = NULL;
  int outside_fd;

  if (!dsh_test_require (g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR), "/proc"))
    return;

  outside_fd = open (f->outside, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (outside_fd, >=, 0);
  target = g_strdup_printf ("/proc/self/fd/%d", outside_fd);

  /* A symlink in the root to a /proc magic link of an outside directory. */
  magic = ws_symlink (f, "magic", target);
  through_magic = ws_path (f, "magic/x");
  assert_write_denied (f, through_magic);

  /* The magic link spelled directly. */
  proc_path = g_strdup_printf ("%s/x", target);
  assert_write_denied (f, proc_path);
  close (outside_fd);
}

static void
test_inner_links_and_dotdot (Fixture *f, gconstpointer portable)
{
  g_autofree char *sub = NULL;
  g_autofree char *inner = NULL;
  g_autofree char *through_inner = NULL;
  g_autofree char *dotdot_inside = NULL;

  sub = ws_mkdir (f, "sub");
  inner = ws_symlink (f, "inner", "sub");
  through_inner = ws_path (f, "inner/file");
  dotdot_inside = ws_path (f, "sub/../file2");

  /* Links and ".." that stay beneath the root are fine. (The portable walk itself refuses every
   * symlink and ".."; such paths reach it through the canonical-parent route, still walked
   * component by component beneath the root descriptor.) */
  assert_write_allowed (f, through_inner);
  assert_write_allowed (f, dotdot_inside);
}

static void
test_other_modes (Fixture *f, gconstpointer portable)
{
  g_autofree char *inside = NULL;
  g_autofree char *outside = NULL;
  g_autoptr (GError) error = NULL;
  int fd;

  inside = ws_path (f, "file");
  outside = g_build_filename (f->outside, "x", NULL);

  /* read-only: nothing is writable, not even the workspace. */
  f->policy->mode = DSH_SANDBOX_MODE_READ_ONLY;
  assert_write_denied (f, inside);
  g_assert_false (dsh_fs_fence_mkdir (f->policy, inside, 0700, &error));
  assert_denied (error, DSH_SANDBOX_MODE_READ_ONLY);
  g_clear_error (&error);

  /* danger-full-access: unconfined. */
  f->policy->mode = DSH_SANDBOX_MODE_DANGER_FULL_ACCESS;
  fd = dsh_fs_fence_open (f->policy, outside, O_WRONLY | O_CREAT, 0600, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (dsh_fs_fence_unlink (f->policy, outside, FALSE, &error));
  g_assert_no_error (error);
}

static void
test_ordinary_errors_are_io_errors (Fixture *f, gconstpointer portable)
{
  g_autofree char *missing = NULL;
  g_autoptr (GError) error = NULL;

  missing = ws_path (f, "no/such/dir/file");
  g_assert_cmpint (dsh_fs_fence_open (f->policy, missing, O_WRONLY | O_CREAT, 0600, &error), ==,
                   -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* The same for the operations on an entry: a failure inside the roots is no denial. */
  {
    g_autofree char *dir = ws_mkdir (f, "full");
    g_autofree char *inner = ws_path (f, "full/file");
    g_autofree char *gone = ws_path (f, "gone");
    g_autofree char *to = ws_path (f, "to");
    g_autofree char *file = ws_path (f, "file");

    dsh_test_write_file (inner, "x");
    dsh_test_write_file (file, "x");

    g_assert_false (dsh_fs_fence_mkdir (f->policy, dir, 0700, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
    g_clear_error (&error);
    g_assert_false (dsh_fs_fence_unlink (f->policy, gone, FALSE, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
    g_clear_error (&error);
    g_assert_false (dsh_fs_fence_unlink (f->policy, dir, TRUE, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_EMPTY);
    g_clear_error (&error);
    /* A rename whose target cannot take the source: a directory over a file. */
    g_assert_false (dsh_fs_fence_rename (f->policy, dir, file, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY);
    g_clear_error (&error);
    g_assert_false (dsh_fs_fence_rename (f->policy, gone, to, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  }
}

/* A trailing slash names a directory, as for open(2): "file/" is ENOTDIR, never the file. */
static void
test_trailing_slash_wants_directory (Fixture *f, gconstpointer portable)
{
  g_autofree char *file = ws_path (f, "file");
  const char *spellings[] = { "file/", "file/.", "file//" };

  dsh_test_write_file (file, "x");
  for (guint i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      g_autofree char *path = ws_path (f, spellings[i]);
      g_autoptr (GError) error = NULL;

      g_assert_cmpint (dsh_fs_fence_open (f->policy, path, O_RDONLY, 0, &error), ==, -1);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY);
    }
}

/* A FIFO (or any non-file) planted at the path by a confined command is refused at once: the
 * tool neither blocks on it nor writes into it. */
static void
test_planted_fifo_refused (Fixture *f, gconstpointer portable)
{
  g_autofree char *fifo = NULL;
  g_autoptr (GError) error = NULL;
  gint64 started;

  fifo = ws_path (f, "notes.txt");
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);

  started = g_get_monotonic_time ();
  g_assert_cmpint (dsh_fs_fence_open (f->policy, fifo, O_WRONLY | O_CREAT | O_TRUNC, 0644,
                                      &error), ==, -1);
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpint (dsh_fs_fence_open (f->policy, fifo, O_RDWR, 0, &error), ==, -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 5 * G_USEC_PER_SEC);
}

/* ---- git's own files ---------------------------------------------------------------------- */

/* call fails with the fence's denial in error, which is then cleared. */
#define assert_fence_denied(call)                                              \
  G_STMT_START                                                                 \
  {                                                                            \
    gboolean succeeded_ = (call);                                              \
                                                                               \
    g_assert_false (succeeded_);                                               \
    g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_FS_DENIED);    \
    g_clear_error (&error);                                                    \
  }                                                                            \
  G_STMT_END

/* A write tool may no more plant a hook or rewrite a repository's config than a confined
 * command may under bwrap: code a later unconfined git runs by itself. Reached by name, through
 * a symlink to the file or to a directory on the way, or by mkdir, unlink and rename; reading
 * them and the rest of git's work (the index, objects) stay open. */
static void
test_git_files_protected (Fixture *f, gconstpointer portable)
{
  g_autofree char *git = ws_mkdir (f, ".git");
  g_autofree char *hooks = ws_mkdir (f, ".git/hooks");
  g_autofree char *objects = ws_mkdir (f, ".git/objects");
  g_autofree char *refs = ws_mkdir (f, ".git/refs");
  g_autofree char *head = ws_path (f, ".git/HEAD");
  g_autofree char *config = ws_path (f, ".git/config");
  g_autofree char *hook = ws_path (f, ".git/hooks/pre-commit");
  g_autofree char *via_dir = ws_path (f, "h/post-commit");
  g_autofree char *via_file = ws_path (f, "cfg");
  g_autofree char *index = ws_path (f, ".git/index");
  g_autofree char *plain = ws_mkdir (f, "hooks");
  g_autofree char *plain_file = ws_path (f, "hooks/pre-commit");
  g_autofree char *moved = ws_path (f, "moved");
  g_autofree char *loose = ws_path (f, "loose");
  g_autofree char *sub = ws_path (f, ".git/hooks/sub");
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  const char *targets[] = { hook, config, via_dir, via_file };
  int fd;

  dsh_test_write_file (head, "ref: refs/heads/main\n");
  dsh_test_write_file (config, "[core]\n");
  g_free (ws_symlink (f, "h", ".git/hooks"));
  g_free (ws_symlink (f, "cfg", ".git/config"));

  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, targets[i],
                                                    O_WRONLY | O_CREAT | O_TRUNC, 0755,
                                                    &error)) >= 0);
    }
  g_assert_false (g_file_test (hook, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (via_dir, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (config, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "[core]\n");

  assert_fence_denied (dsh_fs_fence_mkdir (f->policy, sub, 0700, &error));
  assert_fence_denied (dsh_fs_fence_unlink (f->policy, config, FALSE, &error));
  dsh_test_write_file (loose, "#!/bin/sh\n");
  assert_fence_denied (dsh_fs_fence_rename (f->policy, loose, hook, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, hooks, moved, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, config, moved, &error));
  g_assert_true (g_file_test (config, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (hooks, G_FILE_TEST_IS_DIR));

  /* Reading, git's other files, and names that merely look alike outside a git directory. */
  fd = dsh_fs_fence_open (f->policy, config, O_RDONLY, 0, &error);
  g_assert_no_error (error);
  close (fd);
  fd = dsh_fs_fence_open (f->policy, index, O_WRONLY | O_CREAT | O_TRUNC, 0644, &error);
  g_assert_no_error (error);
  close (fd);
  fd = dsh_fs_fence_open (f->policy, plain_file, O_WRONLY | O_CREAT | O_TRUNC, 0755, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (dsh_fs_fence_rename (f->policy, loose, moved, &error));
  g_assert_no_error (error);

  /* A ".git" that no longer looks like a repository (HEAD moved away by a confined command)
   * is still one: git finds it by name, and HEAD is back by the next git call. */
  g_assert_cmpint (g_unlink (head), ==, 0);
  assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, hook, O_WRONLY | O_CREAT, 0755,
                                                &error)) >= 0);
  g_assert_false (g_file_test (hook, G_FILE_TEST_EXISTS));
}

/* Makes rel (beneath the workspace) a git directory by its contents: HEAD, objects, refs,
 * config and hooks, as git init leaves one. */
static void
make_git_dir (Fixture *f, const char *rel)
{
  static const char *const dirs[] = { "", "/hooks", "/objects", "/refs" };
  g_autofree char *head = NULL;
  g_autofree char *config = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *sub = g_strconcat (rel, dirs[i], NULL);
      g_autofree char *path = ws_path (f, sub);

      g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
    }
  head = g_strconcat (f->ws, "/", rel, "/HEAD", NULL);
  config = g_strconcat (f->ws, "/", rel, "/config", NULL);
  dsh_test_write_file (head, "ref: refs/heads/main\n");
  dsh_test_write_file (config, "[core]\n");
}

/* What makes a directory a git directory (HEAD, objects, refs, its name) must not be the fence's
 * to take away: moving HEAD out of a submodule's or a linked worktree's git directory, or
 * renaming .git itself and then its HEAD, would make its hooks and config writable until they
 * are put back. And a confined command may move HEAD out of a submodule's git directory under
 * bwrap (only hooks, config and the directories are held): what lies beneath a .git directory
 * is git's, whatever it holds now. */
static void
test_git_markers_held (Fixture *f, gconstpointer portable)
{
  g_autofree char *sub_head = ws_path (f, ".git/modules/lib/x/HEAD");
  g_autofree char *sub_hook = ws_path (f, ".git/modules/lib/x/hooks/pre-commit");
  g_autofree char *sub_config = ws_path (f, ".git/modules/lib/x/config");
  g_autofree char *wt_head = ws_path (f, ".git/worktrees/wt/HEAD");
  g_autofree char *wt_config = ws_path (f, ".git/worktrees/wt/config.worktree");
  g_autofree char *wt_commondir = ws_path (f, ".git/worktrees/wt/commondir");
  g_autofree char *git = ws_path (f, ".git");
  g_autofree char *objects = ws_path (f, ".git/objects");
  g_autofree char *moved = ws_path (f, "moved");
  g_autofree char *moved_head = ws_path (f, "moved/HEAD");
  g_autofree char *moved_hook = ws_path (f, "moved/hooks/pre-commit");
  g_autofree char *aside = ws_path (f, "aside");
  g_autofree char *other = ws_path (f, "other");
  g_autofree char *other_hook = ws_path (f, "other/hooks/pre-commit");
  g_autofree char *other_objects = ws_path (f, "other/objects");
  g_autoptr (GError) error = NULL;
  int fd;

  make_git_dir (f, ".git");
  make_git_dir (f, ".git/modules/lib/x");
  make_git_dir (f, "other");
  g_assert_cmpint (g_mkdir_with_parents (wt_head, 0700), ==, 0);
  g_assert_cmpint (g_rmdir (wt_head), ==, 0);
  dsh_test_write_file (wt_head, "ref: refs/heads/wt\n");
  dsh_test_write_file (wt_commondir, "../..\n");

  /* The fence itself may not take a git directory's markers away, nor rename one. */
  assert_fence_denied (dsh_fs_fence_rename (f->policy, sub_head, aside, &error));
  assert_fence_denied (dsh_fs_fence_unlink (f->policy, sub_head, FALSE, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, other_objects, aside, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, objects, aside, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, git, moved, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, other, moved, &error));
  g_assert_false (g_file_test (moved_head, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (aside, G_FILE_TEST_EXISTS));

  /* HEAD gone (a confined command may do that): beneath .git it is still a git directory. */
  g_assert_cmpint (g_unlink (sub_head), ==, 0);
  g_assert_cmpint (g_unlink (wt_head), ==, 0);
  assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, sub_hook, O_WRONLY | O_CREAT, 0755,
                                                &error)) >= 0);
  assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, sub_config, O_WRONLY | O_TRUNC, 0,
                                                &error)) >= 0);
  assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, wt_config, O_WRONLY | O_CREAT, 0644,
                                                &error)) >= 0);
  g_assert_false (g_file_test (sub_hook, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (wt_config, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (other_hook, G_FILE_TEST_EXISTS));

  /* A git directory a .git file names from elsewhere (git init --separate-git-dir): bwrap
   * holds its config, and that config tells it once HEAD is gone. */
  {
    g_autofree char *sep_head = ws_path (f, "sep/HEAD");
    g_autofree char *sep_config = ws_path (f, "sep/config");
    g_autofree char *sep_hook = ws_path (f, "sep/hooks/pre-commit");
    g_autofree char *plain_config = ws_path (f, "dotfiles/config");
    g_autofree char *plain_hook = ws_path (f, "dotfiles/hooks/pre-commit");
    g_autofree char *plain_hooks = ws_path (f, "dotfiles/hooks");

    make_git_dir (f, "sep");
    dsh_test_write_file (sep_config, "[core]\n\trepositoryformatversion = 0\n");
    g_assert_cmpint (g_unlink (sep_head), ==, 0);
    assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, sep_hook, O_WRONLY | O_CREAT,
                                                  0755, &error)) >= 0);
    assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, sep_config, O_WRONLY | O_APPEND, 0,
                                                  &error)) >= 0);
    g_assert_false (g_file_test (sep_hook, G_FILE_TEST_EXISTS));

    /* A config and hooks that are no repository's stay the project's. */
    g_assert_cmpint (g_mkdir_with_parents (plain_hooks, 0700), ==, 0);
    dsh_test_write_file (plain_config, "Host *\n");
    assert_write_allowed (f, plain_config);
    assert_write_allowed (f, plain_hook);
  }

  /* Renaming a directory that merely holds a repository is ordinary work. */
  {
    g_autofree char *proj = ws_path (f, "proj");
    g_autofree char *proj2 = ws_path (f, "proj2");

    make_git_dir (f, "proj/.git");
    g_assert_true (dsh_fs_fence_rename (f->policy, proj, proj2, &error));
    g_assert_no_error (error);
  }
}

/* A directory moved into a git directory brings what it holds: hooks and a config made where
 * nothing protects them, then renamed to .git/modules/NAME (the git directory of a submodule
 * the next `git submodule update` takes as it finds it), would be a repository's hooks and
 * config that no write reached. So no directory, nor a symlink (git follows it to one), is
 * moved into a git directory (by name or by contents, at any depth); files still are, and
 * directories anywhere else. */
static void
test_dir_moved_into_git_dir (Fixture *f, gconstpointer portable)
{
  g_autofree char *evil = ws_mkdir (f, "evil");
  g_autofree char *evil_hook = ws_path (f, "evil/hooks/post-checkout");
  g_autofree char *deep = ws_path (f, "deep/a/hooks/post-checkout");
  g_autofree char *deep_top = ws_path (f, "deep");
  g_autofree char *modules = ws_path (f, ".git/modules");
  g_autofree char *to_module = ws_path (f, ".git/modules/lib");
  g_autofree char *to_git = ws_path (f, ".git/stash-of-things");
  g_autofree char *to_bare = ws_path (f, "bare/modules/lib");
  g_autofree char *loose = ws_path (f, "loose");
  g_autofree char *loose_in = ws_path (f, ".git/modules/loose");
  g_autofree char *elsewhere = ws_path (f, "src/evil");
  g_autofree char *link = ws_path (f, "link");
  g_autoptr (GError) error = NULL;

  make_git_dir (f, ".git");
  make_git_dir (f, "bare");
  g_assert_cmpint (g_mkdir_with_parents (modules, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (evil_hook, 0700), ==, 0);
  g_assert_cmpint (g_rmdir (evil_hook), ==, 0);
  dsh_test_write_file (evil_hook, "#!/bin/sh\ntouch PWNED\n");
  g_assert_cmpint (g_mkdir_with_parents (deep, 0700), ==, 0);
  g_free (ws_mkdir (f, "bare/modules"));

  assert_fence_denied (dsh_fs_fence_rename (f->policy, evil, to_module, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, evil, to_git, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, deep_top, to_module, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, evil, to_bare, &error));
  /* A symlink to such a directory is one to git, which follows it. */
  g_free (ws_symlink (f, "link", "evil"));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, link, to_module, &error));
  g_assert_false (g_file_test (to_module, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (to_git, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (to_bare, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (evil_hook, G_FILE_TEST_IS_REGULAR));

  /* A file may go in (git's own work renames files), a directory elsewhere. */
  dsh_test_write_file (loose, "x\n");
  g_assert_true (dsh_fs_fence_rename (f->policy, loose, loose_in, &error));
  g_assert_no_error (error);
  g_free (ws_mkdir (f, "src"));
  g_assert_true (dsh_fs_fence_rename (f->policy, evil, elsewhere, &error));
  g_assert_no_error (error);
}

/* A .git file names the git directory git takes hooks and config from; bwrap holds it in place.
 * Rewritten, replaced, moved or removed by a write tool, git would run hooks from a git
 * directory the tool made, however well the real one is kept. */
static void
test_git_file_held (Fixture *f, gconstpointer portable)
{
  g_autofree char *dotgit = ws_path (f, ".git");
  g_autofree char *sub_dotgit = ws_path (f, "lib/.git");
  g_autofree char *evil = ws_path (f, "evil");
  g_autofree char *aside = ws_path (f, "aside");
  g_autofree char *fresh = ws_path (f, "fresh/.git");
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  const char *pointers[] = { dotgit, sub_dotgit };
  int fd;

  make_git_dir (f, "gd");
  g_free (ws_mkdir (f, "lib"));
  g_free (ws_mkdir (f, "fresh"));
  dsh_test_write_file (dotgit, "gitdir: gd\n");
  dsh_test_write_file (sub_dotgit, "gitdir: ../gd\n");
  dsh_test_write_file (evil, "gitdir: fake\n");

  for (guint i = 0; i < G_N_ELEMENTS (pointers); i++)
    {
      assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, pointers[i],
                                                    O_WRONLY | O_TRUNC, 0, &error)) >= 0);
      assert_fence_denied (dsh_fs_fence_rename (f->policy, evil, pointers[i], &error));
      assert_fence_denied (dsh_fs_fence_rename (f->policy, pointers[i], aside, &error));
      assert_fence_denied (dsh_fs_fence_unlink (f->policy, pointers[i], FALSE, &error));
    }
  g_assert_true (g_file_get_contents (dotgit, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "gitdir: gd\n");

  /* Reading it, and making a new repository's .git directory (and removing it while it is
   * empty, which takes no git file with it), stay open; a .git file is no directory to rmdir. */
  fd = dsh_fs_fence_open (f->policy, dotgit, O_RDONLY, 0, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (dsh_fs_fence_mkdir (f->policy, fresh, 0700, &error));
  g_assert_no_error (error);
  g_assert_true (dsh_fs_fence_unlink (f->policy, fresh, TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (fresh, G_FILE_TEST_EXISTS));
  g_assert_false (dsh_fs_fence_unlink (f->policy, dotgit, TRUE, &error));
  g_clear_error (&error);
  g_assert_true (g_file_test (dotgit, G_FILE_TEST_IS_REGULAR));
}

/* The spellings a filesystem that folds names takes for git's own ones (ext4 and tmpfs casefold,
 * APFS and HFS+ as macOS formats them, WSL's drvfs): .git/CONFIG, .git/HOOKS, a .GIT file, and
 * those with a character case folding maps onto a letter (U+212A KELVIN SIGN for k) or that
 * HFS+ ignores (U+200C). Judged by name alone they were the project's: where names fold, a
 * write tool rewrote the config and planted hooks. They are refused wherever they occur, and a
 * mount of tmpfs with casefold, where the kernel has one, shows the real thing. */
static void
test_git_names_folded (Fixture *f, gconstpointer portable)
{
  static const char *const written[] = {
    ".git/CONFIG", ".git/Config.Worktree", ".git/COMMONDIR", ".git/hoo\xe2\x84\xaas",
    "lib/.GIT", "lib/.Git", "lib/.g\xe2\x80\x8cit", "lib/\xe2\x80\x8c.git",
  };
  static const char *const hooks_spellings[] = { ".git/HOOKS", ".git/hoo\xe2\x84\xaas" };
  g_autofree char *config = ws_path (f, ".git/config");
  g_autofree char *dotgit = ws_path (f, "lib/.git");
  g_autofree char *evil = ws_mkdir (f, "evil");
  g_autofree char *evil_hook = ws_path (f, "evil/pre-commit");
  g_autofree char *head = ws_path (f, ".git/head");
  g_autofree char *aside = ws_path (f, "aside");
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  int fd;

  make_git_dir (f, ".git");
  g_free (ws_mkdir (f, "lib"));
  dsh_test_write_file (dotgit, "gitdir: ../.git\n");
  dsh_test_write_file (evil_hook, "#!/bin/sh\n");

  for (guint i = 0; i < G_N_ELEMENTS (written); i++)
    {
      g_autofree char *path = ws_path (f, written[i]);

      g_test_message ("expect denial: %s", written[i]);
      assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, path,
                                                    O_WRONLY | O_CREAT | O_TRUNC, 0755,
                                                    &error)) >= 0);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    }
  for (guint i = 0; i < G_N_ELEMENTS (hooks_spellings); i++)
    {
      g_autofree char *path = ws_path (f, hooks_spellings[i]);

      assert_fence_denied (dsh_fs_fence_rename (f->policy, evil, path, &error));
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    }
  assert_fence_denied (dsh_fs_fence_unlink (f->policy, head, FALSE, &error));
  assert_fence_denied (dsh_fs_fence_rename (f->policy, head, aside, &error));

  /* Names that only share letters with them stay the project's, and so do git's other files,
   * a branch named beyond ASCII among them. */
  {
    static const char *const allowed[] = {
      ".gitignore", ".github/CONFIG", "lib/.gti-notes", ".git/index",
      ".git/refs/br\xc3\xa5nch", "hooks/pre-commit", "Config", "\xe6\x97\xa5\xe8\xa8\x98",
      "\xe3\x83\xaa\xe3\x83\x9d.git",
    };

    g_free (ws_mkdir (f, ".github"));
    g_free (ws_mkdir (f, "hooks"));
    for (guint i = 0; i < G_N_ELEMENTS (allowed); i++)
      {
        g_autofree char *path = ws_path (f, allowed[i]);

        assert_write_allowed (f, path);
      }
  }

  /* Where the kernel folds names (tmpfs with casefold, Linux 6.13 with CONFIG_UNICODE), the
   * same spellings reach the real config and hooks: in a private mount namespace of a child,
   * so the mount goes with it. */
  if (g_test_subprocess ())
    {
      g_autofree char *cf = ws_mkdir (f, "cf");
      g_autofree char *repo = g_build_filename (cf, "repo", NULL);
      g_autofree char *cf_config = g_build_filename (repo, ".git/config", NULL);
      g_autofree char *folded_config = g_build_filename (repo, ".GIT/CONFIG", NULL);
      g_autofree char *folded_hook = g_build_filename (repo, ".Git/Hooks/pre-commit", NULL);
      g_autofree char *cf_hook = g_build_filename (repo, ".git/hooks/pre-commit", NULL);
      unsigned int flags = 0;
      int dir;

      g_assert_cmpint (unshare (CLONE_NEWNS), ==, 0);
      g_assert_cmpint (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), ==, 0);
      if (mount ("tmpfs", cf, "tmpfs", 0, "casefold=utf8") != 0)
        {
          g_assert_cmpint (errno, ==, EINVAL);
          g_test_message ("this kernel has no casefold tmpfs: spellings judged by name only");
          return;
        }
      /* Casefolding is a flag of each (empty) directory, inherited by what is made in it. */
      g_assert_cmpint (g_mkdir (repo, 0700), ==, 0);
      dir = open (repo, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      g_assert_cmpint (dir, >=, 0);
      g_assert_cmpint (ioctl (dir, FS_IOC_GETFLAGS, &flags), ==, 0);
      flags |= FS_CASEFOLD_FL;
      g_assert_cmpint (ioctl (dir, FS_IOC_SETFLAGS, &flags), ==, 0);
      close (dir);
      make_git_dir (f, "cf/repo/.git");
      g_assert_true (g_file_test (folded_config, G_FILE_TEST_IS_REGULAR));

      assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, folded_config,
                                                    O_WRONLY | O_TRUNC, 0, &error)) >= 0);
      assert_fence_denied ((fd = dsh_fs_fence_open (f->policy, folded_hook,
                                                    O_WRONLY | O_CREAT, 0755, &error)) >= 0);
      g_assert_true (g_file_get_contents (cf_config, &text, NULL, NULL));
      g_assert_cmpstr (text, ==, "[core]\n");
      g_assert_false (g_file_test (cf_hook, G_FILE_TEST_EXISTS));
      return;
    }
  if (!dsh_test_require (getuid () == 0, "root, to mount a casefold tmpfs"))
    return;
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* ---- mkdir, unlink, rename --------------------------------------------------------------- */

static void
test_mutations (Fixture *f, gconstpointer portable)
{
  g_autofree char *dir = NULL;
  g_autofree char *file = NULL;
  g_autofree char *renamed = NULL;
  g_autofree char *esc = NULL;
  g_autofree char *esc_dir = NULL;
  g_autofree char *esc_file = NULL;
  g_autofree char *outside_file = NULL;
  g_autofree char *outside_victim = NULL;
  g_autoptr (GError) error = NULL;

  dir = ws_path (f, "made");
  file = ws_path (f, "made/file");
  renamed = ws_path (f, "renamed");
  esc = ws_path (f, "esc");
  esc_dir = ws_path (f, "esc/newdir");
  esc_file = ws_path (f, "esc/victim");
  outside_file = g_build_filename (f->outside, "moved", NULL);
  outside_victim = g_build_filename (f->outside, "victim", NULL);

  g_assert_true (dsh_fs_fence_mkdir (f->policy, dir, 0700, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  assert_write_allowed (f, file);
  g_assert_true (dsh_fs_fence_rename (f->policy, file, renamed, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (renamed, G_FILE_TEST_IS_REGULAR));

  g_assert_cmpint (symlink (f->outside, esc), ==, 0);

  g_assert_false (dsh_fs_fence_mkdir (f->policy, esc_dir, 0700, &error));
  assert_denied (error, f->policy->mode);
  g_clear_error (&error);

  /* Moving a workspace file out, or into an escaping directory, is refused. */
  g_assert_false (dsh_fs_fence_rename (f->policy, renamed, outside_file, &error));
  assert_denied (error, f->policy->mode);
  g_clear_error (&error);
  g_assert_false (dsh_fs_fence_rename (f->policy, renamed, esc_file, &error));
  assert_denied (error, f->policy->mode);
  g_clear_error (&error);
  g_assert_cmpuint (dsh_test_count_entries (f->outside), ==, 0);

  /* Pulling (and so deleting) an outside file in is refused too. */
  dsh_test_write_file (outside_victim, "keep");
  g_assert_false (dsh_fs_fence_rename (f->policy, outside_victim, renamed, &error));
  assert_denied (error, f->policy->mode);
  g_clear_error (&error);
  g_assert_false (dsh_fs_fence_unlink (f->policy, esc_file, FALSE, &error));
  assert_denied (error, f->policy->mode);
  g_clear_error (&error);
  g_assert_true (g_file_test (outside_victim, G_FILE_TEST_IS_REGULAR));

  /* Removing the link itself is an inside operation and leaves its target alone. */
  g_assert_true (dsh_fs_fence_unlink (f->policy, esc, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (outside_victim, G_FILE_TEST_IS_REGULAR));
  g_unlink (outside_victim);

  g_assert_true (dsh_fs_fence_unlink (f->policy, renamed, FALSE, &error));
  g_assert_true (dsh_fs_fence_unlink (f->policy, dir, TRUE, &error));
  g_assert_no_error (error);

  /* The root itself is no entry a tool may create or remove. */
  g_assert_false (dsh_fs_fence_unlink (f->policy, f->ws, TRUE, &error));
  assert_denied (error, f->policy->mode);
  g_assert_true (g_file_test (f->ws, G_FILE_TEST_IS_DIR));
}

/* ---- the race ---------------------------------------------------------------------------- */

static void
test_race_symlink_swap (Fixture *f, gconstpointer portable)
{
  const guint iterations = 4000;
  g_autofree char *a = ws_path (f, "d");
  g_autofree char *b = ws_path (f, "alt");
  DshTestSwapper *swapper;
  guint swaps;
  guint opened = 0, denied = 0, other = 0;

  g_assert_cmpint (g_mkdir (a, 0700), ==, 0);
  g_assert_cmpint (symlink (f->outside, b), ==, 0);
  if (renameat2 (AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0 &&
      !dsh_test_require (errno != EINVAL && errno != ENOSYS, "renameat2(RENAME_EXCHANGE)"))
    return;

  swapper = dsh_test_swapper_start (a, b);
  for (guint i = 0; i < iterations; i++)
    {
      g_autofree char *file = g_strdup_printf ("%s/f%u", a, i % 64);
      g_autofree char *dir = g_strdup_printf ("%s/m%u", a, i % 64);
      g_autoptr (GError) error = NULL;
      int fd = dsh_fs_fence_open (f->policy, file, O_WRONLY | O_CREAT | O_TRUNC, 0600, &error);

      if (fd >= 0)
        {
          opened++;
          close (fd);
        }
      else if (g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_FS_DENIED))
        denied++;
      else
        other++; /* ENOENT while the name is mid-swap */
      g_clear_error (&error);

      if (dsh_fs_fence_mkdir (f->policy, dir, 0700, &error))
        dsh_fs_fence_unlink (f->policy, dir, TRUE, NULL);
    }
  swaps = dsh_test_swapper_stop (swapper);

  g_test_message ("%u swaps; %u opened, %u denied, %u other", swaps, opened, denied, other);
  /* The only assertion that matters: nothing ever landed outside. */
  g_assert_cmpuint (dsh_test_count_entries (f->outside), ==, 0);
  g_assert_cmpuint (opened + denied + other, ==, iterations);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (int portable = 0; portable < 2; portable++)
    {
      const char *prefix = portable ? "/fs-fence/portable-walk" : "/fs-fence/openat2";
      static const struct {
        const char *name;
        void (*func) (Fixture *, gconstpointer);
      } tests[] = {
        { "inside-allowed", test_inside_allowed },
        { "escapes-denied", test_escapes_denied },
        { "magic-links-denied", test_magic_links_denied },
        { "inner-links-and-dotdot", test_inner_links_and_dotdot },
        { "other-modes", test_other_modes },
        { "ordinary-errors", test_ordinary_errors_are_io_errors },
        { "trailing-slash", test_trailing_slash_wants_directory },
        { "planted-fifo", test_planted_fifo_refused },
        { "git-files-protected", test_git_files_protected },
        { "git-markers-held", test_git_markers_held },
        { "git-file-held", test_git_file_held },
        { "dir-moved-into-git-dir", test_dir_moved_into_git_dir },
        { "git-names-folded", test_git_names_folded },
        { "mutations", test_mutations },
        { "race-symlink-swap", test_race_symlink_swap },
      };

      for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
        {
          g_autofree char *name = g_strdup_printf ("%s/%s", prefix, tests[i].name);

          g_test_add (name, Fixture, GINT_TO_POINTER (portable), fixture_set_up, tests[i].func,
                      fixture_tear_down);
        }
    }

  return g_test_run ();
}
