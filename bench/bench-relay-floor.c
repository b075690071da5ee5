/* bench-relay-floor.c — the floor under any relay of a command's stderr: the command writes
 * into a pipe (1 MiB, as exec's), and this process only splices what arrives on to its own
 * stderr, keeping nothing. With --read it reads every byte into a buffer instead (and writes
 * nothing when its stderr is /dev/null, passing the bytes on otherwise): the floor of a relay
 * that sees every byte, as exec's must to find a denial anywhere in a flood. bench/run.sh runs
 * the raw runners' stderr flood under it, so the cost of the pipe itself stands beside what
 * exec's relay adds.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char buffer[256 * 1024];

static int
is_null_device (int fd)
{
  struct stat ours;
  struct stat null;

  return fstat (fd, &ours) == 0 && S_ISCHR (ours.st_mode) && stat ("/dev/null", &null) == 0 &&
         ours.st_rdev == null.st_rdev;
}

int
main (int argc, char **argv)
{
  posix_spawn_file_actions_t actions;
  int read_all = argc > 1 && strcmp (argv[1], "--read") == 0;
  int to_null = is_null_device (STDERR_FILENO);
  int fds[2];
  pid_t pid;
  int status;
  ssize_t n;

  argv += read_all;
  argc -= read_all;
  if (argc < 2 || pipe2 (fds, O_CLOEXEC) != 0)
    return 125;
  (void) fcntl (fds[0], F_SETPIPE_SZ, 1024 * 1024);
  posix_spawn_file_actions_init (&actions);
  posix_spawn_file_actions_adddup2 (&actions, fds[1], STDERR_FILENO);
  if (posix_spawn (&pid, argv[1], &actions, NULL, argv + 1, environ) != 0)
    return 125;
  posix_spawn_file_actions_destroy (&actions);
  close (fds[1]);
  if (!read_all)
    while (splice (fds[0], NULL, STDERR_FILENO, NULL, 1024 * 1024, SPLICE_F_MOVE) > 0)
      ;
  else
    while ((n = read (fds[0], buffer, sizeof (buffer))) > 0)
      for (ssize_t done = 0; !to_null && done < n;)
        {
          ssize_t w = write (STDERR_FILENO, buffer + done, (size_t) (n - done));

          if (w <= 0)
            break;
          done += w;
        }
  if (waitpid (pid, &status, 0) != pid)
    return 125;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}
