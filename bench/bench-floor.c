/* bench-floor.c — the floor under any wrapper built on this stack: a process that links what the
 * dsh-sandbox exec path links (the core's backend selection, on GLib and GModule, linked the
 * same way), spawns its argv and passes the exit status back, doing nothing else. bench/run.sh
 * runs raw runners under it, so what dsh-sandbox adds beyond this floor is its own work.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dsh-sandbox.h>
#include <spawn.h>
#include <sys/wait.h>

#include "dsh-backend-selector-private.h"

extern char **environ;

int
main (int argc, char **argv)
{
  pid_t pid;
  int status;

  /* Keep the link real, as dsh-sandbox's is: linked statically, only what is referenced comes
   * in, and the exec path brings in the backend selection (made here, never used). */
  g_autoptr (DshBackendSelector) selector = dsh_backend_selector_new (NULL, NULL);

  if (argc < 2 || dsh_sandbox_error_quark () == 0)
    return 125;
  if (posix_spawn (&pid, argv[1], NULL, NULL, argv + 1, environ) != 0)
    return 125;
  if (waitpid (pid, &status, 0) != pid)
    return 125;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}
