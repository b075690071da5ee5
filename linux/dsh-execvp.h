/* dsh-execvp.h — starting the command by name exactly as glibc's execvp() does, whichever C
 * library a launcher is linked with: the same PATH search (or /bin:/usr/bin without PATH), and a
 * file the kernel cannot execute (a script without a #! line) run by /bin/sh, which musl's
 * execvp does not do. Plain C, no allocation: safe in a vfork child.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* execve(path), then, if it is no executable format, /bin/sh with path as its script. */
static inline void
dsh_execve_or_script (const char *path, char *const argv[])
{
  size_t argc = 0;

  execve (path, argv, environ);
  if (errno != ENOEXEC)
    return;
  while (argv[argc] != NULL)
    argc++;
  {
    char *script_argv[argc + 2];

    script_argv[0] = (char *) "/bin/sh";
    script_argv[1] = (char *) path;
    for (size_t i = 1; i <= argc; i++)
      script_argv[i + 1] = argv[i];
    if (argc == 0)
      script_argv[2] = NULL;
    execve (script_argv[0], script_argv, environ);
  }
}

/* Returns only on failure, with errno set as glibc's execvp leaves it. */
static inline int
dsh_execvp (const char *file, char *const argv[])
{
  const char *path = getenv ("PATH");
  size_t file_len, path_len;
  int saw_eacces = 0;

  if (file[0] == '\0')
    {
      errno = ENOENT;
      return -1;
    }
  if (strchr (file, '/') != NULL)
    {
      dsh_execve_or_script (file, argv);
      return -1;
    }
  if (path == NULL)
    path = "/bin:/usr/bin";
  file_len = strnlen (file, NAME_MAX + 1);
  if (file_len > NAME_MAX)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  path_len = strnlen (path, PATH_MAX - 1);
  for (const char *dir = path;;)
    {
      const char *end = dir + strcspn (dir, ":");
      size_t dir_len = (size_t) (end - dir);

      /* An empty entry is the current directory, as it has always been for execvp. */
      if (dir_len <= path_len)
        {
          char candidate[dir_len + 1 + file_len + 1];

          memcpy (candidate, dir, dir_len);
          candidate[dir_len] = '/';
          memcpy (candidate + dir_len + (dir_len > 0), file, file_len + 1);
          dsh_execve_or_script (candidate, argv);
          switch (errno)
            {
            case EACCES:
              saw_eacces = 1;
              break;
            case ENOENT:
            case ESTALE:
            case ENOTDIR:
            case ENODEV:
            case ETIMEDOUT:
              break;
            default:
              return -1;
            }
        }
      if (*end == '\0')
        break;
      dir = end + 1;
    }
  if (saw_eacces)
    errno = EACCES;
  return -1;
}
