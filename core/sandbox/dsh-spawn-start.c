/* dsh-spawn-start.c — starts the command's process. On Linux, for a program given by its path
 * (every runner and probe), a vfork-style clone runs a few steps in our memory and execs:
 * glibc's posix_spawn() would first reset each of the 64 signals in two system calls; here
 * only the signals this process catches (found in one call each) and the ones the command
 * must get at their default are reset. Anything else, and elsewhere, goes to posix_spawnp().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include "dsh-spawn-start-private.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#endif

extern char **environ;

static int
start_with_posix_spawn (pid_t *pid, const char *const *argv, char *const *envp,
                        const DshSpawnStart *start)
{
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  int rc;

  posix_spawn_file_actions_init (&actions);
  if (start->stdin_fd >= 0)
    posix_spawn_file_actions_adddup2 (&actions, start->stdin_fd, STDIN_FILENO);
  if (start->stdout_fd >= 0)
    posix_spawn_file_actions_adddup2 (&actions, start->stdout_fd, STDOUT_FILENO);
  if (start->null_stdio)
    {
      posix_spawn_file_actions_addopen (&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
      posix_spawn_file_actions_addopen (&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    }
  posix_spawn_file_actions_adddup2 (&actions, start->stderr_fd, STDERR_FILENO);
  if (start->cwd != NULL)
    posix_spawn_file_actions_addchdir_np (&actions, start->cwd);
  if (start->close_inherited_fds)
    posix_spawn_file_actions_addclosefrom_np (&actions, STDERR_FILENO + 1);
  posix_spawnattr_init (&attr);
  posix_spawnattr_setsigdefault (&attr, start->defaults);
  posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSIGDEF);

  rc = posix_spawnp (pid, argv[0], &actions, &attr, (char *const *) argv, envp);
  posix_spawn_file_actions_destroy (&actions);
  posix_spawnattr_destroy (&attr);
  return rc;
}

#ifdef __linux__
/* Everything the child needs, prepared by the parent: the child runs in our memory while we
 * wait, so it calls nothing that allocates or takes a lock. */
typedef struct {
  const char *path;
  char *const *argv;
  char *const *envp;
  const DshSpawnStart *start;
  sigset_t mask;
  /* Set by the child when a step failed: the errno that kept the command from starting. */
  int error;
} Child;

static gboolean
move_fd (int from, int to)
{
  /* dup2() onto itself would keep close-on-exec set. */
  if (from == to)
    return fcntl (to, F_SETFD, 0) == 0;
  return dup2 (from, to) == to;
}

static gboolean
open_null_on (int to, int flags)
{
  int fd = open ("/dev/null", flags | O_CLOEXEC);

  if (fd < 0)
    return FALSE;
  if (fd == to)
    return fcntl (to, F_SETFD, 0) == 0;
  if (dup2 (fd, to) != to)
    return FALSE;
  close (fd);
  return TRUE;
}

static void
close_from (int lowest)
{
  struct rlimit limit;
  int highest = 1024;

  if (syscall (SYS_close_range, (unsigned int) lowest, ~0U, 0) == 0)
    return;
  /* Kernels before 5.9: each descriptor the limit allows. */
  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    highest = (int) MIN (limit.rlim_cur, (rlim_t) G_MAXINT);
  for (int fd = lowest; fd < highest; fd++)
    close (fd);
}

/* Until exec this is our memory, our handlers: a signal caught here would run our handler in
 * the child. All are blocked since the clone; each caught one goes back to its default (exec
 * would reset it anyway), and so does each one the command must get at its default. */
static void
reset_signals (const sigset_t *defaults)
{
  const struct sigaction default_action = { .sa_handler = SIG_DFL };

  for (int sig = 1; sig < NSIG; sig++)
    {
      struct sigaction current;

      if (sig == SIGKILL || sig == SIGSTOP)
        continue;
      if (sigismember (defaults, sig) == 1)
        sigaction (sig, &default_action, NULL);
      /* glibc's own signals (SIGCANCEL, SIGSETXID) answer EINVAL here and check their sender. */
      else if (sigaction (sig, NULL, &current) == 0 && current.sa_handler != SIG_DFL &&
               current.sa_handler != SIG_IGN)
        sigaction (sig, &default_action, NULL);
    }
}

static int
child_main (void *data)
{
  Child *child = data;
  const DshSpawnStart *start = child->start;

  if ((start->stdin_fd >= 0 && !move_fd (start->stdin_fd, STDIN_FILENO)) ||
      (start->stdout_fd >= 0 && !move_fd (start->stdout_fd, STDOUT_FILENO)) ||
      (start->null_stdio && (!open_null_on (STDIN_FILENO, O_RDONLY) ||
                             !open_null_on (STDOUT_FILENO, O_WRONLY))) ||
      !move_fd (start->stderr_fd, STDERR_FILENO) ||
      (start->cwd != NULL && chdir (start->cwd) != 0))
    {
      child->error = errno != 0 ? errno : EBADF;
      _exit (127);
    }
  if (start->close_inherited_fds)
    close_from (STDERR_FILENO + 1);
  reset_signals (start->defaults);
  sigprocmask (SIG_SETMASK, &child->mask, NULL);
  execve (child->path, child->argv, child->envp);
  child->error = errno;
  _exit (127);
}

static int
start_with_clone (pid_t *pid, const char *const *argv, char *const *envp,
                  const DshSpawnStart *start)
{
  /* The child's stack, in our frame: we are suspended until it execs or exits (CLONE_VFORK),
   * and it only makes a few system calls. */
  guint64 stack[4096];
  Child child = { .path = argv[0], .argv = (char *const *) argv, .envp = envp,
                  .start = start };
  sigset_t all;
  pid_t child_pid;
  int saved_errno;

  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &child.mask);
  child_pid = clone (child_main, stack + G_N_ELEMENTS (stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
  saved_errno = errno;
  pthread_sigmask (SIG_SETMASK, &child.mask, NULL);

  if (child_pid < 0)
    return saved_errno;
  if (child.error != 0)
    {
      /* It never ran: reap what is left of it. */
      while (waitpid (child_pid, NULL, 0) < 0 && errno == EINTR)
        ;
      return child.error;
    }
  *pid = child_pid;
  return 0;
}
#endif

int
dsh_spawn_start (pid_t *pid, const char *const *argv, char *const *envp,
                 const DshSpawnStart *start)
{
  if (envp == NULL)
    envp = environ;
#ifdef __linux__
  /* A bare name is looked up on PATH as exec would (scripts without #! included): posix_spawnp
   * does that right. */
  if (strchr (argv[0], '/') != NULL)
    return start_with_clone (pid, argv, envp, start);
#endif
  return start_with_posix_spawn (pid, argv, envp, start);
}
