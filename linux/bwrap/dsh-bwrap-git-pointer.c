/* dsh-bwrap-git-pointer.c — what a .git file, commondir or gitdir names, read and resolved the
 * way git reads and resolves it (the whole file; symlinks followed, then ".."), so that what is
 * protected is what git will use.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"
#include "dsh-bwrap-git-private.h"

/* `base/relative` (or `relative` alone when absolute) without "." and "..", lexically: what the
 * kernel reaches only where no symlink is on the way (a real path, or a missing rest). */
char *
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

/* A file that names a path (a .git file, commondir, gitdir), read as git reads it: all of it,
 * with only the line ends at its end taken off (a newline inside is part of the path), and for
 * gitdir trailing blanks too. NULL when missing or empty; too long to be a path is refused. */
char *
read_pointer (int dirfd, const char *name, const char *path, int trim_blanks)
{
  char buffer[PATH_MAX + 16];
  int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  size_t len = 0;
  ssize_t n;

  if (fd < 0)
    return NULL;
  while ((n = read (fd, buffer + len, sizeof buffer - 1 - len)) > 0)
    len += (size_t) n;
  close (fd);
  if (len == sizeof buffer - 1)
    fatal ("'%s/%s' is too long to name a path; its git directory cannot be protected", path,
           name);
  while (len > 0 && (buffer[len - 1] == '\n' || buffer[len - 1] == '\r' ||
                     (trim_blanks && (buffer[len - 1] == ' ' || buffer[len - 1] == '\t'))))
    len--;
  if (len == 0)
    return NULL;
  buffer[len] = '\0';
  return format ("%s", buffer);
}

/* What the absolute path names as the kernel resolves it, symlinks followed (as git resolves
 * what a .git file or commondir names), one component at a time: the real path of what exists,
 * with the missing rest after it. *exists: whether all of it is there; *through_writable_link:
 * whether a symlink on the way lies in a writable root, where the command could repoint it. */
char *
physical_path (const char *path, int *exists, int *through_writable_link)
{
  char *copy = format ("%s", path);
  char *current = format ("/");
  char *save = NULL;

  *exists = 1;
  *through_writable_link = 0;
  for (char *part = strtok_r (copy, "/", &save); part != NULL; part = strtok_r (NULL, "/", &save))
    {
      char *next;
      struct stat st;

      if (strcmp (part, ".") == 0)
        continue;
      if (strcmp (part, "..") == 0)
        {
          char *slash = strrchr (current, '/');

          if (slash != current)
            *slash = '\0';
          else
            current[1] = '\0';
          continue;
        }
      next = strcmp (current, "/") == 0 ? format ("/%s", part) : format ("%s/%s", current, part);
      if (lstat (next, &st) != 0)
        {
          if (errno != ENOENT && errno != ENOTDIR)
            fatal ("cannot resolve '%s': %s", path, strerror (errno));
          *exists = 0;
        }
      else if (S_ISLNK (st.st_mode))
        {
          char *real = realpath (next, NULL);

          if (is_writable (current))
            *through_writable_link = 1;
          if (real == NULL)
            *exists = 0; /* dangling: where it would lead is not known */
          else
            {
              free (next);
              next = real;
            }
        }
      free (current);
      current = next;
      if (!*exists)
        {
          /* The rest cannot be resolved by the kernel either: lexically, as far as it goes. */
          char *rest = save != NULL && *save != '\0' ? join_normalised (current, save)
                                                       : format ("%s", current);

          free (current);
          current = rest;
          break;
        }
    }
  free (copy);
  return current;
}

/* target as named in a file of from_dir: absolute, or relative to from_dir. */
char *
pointer_path (const char *from_dir, const char *target)
{
  return target[0] == '/' ? format ("%s", target) : format ("%s/%s", from_dir, target);
}

/* The directory target (named in a file of from_dir) leads to, wherever it lies, opened O_PATH
 * (-1 when it is not there), its real path in *out_path. */
int
open_pointed_dir (const char *from_dir, const char *target, char **out_path)
{
  char *raw = pointer_path (from_dir, target);
  int exists, link;

  *out_path = physical_path (raw, &exists, &link);
  free (raw);
  return exists ? open (*out_path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
}

/* Where `target`, named in a file of from_dir, leads git, when that lies in a writable root:
 * opened without following any symlink into *fd (-1 when it does not exist yet), and the path
 * returned. NULL when git would look outside every writable root. Git follows symlinks there:
 * one inside a writable root, which the command could repoint, refuses the call. */
char *
resolve_pointer (const char *from_dir, const char *target, const char *what, int flags, int *fd)
{
  char *raw = pointer_path (from_dir, target);
  int exists, through_writable_link;
  char *physical = physical_path (raw, &exists, &through_writable_link);

  *fd = -1;
  if (through_writable_link)
    fatal ("%s names '%s', which git reaches through a symlink inside the writable roots",
           what, raw);
  free (raw);
  if (!is_writable (physical))
    {
      free (physical);
      return NULL;
    }
  if (!exists)
    return physical;
  *fd = open_beneath_nofollow (AT_FDCWD, physical, flags);
  if (*fd < 0 && errno == ELOOP)
    fatal ("%s names '%s', which is reached through a symlink", what, physical);
  if (*fd < 0)
    fatal ("cannot open '%s', named by %s: %s", physical, what, strerror (errno));
  return physical;
}

