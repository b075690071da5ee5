/* dsh-bwrap-argv.c — what the bubblewrap launcher hands bwrap: the writable roots opened without
 * following symlinks and bound from those descriptors, git's own files held read-only, and the
 * step inside the sandbox that checks the result. Shared by the launcher program and, for a
 * caller that exits after the command, the backend module that does this step in the caller.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"
#include "dsh-open-no-symlinks.h"

/* bubblewrap 0.8 refuses more than 9000 arguments, counting the command's and those read with
 * --args alike; past this many the command's argv travels in a memfd instead. */
#define BWRAP_ARGV_BUDGET 4096
#define BWRAP_MAX_ARGV 9000

void *
checked (void *p)
{
  if (p == NULL)
    fatal ("out of memory");
  return p;
}

char *
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

void
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

Identity *writable;
size_t n_writable;
static size_t cap_writable;
Protected *protected_paths;
size_t n_protected;
static size_t cap_protected;

void
expect_writable (Identity id)
{
  if (n_writable == cap_writable)
    {
      cap_writable = cap_writable < 16 ? 16 : cap_writable * 2;
      writable = checked (realloc (writable, cap_writable * sizeof *writable));
    }
  writable[n_writable++] = id;
}

void
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

Identity
identity_of (int fd, const char *path)
{
  struct stat st;

  if (fstat (fd, &st) != 0)
    fatal ("cannot stat '%s': %s", path, strerror (errno));
  return (Identity) { st.st_dev, st.st_ino };
}

/* `--bind-fd FD DEST` and friends, DEST copied: FD stays open (not close-on-exec) for bwrap,
 * which closes it once mounted, so the command never holds it. */
void
add_fd_mount (Argv *argv, const char *option, int fd, const char *dest)
{
  if (fd < 0)
    fatal ("cannot open '%s': %s", dest, strerror (errno));
  if (strcmp (option, "--bind-fd") == 0)
    expect_writable (identity_of (fd, dest));
  else
    expect_protected (identity_of (fd, dest), dest);
  hand_to_bwrap (fd);
  argv_add (argv, (char *) option);
  argv_add (argv, format ("%d", fd));
  argv_add (argv, format ("%s", dest));
}

/* ---- paths --------------------------------------------------------------------------------- */

int
open_beneath_nofollow (int dirfd, const char *path, int flags)
{
  return dsh_open_no_symlinks (dirfd, path, flags);
}

char **roots;
size_t n_roots;

/* Whether a normalised absolute path lies at or beneath one of the writable roots. */
int
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

/* ---- the whole argv ----------------------------------------------------------------------- */

void
build_bwrap_argv (int argc, char **argv, Argv *out_argv)
{
  static const char usage[] = "usage: dsh-bwrap-exec [--write ABSOLUTE-PATH]... -- BWRAP "
                              "OPTION... -- ARGV...";
  Argv out = { 0 }, protections = { 0 };
  int *root_fds;
  int bwrap_at = -1, command_at = -1;

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
  /* After every root is bound, and the work trees below them held in place, so that no later
   * bind covers a protection. */
  for (size_t i = 0; i < n_roots; i++)
    if (root_fds[i] >= 0)
      protect_repository_of (&protections, root_fds[i], roots[i]);
  hold_work_trees (&out);
  for (size_t i = 0; i < protections.len; i++)
    argv_add (&out, protections.items[i]);
  free (protections.items);
  start_undo_keeper (&out);

  argv_add (&out, "--");
  /* Always the step inside, even with nothing writable to check and no Landlock domain to
   * make: it refuses typing into a terminal (TIOCSTI) for the command, which bwrap's
   * --new-session alone does not keep from taking one that is no session's yet. */
  note_host_mounts ();
  add_inside_step (&out, &argv[command_at], argc - command_at);
  /* The mounts alone can be more than bwrap takes (a directory for each of thousands beneath
   * .git/modules/): refused here, with why, rather than by bwrap. */
  if (out.len > BWRAP_MAX_ARGV)
    fatal ("the sandbox needs %zu bwrap arguments, more than the %d bwrap takes: too many "
           "directories to hold in the git directories beneath the writable roots",
           out.len, BWRAP_MAX_ARGV);

  free (root_fds);
  *out_argv = out;
}
