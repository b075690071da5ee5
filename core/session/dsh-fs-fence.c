/* dsh-fs-fence.c — opens and mutates paths only beneath the writable roots of a policy, with the
 * kernel doing the containment (openat2 RESOLVE_BENEATH from a root descriptor), so there is no
 * window between a check and the use for a swapped-in symlink to slip through. A write's final
 * symlink is followed here, one hop at a time, so that the entry it lands on can be judged (git's
 * own files stay read-only, dsh-fs-fence-git.c) before that very entry is opened.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* O_PATH, O_TMPFILE */

#include "dsh-fs-fence.h"
#include "dsh-fs-fence-private.h"
#include "dsh-fs-fence-posix-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "dsh-roots.h"
#include "dsh-roots-private.h"

/* Descriptors used only to anchor *at calls: O_PATH needs no read permission on Linux. */
#ifdef O_PATH
#define DIR_ANCHOR_FLAGS (O_PATH | O_DIRECTORY)
#else
#define DIR_ANCHOR_FLAGS (O_RDONLY | O_DIRECTORY)
#endif

static gboolean force_portable_walk;

void
dsh_fs_fence_set_portable_walk_for_testing (gboolean enabled)
{
  force_portable_walk = enabled;
}

/* ---- resolution beneath one root --------------------------------------------------------- */

#ifdef __linux__
static int
sys_openat2 (int dirfd, const char *path, int flags, mode_t mode, guint64 resolve)
{
  struct open_how how = { 0 };

  how.flags = (guint64) (unsigned) flags;
  /* openat2 refuses a mode without O_CREAT / O_TMPFILE. */
  if ((flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE)
    how.mode = mode;
  how.resolve = resolve;
  return (int) syscall (SYS_openat2, dirfd, path, &how, sizeof how);
}
#endif

/* Without openat2 (old kernels, or forced by tests): walk one component at a time from the
 * root descriptor, refusing every symlink and every "..". Stricter than openat2, still free of
 * check-then-use windows because each step is relative to the descriptor of the previous one. */
static BeneathResult
walk_beneath (int root_fd, const char *rest, int flags, mode_t mode, int *out_fd)
{
  g_auto (GStrv) parts = g_strsplit (rest, "/", -1);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  gboolean wants_directory = FALSE;
  int dir_fd;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      /* "name/" and "name/." name a directory, as the kernel reads them. */
      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        {
          wants_directory = names->len > 0;
          continue;
        }
      if (g_str_equal (parts[i], ".."))
        return BENEATH_DENIED;
      g_ptr_array_add (names, parts[i]);
      wants_directory = FALSE;
    }
  if (wants_directory)
    flags |= O_DIRECTORY;

  dir_fd = fcntl (root_fd, F_DUPFD_CLOEXEC, 0);
  if (dir_fd < 0)
    return BENEATH_FAILED;

  if (names->len == 0)
    {
      *out_fd = openat (dir_fd, ".", flags | O_CLOEXEC, mode);
      close (dir_fd);
      return *out_fd >= 0 ? BENEATH_OK : BENEATH_FAILED;
    }

  for (guint i = 0; i + 1 < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      struct stat st;
      int next = openat (dir_fd, name, DIR_ANCHOR_FLAGS | O_NOFOLLOW | O_CLOEXEC);

      if (next < 0)
        {
          int saved_errno = errno;
          gboolean is_link = fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                             S_ISLNK (st.st_mode);

          close (dir_fd);
          if (is_link || saved_errno == ELOOP)
            return BENEATH_DENIED;
          errno = saved_errno;
          return BENEATH_FAILED;
        }
      close (dir_fd);
      dir_fd = next;
    }

  *out_fd = openat (dir_fd, g_ptr_array_index (names, names->len - 1),
                    flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (*out_fd >= 0)
    {
      close (dir_fd);
      return BENEATH_OK;
    }
  {
    int saved_errno = errno;
    struct stat st;
    /* O_NOFOLLOW reports a final symlink as ELOOP, or as ENOTDIR with O_DIRECTORY. */
    gboolean is_link = saved_errno == ELOOP ||
                       (fstatat (dir_fd, g_ptr_array_index (names, names->len - 1), &st,
                                 AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode));

    close (dir_fd);
    errno = saved_errno;
    return is_link ? BENEATH_DENIED : BENEATH_FAILED;
  }
}

static BeneathResult
open_beneath (int root_fd, const char *rest, int flags, mode_t mode, int *out_fd)
{
#ifdef __linux__
  if (!force_portable_walk)
    {
      /* EAGAIN: a rename somewhere on the system ran while ".." was walked, and the kernel
       * could not prove it stayed beneath; it asks for a fresh walk, which it checks again. */
      for (guint tries = 0; tries < 64; tries++)
        {
          *out_fd = sys_openat2 (root_fd, rest, flags | O_CLOEXEC, mode,
                                 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
          if (*out_fd >= 0 || errno != EAGAIN)
            break;
        }
      if (*out_fd >= 0)
        return BENEATH_OK;
      /* EXDEV: an escape ("..", absolute or symlink target outside); ELOOP: a magic link (or a
       * symlink loop, or O_NOFOLLOW on a link) — refused either way. */
      if (errno == EXDEV || errno == ELOOP)
        return BENEATH_DENIED;
      /* Only when the kernel lacks openat2 (or a seccomp filter hides it) do we walk. */
      if (errno != ENOSYS && errno != EPERM)
        return BENEATH_FAILED;
    }
#endif
  return walk_beneath (root_fd, rest, flags, mode, out_fd);
}

/* Opens a writable root itself; the root is canonical, so it must resolve without following
 * any symlink — if one appeared since the root was resolved, this root matches nothing. */
static int
open_root (const char *root)
{
  return dsh_open_directory_no_symlinks (root, force_portable_walk);
}

/* Whether open flags may change the file (or make one). */
static gboolean
writes (int flags)
{
  return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
}

static BeneathResult parent_beneath (int root_fd, const char *rest, int *out_parent,
                                     char **out_leaf);

/* Symlinks one open may follow at the end of a path, as the kernel's own limit. */
#define MAX_FINAL_LINKS 40

/* A write open beneath the root: the parent is opened there, a final symlink is followed here,
 * one hop at a time, to the entry it names, that entry is judged, and only then opened — by its
 * one plain name with O_NOFOLLOW, so what was judged is what is opened (or nothing is). */
static BeneathResult
open_for_writing (int root_fd, const char *rest, int flags, mode_t mode, int *out_fd)
{
  g_autofree char *leaf = NULL;
  BeneathResult result;
  int parent = -1;

  result = parent_beneath (root_fd, rest, &parent, &leaf);
  if (result != BENEATH_OK)
    return result;
  for (guint hops = 0;; hops++)
    {
      char target[PATH_MAX];
      struct stat st;
      ssize_t n;
      char *slash;
      int next;

      /* O_EXCL and O_NOFOLLOW never follow the last name (the kernel answers EEXIST, ELOOP). */
      if ((flags & O_NOFOLLOW) != 0 || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) ||
          fstatat (parent, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK (st.st_mode))
        break;
      n = readlinkat (parent, leaf, target, sizeof target - 1);
      /* An absolute target is an escape openat2 refuses too; a loop is ELOOP. */
      if (n <= 0 || hops >= MAX_FINAL_LINKS || target[0] == '/')
        {
          close (parent);
          return BENEATH_DENIED;
        }
      target[n] = '\0';
      while (n > 1 && target[n - 1] == '/')
        target[--n] = '\0';
      slash = strrchr (target, '/');
      if (slash != NULL)
        *slash = '\0';
      /* Plain openat: where it leads is judged by walking back up to the root. */
      next = openat (parent, slash != NULL ? (*target != '\0' ? target : "/") : ".",
                     DIR_ANCHOR_FLAGS | O_CLOEXEC);
      if (next < 0)
        {
          int saved_errno = errno;

          close (parent);
          errno = saved_errno;
          return BENEATH_FAILED;
        }
      close (parent);
      parent = next;
      g_free (leaf);
      leaf = g_strdup (slash != NULL ? slash + 1 : target);
      if (*leaf == '\0' || g_str_equal (leaf, ".") || g_str_equal (leaf, ".."))
        {
          close (parent);
          return BENEATH_DENIED;
        }
    }

  result = dsh_fs_fence_judge_entry (root_fd, parent, leaf, USE_WRITE);
  if (result == BENEATH_OK)
    {
      *out_fd = openat (parent, leaf, flags | O_NOFOLLOW | O_CLOEXEC, mode);
      if (*out_fd < 0)
        result = errno == ELOOP ? BENEATH_DENIED : BENEATH_FAILED;
    }
  {
    int saved_errno = errno;

    close (parent);
    errno = saved_errno;
  }
  return result;
}

/* ---- choosing the roots ------------------------------------------------------------------ */

/* The part of path below root ("." for root itself), or NULL when root does not lexically
 * contain path. Purely a routing decision: containment itself is enforced by the kernel
 * relative to the root fd. */
static gpointer
below_root (const char *path, const char *root)
{
  gsize n = strlen (root);

  if (g_str_equal (root, "/"))
    n = 0;
  else if (strncmp (path, root, n) != 0 || (path[n] != '\0' && path[n] != '/'))
    return NULL;
  path += n;
  while (*path == '/')
    path++;
  return g_strdup (*path != '\0' ? path : ".");
}

/* Routes path to the roots that may contain it: first as spelled, then with its parent
 * canonicalised (callers spell paths through symlinked directories, and a symlink inside one
 * root may lead into another). The realpath may race, but a route only chooses a root and
 * never grants: every open is still made beneath the root by the kernel. */
static GArray *
route (GStrv roots, const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *real = realpath (dir, NULL);
  g_autofree char *canonical = real != NULL ? g_build_filename (real, base, NULL) : NULL;

  return dsh_fs_fence_route (roots, path,
                             canonical != NULL && !g_str_equal (canonical, path) ? canonical
                                                                                 : NULL,
                             below_root, g_free);
}

typedef BeneathResult (*BeneathOp) (int root_fd, const char *rest, gpointer data);

/* Runs op beneath each route of path until one succeeds. */
static gboolean
fenced (const DshSandboxPolicy *policy, const char *path, const char *what, BeneathOp op,
        gpointer data, GError **error)
{
  g_auto (GStrv) roots = NULL;
  g_autoptr (GArray) routes = NULL;
  g_autofree char *absolute = NULL;

  if (policy->mode == DSH_SANDBOX_MODE_READ_ONLY)
    {
      dsh_fs_fence_set_denied (error, policy, path, "no file is writable under read-only mode");
      return FALSE;
    }

  roots = dsh_writable_roots (policy);
  absolute = dsh_absolute_path_as_spelled (path);
  routes = route (roots, absolute);
  if (routes->len == 0)
    {
      dsh_fs_fence_set_denied (error, policy, path, "outside the writable roots");
      return FALSE;
    }

  for (guint i = 0; i < routes->len; i++)
    {
      const DshFenceRoute *r = &g_array_index (routes, DshFenceRoute, i);
      int root_fd = open_root (r->root);
      BeneathResult result;
      int saved_errno;

      /* A missing root matches nothing until it exists. */
      if (root_fd < 0)
        continue;
      result = op (root_fd, r->below, data);
      saved_errno = errno;
      close (root_fd);

      if (result == BENEATH_OK)
        return TRUE;
      if (result == BENEATH_PROTECTED)
        {
          dsh_fs_fence_set_denied (error, policy, path,
                                   "a repository's hooks and config stay read-only (a later "
                                   "unconfined git runs them)");
          return FALSE;
        }
      if (result == BENEATH_FAILED)
        {
          dsh_fs_fence_set_io_error (error, saved_errno, what, path);
          return FALSE;
        }
    }
  dsh_fs_fence_set_denied (error, policy, path,
                           "resolves outside the writable roots (symlink, \"..\" or magic link "
                           "escape)");
  return FALSE;
}

/* ---- operations ---------------------------------------------------------------------------- */

typedef struct {
  int flags;
  mode_t mode;
  int fd;
} OpenData;

static BeneathResult
open_op (int root_fd, const char *rest, gpointer data)
{
  OpenData *d = data;

  /* Never blocks: a FIFO a confined command left at the path must not stall the tool. A name
   * that ends in a slash names a directory, which no write open can open anyway. */
  if (writes (d->flags) && !g_str_has_suffix (rest, "/") && !g_str_has_suffix (rest, "/.") &&
      !g_str_equal (rest, "."))
    return open_for_writing (root_fd, rest, d->flags | O_NONBLOCK, d->mode, &d->fd);
  return open_beneath (root_fd, rest, d->flags | O_NONBLOCK, d->mode, &d->fd);
}

/**
 * dsh_fs_fence_open:
 * @policy: the call's policy
 * @path: (type filename): the file, relative paths against the current directory
 * @flags: as for open(2); `O_CLOEXEC` is added
 * @mode: (type guint): the permission bits for `O_CREAT`
 * @error: return location for a #GError
 *
 * open(2) beneath one of dsh_writable_roots(): the kernel itself refuses `..`, absolute and
 * symlink escapes and `/proc` magic links, with no window between a check and the use.
 * `read-only` denies everything; `danger-full-access` is unconfined.
 *
 * Returns: a new descriptor, or -1 with %DSH_SANDBOX_ERROR_FS_DENIED (its message starts with the
 *   denial marker) or a %G_IO_ERROR
 *
 * Since: 0.1
 */
int
dsh_fs_fence_open (const DshSandboxPolicy *policy, const char *path, int flags, mode_t mode,
                   GError **error)
{
  OpenData data = { flags, mode, -1 };

  g_return_val_if_fail (policy != NULL, -1);
  g_return_val_if_fail (path != NULL, -1);

  if (policy->mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    {
      int fd = open (path, flags | O_CLOEXEC, mode);

      if (fd < 0)
        dsh_fs_fence_set_io_error (error, errno, "open", path);
      return fd;
    }
  if (!fenced (policy, path, "open", open_op, &data, error))
    return -1;

  /* Write tools write files: a FIFO, socket or device planted at the path is refused. */
  {
    struct stat st;

    if (fstat (data.fd, &st) != 0 || !S_ISREG (st.st_mode))
      {
        g_autofree char *shown = g_utf8_make_valid (path, -1);

        close (data.fd);
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                     "cannot open %s: not a regular file", shown);
        return -1;
      }
    if ((flags & O_NONBLOCK) == 0)
      fcntl (data.fd, F_SETFL, fcntl (data.fd, F_GETFL) & ~O_NONBLOCK);
  }
  return data.fd;
}

/* Splits rest into the directory to open beneath the root and the entry to act on there. The
 * entry is one plain name, so the *at call that uses it cannot follow anything. */
static gboolean
split_leaf (const char *rest, char **out_dir, char **out_leaf)
{
  g_autofree char *trimmed = g_strdup (rest);
  gsize len = strlen (trimmed);
  char *slash;

  while (len > 0 && trimmed[len - 1] == '/')
    trimmed[--len] = '\0';
  slash = strrchr (trimmed, '/');
  *out_leaf = g_strdup (slash != NULL ? slash + 1 : trimmed);
  *out_dir = slash != NULL ? g_strndup (trimmed, (gsize) (slash - trimmed)) : g_strdup (".");
  if (**out_dir == '\0')
    {
      g_free (*out_dir);
      *out_dir = g_strdup (".");
    }
  return **out_leaf != '\0' && !g_str_equal (*out_leaf, ".") && !g_str_equal (*out_leaf, "..");
}

typedef enum {
  ENTRY_MKDIR,
  ENTRY_UNLINK,
  ENTRY_RMDIR,
} EntryAction;

typedef struct {
  EntryAction action;
  mode_t mode;
} EntryData;

static BeneathResult
parent_beneath (int root_fd, const char *rest, int *out_parent, char **out_leaf)
{
  g_autofree char *dir = NULL;

  if (!split_leaf (rest, &dir, out_leaf))
    {
      /* The root itself, ".", "..": never an entry a write tool may create or remove. */
      return BENEATH_DENIED;
    }
  return open_beneath (root_fd, dir, DIR_ANCHOR_FLAGS, 0, out_parent);
}

/* An operation on the entry leaf of the directory parent: 0, or -1 with errno set. */
typedef int (*AtParentOp) (int parent, const char *leaf, gpointer data);

/* Runs op on the last name of rest in its parent, opened beneath root_fd and closed after;
 * use as for dsh_fs_fence_judge_entry. */
static BeneathResult
at_parent (int root_fd, const char *rest, EntryUse use, AtParentOp op, gpointer data)
{
  g_autofree char *leaf = NULL;
  BeneathResult result;
  int parent = -1;
  int saved_errno;
  int rc;

  result = parent_beneath (root_fd, rest, &parent, &leaf);
  if (result != BENEATH_OK)
    return result;
  result = dsh_fs_fence_judge_entry (root_fd, parent, leaf, use);
  if (result != BENEATH_OK)
    {
      close (parent);
      return result;
    }
  rc = op (parent, leaf, data);
  saved_errno = errno;
  close (parent);
  errno = saved_errno;
  return rc == 0 ? BENEATH_OK : BENEATH_FAILED;
}

static int
entry_at (int parent, const char *leaf, gpointer data)
{
  EntryData *d = data;

  switch (d->action)
    {
    case ENTRY_MKDIR:
      return mkdirat (parent, leaf, d->mode);
    case ENTRY_UNLINK:
      return unlinkat (parent, leaf, 0);
    case ENTRY_RMDIR:
    default:
      return unlinkat (parent, leaf, AT_REMOVEDIR);
    }
}

static BeneathResult
entry_op (int root_fd, const char *rest, gpointer data)
{
  EntryData *d = data;

  return at_parent (root_fd, rest,
                    d->action == ENTRY_MKDIR   ? USE_MAKE_DIR
                    : d->action == ENTRY_RMDIR ? USE_REMOVE_EMPTY_DIR
                                               : USE_REMOVE,
                    entry_at, data);
}

/**
 * dsh_fs_fence_mkdir:
 * @policy: the call's policy
 * @path: (type filename): the directory to make
 * @mode: (type guint): its permission bits
 * @error: return location for a #GError
 *
 * mkdir(2) beneath one of dsh_writable_roots().
 *
 * Returns: %TRUE when the directory was made, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_fs_fence_mkdir (const DshSandboxPolicy *policy, const char *path, mode_t mode,
                    GError **error)
{
  EntryData data = { ENTRY_MKDIR, mode };

  g_return_val_if_fail (policy != NULL && path != NULL, FALSE);

  if (policy->mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    {
      if (mkdir (path, mode) == 0)
        return TRUE;
      dsh_fs_fence_set_io_error (error, errno, "create directory", path);
      return FALSE;
    }
  return fenced (policy, path, "create directory", entry_op, &data, error);
}

/**
 * dsh_fs_fence_unlink:
 * @policy: the call's policy
 * @path: (type filename): the file or symlink to remove (a symlink is not followed)
 * @remove_dir: remove an empty directory instead
 * @error: return location for a #GError
 *
 * Removes @path beneath one of dsh_writable_roots().
 *
 * Returns: %TRUE when it was removed, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_fs_fence_unlink (const DshSandboxPolicy *policy, const char *path, gboolean remove_dir,
                     GError **error)
{
  EntryData data = { remove_dir ? ENTRY_RMDIR : ENTRY_UNLINK, 0 };

  g_return_val_if_fail (policy != NULL && path != NULL, FALSE);

  if (policy->mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    {
      if ((remove_dir ? rmdir (path) : unlink (path)) == 0)
        return TRUE;
      dsh_fs_fence_set_io_error (error, errno, "remove", path);
      return FALSE;
    }
  return fenced (policy, path, "remove", entry_op, &data, error);
}

/* rename needs two fenced parents; the source's is resolved first and kept open while the
 * destination is fenced in its own right. */
typedef struct {
  int from_parent;
  char *from_leaf;
} RenameData;

static BeneathResult
rename_from_op (int root_fd, const char *rest, gpointer data)
{
  RenameData *d = data;

  BeneathResult result;

  g_clear_pointer (&d->from_leaf, g_free);
  result = parent_beneath (root_fd, rest, &d->from_parent, &d->from_leaf);
  if (result != BENEATH_OK)
    return result;
  /* Moving hooks or a config away is rewriting them as surely as writing them. */
  result = dsh_fs_fence_judge_entry (root_fd, d->from_parent, d->from_leaf, USE_REMOVE);
  if (result != BENEATH_OK)
    {
      close (d->from_parent);
      d->from_parent = -1;
    }
  return result;
}

static int
rename_to_at (int parent, const char *leaf, gpointer data)
{
  RenameData *d = data;

  return renameat (d->from_parent, d->from_leaf, parent, leaf);
}

static BeneathResult
rename_to_op (int root_fd, const char *rest, gpointer data)
{
  RenameData *d = data;
  struct stat st;
  gboolean dir = fstatat (d->from_parent, d->from_leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                 !S_ISREG (st.st_mode);

  /* Replacing an entry keeps its name: HEAD replaced is still there. A directory brings hooks
   * and config of its own, and so does a symlink, which git follows to one. (The type is looked
   * at before the rename: a command racing a directory in for a file could as well make that
   * directory in place itself under bwrap.) */
  return at_parent (root_fd, rest, dir ? USE_MOVE_DIR_IN : USE_WRITE, rename_to_at, data);
}

/**
 * dsh_fs_fence_rename:
 * @policy: the call's policy
 * @from: (type filename): what to rename
 * @to: (type filename): its new name
 * @error: return location for a #GError
 *
 * rename(2) with both ends beneath writable roots (not necessarily the same one).
 *
 * Returns: %TRUE when it was renamed, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_fs_fence_rename (const DshSandboxPolicy *policy, const char *from, const char *to,
                     GError **error)
{
  RenameData data = { -1, NULL };
  gboolean ok;

  g_return_val_if_fail (policy != NULL && from != NULL && to != NULL, FALSE);

  if (policy->mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    {
      if (rename (from, to) == 0)
        return TRUE;
      dsh_fs_fence_set_io_error (error, errno, "rename", from);
      return FALSE;
    }
  if (!fenced (policy, from, "rename", rename_from_op, &data, error))
    {
      g_free (data.from_leaf);
      return FALSE;
    }
  ok = fenced (policy, to, "rename", rename_to_op, &data, error);
  close (data.from_parent);
  g_free (data.from_leaf);
  return ok;
}
