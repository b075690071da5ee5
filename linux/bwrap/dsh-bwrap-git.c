/* dsh-bwrap-git.c — keeps the git files that a later unconfined git runs by itself read-only
 * inside the writable roots, finding every git directory there as git would (its pointers in
 * dsh-bwrap-git-pointer.c, its submodules from the index in dsh-bwrap-git-index.c, the work
 * trees held in place in dsh-bwrap-git-hold.c), and undoes the config names a command planted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"
#include "dsh-bwrap-git-private.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* The start of a small file in dirfd, NUL-terminated: whether it had anything to read. */
static int
read_small_file (int dirfd, const char *name, char *buffer, size_t size)
{
  /* Non-blocking: a FIFO put in its place must not stall the call. */
  int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return 0;
  n = read (fd, buffer, size - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buffer[n] = '\0';
  return 1;
}

/* ---- git files that run code later ----------------------------------------------------------
 *
 * A git run later, unconfined, executes .git/hooks/ and what .git/config names (core.fsmonitor,
 * aliases, filters), and takes both from wherever .git/commondir points and from config.worktree.
 * Inside a writable root each git directory becomes a mount point (it cannot be renamed away and
 * replaced), its hooks/ and its config files are bound read-only over themselves (they cannot be
 * written, renamed or unlinked: EROFS, EBUSY), and hooks/ that is missing becomes an empty
 * read-only directory. A config name that is missing cannot be held by a mount without making
 * git read something, so its appearance is undone after the call instead. */

/* A name whose appearance during the call is undone afterwards: missing at the start (held 0)
 * or the file it was then, bound read-only. One that appears, or is not that file as it was at
 * the end, goes: a concurrent call's undo of a name it created can detach this call's bind of
 * it, and this call's command could then make it anew, or link the very file back (a hard link
 * elsewhere in the workspace keeps it, and lets it be written); a link, a rename or a write
 * moves the file's ctime or link count. */
typedef struct {
  int dirfd;
  char *path;
  const char *name;
  int held;
  struct stat was;
  /* Why it goes, if the command makes it. */
  const char *why;
} Watched;

/* Config names of every git directory, and HEAD where a repository's work tree is. */
static Watched watched[MAX_GIT_DIRS * 4 + 64];
size_t n_watched;

static Identity seen_git_dirs[MAX_GIT_DIRS];
static size_t n_seen_git_dirs;

/* Held read-only where they are, removed after the call where the command made them: what git
 * reads code from (config, config.worktree, commondir) and, in a linked worktree's git
 * directory, gitdir, which names the worktree's .git file (pointed elsewhere, a later call
 * would protect that one instead). */
static const char *const config_names[] = { "config", "config.worktree", "commondir", "gitdir" };

static void protect_git_dir (Argv *argv, int fd, const char *path, int depth);

/* dirfd/name is missing now (file -1) or the file open as `file`: if the command makes it, or
 * puts another file or that one changed in its place, it goes once the call is over. */
static void
watch_name (int dirfd, const char *path, const char *name, int file, const char *why)
{
  Watched *w;

  if (n_watched == sizeof watched / sizeof watched[0])
    fatal ("'%s' holds too many git directories to protect", path);
  w = &watched[n_watched++];
  w->dirfd = fcntl (dirfd, F_DUPFD_CLOEXEC, 3);
  w->path = format ("%s", path);
  w->name = name;
  w->held = file >= 0;
  w->why = why;
  if (w->dirfd < 0)
    fatal ("cannot keep '%s' open: %s", path, strerror (errno));
  if (w->held && fstat (file, &w->was) != 0)
    fatal ("cannot stat '%s/%s': %s", path, name, strerror (errno));
}

/* Whether st is the held file as it was. */
static int
is_as_held (const Watched *w, const struct stat *st)
{
  return w->held && st->st_dev == w->was.st_dev && st->st_ino == w->was.st_ino &&
         st->st_nlink == w->was.st_nlink && st->st_ctim.tv_sec == w->was.st_ctim.tv_sec &&
         st->st_ctim.tv_nsec == w->was.st_ctim.tv_nsec;
}

/* dir/name, for a dir that may be "/". */
static char *
child_of (const char *dir, const char *name)
{
  return format ("%s/%s", strcmp (dir, "/") == 0 ? "" : dir, name);
}

/* The kind of dirfd/name, without following it: 0 missing, else S_IFMT bits. */
static mode_t
kind_of (int dirfd, const char *name, const char *path)
{
  struct stat st;

  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return st.st_mode & S_IFMT;
  if (errno == ENOENT)
    return 0;
  fatal ("cannot inspect '%s/%s': %s", path, name, strerror (errno));
}

static void follow_outside_git_dir (Argv *argv, const char *from_dir, const char *target,
                                    int depth);

/* A git directory named by a file inside it (commondir) or beside it (a .git file); protected
 * when it lies inside a writable root. One that does not exist there yet would be used
 * unprotected once the command made it: refused. */
static void
follow_git_pointer (Argv *argv, const char *from_dir, const char *target, const char *what,
                    int depth)
{
  int fd;
  char *path = resolve_pointer (from_dir, target, what, O_PATH | O_DIRECTORY, &fd);

  if (path == NULL)
    {
      follow_outside_git_dir (argv, from_dir, target, depth);
      return;
    }
  if (fd < 0)
    fatal ("%s names the git directory '%s', which does not exist: one the command made there "
           "would be used unprotected (remove or repair the pointer outside the sandbox)",
           what, path);
  protect_git_dir (argv, fd, path, depth + 1);
  free (path);
}

/* A git directory outside every root cannot be changed by the command, but git takes config and
 * hooks from where its commondir points, which may be inside them. */
static void
follow_outside_git_dir (Argv *argv, const char *from_dir, const char *target, int depth)
{
  char *path;
  int fd;
  char *commondir;

  if (depth > MAX_GIT_DEPTH)
    fatal ("'%s' leads through too many git directories to protect", from_dir);
  fd = open_pointed_dir (from_dir, target, &path);
  commondir = fd >= 0 ? read_pointer (fd, "commondir", path, 0) : NULL;
  if (commondir != NULL)
    {
      char *what = format ("'%s/commondir'", path);

      follow_git_pointer (argv, path, commondir, what, depth + 1);
      free (what);
      free (commondir);
    }
  if (fd >= 0)
    close (fd);
  free (path);
}

/* A .git file of a linked worktree or a submodule, named by its git directory: read-only and a
 * mount point, so that it cannot be pointed at a git directory the command made. Returns the
 * work tree it lies in (NULL when outside the roots or gone: that worktree then has no
 * repository git finds there). */
static char *
protect_dotgit_file (Argv *argv, const char *from_dir, const char *target, const char *what)
{
  struct stat st;
  int fd;
  char *path = resolve_pointer (from_dir, target, what, O_PATH, &fd);

  if (path == NULL)
    return NULL;
  if (fd >= 0 && fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
    {
      char *slash = strrchr (path, '/');

      add_fd_mount (argv, "--ro-bind-fd", fd, path);
      *slash = '\0';
      pin_work_tree (path);
      return path;
    }
  if (fd >= 0)
    close (fd);
  free (path);
  return NULL;
}

/* A config value (what follows its "="), in place, as git reads it: blanks around it dropped
 * unless quoted, '"' quoting, \\ \" \n \t \b escaped, ';' or '#' outside quotes starting a
 * comment. */
static char *
unquote_config_value (char *raw)
{
  char *out = raw, *value = raw, *kept = raw;
  int quoted = 0;

  raw += strspn (raw, " \t");
  for (; *raw != '\0' && *raw != '\r'; raw++)
    {
      if (*raw == '"')
        quoted = !quoted;
      else if (!quoted && (*raw == ';' || *raw == '#'))
        break;
      else if (*raw == '\\' && raw[1] != '\0')
        {
          raw++;
          *out++ = *raw == 'n' ? '\n' : *raw == 't' ? '\t' : *raw == 'b' ? '\b' : *raw;
          kept = out;
        }
      else
        {
          *out++ = *raw;
          if (quoted || (*raw != ' ' && *raw != '\t'))
            kept = out;
        }
      if (*raw == '"')
        kept = out;
    }
  *kept = '\0';
  return value;
}

/* A value in a git directory's config (section "[core]", key "worktree"), or NULL. Lines only:
 * the config itself is read-only, and a value git would read differently is at worst a .git
 * file left unprotected (core.worktree) or an index read as SHA-1's (extensions.objectformat),
 * which then names no submodule. */
static char *
config_value (int gitdir_fd, const char *section, const char *name)
{
  char buffer[65536];
  int in_section = 0;

  if (!read_small_file (gitdir_fd, "config", buffer, sizeof buffer))
    return NULL;
  for (char *line = strtok (buffer, "\n"); line != NULL; line = strtok (NULL, "\n"))
    {
      char *key = line + strspn (line, " \t");
      char *value;

      if (key[0] == '[')
        {
          in_section = strncasecmp (key, section, strlen (section)) == 0;
          continue;
        }
      if (!in_section || strncasecmp (key, name, strlen (name)) != 0)
        continue;
      value = key + strlen (name) + strspn (key + strlen (name), " \t");
      if (value[0] != '=')
        continue;
      value = unquote_config_value (value + 1);
      return value[0] != '\0' ? format ("%s", value) : NULL;
    }
  return NULL;
}

/* Whether dirfd is a submodule's git directory rather than a directory on the way to one:
 * what it holds tells, and its config, held read-only from its first call on, cannot be taken
 * away (HEAD could). */
static int
is_submodule_git_dir (int dirfd, const char *path)
{
  return kind_of (dirfd, "HEAD", path) != 0 || kind_of (dirfd, "config", path) != 0 ||
         kind_of (dirfd, "objects", path) != 0 || kind_of (dirfd, "commondir", path) != 0;
}

/* Every git directory beneath modules/ (submodules, whose names may contain slashes) or
 * worktrees/ (linked worktrees, where each directory is one). Each directory on the way is a
 * mount point too, so none of them can be renamed away and replaced by one the command made. A
 * symlink there is refused: git follows it from the submodule's .git file to wherever it
 * leads. name_depth counts the components of the name so far; 0 for worktrees/. */
static void
protect_nested_git_dirs (Argv *argv, int dirfd, const char *path, int depth, int name_depth)
{
  DIR *dir;
  struct dirent *entry;
  int fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    fatal ("cannot list '%s': %s", path, strerror (errno));
  if (name_depth > MAX_NAME_DEPTH)
    fatal ("'%s' is nested too deep to protect its git directories", path);
  add_fd_mount (argv, "--bind-fd", fcntl (dirfd, F_DUPFD, 3), path);
  while ((entry = readdir (dir)) != NULL)
    {
      char *child_path;
      int child;

      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      child_path = format ("%s/%s", path, entry->d_name);
      if (kind_of (dirfd, entry->d_name, path) == S_IFLNK)
        fatal ("'%s' is a symlink: the git directory it leads to cannot be protected",
               child_path);
      child = open_beneath_nofollow (dirfd, entry->d_name, O_PATH | O_DIRECTORY);
      if (child < 0)
        {
          free (child_path);
          continue; /* not a directory */
        }
      if (name_depth == 0 || is_submodule_git_dir (child, child_path))
        protect_git_dir (argv, child, child_path, depth + 1);
      else
        {
          protect_nested_git_dirs (argv, child, child_path, depth, name_depth + 1);
          close (child);
        }
      free (child_path);
    }
  closedir (dir);
}

/* A git directory's hooks/ (an empty read-only one when missing) and config names bound
 * read-only over themselves, each watched for what the command makes of it. */
static void
protect_hooks_and_config (Argv *argv, int fd, const char *path, mode_t hooks)
{
  if (hooks == S_IFDIR)
    add_fd_mount (argv, "--ro-bind-fd", open_beneath_nofollow (fd, "hooks", O_PATH | O_DIRECTORY),
                  format ("%s/hooks", path));
  else
    {
      char *dest = format ("%s/hooks", path);

      argv_add (argv, "--tmpfs");
      argv_add (argv, dest);
      argv_add (argv, "--remount-ro");
      argv_add (argv, dest);
      expect_protected ((Identity) { 0, 0 }, dest);
    }
  for (size_t i = 0; i < sizeof config_names / sizeof config_names[0]; i++)
    {
      int file = open_beneath_nofollow (fd, config_names[i], O_PATH);

      if (file >= 0)
        {
          char *dest = format ("%s/%s", path, config_names[i]);

          watch_name (fd, path, config_names[i], file,
                      "a later git would have run code it names");
          add_fd_mount (argv, "--ro-bind-fd", file, dest);
          free (dest);
        }
      else if (errno == ENOENT)
        watch_name (fd, path, config_names[i], -1, "a later git would have run code it names");
      else
        fatal ("cannot open '%s/%s': %s", path, config_names[i], strerror (errno));
    }
}

static void protect_work_tree_of (Argv *argv, int gitdir_fd, const char *gitdir, char *worktree);

static void
protect_git_dir (Argv *argv, int fd, const char *path, int depth)
{
  struct stat st;
  mode_t hooks;
  int fallback_read_only = 0;
  char *commondir = NULL;
  char *worktree_file = NULL;

  if (fstat (fd, &st) != 0)
    fatal ("cannot stat '%s': %s", path, strerror (errno));
  for (size_t i = 0; i < n_seen_git_dirs; i++)
    if (seen_git_dirs[i].dev == st.st_dev && seen_git_dirs[i].ino == st.st_ino)
      {
        close (fd);
        return;
      }
  if (n_seen_git_dirs == MAX_GIT_DIRS || depth > MAX_GIT_DEPTH)
    fatal ("'%s' holds too many git directories to protect", path);
  seen_git_dirs[n_seen_git_dirs++] = (Identity) { st.st_dev, st.st_ino };

  /* A protected name that is a symlink or of the wrong kind cannot be held by a mount (the
   * symlink itself could be replaced): then the whole git directory is read-only. */
  hooks = kind_of (fd, "hooks", path);
  if (hooks != 0 && hooks != S_IFDIR)
    fallback_read_only = 1;
  for (size_t i = 0; i < sizeof config_names / sizeof config_names[0]; i++)
    {
      mode_t kind = kind_of (fd, config_names[i], path);

      if (kind != 0 && kind != S_IFREG)
        fallback_read_only = 1;
    }
  /* A root inside a git directory would be covered by its bind, and without one the git
   * directory could be renamed away with its protections: refused. */
  if (holds_a_root (path) && !is_root (path))
    fatal ("a writable root lies inside the git directory '%s', which then cannot be protected",
           path);
  /* The rest (the .git files it names, its worktrees and submodules) is protected all the same:
   * read-only here holds only this directory. */
  if (fallback_read_only)
    add_fd_mount (argv, "--ro-bind-fd", fcntl (fd, F_DUPFD, 3), path);
  /* A bare repository's git directory may be a root: bound already, and a bind over it would
   * cover the root's (fd is then closed at the end). */
  else if (!is_root (path))
    add_fd_mount (argv, "--bind-fd", fd, path);
  /* Read-only as a whole, its hooks and config names are held with it. */
  if (!fallback_read_only)
    protect_hooks_and_config (argv, fd, path, hooks);

  /* The git directories beneath first, then what this one names: a later bind of a directory
   * above one already bound would cover it. */
  for (int i = 0; i < 2; i++)
    {
      const char *nested = i == 0 ? "modules" : "worktrees";
      int nested_fd = open_beneath_nofollow (fd, nested, O_PATH | O_DIRECTORY | O_CLOEXEC);

      if (nested_fd >= 0)
        {
          char *nested_path = format ("%s/%s", path, nested);

          protect_nested_git_dirs (argv, nested_fd, nested_path, depth, i == 0 ? 1 : 0);
          close (nested_fd);
          free (nested_path);
        }
    }
  /* Where the working tree's .git file lies: a linked worktree names it in gitdir, a submodule
   * in core.worktree. */
  worktree_file = read_pointer (fd, "gitdir", path, 1);
  if (worktree_file != NULL)
    {
      char *what = format ("'%s/gitdir'", path);

      protect_work_tree_of (argv, fd, path, protect_dotgit_file (argv, path, worktree_file, what));
      free (what);
      free (worktree_file);
    }
  worktree_file = config_value (fd, "[core]", "worktree");
  if (worktree_file != NULL)
    {
      char *dotgit = format ("%s/.git", worktree_file);
      char *what = format ("core.worktree in '%s/config'", path);

      protect_work_tree_of (argv, fd, path, protect_dotgit_file (argv, path, dotgit, what));
      free (what);
      free (dotgit);
      free (worktree_file);
    }

  commondir = read_pointer (fd, "commondir", path, 0);
  if (commondir != NULL)
    {
      char *what = format ("'%s/commondir'", path);

      follow_git_pointer (argv, path, commondir, what, depth);
      free (what);
      free (commondir);
    }
  if (fallback_read_only || is_root (path))
    close (fd);
}

static int protect_repository_at (Argv *argv, int dirfd, const char *dir);

typedef struct {
  Argv *argv;
  int worktree_fd;
  const char *worktree;
} Superproject;

/* A path git accepts in an index: relative, no empty, "." or ".." component. */
static int
is_index_path (const char *name)
{
  for (const char *part = name;; part++)
    {
      size_t len = strcspn (part, "/");

      if (len == 0 || (len == 1 && part[0] == '.') || (len == 2 && strncmp (part, "..", 2) == 0))
        return 0;
      part += len;
      if (*part == '\0')
        return 1;
    }
}

static void
protect_submodule (const char *name, void *data)
{
  Superproject *super = data;
  char *path;
  int fd;

  if (!is_index_path (name))
    return; /* git refuses such an entry */
  path = child_of (super->worktree, name);
  /* Outside the writable roots the command cannot change it; missing, or beyond a symlink, git
   * does not enter it either. */
  fd = is_writable (path) ? open_beneath_nofollow (super->worktree_fd, name, O_PATH | O_DIRECTORY)
                          : -1;
  if (fd >= 0)
    {
      if (protect_repository_at (super->argv, fd, path))
        pin_work_tree (path);
      close (fd);
    }
  free (path);
}

/* The object names' length of the repository whose git directory is gitdir_fd: its config
 * says (in a linked worktree's, that of the common directory). */
static size_t
hash_size_of (int gitdir_fd, const char *gitdir)
{
  char *value = config_value (gitdir_fd, "[extensions]", "objectformat");
  char *common = value == NULL ? read_pointer (gitdir_fd, "commondir", gitdir, 0) : NULL;
  size_t size;

  if (common != NULL)
    {
      char *path;
      int fd = open_pointed_dir (gitdir, common, &path);

      if (fd >= 0)
        {
          value = config_value (fd, "[extensions]", "objectformat");
          close (fd);
        }
      free (path);
      free (common);
    }
  size = value != NULL && strcasecmp (value, "sha256") == 0 ? 32 : 20;
  free (value);
  return size;
}

/* The submodules the index of the git directory gitdir_fd records (a split index's shared part
 * included), whose work trees lie in worktree: git status enters each, so the repository there
 * is protected too. */
static void
protect_recorded_submodules (Argv *argv, int worktree_fd, const char *worktree, int gitdir_fd,
                             const char *gitdir)
{
  Superproject super = { argv, worktree_fd, worktree };
  size_t hash_size = hash_size_of (gitdir_fd, gitdir);
  int list_fd = openat (gitdir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *listing = list_fd >= 0 ? fdopendir (list_fd) : NULL;
  struct dirent *entry;
  int replaced = 0;

  for_each_gitlink (gitdir_fd, gitdir, "index", hash_size, 0, &replaced, protect_submodule,
                    &super);
  if (listing == NULL)
    fatal ("cannot list '%s': %s", gitdir, strerror (errno));
  while ((entry = readdir (listing)) != NULL)
    if (strncmp (entry->d_name, "sharedindex.", strlen ("sharedindex.")) == 0)
      for_each_gitlink (gitdir_fd, gitdir, entry->d_name, hash_size, replaced, NULL,
                        protect_submodule, &super);
  closedir (listing);
}

/* A linked worktree's or a submodule's work tree (taken, may be NULL), whose git directory is
 * gitdir_fd: the submodules that git directory's own index records lie in it. */
static void
protect_work_tree_of (Argv *argv, int gitdir_fd, const char *gitdir, char *worktree)
{
  int fd;

  if (worktree == NULL)
    return;
  fd = open_beneath_nofollow (AT_FDCWD, worktree, O_PATH | O_DIRECTORY);
  if (fd >= 0)
    {
      protect_recorded_submodules (argv, fd, worktree, gitdir_fd, gitdir);
      close (fd);
    }
  free (worktree);
}

/* Where a .git file in dir names the git directory, wherever that lies: the submodules its
 * index records have their work trees in dir. */
static void
protect_submodules_of_gitfile (Argv *argv, int dirfd, const char *dir, const char *target)
{
  char *gitdir;
  int fd = open_pointed_dir (dir, target, &gitdir);

  if (fd >= 0)
    {
      protect_recorded_submodules (argv, dirfd, dir, fd, gitdir);
      close (fd);
    }
  free (gitdir);
}

/* The repository a git started in `dir` finds there: a .git directory, or a .git file naming
 * the git directory elsewhere (a linked worktree, a submodule). Returns whether one was found. */
static int
protect_repository_at (Argv *argv, int dirfd, const char *dir)
{
  char *dotgit_path = child_of (dir, ".git");
  mode_t kind = kind_of (dirfd, ".git", dir);

  if (kind == S_IFDIR)
    {
      int fd = open_beneath_nofollow (dirfd, ".git", O_PATH | O_DIRECTORY);

      if (fd < 0)
        fatal ("cannot open '%s': %s", dotgit_path, strerror (errno));
      /* The index read is the very git directory's that was protected. */
      protect_git_dir (argv, fcntl (fd, F_DUPFD, 3), dotgit_path, 0);
      protect_recorded_submodules (argv, dirfd, dir, fd, dotgit_path);
      close (fd);
    }
  else if (kind == S_IFREG)
    {
      char *line = read_pointer (dirfd, ".git", dir, 0);
      int fd = open_beneath_nofollow (dirfd, ".git", O_PATH);

      if (fd < 0)
        fatal ("cannot open '%s': %s", dotgit_path, strerror (errno));
      /* Read-only and a mount point: it cannot be pointed somewhere else or replaced. */
      add_fd_mount (argv, "--ro-bind-fd", fd, dotgit_path);
      if (line != NULL && strncmp (line, "gitdir: ", 8) == 0)
        {
          char *what = format ("'%s'", dotgit_path);

          follow_git_pointer (argv, dir, line + 8, what, 0);
          free (what);
          protect_submodules_of_gitfile (argv, dirfd, dir, line + 8);
        }
      free (line);
    }
  else if (kind != 0)
    fatal ("'%s' is neither a directory nor a file; its git hooks cannot be protected",
           dotgit_path);
  else if (kind_of (dirfd, "HEAD", dir) != 0 && kind_of (dirfd, "objects", dir) == S_IFDIR &&
           kind_of (dirfd, "refs", dir) == S_IFDIR)
    {
      /* No .git, but the directory itself is a git directory: git takes it for a bare one. */
      protect_git_dir (argv, fcntl (dirfd, F_DUPFD_CLOEXEC, 3), dir, 0);
      free (dotgit_path);
      return 1;
    }
  /* Where git finds a repository through .git, a .git it cannot use (HEAD garbled, say) makes
   * it take the directory itself for a bare repository, and that needs a HEAD: one that is
   * missing goes if the command makes it, one that is there (a project file) is held
   * read-only, so that it cannot be made a valid one. */
  if (kind != 0)
    {
      mode_t head = kind_of (dirfd, "HEAD", dir);
      char *head_path = child_of (dir, "HEAD");
      const char *why = "a later git would have taken that directory for a repository of its own";

      if (head == 0)
        watch_name (dirfd, dir, "HEAD", -1, why);
      else if (head == S_IFLNK)
        fatal ("'%s' is a symlink: the repository beside it cannot be protected", head_path);
      else
        {
          /* Watched too: another call's undo may move it, and this call's bind with it. */
          int file = open_beneath_nofollow (dirfd, "HEAD", O_PATH);

          if (file >= 0)
            watch_name (dirfd, dir, "HEAD", file, why);
          add_fd_mount (argv, "--ro-bind-fd", file, head_path);
        }
      free (head_path);
    }
  free (dotgit_path);
  return kind != 0;
}

/* For a root, the repository git finds from it: at the root itself or, while still inside a
 * writable root, in the nearest ancestor that has one. */
void
protect_repository_of (Argv *argv, int root_fd, const char *root)
{
  char *dir;

  if (protect_repository_at (argv, root_fd, root))
    return;
  dir = format ("%s", root);
  for (;;)
    {
      char *slash = strrchr (dir, '/');
      int fd;

      if (slash == NULL || slash == dir)
        break;
      *slash = '\0';
      if (!is_writable (dir))
        break;
      fd = open_beneath_nofollow (AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0)
        fatal ("cannot open '%s': %s", dir, strerror (errno));
      if (protect_repository_at (argv, fd, dir))
        {
          close (fd);
          break;
        }
      close (fd);
    }
  free (dir);
}

void
protect_repository_reset (void)
{
  hold_reset ();
  for (size_t i = 0; i < n_watched; i++)
    {
      close (watched[i].dirfd);
      free (watched[i].path);
    }
  n_watched = 0;
  n_seen_git_dirs = 0;
  for (size_t i = 0; i < n_protected; i++)
    free (protected_paths[i].path);
  n_protected = 0;
  n_writable = 0;
}

int
watched_dirfd (size_t i)
{
  return watched[i].dirfd;
}

/* Moves dirfd/name to a free name beside it that git never reads, written to aside: the first
 * of NAME.dsh-sandbox-aside-1 to -9 that is free, else one with a random number, which a
 * command cannot have taken beforehand (with all the small ones taken, the undo would
 * otherwise have had to delete the user's file). */
static int
move_aside (int dirfd, const char *name, char *aside, size_t size)
{
  for (int n = 1; n <= 9 + 64; n++)
    {
      unsigned long long random_number;

      if (n <= 9)
        snprintf (aside, size, "%s.dsh-sandbox-aside-%d", name, n);
      else if (syscall (SYS_getrandom, &random_number, sizeof random_number, 0) ==
               (long) sizeof random_number)
        snprintf (aside, size, "%s.dsh-sandbox-aside-%016llx", name, random_number);
      else
        return -1;
      if (syscall (SYS_renameat2, dirfd, name, dirfd, aside, RENAME_NOREPLACE) == 0)
        return 0;
      if (errno != EEXIST)
        return -1;
    }
  errno = EEXIST;
  return -1;
}

/* After the call: a config name that was missing and now exists, or is another file than the
 * one held read-only, was made or written by the command, or in reach of it (once the user's
 * own git replaces the file during the call, renaming a new one over it, the command can write
 * the new one); git would read code from it, so it goes. It is moved aside, not deleted: what the
 * user changed meanwhile (a `git config` while the call ran) is kept for them to look at. */
void
undo_planted_config (void)
{
  for (size_t i = 0; i < n_watched; i++)
    {
      char aside[NAME_MAX + 1];
      struct stat st;

      if (fstatat (watched[i].dirfd, watched[i].name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (is_as_held (&watched[i], &st))
        continue; /* the file it was, untouched */
      if (move_aside (watched[i].dirfd, watched[i].name, aside, sizeof aside) == 0)
        fprintf (stderr, "dsh-bwrap-exec: moved %s/%s aside to %s: it %s during the call, so the "
                         "command may have written it (%s; if you changed it yourself meanwhile, "
                         "check it and move it back)\n",
                 watched[i].path, watched[i].name, aside,
                 watched[i].held ? "was replaced or changed" : "appeared",
                 watched[i].why);
      else if (unlinkat (watched[i].dirfd, watched[i].name,
                         S_ISDIR (st.st_mode) ? AT_REMOVEDIR : 0) == 0)
        fprintf (stderr, "dsh-bwrap-exec: removed %s/%s, which changed during the call and "
                         "cannot be moved aside: %s\n",
                 watched[i].path, watched[i].name, watched[i].why);
      else
        fprintf (stderr, "dsh-bwrap-exec: warning: %s/%s changed during the call and can be "
                         "neither moved aside nor removed: %s\n",
                 watched[i].path, watched[i].name, strerror (errno));
    }
}
