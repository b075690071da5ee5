/* dsh-open-no-symlinks.h — opening a path without following a symlink anywhere on the way, for
 * both Linux launchers: openat2(RESOLVE_NO_SYMLINKS) where the kernel has it (5.6 on), else the
 * same refusal one component at a time (older kernels, or a filter that hides openat2). Plain C,
 * libc only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* O_NOFOLLOW alone only guards the last component: here each one is opened beneath the one
 * before, and a symlink anywhere ends the walk with ELOOP. "." and ".." are walked as openat2
 * walks them. flags: O_PATH, with O_DIRECTORY and O_CLOEXEC as wanted. */
static inline int
dsh_open_by_components (int dirfd, const char *path, int flags)
{
  char component[NAME_MAX + 1];
  const char *p = path;
  struct stat st;
  int fd;

  if (*p == '\0')
    {
      errno = ENOENT;
      return -1;
    }
  fd = *p == '/' ? open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
                 : openat (dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  while (fd >= 0)
    {
      size_t len;
      int next;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      len = strcspn (p, "/");
      if (len > NAME_MAX)
        {
          close (fd);
          errno = ENAMETOOLONG;
          return -1;
        }
      memcpy (component, p, len);
      component[len] = '\0';
      p += len;
      next = openat (fd, component, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      close (fd);
      if (next >= 0 && fstat (next, &st) == 0 && S_ISLNK (st.st_mode))
        {
          close (next);
          errno = ELOOP;
          return -1;
        }
      fd = next;
    }
  if (fd < 0)
    return -1;
  if ((flags & O_DIRECTORY) && (fstat (fd, &st) != 0 || !S_ISDIR (st.st_mode)))
    {
      close (fd);
      errno = ENOTDIR;
      return -1;
    }
  if (!(flags & O_CLOEXEC) && fcntl (fd, F_SETFD, 0) != 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

static inline int
dsh_open_no_symlinks (int dirfd, const char *path, int flags)
{
  struct open_how how = { .flags = (uint64_t) flags, .resolve = RESOLVE_NO_SYMLINKS };
  int fd = (int) syscall (SYS_openat2, dirfd, path, &how, sizeof how);

  if (fd < 0 && (errno == ENOSYS || errno == EPERM))
    fd = dsh_open_by_components (dirfd, path, flags);
  return fd;
}
