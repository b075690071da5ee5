/* dsh-session-log-io.c — the file operations under the session log and its fold cache: open a
 * regular file without hanging on a FIFO, read to the end, write whole, make a new name durable.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log-private.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "dsh-error.h"

gboolean
dsh_session_io_error (GError **error, int saved_errno, const char *name, const char *what)
{
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG, "%s: cannot %s: %s", name,
               what, g_strerror (saved_errno));
  return FALSE;
}

char *
dsh_session_read_to_end (int fd, gsize *out_length, const char *name, GError **error)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  guint8 chunk[65536];

  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          dsh_session_io_error (error, errno, name, "read the session log");
          return NULL;
        }
      if (n == 0)
        break;
      g_byte_array_append (bytes, chunk, (guint) n);
    }
  *out_length = bytes->len;
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&bytes), FALSE);
}

int
dsh_session_open_regular (const char *path, int flags, struct stat *st, GError **error)
{
  /* O_NONBLOCK keeps a FIFO planted at the path from hanging us; it is cleared right after. */
  int fd = open (path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

  if (fd < 0)
    {
      dsh_session_io_error (error, errno, path, "open the session log");
      return -1;
    }
  if (fstat (fd, st) != 0 || !S_ISREG (st->st_mode))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log is not a regular file", path);
      close (fd);
      return -1;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

gboolean
dsh_session_write_all (int fd, const char *data, gsize length)
{
  while (length > 0)
    {
      ssize_t n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      if (n == 0)
        {
          errno = EIO;
          return FALSE;
        }
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

void
dsh_session_sync_directory_of (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  /* Best effort: makes the new name durable; the header itself is already synced. */
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}
