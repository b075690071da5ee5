/* dsh-fs-fence-git.c — git's own files beneath a writable root: what a later unconfined git
 * runs or obeys by itself, which the fence keeps read-only for write tools as bwrap keeps it for
 * commands. Judged by descriptors, walking up to the root, so no spelling can mislead it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* O_PATH */

#include "dsh-fs-fence-posix-private.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Descriptors used only to anchor *at calls: O_PATH needs no read permission on Linux. */
#ifdef O_PATH
#define DIR_ANCHOR_FLAGS (O_PATH | O_DIRECTORY)
#else
#define DIR_ANCHOR_FLAGS (O_RDONLY | O_DIRECTORY)
#endif

/* What a later unconfined git runs or obeys by itself: a repository's hooks, its config and the
 * files that say where the rest of it lives. bwrap keeps them read-only for the command; a write
 * tool of the same call must not plant them either. A git directory is told by its contents,
 * as git itself tells one (whatever it is named, wherever it lies beneath the root). */
static const char *const git_own_entries[] = {
  "hooks", "config", "config.worktree", "commondir", NULL
};

/* Whether text starts with a character HFS+ leaves out when it compares names (git's own check
 * lists them): U+200C to U+200F, U+202A to U+202E, U+206A to U+206F and U+FEFF, in UTF-8. */
static gboolean
hfs_ignores (const char *text)
{
  const guchar *u = (const guchar *) text;

  if (u[0] == 0xef)
    return u[1] == 0xbb && u[2] == 0xbf;
  if (u[0] != 0xe2)
    return FALSE;
  if (u[1] == 0x80)
    return (u[2] >= 0x8c && u[2] <= 0x8f) || (u[2] >= 0xaa && u[2] <= 0xae);
  return u[1] == 0x81 && u[2] >= 0xaa && u[2] <= 0xaf;
}

/* Whether name may be the entry word (lower-case ASCII) where the filesystem folds names: ext4
 * and tmpfs casefold directories, APFS and HFS+ as macOS formats them, WSL's drvfs, SMB shares.
 * There .GIT/CONFIG is .git/config, so every letter case counts; and so does a name with a byte
 * outside ASCII made of nothing else but word's characters, since case folding takes U+212A
 * KELVIN SIGN for k and U+017F LONG S for s (hoo\u212As is hooks) and HFS+ ignores U+200C and
 * its kin (.g\u200Cit is .git). The Seatbelt profile refuses the same spellings. Where names
 * are exact this refuses a few more, which git never makes. */
static gboolean
may_be_named (const char *name, const char *word)
{
  gboolean beyond_ascii = FALSE;

  if (g_ascii_strcasecmp (name, word) == 0)
    return TRUE;
  /* No filesystem folds a dot away: a dot name stays one, whatever HFS+ ignores before it (a
   * name in another script, say a bare repository's "\u30ea\u30dd.git", is the project's). */
  if (word[0] == '.')
    {
      const char *first = name;

      while (hfs_ignores (first))
        first += 3;
      if (*first != '.')
        return FALSE;
    }
  for (const char *p = name; *p != '\0'; p++)
    {
      if ((guchar) *p >= 0x80)
        beyond_ascii = TRUE;
      else if (strchr (word, g_ascii_tolower (*p)) == NULL)
        return FALSE;
    }
  return beyond_ascii;
}

/* may_be_named() for any of words. */
static gboolean
may_be_any_of (const char *name, const char *const *words)
{
  for (guint i = 0; words[i] != NULL; i++)
    if (may_be_named (name, words[i]))
      return TRUE;
  return FALSE;
}

/* Bounds the walk up from a directory to its root (PATH_MAX allows about 2048 levels). */
#define MAX_WALK_UP 4096

static gboolean
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static gboolean
entry_is (int dir_fd, const char *name, mode_t type, struct stat *st)
{
  struct stat local;

  if (st == NULL)
    st = &local;
  return fstatat (dir_fd, name, st, 0) == 0 && (st->st_mode & S_IFMT) == type;
}

/* Whether dir_fd holds a repository's config: git init and clone write repositoryformatversion
 * into every one. bwrap holds that file read-only where HEAD is a plain file a confined command
 * may move away, so it still tells the git directory then. */
static gboolean
holds_git_config (int dir_fd)
{
  char buffer[4096];
  ssize_t n;
  int fd;

  /* Non-blocking: a FIFO named config must not stall the tool. */
  fd = openat (dir_fd, "config", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  {
    struct stat st;

    n = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) ? read (fd, buffer, sizeof buffer - 1) : -1;
  }
  close (fd);
  if (n <= 0)
    return FALSE;
  buffer[n] = '\0';
  return strstr (buffer, "repositoryformatversion") != NULL;
}

/* git's test: HEAD, and objects and refs — or a linked worktree's commondir; or the config a
 * repository keeps. */
static gboolean
is_git_dir (int dir_fd)
{
  struct stat st;

  if (fstatat (dir_fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      (entry_is (dir_fd, "commondir", S_IFREG, NULL) ||
       (entry_is (dir_fd, "objects", S_IFDIR, NULL) && entry_is (dir_fd, "refs", S_IFDIR, NULL))))
    return TRUE;
  return holds_git_config (dir_fd);
}

/* What makes a directory a git directory to git and to judge_entry: taking one away (moving
 * HEAD aside, renaming .git) would make its hooks and config writable until it is put back. */
static const char *const git_markers[] = { "head", "objects", "refs", "commondir", NULL };

/* Whether leaf of dir_fd is a directory that is a git directory, by its name or its contents. */
static gboolean
entry_is_git_dir (int dir_fd, const char *leaf)
{
  struct stat st;
  gboolean git_dir;
  int fd;

  if (fstatat (dir_fd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR (st.st_mode))
    return FALSE;
  if (may_be_named (leaf, ".git"))
    return TRUE;
  fd = openat (dir_fd, leaf, DIR_ANCHOR_FLAGS | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  git_dir = is_git_dir (fd);
  close (fd);
  return git_dir;
}

/* Where the entry leaf of directory parent stands: OK beneath the root, PROTECTED when it is one
 * of git's own entries or anything beneath a git directory's hooks, DENIED when walking up from
 * parent never meets the root. By descriptors, so no spelling can mislead it.
 *
 * A directory its parent names ".git" is a git directory whatever it holds, and so is every
 * directory beneath one (a submodule's in modules/, a linked worktree's in worktrees/): HEAD
 * there is a plain file a confined command may move away, and that must not unprotect hooks and
 * config. Removing leaf must not take away what makes a git directory one (its markers, a git
 * directory itself, a directory beneath .git). */
BeneathResult
dsh_fs_fence_judge_entry (int root_fd, int parent_fd, const char *leaf, EntryUse use)
{
  struct stat root_st, here_st, below_st = { 0 };
  gboolean removing = use == USE_REMOVE || use == USE_REMOVE_EMPTY_DIR;
  gboolean below_protected = FALSE;
  int here;

  /* A .git file says where git finds the git directory (bwrap holds it in place): rewritten,
   * replaced or removed, git would take hooks from one the tool made. Making a directory .git
   * is a new repository, which nothing protects, and so is removing an empty one (rmdir takes
   * nothing else: a git directory holds its markers). */
  if (may_be_named (leaf, ".git") && use != USE_MAKE_DIR && use != USE_REMOVE_EMPTY_DIR)
    return BENEATH_PROTECTED;

  if (fstat (root_fd, &root_st) != 0 || fstat (parent_fd, &here_st) != 0)
    return BENEATH_FAILED;
  if (use == USE_REMOVE && entry_is_git_dir (parent_fd, leaf))
    return BENEATH_PROTECTED;
  here = fcntl (parent_fd, F_DUPFD_CLOEXEC, 0);
  if (here < 0)
    return BENEATH_FAILED;
  for (guint depth = 0; depth < MAX_WALK_UP; depth++)
    {
      gboolean at_root = same_file (&here_st, &root_st);
      int up = openat (here, "..", DIR_ANCHOR_FLAGS | O_CLOEXEC);
      struct stat up_st, st;
      gboolean at_top, named_git, own, protected;

      if (up < 0)
        {
          close (here);
          return BENEATH_FAILED;
        }
      /* At "/": ".." is itself. */
      at_top = fstat (up, &up_st) != 0 || same_file (&up_st, &here_st);
      named_git = !at_top && fstatat (up, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                  same_file (&st, &here_st);
      /* What here would keep read-only were it a git directory. Followed: a hooks symlink to a
       * directory is where git looks for hooks. */
      if (depth == 0)
        own = may_be_any_of (leaf, git_own_entries) ||
              (removing && (may_be_any_of (leaf, git_markers) ||
                            (fstatat (here, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                             S_ISDIR (st.st_mode))));
      else
        own = entry_is (here, "hooks", S_IFDIR, &st) && same_file (&st, &below_st);
      below_protected = below_protected || own;
      /* A directory moved in brings its hooks and config along, at any depth, with no write of
       * them judged: beneath a git directory none goes in. */
      protected = (own && is_git_dir (here)) || (named_git && below_protected) ||
                  (use == USE_MOVE_DIR_IN && (named_git || is_git_dir (here)));
      close (here);
      if (protected || at_root || at_top)
        {
          close (up);
          return protected ? BENEATH_PROTECTED : at_root ? BENEATH_OK : BENEATH_DENIED;
        }
      here = up;
      below_st = here_st;
      here_st = up_st;
    }
  close (here);
  return BENEATH_DENIED;
}
