/* dsh-spawn.c — runs a command and watches its stderr: for exec, stdin and stdout pass straight
 * through, stderr streams to ours while a copy is kept for classification, and the signals a
 * terminal would send are forwarded; for probes, everything is quiet and time-bounded.
 *
 * This is the hot path of every exec, so the command starts without a copy of our address
 * space (dsh-spawn-start.c), and one poll loop with no helper thread watches it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include "dsh-spawn-private.h"
#include "dsh-stderr-relay-private.h"

#include "dsh-spawn-start-private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* After the command exits, output from a straggler holding stderr open is read this long. */
#define DRAIN_AFTER_EXIT_MS 200

/* The commands of the calls running now that forward signals, one slot each: 0 free, -1 taken
 * but not started (or already reaped), else the command's PID. Calls from several threads share
 * the process's dispositions, so the first call in installs the handlers and SIGPIPE's SIG_IGN
 * and the last one out puts back what it found; the handler reads the slots only. */
#define FORWARD_SLOTS 64

static volatile sig_atomic_t forwarded_pids[FORWARD_SLOTS];

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static GMutex dispositions_lock;
static guint dispositions_users;
static struct sigaction saved_forwarded[G_N_ELEMENTS (forwarded_signals)];
static struct sigaction saved_sigpipe;
static guint forwarding_users;

/* A signal another process sends us goes on to the commands. The terminal's own (SI_KERNEL)
 * already reached them, being in our process group; forwarding it too would deliver it twice. */
static void
forward_signal (int signum, siginfo_t *info, void *context)
{
  if (info->si_code == SI_KERNEL)
    return;
  for (guint i = 0; i < FORWARD_SLOTS; i++)
    {
      pid_t pid = forwarded_pids[i];

      if (pid > 0)
        kill (pid, signum);
    }
}

/* Before a call spawns: SIGPIPE ignored (a command that stops reading its stdin must not kill
 * us) and, with forward, the handlers in place and a slot taken; the slot's index, else -1 (no
 * forwarding: not asked, or more calls at once than slots). */
static int
dispositions_enter (gboolean forward)
{
  struct sigaction ignore = { .sa_handler = SIG_IGN };
  int slot = -1;

  sigemptyset (&ignore.sa_mask);
  g_mutex_lock (&dispositions_lock);
  if (dispositions_users++ == 0)
    sigaction (SIGPIPE, &ignore, &saved_sigpipe);
  for (guint i = 0; forward && slot < 0 && i < FORWARD_SLOTS; i++)
    {
      if (forwarded_pids[i] == 0)
        {
          forwarded_pids[i] = -1;
          slot = (int) i;
        }
    }
  if (slot >= 0 && forwarding_users++ == 0)
    {
      struct sigaction action = { 0 };

      action.sa_sigaction = forward_signal;
      sigemptyset (&action.sa_mask);
      action.sa_flags = SA_SIGINFO | SA_RESTART;
      for (guint i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
        sigaction (forwarded_signals[i], &action, &saved_forwarded[i]);
    }
  g_mutex_unlock (&dispositions_lock);
  return slot;
}

/* After the call: its slot freed, and what the first call found put back by the last. */
static void
dispositions_leave (int slot)
{
  g_mutex_lock (&dispositions_lock);
  if (slot >= 0)
    {
      forwarded_pids[slot] = 0;
      if (--forwarding_users == 0)
        {
          for (guint i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
            sigaction (forwarded_signals[i], &saved_forwarded[i], NULL);
        }
    }
  if (--dispositions_users == 0)
    sigaction (SIGPIPE, &saved_sigpipe, NULL);
  g_mutex_unlock (&dispositions_lock);
}

static int
open_pidfd (pid_t pid)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
  return (int) syscall (SYS_pidfd_open, pid, 0);
#else
  return -1;
#endif
}

/* A file handed to the command as stdin or stdout (stderr always reaches it as our pipe) that is
 * not a stream: the command gets a pipe instead, fed or drained here. A descriptor to the
 * caller's file or directory would let the command reopen it for writing through
 * /proc/self/fd/N, on the host's own mount, whatever the sandbox's view of it says. */
typedef struct {
  int source;      /* our stdin */
  int pipe_write;  /* -1 when done */
  char buffer[16384];
  gsize length;
  gsize offset;
} StdinPump;

static gboolean
needs_relay (int fd)
{
  struct stat st;

  /* Pipes, terminals and other character devices name no file a reopen could change. */
  return fstat (fd, &st) == 0 && !S_ISFIFO (st.st_mode) && !S_ISCHR (st.st_mode);
}

/* Copies what the command wrote to its stdout pipe on to ours; when ours refuses it, the
 * command's next write fails as it would have. Returns FALSE once the pipe is done. */
static gboolean
relay_stdout (int pipe_read)
{
  char buffer[16384];
  ssize_t n = read (pipe_read, buffer, sizeof (buffer));

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return TRUE;
  if (n <= 0)
    return FALSE;
  for (ssize_t done = 0; done < n;)
    {
      ssize_t w = write (STDOUT_FILENO, buffer + done, (size_t) (n - done));

      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return FALSE;
      done += w;
    }
  return TRUE;
}

static void
pump_close (StdinPump *pump)
{
  if (pump->pipe_write >= 0)
    close (pump->pipe_write);
  pump->pipe_write = -1;
}

/* Moves what it can without blocking on the pipe; a command that stops reading (or exits)
 * ends the pump. */
static void
pump_stdin (StdinPump *pump)
{
  while (pump->pipe_write >= 0)
    {
      ssize_t n;

      if (pump->offset == pump->length)
        {
          n = read (pump->source, pump->buffer, sizeof (pump->buffer));
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            {
              pump_close (pump);
              return;
            }
          pump->length = (gsize) n;
          pump->offset = 0;
        }
      n = write (pump->pipe_write, pump->buffer + pump->offset, pump->length - pump->offset);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return;
      if (n < 0)
        {
          pump_close (pump);
          return;
        }
      pump->offset += (gsize) n;
    }
}

/* Reads stderr until it closes and the child has exited (then at most DRAIN_AFTER_EXIT_MS
 * more), killing it at the deadline if there is one; returns the wait status. slot is the
 * call's forwarding slot, else -1. */
static int
stream_until_exit (pid_t pid,
                   int slot,
                   int err_fd,
                   int *out_fd,
                   StdinPump *pump,
                   const DshSpawnOptions *options,
                   GString *captured)
{
  int pidfd = open_pidfd (pid);
  gboolean exited = FALSE;
  gboolean err_open = TRUE;
  gboolean killed = FALSE;
  gint64 drain_deadline = 0;
  gint64 kill_deadline = options->timeout_ms > 0
                           ? g_get_monotonic_time () + (gint64) options->timeout_ms * 1000
                           : G_MAXINT64;
  int status = 0;
  gboolean mid_line;
  DshStderrRelay *relay = dsh_stderr_relay_new (!options->quiet, options->confinement, captured);

  while (!exited || err_open || *out_fd >= 0)
    {
      struct pollfd fds[4] = { { .fd = err_fd, .events = POLLIN },
                               { .fd = pidfd, .events = POLLIN },
                               { .fd = -1, .events = POLLOUT },
                               { .fd = *out_fd, .events = POLLIN } };
      gint64 now = g_get_monotonic_time ();
      gint64 deadline = exited ? drain_deadline : (killed ? G_MAXINT64 : kill_deadline);
      int timeout = -1;
      int n;

      if (deadline != G_MAXINT64)
        {
          if (deadline <= now)
            {
              if (exited)
                break;
              /* Out of time: the command does not get to hang its caller. */
              kill (pid, SIGKILL);
              killed = TRUE;
              continue;
            }
          timeout = (int) MIN ((deadline - now + 999) / 1000, G_MAXINT);
        }
      if (!exited && pidfd < 0)
        timeout = timeout < 0 ? 10 : MIN (timeout, 10); /* no pidfd: poll waitpid */

      fds[0].fd = err_open ? err_fd : -1;
      fds[1].fd = exited ? -1 : pidfd;
      fds[2].fd = exited ? -1 : pump->pipe_write;
      n = poll (fds, 4, timeout);
      if (n < 0 && errno != EINTR)
        break;

      if (*out_fd >= 0 && (fds[3].revents & (POLLIN | POLLHUP | POLLERR)) != 0 &&
          !relay_stdout (*out_fd))
        {
          close (*out_fd);
          *out_fd = -1;
        }

      if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) != 0)
        pump_stdin (pump);

      if (err_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
        err_open = dsh_stderr_relay_pump (relay, err_fd);

      if (!exited && (pidfd < 0 || (fds[1].revents & POLLIN) != 0))
        {
          pid_t w = waitpid (pid, &status, pidfd < 0 ? WNOHANG : 0);

          if (w == pid)
            {
              /* Reaped: its PID may be reused at once, so nothing is forwarded to it now. */
              if (slot >= 0)
                forwarded_pids[slot] = -1;
              exited = TRUE;
              drain_deadline = g_get_monotonic_time () + DRAIN_AFTER_EXIT_MS * 1000;
            }
        }
    }

  if (!exited)
    waitpid (pid, &status, 0);
  pump_close (pump);
  if (*out_fd >= 0)
    close (*out_fd);
  *out_fd = -1;
  mid_line = dsh_stderr_relay_finish (relay);
  if (options->stderr_mid_line != NULL)
    *options->stderr_mid_line = mid_line;
  if (pidfd >= 0)
    close (pidfd);
  return status;
}

static gboolean
make_pipe (int fds[2], GError **error)
{
  int saved_errno;

  if (pipe2 (fds, O_CLOEXEC) == 0)
    return TRUE;
  saved_errno = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "cannot create a pipe: %s", g_strerror (saved_errno));
  return FALSE;
}

static void
close_pipe (int fds[2])
{
  for (int i = 0; i < 2; i++)
    if (fds[i] >= 0)
      close (fds[i]);
}

gboolean
dsh_spawn_run (const char *const *argv,
               const DshSpawnOptions *options,
               int *exit_code,
               int *term_signal,
               GString *captured,
               GError **error)
{
  DshSpawnStart start;
  sigset_t defaults;
  StdinPump pump;
  int slot;
  int stdin_pipe[2] = { -1, -1 };
  int stdout_pipe[2] = { -1, -1 };
  gboolean relay = !options->quiet && options->close_inherited_fds;
  int pipe_fds[2];
  pid_t pid;
  int rc;
  int status;

  if (!make_pipe (pipe_fds, error))
    return FALSE;
  if ((relay && needs_relay (STDIN_FILENO) && !make_pipe (stdin_pipe, error)) ||
      (relay && needs_relay (STDOUT_FILENO) && !make_pipe (stdout_pipe, error)))
    {
      close_pipe (pipe_fds);
      close_pipe (stdin_pipe);
      return FALSE;
    }

  /* Not the buffer: zeroing 16 KiB on every call is most of what a plain exec writes. */
  pump.source = STDIN_FILENO;
  pump.pipe_write = stdin_pipe[1];
  pump.length = 0;
  pump.offset = 0;
  if (pump.pipe_write >= 0)
    fcntl (pump.pipe_write, F_SETFL, O_NONBLOCK);

  start.stdin_fd = pump.pipe_write >= 0 ? stdin_pipe[0] : -1;
  start.stdout_fd = stdout_pipe[1];
  start.stderr_fd = pipe_fds[1];
  start.null_stdio = options->quiet;
  start.cwd = options->cwd;
  start.close_inherited_fds = options->close_inherited_fds;
  start.keep_fds = options->keep_fds;
  start.n_keep_fds = options->n_keep_fds;
  /* The command starts with default dispositions for the signals we forward. */
  sigemptyset (&defaults);
  for (guint i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
    sigaddset (&defaults, forwarded_signals[i]);
  sigaddset (&defaults, SIGPIPE);
  start.defaults = &defaults;

  slot = dispositions_enter (options->forward_signals);
  rc = dsh_spawn_start (&pid, argv, options->envp, &start);
  close (pipe_fds[1]);
  if (pump.pipe_write >= 0)
    close (stdin_pipe[0]);
  if (stdout_pipe[1] >= 0)
    close (stdout_pipe[1]);
  stdout_pipe[1] = -1;

  if (rc != 0)
    {
      dispositions_leave (slot);
      close (pipe_fds[0]);
      close_pipe (stdout_pipe);
      pump_close (&pump);
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                   "cannot execute \"%s\": %s", argv[0], g_strerror (rc));
      return FALSE;
    }

  if (slot >= 0)
    forwarded_pids[slot] = pid;
  pump_stdin (&pump);
  status = stream_until_exit (pid, slot, pipe_fds[0], &stdout_pipe[0], &pump, options,
                              captured);
  dispositions_leave (slot);
  close (pipe_fds[0]);

  if (WIFSIGNALED (status))
    {
      *term_signal = WTERMSIG (status);
      *exit_code = 128 + *term_signal;
    }
  else
    {
      *term_signal = 0;
      *exit_code = WEXITSTATUS (status);
    }
  return TRUE;
}
