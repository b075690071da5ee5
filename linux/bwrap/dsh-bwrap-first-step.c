/* dsh-bwrap-first-step.c — the bubblewrap launcher's first step done in a caller that exits after
 * the command: the roots are opened, bound and checked exactly as dsh-bwrap-exec would, and the
 * caller starts bwrap itself, one exec fewer. The step inside the sandbox is the launcher
 * program's, as ever.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dsh-backend.h"
#include "dsh-bwrap-exec.h"
#include "dsh-bwrap-first-step.h"

static DshBackendHost *step_host;
static jmp_buf step_failed;
static char failure[4096];

/* Where the launcher would print its line and exit, the step ends with that line. What the step
 * had allocated is left to the caller's exit, which comes soon. */
_Noreturn void
fatal (const char *format, ...)
{
  va_list args;
  int n = snprintf (failure, sizeof failure, "%s", FATAL_PREFIX);

  va_start (args, format);
  vsnprintf (failure + n, sizeof failure - (size_t) n, format, args);
  va_end (args);
  longjmp (step_failed, 1);
}

/* Close-on-exec here, so that nothing else this process starts gets it; the core keeps it open
 * in bwrap's process alone. */
void
hand_to_bwrap (int fd)
{
  if (fcntl (fd, F_SETFD, FD_CLOEXEC) != 0)
    fatal ("cannot keep a descriptor for bwrap: %s", strerror (errno));
  step_host->keep_fd (step_host, fd);
}

static int
is_launcher_argv (const char *const *argv)
{
  const char *slash = strrchr (argv[0], '/');

  return slash != NULL && strcmp (slash + 1, LAUNCHER_NAME) == 0 && argv[1] != NULL &&
         (strcmp (argv[1], "--write") == 0 || strcmp (argv[1], "--") == 0);
}

int
dsh_bwrap_take_first_step (DshBackendHost *host, const char *const *argv, int32_t *exit_status)
{
  static int taken;
  Argv out = { 0 };
  int argc = 0;

  /* A read-only call starts bwrap itself already; a second call in one process would find the
   * launcher's state of the first. */
  if (taken || !DSH_BACKEND_ABI_AT_LEAST (host, 2) || !is_launcher_argv (argv))
    return 0;
  taken = 1;
  while (argv[argc] != NULL)
    argc++;
  step_host = host;
  launcher_file = argv[0];
  if (setjmp (step_failed) != 0)
    {
      host->set_error (host, failure);
      *exit_status = EXIT_RUNNER_FAILURE;
      return -1;
    }
  build_bwrap_argv (argc, (char **) argv, &out);
  dsh_backend_push_args (host, (const char *const *) out.items);
  return 0;
}

void
dsh_bwrap_first_step_done (DshBackendHost *host)
{
  (void) host;
  undo_planted_config ();
  release_undo_keeper ();
}
