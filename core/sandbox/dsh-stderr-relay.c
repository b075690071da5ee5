/* dsh-stderr-relay.c — moves a command's stderr on to ours as it comes and keeps what
 * classification needs: the head whole, then from a flood the first line proving a denial and
 * the tail. Past the head, tee(2) duplicates each chunk into a private pipe and splice(2) moves
 * the chunk itself on, so the bytes reach our stderr without a copy here while every one of
 * them is read once, from the duplicate, and scanned; to /dev/null nothing is moved at all.
 *
 * The command never gets our stderr itself, even a regular file we may write: it could then
 * truncate it or write over what it held before (an append-only log included), and what the
 * file holds afterwards need not be the command's (another writer, a seek, bytes that were
 * already there), so reading it back could report a denial or a runner failure that never
 * happened.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include "dsh-stderr-relay-private.h"

#include "dsh-denial-scanner-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Classification needs the runner's first lines (a runner fails before the command writes
 * anything) and any denial text; a command that floods stderr still streams everything. */
#define CAPTURE_LIMIT (1024 * 1024)
/* Past the limit the last bytes are kept too: a denial usually comes at the end. */
#define CAPTURE_TAIL (64 * 1024)
/* One read of the relay (it stays in the cache while it is scanned), and the stderr pipe's
 * size we ask for. */
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

typedef enum {
  RELAY_COPY,    /* read, write on, keep */
  RELAY_SPLICE,  /* tee to the scan pipe, splice on, read the duplicate */
  RELAY_DROP,    /* our stderr discards everything: read only */
} RelayWay;

struct _DshStderrRelay {
  gboolean echo;
  GString *captured;
  /* NULL for probes and unconfined commands: nothing to look for past the head. */
  const DshConfinement *confinement;
  /* Made once the head is full: most commands never get there. */
  DshDenialScanner *scanner;
  RelayWay way;
  gboolean head_full;
  /* The last byte passed on to our stderr is not a newline. */
  gboolean mid_line;
  /* The duplicate of the chunk being spliced on; -1 when not made. */
  int scan_read;
  int scan_write;
  /* Most commands write little or nothing to stderr: they are read into this, and only one
   * that fills it gets the large buffer, for large reads from the large pipe (few wakeups). */
  char small_buffer[16384];
  char *large_buffer;
  /* Made once the head is full, as the scanner is. */
  TailRing *tail;
};

/* Best effort: the default 64 KiB pipe makes a flood of stderr a wakeup per 64 KiB; a limit
 * that refuses more only costs speed. Done once a read fills the small buffer: most commands
 * never write that much, and the resize costs each of them a few microseconds. */
static void
grow_pipe (int err_fd)
{
#ifdef F_SETPIPE_SZ
  fcntl (err_fd, F_SETPIPE_SZ, RELAY_PIPE_SIZE);
#else
  (void) err_fd;
#endif
}

DshStderrRelay *
dsh_stderr_relay_new (gboolean echo, const DshConfinement *confinement, GString *captured)
{
  DshStderrRelay *relay = g_new (DshStderrRelay, 1);

  relay->echo = echo;
  relay->captured = captured;
  relay->confinement = confinement;
  relay->scanner = NULL;
  relay->way = RELAY_COPY;
  relay->head_full = FALSE;
  relay->mid_line = FALSE;
  relay->scan_read = relay->scan_write = -1;
  relay->large_buffer = NULL;
  relay->tail = NULL;
  return relay;
}

/* Bytes past the head: kept in the tail, and scanned. */
static void
keep_past_head (DshStderrRelay *relay, const char *data, gsize len)
{
  tail_ring_add (relay->tail, (const guint8 *) data, len);
  if (relay->scanner != NULL)
    dsh_denial_scanner_feed (relay->scanner, data, len);
}

static gboolean
is_null_device (int fd)
{
  struct stat ours;
  struct stat null;

  return fstat (fd, &ours) == 0 && S_ISCHR (ours.st_mode) && stat ("/dev/null", &null) == 0 &&
         S_ISCHR (null.st_mode) && ours.st_rdev == null.st_rdev;
}

/* The head is full: how the rest travels. Splicing needs a scan pipe that holds a chunk. */
static void
choose_way (DshStderrRelay *relay)
{
  const char *head = relay->captured->str;
  gsize line = relay->captured->len;

  relay->head_full = TRUE;
  relay->tail = g_new (TailRing, 1);
  relay->tail->next = 0;
  relay->tail->full = FALSE;
  if (relay->confinement != NULL)
    relay->scanner = dsh_denial_scanner_new (relay->confinement);
  if (relay->large_buffer == NULL)
    relay->large_buffer = g_malloc (RELAY_CHUNK);
  /* The line the head ends in goes on past it: the scanner must see it whole. */
  while (line > 0 && head[line - 1] != '\n')
    line--;
  if (relay->scanner != NULL)
    dsh_denial_scanner_feed (relay->scanner, head + line, relay->captured->len - line);

  if (!relay->echo)
    return;
  if (is_null_device (STDERR_FILENO))
    {
      relay->way = RELAY_DROP;
      return;
    }
#if defined(__linux__) && defined(F_SETPIPE_SZ)
  {
    int fds[2];

    if (pipe2 (fds, O_CLOEXEC | O_NONBLOCK) != 0)
      return;
    relay->scan_read = fds[0];
    relay->scan_write = fds[1];
    if (fcntl (relay->scan_write, F_SETPIPE_SZ, RELAY_CHUNK) >= RELAY_CHUNK)
      relay->way = RELAY_SPLICE;
  }
#endif
}

static void
pass_through (DshStderrRelay *relay, const char *data, gsize len)
{
  gsize to_head;

  /* Stderr is never rewritten: pass the bytes on as they came. */
  for (gsize done = 0; relay->echo && relay->way != RELAY_DROP && done < len;)
    {
      ssize_t w = write (STDERR_FILENO, data + done, len - done);

      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        break;
      done += (gsize) w;
      relay->mid_line = data[done - 1] != '\n';
    }

  to_head = relay->captured->len < CAPTURE_LIMIT
              ? MIN (len, CAPTURE_LIMIT - relay->captured->len)
              : 0;
  g_string_append_len (relay->captured, data, (gssize) to_head);
  if (!relay->head_full && relay->captured->len >= CAPTURE_LIMIT)
    choose_way (relay);
  if (len > to_head)
    keep_past_head (relay, data + to_head, len - to_head);
}

/* Reads exactly len bytes that are already in the pipe in; FALSE on an error. */
static gboolean
read_exactly (int in, char *buffer, gsize len)
{
  while (len > 0)
    {
      ssize_t n = read (in, buffer, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      buffer += n;
      len -= (gsize) n;
    }
  return TRUE;
}

/* One chunk of the flood: > 0 bytes relayed, 0 at end of stream, -1 when splicing cannot be
 * used here (our stderr is a terminal, say): copy from now on. */
static gssize
splice_chunk (DshStderrRelay *relay, int err_fd)
{
#if defined(__linux__) && defined(F_SETPIPE_SZ)
  gsize moved = 0;
  ssize_t n;

  do
    n = tee (err_fd, relay->scan_write, RELAY_CHUNK, SPLICE_F_NONBLOCK);
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
  while (moved < (gsize) n)
    {
      ssize_t m = splice (err_fd, NULL, STDERR_FILENO, NULL, (gsize) n - moved, SPLICE_F_MOVE);

      if (m < 0 && errno == EINTR)
        continue;
      if (m <= 0)
        break;
      moved += (gsize) m;
    }
  /* The duplicate is read whole, so the scan pipe is empty again; what was not moved on is
   * still in err_fd, for the copying relay. */
  if (!read_exactly (relay->scan_read, relay->large_buffer, (gsize) n))
    return -1;
  if (moved > 0)
    relay->mid_line = relay->large_buffer[moved - 1] != '\n';
  keep_past_head (relay, relay->large_buffer, moved);
  return moved == (gsize) n ? n : -1;
#else
  (void) relay;
  (void) err_fd;
  return -1;
#endif
}

gboolean
dsh_stderr_relay_pump (DshStderrRelay *relay, int err_fd)
{
  char *buffer;
  gsize size;
  ssize_t r;

  if (relay->way == RELAY_SPLICE)
    {
      gssize moved = splice_chunk (relay, err_fd);

      if (moved == 0)
        return FALSE;
      if (moved > 0)
        return TRUE;
      relay->way = RELAY_COPY;
    }

  buffer = relay->large_buffer != NULL ? relay->large_buffer : relay->small_buffer;
  size = relay->large_buffer != NULL ? RELAY_CHUNK : sizeof (relay->small_buffer);
  r = read (err_fd, buffer, size);
  if (r > 0)
    pass_through (relay, buffer, (gsize) r);
  else if (r == 0 || errno != EINTR)
    return FALSE;
  if (r == (ssize_t) size && relay->large_buffer == NULL)
    {
      relay->large_buffer = g_malloc (RELAY_CHUNK);
      grow_pipe (err_fd);
    }
  return TRUE;
}

gboolean
dsh_stderr_relay_finish (DshStderrRelay *relay)
{
  gboolean mid_line = relay->mid_line;
  gsize evidence_len = 0;
  const char *evidence = relay->scanner != NULL
                           ? dsh_denial_scanner_get_evidence (relay->scanner, &evidence_len)
                           : NULL;
  gboolean tail_kept = relay->tail != NULL && (relay->tail->full || relay->tail->next > 0);

  /* Head, evidence and tail, on separate lines so that no line is made of two of them. */
  if (evidence != NULL || tail_kept)
    g_string_append_c (relay->captured, '\n');
  if (evidence != NULL)
    g_string_append_len (relay->captured, evidence, (gssize) evidence_len);
  if (relay->tail != NULL)
    tail_ring_append_to (relay->tail, relay->captured);
  if (relay->scan_read >= 0)
    close (relay->scan_read);
  if (relay->scan_write >= 0)
    close (relay->scan_write);
  dsh_denial_scanner_free (relay->scanner);
  g_free (relay->large_buffer);
  g_free (relay->tail);
  g_free (relay);
  return mid_line;
}
