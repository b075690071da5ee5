/* dsh-bwrap-exec — the bubblewrap launcher: opens every writable root without following symlinks
 * and hands bwrap the descriptors, so that what bwrap mounts read-write is exactly what was
 * checked, whatever a concurrent command does to the paths; keeps the git files that a later
 * unconfined git runs by itself read-only inside those roots; and lifts bwrap's argv limit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   dsh-bwrap-exec [--write PATH]... -- BWRAP PROFILE... -- ARGV...
 *
 * PROFILE holds bwrap options that name no writable root; the binds come from here, inserted
 * before bwrap's "--". Plain C and libc only. Everything that goes wrong before bwrap starts ends
 * in exit status 125 and exactly one stderr line starting with "dsh-bwrap-exec: fatal: "; the
 * backend module publishes that prefix as a runner-failure signature, so the two change together.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/openat2.h>

#define FATAL_PREFIX "dsh-bwrap-exec: fatal: "
#define EXIT_RUNNER_FAILURE 125

/* bubblewrap 0.8 refuses more than 9000 arguments, counting the command's and those read with
 * --args alike; past this many the command's argv travels in a memfd instead. */
#define BWRAP_ARGV_BUDGET 4096
/* Submodules nest and worktrees multiply; a repository with more git directories than this is
 * refused rather than protected halfway. */
#define MAX_GIT_DIRS 256
#define MAX_GIT_DEPTH 6

static _Noreturn void
fatal (const char *format, ...)
{
  va_list args;

  fputs (FATAL_PREFIX, stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  exit (EXIT_RUNNER_FAILURE);
}

static void *
checked (void *p)
{
  if (p == NULL)
    fatal ("out of memory");
  return p;
}

static char *
format (const char *fmt, ...)
{
  va_list args;
  char *text = NULL;
  int n;

  va_start (args, fmt);
  n = vasprintf (&text, fmt, args);
  va_end (args);
  if (n < 0)
    fatal ("out of memory");
  return text;
}

/* ---- the argv handed to bwrap ----------------------------------------------------------- */

typedef struct {
  char **items;
  size_t len;
  size_t cap;
} Argv;

static void
argv_add (Argv *argv, char *item)
{
  if (argv->len + 2 > argv->cap)
    {
      argv->cap = argv->cap < 64 ? 64 : argv->cap * 2;
      argv->items = checked (realloc (argv->items, argv->cap * sizeof *argv->items));
    }
  argv->items[argv->len++] = item;
  argv->items[argv->len] = NULL;
}

/* ---- what the sandbox must look like ------------------------------------------------------
 *
 * bubblewrap 0.8 turns --bind-fd back into a path (realpath of /proc/self/fd/N when it starts)
 * and mounts that path later, so a symlink raced into a component in between still decides what
 * gets mounted. So before the command runs, this launcher runs once more inside the sandbox and
 * checks the result: every writable mount is one of the directories opened here (or a host
 * mount already beneath one), a filesystem bwrap made fresh (tmpfs, proc, devpts), or a device
 * node; every protected path is read-only and, where it existed, the very file opened here. */

typedef struct {
  dev_t dev;
  ino_t ino;
} Identity;

typedef struct {
  Identity id; /* {0, 0}: made by bwrap, only read-only-ness is checked */
  char *path;
} Protected;

static Identity *writable;
static size_t n_writable, cap_writable;
static Protected *protected_paths;
static size_t n_protected, cap_protected;

static void
expect_writable (Identity id)
{
  if (n_writable == cap_writable)
    {
      cap_writable = cap_writable < 16 ? 16 : cap_writable * 2;
      writable = checked (realloc (writable, cap_writable * sizeof *writable));
    }
  writable[n_writable++] = id;
}

static void
expect_protected (Identity id, const char *path)
{
  if (strchr (path, '\n') != NULL)
    fatal ("cannot protect a path with a newline in it: '%s'", path);
  if (n_protected == cap_protected)
    {
      cap_protected = cap_protected < 16 ? 16 : cap_protected * 2;
      protected_paths = checked (realloc (protected_paths, cap_protected * sizeof *protected_paths));
    }
  protected_paths[n_protected++] = (Protected) { id, format ("%s", path) };
}

static Identity
identity_of (int fd, const char *path)
{
  struct stat st;

  if (fstat (fd, &st) != 0)
    fatal ("cannot stat '%s': %s", path, strerror (errno));
  return (Identity) { st.st_dev, st.st_ino };
}

/* `--bind-fd FD DEST` and friends, DEST copied: FD stays open (not close-on-exec) for bwrap,
 * which closes it once mounted, so the command never holds it. */
static void
add_fd_mount (Argv *argv, const char *option, int fd, const char *dest)
{
  if (fd < 0)
    fatal ("cannot open '%s': %s", dest, strerror (errno));
  if (strcmp (option, "--bind-fd") == 0)
    expect_writable (identity_of (fd, dest));
  else
    expect_protected (identity_of (fd, dest), dest);
  argv_add (argv, (char *) option);
  argv_add (argv, format ("%d", fd));
  argv_add (argv, format ("%s", dest));
}

/* ---- paths --------------------------------------------------------------------------------- */

static int
open_beneath_nofollow (int dirfd, const char *path, int flags)
{
  struct open_how how = { .flags = (uint64_t) flags, .resolve = RESOLVE_NO_SYMLINKS };

  return (int) syscall (SYS_openat2, dirfd, path, &how, sizeof how);
}

static char **roots;
static size_t n_roots;

/* Whether a normalised absolute path lies at or beneath one of the writable roots. */
static int
is_writable (const char *path)
{
  for (size_t i = 0; i < n_roots; i++)
    {
      size_t len = strlen (roots[i]);

      if (strcmp (roots[i], "/") == 0)
        return 1;
      if (strncmp (path, roots[i], len) == 0 && (path[len] == '\0' || path[len] == '/'))
        return 1;
    }
  return 0;
}

/* `base/relative` (or `relative` alone when absolute) without "." and "..": valid only for a path
 * resolved with RESOLVE_NO_SYMLINKS, where ".." is lexical. */
static char *
join_normalised (const char *base, const char *relative)
{
  char *joined = relative[0] == '/' ? format ("%s", relative) : format ("%s/%s", base, relative);
  char *out = checked (malloc (strlen (joined) + 2));
  size_t len = 0;

  for (char *part = strtok (joined, "/"); part != NULL; part = strtok (NULL, "/"))
    {
      if (strcmp (part, ".") == 0)
        continue;
      if (strcmp (part, "..") == 0)
        {
          while (len > 0 && out[len - 1] != '/')
            len--;
          if (len > 0)
            len--;
          continue;
        }
      out[len++] = '/';
      memcpy (out + len, part, strlen (part));
      len += strlen (part);
    }
  if (len == 0)
    out[len++] = '/';
  out[len] = '\0';
  free (joined);
  return out;
}

/* The first line of a small file (a .git file, commondir), without its newline. */
static char *
read_first_line (int dirfd, const char *name)
{
  char buffer[PATH_MAX + 16];
  int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return NULL;
  n = read (fd, buffer, sizeof buffer - 1);
  close (fd);
  if (n <= 0)
    return NULL;
  buffer[n] = '\0';
  buffer[strcspn (buffer, "\r\n")] = '\0';
  return format ("%s", buffer);
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

typedef struct {
  int dirfd;
  char *path;
  const char *name;
} Absent;

static Absent absent[MAX_GIT_DIRS * 3];
static size_t n_absent;

static Identity seen_git_dirs[MAX_GIT_DIRS];
static size_t n_seen_git_dirs;

static const char *const config_names[] = { "config", "config.worktree", "commondir" };

static void protect_git_dir (Argv *argv, int fd, const char *path, int depth);

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

/* A git directory named by a file inside it (commondir) or beside it (a .git file), resolved
 * without symlinks; protected when it lies inside a writable root. */
static void
follow_git_pointer (Argv *argv, const char *from_dir, const char *target, const char *what,
                    int depth)
{
  char *path = join_normalised (from_dir, target);
  int fd;

  if (is_writable (path))
    {
      fd = open_beneath_nofollow (AT_FDCWD, path, O_PATH | O_DIRECTORY);
      if (fd >= 0)
        protect_git_dir (argv, fd, path, depth + 1);
      else if (errno == ELOOP)
        fatal ("the git directory '%s' named by %s is reached through a symlink", path, what);
      else if (errno != ENOENT && errno != ENOTDIR)
        fatal ("cannot open the git directory '%s' named by %s: %s", path, what,
               strerror (errno));
    }
  free (path);
}

/* A .git file of a linked worktree or a submodule, named by its git directory: read-only and a
 * mount point, so that it cannot be pointed at a git directory the command made. */
static void
protect_dotgit_file (Argv *argv, const char *path)
{
  struct stat st;
  int fd;

  if (!is_writable (path))
    return;
  fd = open_beneath_nofollow (AT_FDCWD, path, O_PATH);
  if (fd < 0)
    {
      if (errno == ELOOP)
        fatal ("'%s' is reached through a symlink", path);
      return; /* gone: git no longer finds that worktree there */
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return;
    }
  add_fd_mount (argv, "--ro-bind-fd", fd, path);
}

/* core.worktree of a git directory's config (set for submodules), or NULL. Lines only: a
 * value git would read differently is at worst a .git file left unprotected here, and the
 * config itself is read-only. */
static char *
configured_worktree (int gitdir_fd)
{
  char buffer[65536];
  int fd = openat (gitdir_fd, "config", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int in_core = 0;
  ssize_t n;

  if (fd < 0)
    return NULL;
  n = read (fd, buffer, sizeof buffer - 1);
  close (fd);
  if (n <= 0)
    return NULL;
  buffer[n] = '\0';
  for (char *line = strtok (buffer, "\n"); line != NULL; line = strtok (NULL, "\n"))
    {
      char *key = line + strspn (line, " \t");
      char *value, *end;

      if (key[0] == '[')
        {
          in_core = strncasecmp (key, "[core]", 6) == 0;
          continue;
        }
      if (!in_core || strncasecmp (key, "worktree", 8) != 0)
        continue;
      value = key + 8 + strspn (key + 8, " \t");
      if (value[0] != '=')
        continue;
      value += 1 + strspn (value + 1, " \t");
      end = value + strlen (value);
      while (end > value && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        *--end = '\0';
      if (value[0] == '"' && end > value + 1 && end[-1] == '"')
        {
          end[-1] = '\0';
          value++;
        }
      return value[0] != '\0' ? format ("%s", value) : NULL;
    }
  return NULL;
}

/* Every git directory beneath modules/ (submodules, whose names may contain slashes) or
 * worktrees/ (linked worktrees): a directory holding HEAD is one. Each directory on the way is a
 * mount point too, so none of them can be renamed away and replaced by one the command made. */
static void
protect_nested_git_dirs (Argv *argv, int dirfd, const char *path, int depth)
{
  DIR *dir;
  struct dirent *entry;
  int fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    fatal ("cannot list '%s': %s", path, strerror (errno));
  add_fd_mount (argv, "--bind-fd", fcntl (dirfd, F_DUPFD, 3), path);
  while ((entry = readdir (dir)) != NULL)
    {
      char *child_path;
      int child;

      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      child = open_beneath_nofollow (dirfd, entry->d_name, O_PATH | O_DIRECTORY);
      if (child < 0)
        continue; /* not a directory, or a symlink git does not follow here */
      child_path = format ("%s/%s", path, entry->d_name);
      if (kind_of (child, "HEAD", child_path) != 0)
        protect_git_dir (argv, child, child_path, depth + 1);
      else if (depth < MAX_GIT_DEPTH)
        {
          protect_nested_git_dirs (argv, child, child_path, depth + 1);
          close (child);
        }
      else
        close (child);
    }
  closedir (dir);
}

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
  if (fallback_read_only)
    {
      add_fd_mount (argv, "--ro-bind-fd", fd, path);
      return;
    }

  add_fd_mount (argv, "--bind-fd", fd, path);
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
        add_fd_mount (argv, "--ro-bind-fd", file, format ("%s/%s", path, config_names[i]));
      else if (errno == ENOENT)
        {
          Absent *a = &absent[n_absent++];

          a->dirfd = fcntl (fd, F_DUPFD_CLOEXEC, 3);
          a->path = format ("%s", path);
          a->name = config_names[i];
          if (a->dirfd < 0)
            fatal ("cannot keep '%s' open: %s", path, strerror (errno));
        }
      else
        fatal ("cannot open '%s/%s': %s", path, config_names[i], strerror (errno));
    }

  /* Where the working tree's .git file lies: a linked worktree names it in gitdir, a submodule
   * in core.worktree. */
  worktree_file = read_first_line (fd, "gitdir");
  if (worktree_file != NULL)
    {
      char *dotgit = join_normalised (path, worktree_file);

      protect_dotgit_file (argv, dotgit);
      free (dotgit);
      free (worktree_file);
    }
  worktree_file = configured_worktree (fd);
  if (worktree_file != NULL)
    {
      char *dir = join_normalised (path, worktree_file);
      char *dotgit = format ("%s/.git", dir);

      protect_dotgit_file (argv, dotgit);
      free (dotgit);
      free (dir);
      free (worktree_file);
    }

  commondir = read_first_line (fd, "commondir");
  if (commondir != NULL)
    {
      char *what = format ("'%s/commondir'", path);

      follow_git_pointer (argv, path, commondir, what, depth);
      free (what);
      free (commondir);
    }
  for (int i = 0; i < 2; i++)
    {
      const char *nested = i == 0 ? "modules" : "worktrees";
      int nested_fd = open_beneath_nofollow (fd, nested, O_PATH | O_DIRECTORY | O_CLOEXEC);

      if (nested_fd >= 0)
        {
          char *nested_path = format ("%s/%s", path, nested);

          protect_nested_git_dirs (argv, nested_fd, nested_path, depth);
          close (nested_fd);
          free (nested_path);
        }
    }
}

/* The repository a git started in `dir` finds there: a .git directory, or a .git file naming
 * the git directory elsewhere (a linked worktree, a submodule). Returns whether one was found. */
static int
protect_repository_at (Argv *argv, int dirfd, const char *dir)
{
  char *dotgit_path = format ("%s/.git", strcmp (dir, "/") == 0 ? "" : dir);
  mode_t kind = kind_of (dirfd, ".git", dir);

  if (kind == S_IFDIR)
    {
      int fd = open_beneath_nofollow (dirfd, ".git", O_PATH | O_DIRECTORY);

      if (fd < 0)
        fatal ("cannot open '%s': %s", dotgit_path, strerror (errno));
      protect_git_dir (argv, fd, dotgit_path, 0);
    }
  else if (kind == S_IFREG)
    {
      char *line = read_first_line (dirfd, ".git");
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
        }
      free (line);
    }
  else if (kind != 0)
    fatal ("'%s' is neither a directory nor a file; its git hooks cannot be protected",
           dotgit_path);
  else
    free (dotgit_path);
  return kind != 0;
}

/* For a root, the repository git finds from it: at the root itself or, while still inside a
 * writable root, in the nearest ancestor that has one. */
static void
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

/* After the call: a config name that was missing and now exists was made by the command; git
 * would read code from it, so it goes. */
static void
undo_planted_config (void)
{
  for (size_t i = 0; i < n_absent; i++)
    {
      struct stat st;

      if (fstatat (absent[i].dirfd, absent[i].name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (unlinkat (absent[i].dirfd, absent[i].name, S_ISDIR (st.st_mode) ? AT_REMOVEDIR : 0) == 0)
        fprintf (stderr,
                 "dsh-bwrap-exec: removed %s/%s, which the command created: a later git would "
                 "have run code it names\n",
                 absent[i].path, absent[i].name);
      else
        fprintf (stderr, "dsh-bwrap-exec: warning: %s/%s was created by the command and cannot "
                         "be removed: %s\n",
                 absent[i].path, absent[i].name, strerror (errno));
    }
}

/* ---- the step inside the sandbox ----------------------------------------------------------- */

/* Device numbers of the host's filesystems: a writable mount of anything else inside the
 * sandbox is a filesystem bwrap made fresh there. */
static dev_t *host_devs;
static size_t n_host_devs;

typedef struct {
  unsigned long id;
  dev_t dev;
  char *mount_point;
  int writable;
} MountLine;

/* Undoes mountinfo's octal escapes (space, tab, newline, backslash) in place. */
static void
unescape (char *text)
{
  char *out = text;

  for (char *in = text; *in != '\0'; in++)
    {
      if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
          in[3] >= '0' && in[3] <= '7')
        {
          *out++ = (char) ((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
          in += 3;
        }
      else
        *out++ = *in;
    }
  *out = '\0';
}

/* "ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS ..." */
static int
parse_mount_line (char *line, MountLine *mount)
{
  unsigned int major, minor;
  char *fields[6];
  char *save = NULL;

  for (int i = 0; i < 6; i++)
    if ((fields[i] = strtok_r (i == 0 ? line : NULL, " ", &save)) == NULL)
      return 0;
  if (sscanf (fields[2], "%u:%u", &major, &minor) != 2)
    return 0;
  mount->id = strtoul (fields[0], NULL, 10);
  mount->dev = makedev (major, minor);
  unescape (fields[4]);
  mount->mount_point = fields[4];
  mount->writable = strncmp (fields[5], "rw", 2) == 0 && (fields[5][2] == ',' ||
                                                         fields[5][2] == '\0');
  return 1;
}

/* Calls `visit` for each line of /proc/self/mountinfo. */
static void
for_each_mount (void (*visit) (MountLine *mount))
{
  FILE *file = fopen ("/proc/self/mountinfo", "re");
  char *line = NULL;
  size_t size = 0;

  if (file == NULL)
    fatal ("cannot read /proc/self/mountinfo: %s", strerror (errno));
  while (getline (&line, &size, file) > 0)
    {
      MountLine mount;

      line[strcspn (line, "\n")] = '\0';
      if (parse_mount_line (line, &mount))
        visit (&mount);
    }
  free (line);
  fclose (file);
}

/* Outside: remember the host's filesystems, and allow host mounts beneath a writable root (a
 * recursive bind brings them along). */
static void
note_host_mount (MountLine *mount)
{
  int fd;

  host_devs = checked (realloc (host_devs, (n_host_devs + 1) * sizeof *host_devs));
  host_devs[n_host_devs++] = mount->dev;
  if (!is_writable (mount->mount_point))
    return;
  fd = open_beneath_nofollow (AT_FDCWD, mount->mount_point, O_PATH | O_CLOEXEC);
  if (fd < 0)
    return; /* not reachable by this path: not reachable inside either */
  expect_writable (identity_of (fd, mount->mount_point));
  close (fd);
}

static int
is_host_dev (dev_t dev)
{
  for (size_t i = 0; i < n_host_devs; i++)
    if (host_devs[i] == dev)
      return 1;
  return 0;
}

static int
is_expected_writable (Identity id)
{
  for (size_t i = 0; i < n_writable; i++)
    if (writable[i].dev == id.dev && writable[i].ino == id.ino)
      return 1;
  return 0;
}

static unsigned long
mount_id_of (int fd, const char *path)
{
  struct statx stx;

  if (statx (fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) != 0 || !(stx.stx_mask & STATX_MNT_ID))
    fatal ("cannot tell which mount '%s' is on: %s", path, strerror (errno));
  return (unsigned long) stx.stx_mnt_id;
}

static const char *const shadowed_by_bwrap[] = { "/dev", "/proc", "/tmp", NULL };

static int
is_beneath_any (const char *path, const char *const *dirs)
{
  for (size_t i = 0; dirs[i] != NULL; i++)
    {
      size_t len = strlen (dirs[i]);

      if (strncmp (path, dirs[i], len) == 0 && (path[len] == '\0' || path[len] == '/'))
        return 1;
    }
  return 0;
}

/* Inside: a writable mount of a host filesystem must be a directory this call asked for (or a
 * device node of bwrap's /dev); anything else is what a raced symlink made bwrap mount. */
static void
check_sandbox_mount (MountLine *mount)
{
  struct stat st;
  int fd;

  if (!mount->writable || !is_host_dev (mount->dev))
    return;
  fd = open_beneath_nofollow (AT_FDCWD, mount->mount_point, O_PATH | O_CLOEXEC);
  if (fd < 0)
    fatal ("cannot check the writable mount at '%s': %s", mount->mount_point, strerror (errno));
  if (mount_id_of (fd, mount->mount_point) != mount->id)
    {
      /* The host's own mounts below /dev, /proc and /tmp come along with the root bind and lie
       * under the fresh ones bwrap mounts there first, out of reach; anything mounted later
       * lands on top of those, so it is reached. Elsewhere the path moved under us: refuse. */
      if (!is_beneath_any (mount->mount_point, shadowed_by_bwrap))
        fatal ("the writable mount at '%s' is not the one reached by that path",
               mount->mount_point);
      close (fd);
      return;
    }
  if (fstat (fd, &st) != 0)
    fatal ("cannot stat '%s': %s", mount->mount_point, strerror (errno));
  if (!S_ISCHR (st.st_mode) && !is_expected_writable ((Identity) { st.st_dev, st.st_ino }))
    fatal ("a writable mount at '%s' is not one this call asked for", mount->mount_point);
  close (fd);
}

static void
check_protected (const Protected *p)
{
  struct statfs fs;
  struct stat st;
  int fd = open_beneath_nofollow (AT_FDCWD, p->path, O_PATH | O_CLOEXEC);

  if (fd < 0)
    fatal ("cannot check '%s': %s", p->path, strerror (errno));
  if (fstatfs (fd, &fs) != 0 || fstat (fd, &st) != 0)
    fatal ("cannot check '%s': %s", p->path, strerror (errno));
  if (!(fs.f_flags & ST_RDONLY))
    fatal ("'%s' is not read-only in the sandbox", p->path);
  if ((p->id.dev != 0 || p->id.ino != 0) && (st.st_dev != p->id.dev || st.st_ino != p->id.ino))
    fatal ("'%s' in the sandbox is not the file that was protected", p->path);
  close (fd);
}

static void
write_all (int fd, const char *data, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        fatal ("cannot hand the sandbox its checks: %s", strerror (errno));
      data += n;
      len -= (size_t) n;
    }
}

/* bwrap runs this very launcher again, from a descriptor (our path may be hidden in the
 * sandbox), with what to check and the command's argv in a memfd: no argv limit applies. */
static void
add_inside_step (Argv *argv, char **command, int n_command)
{
  int self = open ("/proc/self/exe", O_RDONLY);
  int data = (int) syscall (SYS_memfd_create, "dsh-bwrap-exec", 0);

  if (self < 0 || data < 0)
    fatal ("cannot prepare the check inside the sandbox: %s", strerror (errno));
  for (size_t i = 0; i < n_writable; i++)
    {
      char *line = format ("W %llu %llu\n", (unsigned long long) writable[i].dev,
                           (unsigned long long) writable[i].ino);
      write_all (data, line, strlen (line));
      free (line);
    }
  for (size_t i = 0; i < n_host_devs; i++)
    {
      char *line = format ("H %llu\n", (unsigned long long) host_devs[i]);
      write_all (data, line, strlen (line));
      free (line);
    }
  for (size_t i = 0; i < n_protected; i++)
    {
      char *line = format ("P %llu %llu %s\n", (unsigned long long) protected_paths[i].id.dev,
                           (unsigned long long) protected_paths[i].id.ino, protected_paths[i].path);
      write_all (data, line, strlen (line));
      free (line);
    }
  write_all (data, "\n", 1);
  for (int i = 0; i < n_command; i++)
    write_all (data, command[i], strlen (command[i]) + 1);
  if (lseek (data, 0, SEEK_SET) != 0)
    fatal ("cannot prepare the check inside the sandbox: %s", strerror (errno));
  argv_add (argv, format ("/proc/self/fd/%d", self));
  argv_add (argv, "--inside");
  argv_add (argv, format ("%d", data));
  argv_add (argv, format ("%d", self));
}

static char *
read_all (int fd, size_t *length)
{
  size_t len = 0, cap = 1 << 16;
  char *buffer = checked (malloc (cap));
  ssize_t n;

  while ((n = read (fd, buffer + len, cap - len - 1)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        fatal ("cannot read the checks: %s", strerror (errno));
      len += (size_t) n;
      if (len + 1 == cap)
        buffer = checked (realloc (buffer, cap *= 2));
    }
  buffer[len] = '\0';
  *length = len;
  return buffer;
}

/* Inside the sandbox, before the command: check the mounts, then become the command. Failing to
 * run it is the command's failure, as a shell reports it. */
static int
run_inside (int data, int self)
{
  size_t len = 0, n_items = 0, at = 0;
  char *buffer;
  char **items;

  close (self);
  buffer = read_all (data, &len);
  close (data);

  /* The header: one check a line, up to an empty line. */
  while (at < len && buffer[at] != '\n')
    {
      char *line = buffer + at;
      char *end = strchr (line, '\n');
      unsigned long long dev, ino;
      int consumed = 0;

      if (end == NULL)
        fatal ("malformed checks");
      *end = '\0';
      at = (size_t) (end - buffer) + 1;
      if (sscanf (line, "W %llu %llu", &dev, &ino) == 2)
        expect_writable ((Identity) { (dev_t) dev, (ino_t) ino });
      else if (sscanf (line, "H %llu", &dev) == 1)
        {
          host_devs = checked (realloc (host_devs, (n_host_devs + 1) * sizeof *host_devs));
          host_devs[n_host_devs++] = (dev_t) dev;
        }
      else if (sscanf (line, "P %llu %llu %n", &dev, &ino, &consumed) == 2 && consumed > 0)
        expect_protected ((Identity) { (dev_t) dev, (ino_t) ino }, line + consumed);
      else
        fatal ("malformed checks");
    }
  at++;

  for_each_mount (check_sandbox_mount);
  for (size_t i = 0; i < n_protected; i++)
    check_protected (&protected_paths[i]);

  for (size_t i = at; i < len; i++)
    n_items += buffer[i] == '\0';
  if (n_items == 0)
    fatal ("malformed checks: no command");
  items = checked (calloc (n_items + 1, sizeof *items));
  for (size_t i = 0; i < n_items; i++)
    {
      items[i] = buffer + at;
      at += strlen (buffer + at) + 1;
    }
  fflush (stderr);
  execvp (items[0], items);
  fprintf (stderr, "dsh-bwrap-exec: cannot execute '%s': %s\n", items[0], strerror (errno));
  return errno == ENOENT ? 127 : 126;
}

/* ---- running bwrap --------------------------------------------------------------------------- */

static volatile sig_atomic_t bwrap_pid;

/* What another process sends us goes on to bwrap (and with it the sandbox); the terminal's own
 * signals already reached bwrap, being in our process group. */
static void
forward_signal (int signum, siginfo_t *info, void *context)
{
  (void) context;
  if (bwrap_pid > 0 && info->si_code != SI_KERNEL)
    kill (bwrap_pid, signum);
}

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* With config names to watch, we stay as bwrap's parent and look after it exits (its PID
 * namespace, and with it every process of the call, is gone by then); else we become bwrap. */
static int
run_bwrap (char **argv)
{
  struct sigaction action = { 0 };
  int status = 0;
  pid_t child;

  if (n_absent == 0)
    {
      execv (argv[0], argv);
      fatal ("cannot execute '%s': %s", argv[0], strerror (errno));
    }

  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    fatal ("prctl(PR_SET_PDEATHSIG) failed: %s", strerror (errno));
  action.sa_sigaction = forward_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&action.sa_mask);
  for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; i++)
    sigaction (forwarded_signals[i], &action, NULL);

  child = vfork ();
  if (child < 0)
    fatal ("cannot start bwrap: %s", strerror (errno));
  if (child == 0)
    {
      char line[PATH_MAX + 64];
      int len;

      for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; i++)
        signal (forwarded_signals[i], SIG_DFL);
      execv (argv[0], argv);
      len = snprintf (line, sizeof line, FATAL_PREFIX "cannot execute '%s': %s\n", argv[0],
                      strerror (errno));
      if (len > 0)
        (void) !write (STDERR_FILENO, line, (size_t) len < sizeof line ? (size_t) len : sizeof line - 1);
      _exit (EXIT_RUNNER_FAILURE);
    }
  bwrap_pid = child;
  while (waitpid (child, &status, 0) < 0)
    if (errno != EINTR)
      fatal ("waitpid failed: %s", strerror (errno));
  bwrap_pid = 0;

  undo_planted_config ();

  if (WIFSIGNALED (status))
    {
      struct rlimit no_core = { 0, 0 };
      int signum = WTERMSIG (status);

      setrlimit (RLIMIT_CORE, &no_core);
      signal (signum, SIG_DFL);
      raise (signum);
      return 128 + signum;
    }
  return WEXITSTATUS (status);
}

int
main (int argc, char **argv)
{
  static const char usage[] = "usage: dsh-bwrap-exec [--write ABSOLUTE-PATH]... -- BWRAP "
                              "OPTION... -- ARGV...";
  Argv out = { 0 };
  int *root_fds;
  int bwrap_at = -1, command_at = -1;

  if (argc == 4 && strcmp (argv[1], "--inside") == 0)
    return run_inside (atoi (argv[2]), atoi (argv[3]));

  roots = checked (calloc ((size_t) argc, sizeof *roots));
  root_fds = checked (calloc ((size_t) argc, sizeof *root_fds));
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        {
          bwrap_at = i + 1;
          break;
        }
      if (strcmp (argv[i], "--write") != 0 || i + 1 >= argc || argv[i + 1][0] != '/')
        fatal ("%s", usage);
      roots[n_roots++] = argv[++i];
    }
  /* Ancestors first: a root bound over another's ancestor would hide that root's mount. */
  for (size_t i = 1; i < n_roots; i++)
    for (size_t j = i; j > 0 && strlen (roots[j - 1]) > strlen (roots[j]); j--)
      {
        char *swap = roots[j];

        roots[j] = roots[j - 1];
        roots[j - 1] = swap;
      }
  for (int i = bwrap_at; bwrap_at > 0 && i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        command_at = i + 1;
        break;
      }
  if (bwrap_at < 0 || bwrap_at >= argc || argv[bwrap_at][0] != '/' || command_at < 0 ||
      command_at >= argc)
    fatal ("%s", usage);

  for (int i = bwrap_at; i < command_at - 1; i++)
    argv_add (&out, argv[i]);

  /* The roots arrive canonical: a symlink on the way to one was put there since, by a command
   * racing this call, and following it would make whatever it points to writable. A missing
   * root matches nothing until it exists. */
  for (size_t i = 0; i < n_roots; i++)
    {
      root_fds[i] = open_beneath_nofollow (AT_FDCWD, roots[i], O_PATH | O_DIRECTORY);
      if (root_fds[i] >= 0)
        add_fd_mount (&out, "--bind-fd", root_fds[i], roots[i]);
      else if (errno == ELOOP)
        fatal ("a symlink appeared on the way to '%s'", roots[i]);
      else if (errno != ENOENT && errno != ENOTDIR)
        fatal ("cannot open '%s': %s", roots[i], strerror (errno));
    }
  /* After every root is bound, so that no later bind covers a protection. */
  for (size_t i = 0; i < n_roots; i++)
    if (root_fds[i] >= 0)
      protect_repository_of (&out, root_fds[i], roots[i]);

  argv_add (&out, "--");
  /* With nothing writable to check and a short argv, bwrap runs the command itself. */
  if (n_writable > 0 || n_protected > 0 ||
      out.len + (size_t) (argc - command_at) > BWRAP_ARGV_BUDGET)
    {
      for_each_mount (note_host_mount);
      add_inside_step (&out, &argv[command_at], argc - command_at);
    }
  else
    for (int i = command_at; i < argc; i++)
      argv_add (&out, argv[i]);

  fflush (stderr);
  return run_bwrap (out.items);
}
