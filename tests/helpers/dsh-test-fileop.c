/* dsh-test-fileop — test helper: attempt exactly one file operation and report the kernel's answer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   dsh-test-fileop OP ARGS...
 *
 * Prints "ok" or the errno name ("EACCES") on stdout, so tests can assert what the kernel did,
 * and on failure also one coreutils-style line "dsh-test-fileop: OP 'PATH': <strerror>" on stderr,
 * so a sandbox's denial dialect appears where a real tool would print it. Exits 0 on success,
 * 1 when the operation failed, 2 on a usage error. Plain libc; not installed.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

static int
report (const char *op, const char *path, int rc)
{
  int errnum = errno;

  if (rc == 0)
    {
      puts ("ok");
      return 0;
    }
  puts (strerrorname_np (errnum) ? strerrorname_np (errnum) : "EUNKNOWN");
  fprintf (stderr, "dsh-test-fileop: %s '%s': %s\n", op, path, strerror (errnum));
  return 1;
}

static int
write_text (const char *path, int flags, const char *text)
{
  size_t len = strlen (text);
  int fd = open (path, flags | O_CLOEXEC, 0644);

  if (fd < 0)
    return -1;
  if (write (fd, text, len) != (ssize_t) len)
    {
      int errnum = errno;

      close (fd);
      errno = errnum;
      return -1;
    }
  return close (fd);
}

/* Reopen a read-only descriptor for writing through its /proc magic link. */
static int
write_through_proc_fd (const char *path)
{
  char link[64];
  int ro, rw;

  ro = open (path, O_RDONLY | O_CLOEXEC);
  if (ro < 0)
    return -1;
  snprintf (link, sizeof link, "/proc/self/fd/%d", ro);
  rw = open (link, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (rw < 0)
    return -1;
  if (write (rw, "changed\n", 8) != 8)
    return -1;
  return close (rw);
}

static int
bind_socket (const char *path)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return -1;
  if (strlen (path) >= sizeof addr.sun_path)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  strcpy (addr.sun_path, path);
  return bind (fd, (struct sockaddr *) &addr, sizeof addr);
}

int
main (int argc, char **argv)
{
  const char *op = argc > 1 ? argv[1] : "";
  const char *a = argc > 2 ? argv[2] : NULL;
  const char *b = argc > 3 ? argv[3] : NULL;

  if (a == NULL)
    goto usage;

  if (strcmp (op, "write") == 0)
    return report (op, a, write_text (a, O_WRONLY | O_CREAT | O_TRUNC, b ? b : "changed\n"));
  if (strcmp (op, "append") == 0)
    return report (op, a, write_text (a, O_WRONLY | O_APPEND, b ? b : "changed\n"));
  if (strcmp (op, "truncate") == 0)
    return report (op, a, truncate (a, 0));
  if (strcmp (op, "mkdir") == 0)
    return report (op, a, mkdir (a, 0755));
  if (strcmp (op, "unlink") == 0)
    return report (op, a, unlink (a));
  if (strcmp (op, "mkfifo") == 0)
    return report (op, a, mkfifo (a, 0644));
  if (strcmp (op, "bind") == 0)
    return report (op, a, bind_socket (a));
  if (strcmp (op, "mknod-null") == 0)
    return report (op, a, mknod (a, S_IFCHR | 0666, makedev (1, 3)));
  if (strcmp (op, "utime") == 0)
    return report (op, a, utimensat (AT_FDCWD, a, NULL, 0));
  if (strcmp (op, "procfd-write") == 0)
    return report (op, a, write_through_proc_fd (a));
  if (strcmp (op, "chmod") == 0 && b != NULL)
    return report (op, a, chmod (a, (mode_t) strtoul (b, NULL, 8)));
  if (strcmp (op, "rename") == 0 && b != NULL)
    return report (op, a, rename (a, b));
  if (strcmp (op, "link") == 0 && b != NULL)
    return report (op, a, link (a, b));
  if (strcmp (op, "symlink") == 0 && b != NULL)
    return report (op, b, symlink (a, b));
  if (strcmp (op, "tiocsti") == 0)
    {
      char c = '#';

      return report (op, a, ioctl (atoi (a), TIOCSTI, &c));
    }

usage:
  fprintf (stderr, "usage: dsh-test-fileop write|append|truncate|mkdir|unlink|mkfifo|bind|"
                   "mknod-null|utime|procfd-write|tiocsti PATH-OR-FD [TEXT] | "
                   "chmod PATH OCTAL | rename|link SRC DST | symlink TARGET PATH\n");
  return 2;
}
