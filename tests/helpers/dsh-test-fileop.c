/* dsh-test-fileop — test helper: attempt exactly one file operation and report the kernel's answer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   dsh-test-fileop OP ARGS...
 *
 * Prints "ok" or the errno name ("EACCES") on stdout, so tests can assert what the kernel did,
 * and on failure also one coreutils-style line "dsh-test-fileop: OP 'PATH': <strerror>" on stderr,
 * so a sandbox's denial dialect appears where a real tool would print it. Exits 0 on success,
 * 1 when the operation failed, 2 on a usage error. `signal VIA TARGET SIGNUM` sends one signal
 * one way to our parent (the launcher) or a pid derived from it, and reports the same way.
 * `ioctl VIA DEVICE REQUEST [ARG]` issues one ioctl on a device opened for reading.
 * Plain libc; not installed.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>

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

/* A socket address holds about a hundred bytes, less than a deep scratch path: the socket is
 * bound by its name from inside its directory, which is where the kernel checks the rules. */
static int
bind_socket (const char *path)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  const char *slash = strrchr (path, '/');
  const char *name = slash != NULL ? slash + 1 : path;
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return -1;
  if (slash != NULL)
    {
      char *dir = strndup (path, slash == path ? 1 : (size_t) (slash - path));
      int changed = dir != NULL ? chdir (dir) : -1;

      free (dir);
      if (changed != 0)
        return -1;
    }
  if (strlen (name) >= sizeof addr.sun_path)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  strcpy (addr.sun_path, name);
  return bind (fd, (struct sockaddr *) &addr, sizeof addr);
}

/* Open for reading only, truncating: access mode 0 or, with `noacc`, 3 (neither read nor write). */
static int
open_truncating (const char *path, int accmode)
{
  int fd = open (path, accmode | O_TRUNC | O_CLOEXEC);

  return fd < 0 ? -1 : close (fd);
}

static int
openat2_truncating (const char *path)
{
  struct open_how how = { .flags = O_RDONLY | O_TRUNC | O_CLOEXEC };
  int fd = (int) syscall (SYS_openat2, AT_FDCWD, path, &how, sizeof how);

  return fd < 0 ? -1 : close (fd);
}

static int
ftruncate_path (const char *path)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd < 0 || ftruncate (fd, 0) != 0)
    return -1;
  return close (fd);
}

/* Re-open through a file handle (needs CAP_DAC_READ_SEARCH), for reading only, truncating. */
static int
open_by_handle_truncating (const char *path)
{
  struct {
    struct file_handle handle;
    unsigned char bytes[MAX_HANDLE_SZ];
  } h = { .handle.handle_bytes = MAX_HANDLE_SZ };
  int mount_id, mount_fd, fd;

  if (name_to_handle_at (AT_FDCWD, path, &h.handle, &mount_id, 0) != 0)
    return -1;
  /* Any descriptor on the file's mount will do, but not an O_PATH one. */
  mount_fd = open (path, O_RDONLY | O_CLOEXEC);
  if (mount_fd < 0)
    return -1;
  fd = open_by_handle_at (mount_fd, &h.handle, O_RDONLY | O_TRUNC | O_CLOEXEC);
  return fd < 0 ? -1 : close (fd);
}

static int
io_uring_available (void)
{
  struct io_uring_params params = { 0 };
  int fd = (int) syscall (SYS_io_uring_setup, 1, &params);

  return fd < 0 ? -1 : close (fd);
}

/* FS_IOC_SETFLAGS on a descriptor opened for reading: chattr +a / -a. */
static int
set_append_only (const char *path, int on)
{
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), flags = 0;

  if (fd < 0 || ioctl (fd, FS_IOC_GETFLAGS, &flags) != 0)
    return -1;
  flags = on ? flags | FS_APPEND_FL : flags & ~FS_APPEND_FL;
  if (ioctl (fd, FS_IOC_SETFLAGS, &flags) != 0)
    return -1;
  return close (fd);
}

#if defined(__x86_64__)
/* A call through the 32-bit table (int 0x80), which a 64-bit program may use too; the filter
 * must cover that table as well. Returns -errno on failure, as the kernel does. */
static long
int80 (long nr, long a, long b, long c)
{
  long ret;

  __asm__ volatile ("int $0x80"
                    : "=a"(ret)
                    : "a"(nr), "b"(a), "c"(b), "d"(c)
                    : "memory", "r8", "r9", "r10", "r11");
  return ret;
}

static int
int80_result (long ret)
{
  if (ret >= 0)
    return 0;
  errno = (int) -ret;
  return -1;
}

/* A copy of path where 32-bit calls can address it. */
static char *
low_copy (const char *path)
{
  char *low = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                    -1, 0);

  if (low == MAP_FAILED || strlen (path) >= 4096)
    return NULL;
  strcpy (low, path);
  return low;
}

/* truncate(2) (92) or open(O_RDONLY | O_TRUNC) (5) through the 32-bit table. */
static int
int80_truncating (const char *path, int by_open)
{
  char *low = low_copy (path);
  long ret;

  if (low == NULL)
    return -1;
  ret = by_open ? int80 (5, (long) low, O_RDONLY | O_TRUNC, 0) : int80 (92, (long) low, 0, 0);
  if (by_open && ret >= 0)
    close ((int) ret);
  return int80_result (ret);
}
#endif

/* ioctl(DEVICE opened for reading, REQUEST, ARG) through the native table, the 32-bit one
 * (int80) or x32's: the loop driver's requests need no more than a read-only descriptor. ARG is
 * a number, or a path whose descriptor (opened for reading) is passed; 0 when absent. */
static int
device_ioctl (const char *via, const char *device, const char *request, const char *argument)
{
  unsigned long req = strtoul (request, NULL, 0);
  int fd = open (device, O_RDONLY | O_CLOEXEC);
  long arg = 0, ret;

  if (fd < 0)
    return -1;
  if (argument != NULL && argument[0] == '/')
    arg = open (argument, O_RDONLY | O_CLOEXEC);
  else if (argument != NULL)
    arg = strtol (argument, NULL, 0);
  if (arg < 0)
    return -1;
  if (strcmp (via, "native") == 0)
    ret = syscall (SYS_ioctl, fd, req, arg);
#if defined(__x86_64__)
  else if (strcmp (via, "int80") == 0)
    ret = int80_result (int80 (54, fd, (long) req, arg));
  else if (strcmp (via, "x32") == 0)
    ret = syscall (0x40000000 | 514, fd, req, arg);
#endif
  else
    {
      errno = EINVAL;
      return -1;
    }
  return ret < 0 ? -1 : 0;
}

/* Lowers the launcher's limit on open files to nothing: it could then not find (through /proc)
 * what the command left running. */
static int
limit_launcher (void)
{
  struct rlimit none = { 0, 0 };

  return prlimit (getppid (), RLIMIT_NOFILE, &none, NULL);
}

static pid_t signal_target (const char *name);

/* Sets, unchanged, the open-files limit of a thread of the launcher's caller other than its
 * main one: Linux applies a limit set on any thread id to the whole process. -1 with ESRCH when
 * the caller has no other thread. */
static int
limit_caller_thread (void)
{
  pid_t caller = signal_target ("caller");
  char path[64];
  struct dirent *entry;
  struct rlimit now;
  DIR *tasks;
  pid_t tid = -1;

  snprintf (path, sizeof path, "/proc/%d/task", (int) caller);
  if (caller <= 0 || (tasks = opendir (path)) == NULL)
    return -1;
  while ((entry = readdir (tasks)) != NULL && tid < 0)
    if (entry->d_name[0] != '.' && atoi (entry->d_name) != caller)
      tid = atoi (entry->d_name);
  closedir (tasks);
  if (tid < 0)
    {
      errno = ESRCH;
      return -1;
    }
  if (prlimit (tid, RLIMIT_NOFILE, NULL, &now) != 0)
    return -1;
  return prlimit (tid, RLIMIT_NOFILE, &now, NULL);
}

/* The pid a signal test aims at, relative to our parent (the launcher, when run under it). */
static pid_t
signal_target (const char *name)
{
  if (strcmp (name, "launcher") == 0)
    return getppid ();
  if (strcmp (name, "group") == 0)
    return -getpgid (getppid ());
  if (strcmp (name, "zero") == 0)
    return 0;
  if (strcmp (name, "all") == 0)
    return -1;
  if (strcmp (name, "caller") == 0)
    {
      char path[64], line[512];
      const char *after_name;
      int fd, ppid = -1;
      ssize_t n;

      snprintf (path, sizeof path, "/proc/%d/stat", (int) getppid ());
      fd = open (path, O_RDONLY | O_CLOEXEC);
      n = fd < 0 ? -1 : read (fd, line, sizeof line - 1);
      if (n <= 0)
        return -2;
      close (fd);
      line[n] = '\0';
      after_name = strrchr (line, ')');
      if (after_name == NULL || sscanf (after_name + 1, " %*c %d", &ppid) != 1)
        return -2;
      return ppid;
    }
  return -2;
}

/* Sends signum to target one way; we ignore SIGUSR1 ourselves, so a group signal tells. */
static int
send_signal (const char *via, pid_t target, int signum)
{
  siginfo_t info = { .si_signo = signum, .si_code = SI_QUEUE, .si_pid = getpid (),
                     .si_uid = getuid () };

  signal (SIGUSR1, SIG_IGN);
  if (strcmp (via, "kill") == 0)
    return kill (target, signum);
  if (strcmp (via, "tkill") == 0)
    return (int) syscall (SYS_tkill, target, signum);
  if (strcmp (via, "tgkill") == 0)
    return (int) syscall (SYS_tgkill, target, target, signum);
  if (strcmp (via, "sigqueue") == 0)
    return (int) syscall (SYS_rt_sigqueueinfo, target, signum, &info);
  if (strcmp (via, "tgsigqueue") == 0)
    return (int) syscall (SYS_rt_tgsigqueueinfo, target, target, signum, &info);
  if (strcmp (via, "pidfd") == 0 || strcmp (via, "procfd") == 0)
    {
      char path[64];
      int fd;

      snprintf (path, sizeof path, "/proc/%d", (int) target);
      fd = strcmp (via, "pidfd") == 0 ? (int) syscall (SYS_pidfd_open, target, 0)
                                      : open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0)
        return -1;
      return (int) syscall (SYS_pidfd_send_signal, fd, signum, NULL, 0);
    }
  if (strcmp (via, "setown") == 0 || strcmp (via, "setown-ex") == 0)
    {
      struct f_owner_ex owner = { .type = target < 0 ? F_OWNER_PGRP : F_OWNER_PID,
                                  .pid = target < 0 ? -target : target };
      int fds[2];

      /* The kernel signals the descriptor's owner when it becomes readable. */
      if (pipe2 (fds, O_CLOEXEC) != 0)
        return -1;
      if (strcmp (via, "setown") == 0 ? fcntl (fds[0], F_SETOWN, target) != 0
                                      : fcntl (fds[0], F_SETOWN_EX, &owner) != 0)
        return -1;
      if (fcntl (fds[0], F_SETSIG, signum) != 0 ||
          fcntl (fds[0], F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || write (fds[1], "x", 1) != 1)
        return -1;
      return 0;
    }
#if defined(__x86_64__)
  if (strcmp (via, "int80-kill") == 0)
    return int80_result (int80 (37, target, signum, 0));
  if (strcmp (via, "x32-kill") == 0)
    return (int) syscall (0x40000000 | SYS_kill, target, signum);
#endif
  errno = EINVAL;
  return -1;
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
  if (strcmp (op, "open-trunc") == 0)
    return report (op, a, open_truncating (a, O_RDONLY));
  if (strcmp (op, "open-trunc-noacc") == 0)
    return report (op, a, open_truncating (a, O_ACCMODE));
  if (strcmp (op, "openat2-trunc") == 0)
    return report (op, a, openat2_truncating (a));
  if (strcmp (op, "open-by-handle-trunc") == 0)
    return report (op, a, open_by_handle_truncating (a));
  if (strcmp (op, "ftruncate") == 0)
    return report (op, a, ftruncate_path (a));
#if defined(__x86_64__)
  if (strcmp (op, "int80-truncate") == 0)
    return report (op, a, int80_truncating (a, 0));
  if (strcmp (op, "int80-open-trunc") == 0)
    return report (op, a, int80_truncating (a, 1));
#endif
  if (strcmp (op, "limit-launcher") == 0)
    return report (op, a, limit_launcher ());
  if (strcmp (op, "limit-caller-thread") == 0)
    return report (op, a, limit_caller_thread ());
  if (strcmp (op, "io-uring") == 0)
    return report (op, a, io_uring_available ());
  if (strcmp (op, "chattr") == 0 && b != NULL && (strcmp (b, "+a") == 0 || strcmp (b, "-a") == 0))
    return report (op, a, set_append_only (a, b[0] == '+'));
  if (strcmp (op, "signal") == 0 && b != NULL && argc > 4)
    {
      pid_t target = signal_target (b);

      if (target == -2)
        goto usage;
      return report (op, b, send_signal (a, target, atoi (argv[4])));
    }
  if (strcmp (op, "ioctl") == 0 && b != NULL && argc > 4)
    return report (op, b, device_ioctl (a, b, argv[4], argc > 5 ? argv[5] : NULL));
  if (strcmp (op, "tiocsti") == 0)
    {
      char c = '#';

      return report (op, a, ioctl (atoi (a), TIOCSTI, &c));
    }

usage:
  fprintf (stderr, "usage: dsh-test-fileop write|append|truncate|mkdir|unlink|mkfifo|bind|"
                   "mknod-null|utime|procfd-write|tiocsti|open-trunc|open-trunc-noacc|"
                   "openat2-trunc|open-by-handle-trunc|ftruncate|io-uring|int80-truncate|"
                   "int80-open-trunc|limit-launcher|limit-caller-thread PATH-OR-FD [TEXT] | "
                   "chmod PATH OCTAL | chattr PATH +a|-a | rename|link SRC DST | "
                   "symlink TARGET PATH | signal kill|tkill|tgkill|sigqueue|tgsigqueue|pidfd|"
                   "procfd|setown|setown-ex|int80-kill|x32-kill launcher|caller|group|zero|all "
                   "SIGNUM | ioctl native|int80|x32 DEVICE REQUEST [NUMBER|PATH]\n");
  return 2;
}
