/* dsh-bwrap-git-hold.c — the work trees below a root that hold a protected .git, kept in place.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-bwrap-exec.h"
#include "dsh-bwrap-git-private.h"

/* Work trees below a root that hold a protected .git: each directory from beneath the root
 * down to the work tree becomes a mount point, bound before every protection and ancestors
 * first (a later bind would cover what lies beneath). Else renaming one of them away moves the
 * protected .git with it, and a .git the command makes takes its place. */
static char *pinned[MAX_GIT_DIRS * 4];
static size_t n_pinned;

int
is_root (const char *path)
{
  for (size_t i = 0; i < n_roots; i++)
    if (strcmp (roots[i], path) == 0)
      return 1;
  return 0;
}

/* Whether path is a root or lies above one. */
int
holds_a_root (const char *path)
{
  size_t len = strlen (path);

  for (size_t i = 0; i < n_roots; i++)
    if (strncmp (roots[i], path, len) == 0 && (roots[i][len] == '\0' || roots[i][len] == '/'))
      return 1;
  return 0;
}

static void
pin_directory (const char *path)
{
  for (size_t i = 0; i < n_pinned; i++)
    if (strcmp (pinned[i], path) == 0)
      return;
  if (n_pinned == sizeof pinned / sizeof pinned[0])
    fatal ("'%s' holds too many git work trees to protect", path);
  pinned[n_pinned++] = format ("%s", path);
}

void
pin_work_tree (const char *dir)
{
  char *path = format ("%s", dir);

  /* Up to, not including, the root or the first directory outside the roots. */
  while (is_writable (path) && !is_root (path))
    {
      char *slash = strrchr (path, '/');

      pin_directory (path);
      if (slash == NULL || slash == path)
        break;
      *slash = '\0';
    }
  free (path);
}

static int
shorter_first (const void *a, const void *b)
{
  size_t la = strlen (*(char *const *) a), lb = strlen (*(char *const *) b);

  return la < lb ? -1 : la > lb;
}

void
hold_work_trees (Argv *argv)
{
  qsort (pinned, n_pinned, sizeof *pinned, shorter_first);
  for (size_t i = 0; i < n_pinned; i++)
    {
      int fd = open_beneath_nofollow (AT_FDCWD, pinned[i], O_PATH | O_DIRECTORY);

      if (fd < 0)
        fatal ("cannot hold the work tree '%s': %s", pinned[i], strerror (errno));
      add_fd_mount (argv, "--bind-fd", fd, pinned[i]);
    }
}

void
hold_reset (void)
{
  for (size_t i = 0; i < n_pinned; i++)
    free (pinned[i]);
  n_pinned = 0;
}
