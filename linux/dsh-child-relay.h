/* dsh-child-relay.h — what a launcher passes between its caller and the one child it runs: the
 * signals other processes send the launcher go on to the child, and the child's end comes back
 * as the launcher's own. Shared by both Linux launchers; plain C, libc only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <signal.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* A cancel from whoever started the launcher: interrupt, terminate, hang up, quit. */
#define DSH_RELAYED_SIGNALS { SIGINT, SIGTERM, SIGHUP, SIGQUIT }

/* The relayed signals as a set, to block them while the child's pid is not known yet. */
static inline void
dsh_relayed_signal_set (sigset_t *set)
{
  static const int relayed[] = DSH_RELAYED_SIGNALS;

  sigemptyset (set);
  for (size_t i = 0; i < sizeof relayed / sizeof relayed[0]; i++)
    sigaddset (set, relayed[i]);
}

/* Catches the relayed signals with `handler` (SA_SIGINFO, so it can tell the terminal's own
 * signals, which already reached the child, from those another process sent). */
static inline void
dsh_catch_relayed_signals (void (*handler) (int, siginfo_t *, void *))
{
  static const int relayed[] = DSH_RELAYED_SIGNALS;
  struct sigaction action = { 0 };

  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&action.sa_mask);
  for (size_t i = 0; i < sizeof relayed / sizeof relayed[0]; i++)
    sigaction (relayed[i], &action, NULL);
}

/* In the child before it execs: the relayed signals act as they would have without us. */
static inline void
dsh_default_relayed_signals (void)
{
  static const int relayed[] = DSH_RELAYED_SIGNALS;

  for (size_t i = 0; i < sizeof relayed / sizeof relayed[0]; i++)
    signal (relayed[i], SIG_DFL);
}

/* Ends the launcher the way its child ended (`status` from waitpid): dies of the same signal,
 * without a core dump of its own, so the caller sees the signal rather than a made-up status;
 * or returns the exit status to leave with. 128 + N only if signal N could not kill us. */
static inline int
dsh_exit_like_child (int status)
{
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
