/* dsh-bwrap-undo-keeper.c — makes sure a planted config name is moved aside even when the
 * process that started bwrap is killed (a harness's timeout sends SIGKILL, and a command that
 * waits for it would otherwise keep what it planted): a small process of its own session,
 * forked before bwrap starts, waits until that process has either undone the call itself or
 * died; after a death it waits for the sandbox to be gone (bwrap names its first process on
 * --info-fd) and undoes the call in its place.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* Written to by the starter once it has undone the call; its end alone (EOF) means it died. */
static int release_fd = -1;

/* Everything but the keeper's own descriptors (sorted) goes: the keeper must hold no pipe of the
 * harness or the command open past its starter. */
static void
close_all_but (const int *keep, size_t n_keep)
{
  unsigned int next = 0;
  struct rlimit limit;

  for (size_t i = 0; i <= n_keep; i++)
    {
      unsigned int end = i < n_keep ? (unsigned int) keep[i] : ~0U;

      if (next < end && syscall (SYS_close_range, next, end - 1, 0) != 0)
        {
          unsigned int last = getrlimit (RLIMIT_NOFILE, &limit) == 0 &&
                                  limit.rlim_cur < 65536 ? (unsigned int) limit.rlim_cur : 65536;

          for (unsigned int fd = next; fd < end && fd < last; fd++)
            close ((int) fd);
        }
      if (i < n_keep)
        next = (unsigned int) keep[i] + 1;
    }
}

static int
lower_first (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;

  return x < y ? -1 : x > y;
}

/* The sandbox's first process in bwrap's `{ "child-pid": N, ... }` read so far, or 0. */
static pid_t
child_pid_in (const char *text)
{
  const char *at = strstr (text, "\"child-pid\":");

  if (at == NULL || strpbrk (at + strlen ("\"child-pid\":"), ",}\n") == NULL)
    return 0;
  return (pid_t) strtol (at + strlen ("\"child-pid\":"), NULL, 10);
}

/* Until the sandbox's first process is gone: the kernel ends it only once every process of its
 * PID namespace has exited. */
static void
wait_gone (pid_t pid)
{
  int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);

  if (pidfd >= 0)
    {
      struct pollfd gone = { .fd = pidfd, .events = POLLIN };

      while (poll (&gone, 1, -1) < 0 && errno == EINTR)
        ;
      close (pidfd);
      return;
    }
  /* Before Linux 5.3: ask every 10 ms. */
  while (kill (pid, 0) == 0 || errno == EPERM)
    nanosleep (&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
}

static _Noreturn void
keep (int release_end, int info_end)
{
  int *fds = checked (calloc (n_watched + 3, sizeof *fds));
  size_t n_fds = 0, len = 0;
  char info[4096] = "";
  int info_open = 1;
  char byte;
  ssize_t n;
  pid_t child;

  /* Out of the starter's process group and session: what kills them must leave this. */
  setsid ();
  signal (SIGPIPE, SIG_IGN);
  signal (SIGINT, SIG_DFL);
  signal (SIGTERM, SIG_DFL);
  signal (SIGHUP, SIG_DFL);
  signal (SIGQUIT, SIG_DFL);
  {
    sigset_t none;

    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
  }
  fds[n_fds++] = STDERR_FILENO;
  fds[n_fds++] = release_end;
  fds[n_fds++] = info_end;
  for (size_t i = 0; i < n_watched; i++)
    fds[n_fds++] = watched_dirfd (i);
  qsort (fds, n_fds, sizeof *fds, lower_first);
  close_all_but (fds, n_fds);

  /* Until the starter says it undid the call, or dies; meanwhile bwrap says whom to wait for. */
  for (;;)
    {
      struct pollfd watch[2] = { { .fd = release_end, .events = POLLIN },
                                 { .fd = info_open ? info_end : -1, .events = POLLIN } };

      if (poll (watch, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (watch[1].revents != 0)
        {
          n = len < sizeof info - 1 ? read (info_end, info + len, sizeof info - 1 - len) : 0;
          if (n > 0)
            info[len += (size_t) n] = '\0';
          else if (n == 0 || errno != EINTR)
            info_open = 0;
        }
      if (watch[0].revents != 0)
        {
          n = read (release_end, &byte, 1);
          if (n == 1)
            _exit (0); /* the starter undid the call itself */
          if (n == 0 || errno != EINTR)
            break;
        }
    }
  /* What bwrap wrote before it went the way of its parent. */
  while (info_open && child_pid_in (info) == 0 && len < sizeof info - 1)
    {
      n = read (info_end, info + len, sizeof info - 1 - len);
      if (n > 0)
        info[len += (size_t) n] = '\0';
      else if (n == 0 || errno != EINTR)
        break;
    }
  child = child_pid_in (info);
  if (child > 0)
    wait_gone (child);
  undo_planted_config ();
  _exit (0);
}

void
start_undo_keeper (Argv *argv)
{
  int release[2], info[2];
  pid_t keeper;

  if (n_watched == 0)
    return;
  if (pipe2 (release, O_CLOEXEC) != 0 || pipe2 (info, O_CLOEXEC) != 0)
    fatal ("cannot watch the call's git config names: %s", strerror (errno));
  keeper = fork ();
  if (keeper < 0)
    fatal ("cannot watch the call's git config names: %s", strerror (errno));
  if (keeper == 0)
    keep (release[0], info[0]);
  close (release[0]);
  close (info[0]);
  release_fd = release[1];
  /* As every descriptor opened for bwrap: open across its exec (the front then keeps it for
   * bwrap's process alone). */
  if (fcntl (info[1], F_SETFD, 0) != 0)
    fatal ("cannot hand bwrap its info descriptor: %s", strerror (errno));
  hand_to_bwrap (info[1]);
  argv_add (argv, "--info-fd");
  argv_add (argv, format ("%d", info[1]));
}

void
release_undo_keeper (void)
{
  if (release_fd < 0)
    return;
  (void) !write (release_fd, "u", 1);
  close (release_fd);
  release_fd = -1;
}
