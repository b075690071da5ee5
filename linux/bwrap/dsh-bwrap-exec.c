/* dsh-bwrap-exec — the bubblewrap launcher: opens every writable root without following symlinks,
 * hands bwrap the descriptors and, from inside the sandbox, checks that what bwrap mounted
 * writable is exactly that (dsh-bwrap-inside.c), whatever a concurrent command does to the paths;
 * keeps the git files that a later unconfined git runs by itself read-only inside those roots
 * (dsh-bwrap-git.c); and lifts bwrap's argv limit.
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

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"
#include "dsh-child-relay.h"

_Noreturn void
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

/* The launcher's own process already passes every descriptor it opens for bwrap on. */
void
hand_to_bwrap (int fd)
{
  (void) fd;
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

/* With config names to watch, we stay as bwrap's parent and look after it exits (its PID
 * namespace, and with it every process of the call, is gone by then); else we become bwrap. */
static int
run_bwrap (char **argv)
{
  int status = 0;
  pid_t child;

  if (n_watched == 0)
    {
      execv (argv[0], argv);
      fatal ("cannot execute '%s': %s", argv[0], strerror (errno));
    }

  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    fatal ("prctl(PR_SET_PDEATHSIG) failed: %s", strerror (errno));
  dsh_catch_relayed_signals (forward_signal);

  child = vfork ();
  if (child < 0)
    fatal ("cannot start bwrap: %s", strerror (errno));
  if (child == 0)
    {
      char line[PATH_MAX + 64];
      int len;

      dsh_default_relayed_signals ();
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
  release_undo_keeper ();
  return dsh_exit_like_child (status);
}

int
main (int argc, char **argv)
{
  Argv out = { 0 };

  if (argc == 4 && strcmp (argv[1], "--inside") == 0)
    return run_inside (atoi (argv[2]), atoi (argv[3]));
  build_bwrap_argv (argc, argv, &out);
  fflush (stderr);
  return run_bwrap (out.items);
}
