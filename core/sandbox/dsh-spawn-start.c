/* dsh-spawn-start.c — starts the command's process. On Linux, for a program given by its path
 * (every runner and probe), a vfork-style clone runs a few steps in our memory and execs:
 * glibc's posix_spawn() would first reset each of the 64 signals in two system calls; here
 * the kernel resets every caught one as it clones (clone3's CLONE_CLEAR_SIGHAND, on x86-64),
 * or else each caught one is found and reset in one call each, and only the ones the command
 * must get at their default are set. Anything else, and elsewhere, goes to posix_spawnp().
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
  /* The kernel already reset every caught signal to its default. */
  gboolean handlers_cleared;
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

/* Every descriptor from lowest to highest (-1: the last there may be). */
static void
close_range_of (int lowest, int highest)
{
  struct rlimit limit;
  int last = highest;

  if (syscall (SYS_close_range, (unsigned int) lowest,
               highest < 0 ? ~0U : (unsigned int) highest, 0) == 0)
    return;
  /* Kernels before 5.9: each descriptor the limit allows. */
  if (last < 0)
    {
      last = 1023;
      if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        last = (int) MIN (limit.rlim_cur, (rlim_t) G_MAXINT) - 1;
    }
  for (int fd = lowest; fd <= last; fd++)
    close (fd);
}

/* Every descriptor above 2 but the kept ones, which lose close-on-exec. */
static gboolean
close_all_but_kept (const DshSpawnStart *start)
{
  int lowest = STDERR_FILENO + 1;

  for (gsize i = 0; i < start->n_keep_fds; i++)
    {
      int fd = start->keep_fds[i];

      if (fd > lowest)
        close_range_of (lowest, fd - 1);
      if (fcntl (fd, F_SETFD, 0) != 0)
        return FALSE;
      lowest = fd + 1;
    }
  close_range_of (lowest, -1);
  return TRUE;
}

/* Until exec this is our memory, our handlers: a signal caught here would run our handler in
 * the child. All are blocked since the clone; each caught one goes back to its default (exec
 * would reset it anyway), unless the kernel did that already, and so does each one the command
 * must get at its default. */
static void
reset_signals (const sigset_t *defaults, gboolean handlers_cleared)
{
  const struct sigaction default_action = { .sa_handler = SIG_DFL };

  for (int sig = 1; sig < NSIG; sig++)
    {
      struct sigaction current;

      if (sig == SIGKILL || sig == SIGSTOP)
        continue;
      if (sigismember (defaults, sig) == 1)
        sigaction (sig, &default_action, NULL);
      else if (handlers_cleared)
        continue;
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
  if (start->close_inherited_fds && !close_all_but_kept (start))
    {
      child->error = errno;
      _exit (127);
    }
  reset_signals (start->defaults, child->handlers_cleared);
  sigprocmask (SIG_SETMASK, &child->mask, NULL);
  execve (child->path, child->argv, child->envp);
  child->error = errno;
  _exit (127);
}

#if defined(__x86_64__) && defined(SYS_clone3)
/* The kernel's struct clone_args, as far as clone3 needs it here. */
typedef struct {
  guint64 flags;
  guint64 pidfd;
  guint64 child_tid;
  guint64 parent_tid;
  guint64 exit_signal;
  guint64 stack;
  guint64 stack_size;
  guint64 tls;
} CloneArgs;

#define DSH_CLONE_CLEAR_SIGHAND G_GUINT64_CONSTANT (0x100000000)

/* clone3 has no libc wrapper: the child starts on its own stack, in the middle of this, so it
 * calls child_main at once and never returns here. The parent gets clone3's result: the
 * child's PID, or -errno. */
static long
clone3_child_main (CloneArgs *args, Child *child)
{
  register int (*fn) (void *) __asm__ ("r12") = child_main;
  register Child *arg __asm__ ("r13") = child;
  long ret;

  __asm__ volatile ("syscall\n\t"
                    "test %%rax, %%rax\n\t"
                    "jnz 1f\n\t"
                    "xor %%ebp, %%ebp\n\t"
                    "mov %%r13, %%rdi\n\t"
                    "call *%%r12\n\t"
                    "mov %%eax, %%edi\n\t"
                    "mov %[exit], %%eax\n\t"
                    "syscall\n\t"
                    "hlt\n"
                    "1:"
                    : "=a" (ret)
                    : "0" ((long) SYS_clone3), "D" (args), "S" (sizeof (*args)), "r" (fn),
                      "r" (arg), [exit] "i" (SYS_exit)
                    : "rcx", "r11", "memory");
  return ret;
}

/* Cleared once clone3 or its flag is refused (an older kernel, a seccomp filter). */
static gint clear_sighand_usable = TRUE;

/* Clones as clone() below does, with the kernel resetting every caught signal in the child;
 * FALSE (nothing started) when it cannot, and child_pid is then unset. */
static gboolean
clone_clearing_handlers (Child *child, guint64 *stack, gsize stack_size, pid_t *child_pid,
                         int *saved_errno)
{
  CloneArgs args = {
    .flags = CLONE_VM | CLONE_VFORK | DSH_CLONE_CLEAR_SIGHAND,
    .exit_signal = SIGCHLD,
    .stack = (guint64) (guintptr) stack,
    .stack_size = stack_size,
  };
  long ret;

  if (!g_atomic_int_get (&clear_sighand_usable))
    return FALSE;
  child->handlers_cleared = TRUE;
  ret = clone3_child_main (&args, child);
  if (ret == -ENOSYS || ret == -EINVAL || ret == -EPERM)
    {
      g_atomic_int_set (&clear_sighand_usable, FALSE);
      child->handlers_cleared = FALSE;
      return FALSE;
    }
  *child_pid = ret < 0 ? -1 : (pid_t) ret;
  *saved_errno = ret < 0 ? (int) -ret : 0;
  return TRUE;
}
#else
static gboolean
clone_clearing_handlers (Child *child, guint64 *stack, gsize stack_size, pid_t *child_pid,
                         int *saved_errno)
{
  return FALSE;
}
#endif

static int
start_with_clone (pid_t *pid, const char *const *argv, char *const *envp,
                  const DshSpawnStart *start)
{
  /* The child's stack, in our frame: we are suspended until it execs or exits (CLONE_VFORK),
   * and it only makes a few system calls. Its top is where a call may start. */
  _Alignas (16) guint64 stack[4096];
  Child child = { .path = argv[0], .argv = (char *const *) argv, .envp = envp,
                  .start = start };
  sigset_t all;
  pid_t child_pid;
  int saved_errno;

  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &child.mask);
  if (!clone_clearing_handlers (&child, stack, sizeof (stack), &child_pid, &saved_errno))
    {
      child_pid = clone (child_main, stack + G_N_ELEMENTS (stack),
                         CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
      saved_errno = errno;
    }
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
  /* Nothing here clears close-on-exec on a kept descriptor. */
  if (start->n_keep_fds > 0)
    return ENOTSUP;
  return start_with_posix_spawn (pid, argv, envp, start);
}

void
dsh_spawn_start_reset_handlers_for_testing (void)
{
#if defined(__linux__) && defined(__x86_64__) && defined(SYS_clone3)
  g_atomic_int_set (&clear_sighand_usable, FALSE);
#endif
}
