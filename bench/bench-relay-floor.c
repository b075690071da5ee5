/* bench-relay-floor.c — the floor under any relay that sees a command's stderr: the command
 * writes into a pipe (1 MiB, as exec's), and this process only splices what arrives on to its
 * own stderr, keeping nothing. bench/run.sh runs the raw runners' stderr flood under it, so
 * the cost of the pipe itself stands beside what exec's relay adds.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int
main (int argc, char **argv)
{
  posix_spawn_file_actions_t actions;
  int fds[2];
  pid_t pid;
  int status;

  if (argc < 2 || pipe2 (fds, O_CLOEXEC) != 0)
    return 125;
  (void) fcntl (fds[0], F_SETPIPE_SZ, 1024 * 1024);
  posix_spawn_file_actions_init (&actions);
  posix_spawn_file_actions_adddup2 (&actions, fds[1], STDERR_FILENO);
  if (posix_spawn (&pid, argv[1], &actions, NULL, argv + 1, environ) != 0)
    return 125;
  posix_spawn_file_actions_destroy (&actions);
  close (fds[1]);
  while (splice (fds[0], NULL, STDERR_FILENO, NULL, 1024 * 1024, SPLICE_F_MOVE) > 0)
    ;
  if (waitpid (pid, &status, 0) != pid)
    return 125;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}
