/* dsh-stderr-relay.c — moves a command's stderr on to ours as it comes and keeps a copy for
 * classification: the head whole, then the tail; past the head a flood is spliced through
 * without a copy in this process.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include "dsh-stderr-relay-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Classification needs the runner's first lines and any denial text; a command that floods
 * stderr still streams everything, only the copy keeps just its head and its tail. */
#define CAPTURE_LIMIT (1024 * 1024)
/* Past the limit the last bytes are kept too: a denial usually comes at the end. */
#define CAPTURE_TAIL (64 * 1024)
/* One read of the relay, and the stderr pipe's size we ask for. */
#define RELAY_CHUNK (256 * 1024)
#define RELAY_PIPE_SIZE (1024 * 1024)

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

struct _DshStderrRelay {
  gboolean echo;
  GString *captured;
  /* Most commands write little or nothing to stderr: they are read into this, and only one
   * that fills it gets the large buffer, for large reads from the large pipe (few wakeups). */
  char small_buffer[16384];
  char *large_buffer;
  TailRing tail;
  /* The tail pipe is made only for a flood, once the head is full. */
  SpliceRelay splice;
  gboolean may_splice;
  gboolean splicing;
};

void
dsh_stderr_relay_prepare_pipe (int read_fd)
{
#ifdef F_SETPIPE_SZ
  /* Best effort: the default 64 KiB pipe makes a flood of stderr a wakeup per 64 KiB; a limit
   * that refuses more only costs speed. */
  fcntl (read_fd, F_SETPIPE_SZ, RELAY_PIPE_SIZE);
#else
  (void) read_fd;
#endif
}

DshStderrRelay *
dsh_stderr_relay_new (gboolean echo, GString *captured)
{
  DshStderrRelay *relay = g_new (DshStderrRelay, 1);

  relay->echo = echo;
  relay->captured = captured;
  relay->large_buffer = NULL;
  relay->tail.next = 0;
  relay->tail.full = FALSE;
  relay->splice = (SpliceRelay) { -1, -1, -1, 0 };
  relay->may_splice = echo;
  relay->splicing = FALSE;
  return relay;
}

gboolean
dsh_stderr_relay_pump (DshStderrRelay *relay, int err_fd)
{
  char *buffer;
  gsize size;
  ssize_t r;

  if (relay->may_splice && !relay->splicing && relay->captured->len >= CAPTURE_LIMIT)
    {
      relay->splicing = splice_relay_open (&relay->splice);
      if (!relay->splicing)
        splice_relay_close (&relay->splice);
      relay->may_splice = FALSE;
    }
  if (relay->splicing)
    {
      gssize moved = splice_relay_chunk (&relay->splice, err_fd);

      if (moved == 0)
        return FALSE;
      if (moved > 0)
        return TRUE;
      /* What the tail pipe kept comes before whatever is copied from now on. */
      splice_relay_finish (&relay->splice, &relay->tail);
      relay->splicing = FALSE;
    }

  buffer = relay->large_buffer != NULL ? relay->large_buffer : relay->small_buffer;
  size = relay->large_buffer != NULL ? RELAY_CHUNK : sizeof (relay->small_buffer);
  r = read (err_fd, buffer, size);
  if (r > 0)
    pass_through (buffer, (gsize) r, relay->echo, relay->captured, &relay->tail);
  else if (r == 0 || errno != EINTR)
    return FALSE;
  if (r == (ssize_t) size && relay->large_buffer == NULL)
    relay->large_buffer = g_malloc (RELAY_CHUNK);
  return TRUE;
}

void
dsh_stderr_relay_finish (DshStderrRelay *relay)
{
  splice_relay_finish (&relay->splice, &relay->tail);
  /* Head and tail, on separate lines so that no line is made of both. */
  if (relay->tail.full || relay->tail.next > 0)
    {
      g_string_append_c (relay->captured, '\n');
      tail_ring_append_to (&relay->tail, relay->captured);
    }
  g_free (relay->large_buffer);
  g_free (relay);
}
