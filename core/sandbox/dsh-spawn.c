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

/* Classification needs the runner's first lines and any denial text; a command that floods
 * stderr still streams everything, only the copy keeps just its head and its tail. */
#define CAPTURE_LIMIT (1024 * 1024)
/* Past the limit the last bytes are kept too: a denial usually comes at the end. */
#define CAPTURE_TAIL (64 * 1024)
/* One read of the relay, and the stderr pipe's size we ask for. */
#define RELAY_CHUNK (256 * 1024)
#define RELAY_PIPE_SIZE (1024 * 1024)
/* After the command exits, output from a straggler holding stderr open is read this long. */
#define DRAIN_AFTER_EXIT_MS 200

static volatile sig_atomic_t child_pid;

/* A signal another process sends us goes on to the command. The terminal's own (SI_KERNEL)
 * already reached it, being in our process group; forwarding it too would deliver it twice. */
static void
forward_signal (int signum, siginfo_t *info, void *context)
{
  if (child_pid > 0 && info->si_code != SI_KERNEL)
    kill (child_pid, signum);
}

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void
install_forwarding (struct sigaction *saved)
{
  struct sigaction action = { 0 };

  action.sa_sigaction = forward_signal;
  sigemptyset (&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  for (guint i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
    sigaction (forwarded_signals[i], &action, &saved[i]);
}

static void
restore_signals (const struct sigaction *saved)
{
  for (guint i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
    sigaction (forwarded_signals[i], &saved[i], NULL);
}

/* The last CAPTURE_TAIL bytes past the head, in a ring: keeping them costs a copy of each
 * chunk, never a move of what is already kept. */
typedef struct {
  guint8 bytes[CAPTURE_TAIL];
  gsize next;      /* where the next byte goes */
  gboolean full;   /* has wrapped at least once */
} TailRing;

static void
tail_ring_add (TailRing *ring, const guint8 *data, gsize len)
{
  gsize first;

  if (len >= CAPTURE_TAIL)
    {
      memcpy (ring->bytes, data + len - CAPTURE_TAIL, CAPTURE_TAIL);
      ring->next = 0;
      ring->full = TRUE;
      return;
    }
  first = MIN (len, CAPTURE_TAIL - ring->next);
  memcpy (ring->bytes + ring->next, data, first);
  memcpy (ring->bytes, data + first, len - first);
  if (ring->next + len >= CAPTURE_TAIL)
    ring->full = TRUE;
  ring->next = (ring->next + len) % CAPTURE_TAIL;
}

/* Appends the ring's bytes, oldest first. */
static void
tail_ring_append_to (const TailRing *ring, GString *out)
{
  if (ring->full)
    g_string_append_len (out, (const char *) ring->bytes + ring->next,
                         (gssize) (CAPTURE_TAIL - ring->next));
  g_string_append_len (out, (const char *) ring->bytes, (gssize) ring->next);
}

static void
pass_through (const char *data, gsize len, gboolean echo, GString *captured, TailRing *tail)
{
  gsize to_head;

  /* Stderr is never rewritten: pass the bytes on as they came. */
  for (gsize done = 0; echo && done < len;)
    {
      ssize_t w = write (STDERR_FILENO, data + done, len - done);

      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        break;
      done += (gsize) w;
    }

  to_head = captured->len < CAPTURE_LIMIT ? MIN (len, CAPTURE_LIMIT - captured->len) : 0;
  g_string_append_len (captured, data, (gssize) to_head);
  if (len > to_head)
    tail_ring_add (tail, (const guint8 *) data + to_head, len - to_head);
}

/* Past the head, a flood of stderr is moved without copying it through this process: tee(2)
 * duplicates each chunk into a private pipe that keeps just the last CAPTURE_TAIL bytes
 * (older ones are spliced to /dev/null), and splice(2) moves the chunk itself to our stderr.
 * The bytes kept for classification are exactly those the copying relay keeps. */
typedef struct {
  int tail_read;
  int tail_write;
  int null_fd;
  gsize tail_len;
} SpliceRelay;

static gboolean
splice_relay_open (SpliceRelay *relay)
{
  int fds[2];

  relay->tail_read = relay->tail_write = relay->null_fd = -1;
  relay->tail_len = 0;
#if defined(__linux__) && defined(F_SETPIPE_SZ)
  if (pipe2 (fds, O_CLOEXEC | O_NONBLOCK) != 0)
    return FALSE;
  relay->tail_read = fds[0];
  relay->tail_write = fds[1];
  relay->null_fd = open ("/dev/null", O_WRONLY | O_CLOEXEC);
  /* Room for the kept tail and a whole chunk beside it, or no splicing at all. */
  if (relay->null_fd < 0 ||
      fcntl (relay->tail_write, F_SETPIPE_SZ, CAPTURE_TAIL + RELAY_CHUNK) < CAPTURE_TAIL + RELAY_CHUNK)
    return FALSE;
  return TRUE;
#else
  return FALSE;
#endif
}

static void
splice_relay_close (SpliceRelay *relay)
{
  if (relay->tail_read >= 0)
    close (relay->tail_read);
  if (relay->tail_write >= 0)
    close (relay->tail_write);
  if (relay->null_fd >= 0)
    close (relay->null_fd);
  relay->tail_read = relay->tail_write = relay->null_fd = -1;
}

/* Moves exactly length bytes from the pipe in to out; FALSE on an error. */
static gboolean
splice_exactly (int in, int out, gsize length)
{
#if defined(__linux__) && defined(F_SETPIPE_SZ)
  while (length > 0)
    {
      ssize_t n = splice (in, NULL, out, NULL, length, SPLICE_F_MOVE);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      length -= (gsize) n;
    }
  return TRUE;
#else
  return FALSE;
#endif
}

/* One chunk of the flood: > 0 bytes relayed, 0 at end of stream, -1 when splicing cannot be
 * used here (our stderr is a terminal, say) and nothing was consumed: copy instead. */
static gssize
splice_relay_chunk (SpliceRelay *relay, int err_fd)
{
#if defined(__linux__) && defined(F_SETPIPE_SZ)
  ssize_t n;

  do
    n = tee (err_fd, relay->tail_write, RELAY_CHUNK, SPLICE_F_NONBLOCK);
  while (n < 0 && errno == EINTR);
  if (n == 0)
    {
      char probe;
      ssize_t r = read (err_fd, &probe, 0);

      /* Nothing duplicated: the writer closed an empty pipe. */
      return r == 0 ? 0 : -1;
    }
  if (n < 0)
    return errno == EAGAIN ? 1 : -1;
  if (!splice_exactly (err_fd, STDERR_FILENO, (gsize) n))
    {
      /* The duplicate stays in the tail pipe; the chunk itself is still unread: drop the
       * duplicate and let the copying relay take the chunk. */
      splice_exactly (relay->tail_read, relay->null_fd, (gsize) n);
      return -1;
    }
  relay->tail_len += (gsize) n;
  if (relay->tail_len > CAPTURE_TAIL)
    {
      if (!splice_exactly (relay->tail_read, relay->null_fd, relay->tail_len - CAPTURE_TAIL))
        return -1;
      relay->tail_len = CAPTURE_TAIL;
    }
  return n;
#else
  return -1;
#endif
}

/* Appends what the tail pipe kept to the ring, after what the ring already holds. */
static void
splice_relay_finish (SpliceRelay *relay, TailRing *tail)
{
  g_autofree guint8 *chunk = relay->tail_len > 0 ? g_malloc (CAPTURE_TAIL) : NULL;

  while (relay->tail_len > 0)
    {
      ssize_t n = read (relay->tail_read, chunk, MIN (CAPTURE_TAIL, relay->tail_len));

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      tail_ring_add (tail, chunk, (gsize) n);
      relay->tail_len -= (gsize) n;
    }
  splice_relay_close (relay);
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
 * more), killing it at the deadline if there is one; returns the wait status. */
static int
stream_until_exit (pid_t pid,
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
  /* Most commands write little or nothing to stderr: they are read into this, and only one
   * that fills it gets the large buffer, for large reads from the large pipe (few wakeups). */
  char small_buffer[16384];
  g_autofree char *large_buffer = NULL;
  g_autofree TailRing *tail = g_new (TailRing, 1);
  /* The tail pipe is made only for a flood, once the head is full. */
  SpliceRelay relay = { -1, -1, -1, 0 };
  gboolean may_splice = !options->quiet;
  gboolean splicing = FALSE;

  tail->next = 0;
  tail->full = FALSE;

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

      if (err_open && may_splice && !splicing && captured->len >= CAPTURE_LIMIT)
        {
          splicing = splice_relay_open (&relay);
          if (!splicing)
            splice_relay_close (&relay);
          may_splice = FALSE;
        }
      if (err_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && splicing)
        {
          gssize moved = splice_relay_chunk (&relay, err_fd);

          if (moved == 0)
            err_open = FALSE;
          else if (moved < 0)
            {
              /* What the tail pipe kept comes before whatever is copied from now on. */
              splice_relay_finish (&relay, tail);
              splicing = FALSE;
            }
          if (moved >= 0)
            continue;
        }
      if (err_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
        {
          char *buffer = large_buffer != NULL ? large_buffer : small_buffer;
          gsize size = large_buffer != NULL ? RELAY_CHUNK : sizeof (small_buffer);
          ssize_t r = read (err_fd, buffer, size);

          if (r > 0)
            pass_through (buffer, (gsize) r, !options->quiet, captured, tail);
          else if (r == 0 || errno != EINTR)
            err_open = FALSE;
          if (r == (ssize_t) size && large_buffer == NULL)
            large_buffer = g_malloc (RELAY_CHUNK);
        }

      if (!exited && (pidfd < 0 || (fds[1].revents & POLLIN) != 0))
        {
          pid_t w = waitpid (pid, &status, pidfd < 0 ? WNOHANG : 0);

          if (w == pid)
            {
              /* Reaped: its PID may be reused at once, so nothing is forwarded to it now. */
              child_pid = 0;
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
  splice_relay_finish (&relay, tail);
  /* Head and tail, on separate lines so that no line is made of both. */
  if (tail->full || tail->next > 0)
    {
      g_string_append_c (captured, '\n');
      tail_ring_append_to (tail, captured);
    }
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
  struct sigaction saved[G_N_ELEMENTS (forwarded_signals)];
  sigset_t defaults;
  StdinPump pump = { 0 };
  void (*old_sigpipe) (int);
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

#ifdef F_SETPIPE_SZ
  /* Best effort: the default 64 KiB pipe makes a flood of stderr a wakeup per 64 KiB; a limit
   * that refuses more only costs speed. */
  fcntl (pipe_fds[0], F_SETPIPE_SZ, RELAY_PIPE_SIZE);
#endif

  pump.source = STDIN_FILENO;
  pump.pipe_write = stdin_pipe[1];
  if (pump.pipe_write >= 0)
    fcntl (pump.pipe_write, F_SETFL, O_NONBLOCK);

  start.stdin_fd = pump.pipe_write >= 0 ? stdin_pipe[0] : -1;
  start.stdout_fd = stdout_pipe[1];
  start.stderr_fd = pipe_fds[1];
  start.null_stdio = options->quiet;
  start.cwd = options->cwd;
  start.close_inherited_fds = options->close_inherited_fds;
  /* The command starts with default dispositions for the signals we forward. */
  sigemptyset (&defaults);
  for (guint i = 0; i < G_N_ELEMENTS (forwarded_signals); i++)
    sigaddset (&defaults, forwarded_signals[i]);
  sigaddset (&defaults, SIGPIPE);
  start.defaults = &defaults;

  if (options->forward_signals)
    install_forwarding (saved);
  rc = dsh_spawn_start (&pid, argv, options->envp, &start);
  close (pipe_fds[1]);
  if (pump.pipe_write >= 0)
    close (stdin_pipe[0]);
  if (stdout_pipe[1] >= 0)
    close (stdout_pipe[1]);
  stdout_pipe[1] = -1;

  if (rc != 0)
    {
      if (options->forward_signals)
        restore_signals (saved);
      close (pipe_fds[0]);
      close_pipe (stdout_pipe);
      pump_close (&pump);
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                   "cannot execute \"%s\": %s", argv[0], g_strerror (rc));
      return FALSE;
    }

  if (options->forward_signals)
    child_pid = pid;
  /* A command that stops reading its stdin must not kill us with SIGPIPE. */
  old_sigpipe = signal (SIGPIPE, SIG_IGN);
  pump_stdin (&pump);
  status = stream_until_exit (pid, pipe_fds[0], &stdout_pipe[0], &pump, options, captured);
  signal (SIGPIPE, old_sigpipe);
  if (options->forward_signals)
    {
      child_pid = 0;
      restore_signals (saved);
    }
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
