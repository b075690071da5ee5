/* dsh-session-log-io.c — the file operations under the session log and its fold cache on POSIX:
 * open a regular file without hanging on a FIFO, flock(2) for appends, read, append whole and
 * fdatasync, cut back, make a new name durable, and the cache's private files.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log-private.h"
#include "dsh-session-fold-cache-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-error.h"

struct _DshSessionFile {
  int fd;
  char *path;
};

static gboolean
io_error (GError **error, int saved_errno, const char *path, const char *what)
{
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG, "%s: cannot %s: %s", path,
               what, g_strerror (saved_errno));
  return FALSE;
}

static gboolean coarse_times;

void
dsh_session_file_set_coarse_times_for_testing (gboolean coarse)
{
  coarse_times = coarse;
}

static void
info_from_stat (DshSessionFileInfo *info, const struct stat *st)
{
  info->volume = (guint64) st->st_dev;
  info->index = (guint64) st->st_ino;
  info->size = (goffset) st->st_size;
  info->change_sec = (gint64) st->st_ctim.tv_sec;
  info->change_nsec = (guint32) st->st_ctim.tv_nsec;
  info->modify_sec = (gint64) st->st_mtim.tv_sec;
  info->modify_nsec = (guint32) st->st_mtim.tv_nsec;
  if (coarse_times)
    info->change_nsec = info->modify_nsec = 0;
  dsh_session_file_info_settle (info);
}

static DshSessionFile *
file_new (int fd, const char *path)
{
  DshSessionFile *file = g_new0 (DshSessionFile, 1);

  file->fd = fd;
  file->path = g_strdup (path);
  return file;
}

void
dsh_session_file_close (DshSessionFile *file)
{
  if (file == NULL)
    return;
  close (file->fd);
  g_free (file->path);
  g_free (file);
}

DshSessionFile *
dsh_session_file_open (const char *path, DshSessionFileAccess access, DshSessionFileInfo *info,
                       GError **error)
{
  int flags = access == DSH_SESSION_FILE_APPEND ? O_RDWR | O_APPEND : O_RDONLY;
  /* O_NONBLOCK keeps a FIFO planted at the path from hanging us; it is cleared right after. */
  int fd = open (path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  struct stat st;

  if (fd < 0)
    {
      io_error (error, errno, path, "open the session log");
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log is not a regular file", path);
      close (fd);
      return NULL;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  info_from_stat (info, &st);
  return file_new (fd, path);
}

DshSessionFile *
dsh_session_file_create (const char *path, GError **error)
{
  int fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);

  if (fd < 0)
    {
      io_error (error, errno, path, "create the session log");
      return NULL;
    }
  return file_new (fd, path);
}

gboolean
dsh_session_file_query (DshSessionFile *file, DshSessionFileInfo *info, GError **error)
{
  struct stat st;

  if (fstat (file->fd, &st) != 0)
    return io_error (error, errno, file->path, "stat the session log");
  info_from_stat (info, &st);
  return TRUE;
}

gboolean
dsh_session_file_times_are_fine (DshSessionFile *file)
{
  struct stat before, st;

  /* A coarse clock stamps both changes, made microseconds apart, with one tick; a file system
   * with multigrain timestamps moves ctime for each, as it was read just before. */
  if (coarse_times || fstat (file->fd, &before) != 0)
    return FALSE;
  for (guint i = 0; i < 2; i++)
    {
      if (fchmod (file->fd, before.st_mode & 07777) != 0 || fstat (file->fd, &st) != 0 ||
          (st.st_ctim.tv_sec == before.st_ctim.tv_sec &&
           st.st_ctim.tv_nsec == before.st_ctim.tv_nsec))
        return FALSE;
      before = st;
    }
  return TRUE;
}

static int
try_lock (DshSessionFile *file, GError **error)
{
  while (flock (file->fd, LOCK_EX | LOCK_NB) != 0)
    {
      if (errno == EWOULDBLOCK)
        return 0;
      if (errno != EINTR)
        {
          io_error (error, errno, file->path, "lock the session log");
          return -1;
        }
    }
  return 1;
}

gboolean
dsh_session_file_lock (DshSessionFile *file, GError **error)
{
  return dsh_session_file_lock_patiently (file, file->path, try_lock, error);
}

static char *
read_to_end (int fd, gsize *out_length, const char *path, GError **error)
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
          io_error (error, errno, path, "read the session log");
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

char *
dsh_session_file_read_from (DshSessionFile *file, goffset offset, gsize *out_length,
                            GError **error)
{
  if (lseek (file->fd, offset, SEEK_SET) < 0)
    {
      io_error (error, errno, file->path, "seek in the session log");
      return NULL;
    }
  return read_to_end (file->fd, out_length, file->path, error);
}

gssize
dsh_session_file_read_at (DshSessionFile *file, char *buf, gsize size, goffset offset)
{
  ssize_t n;

  do
    n = pread (file->fd, buf, size, offset);
  while (n < 0 && errno == EINTR);
  return n;
}

/* FALSE with errno set unless every byte was written. */
static gboolean
write_all (int fd, const char *data, gsize length)
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

gboolean
dsh_session_file_append (DshSessionFile *file, const char *data, gsize length, const char *what,
                         GError **error)
{
  if (!write_all (file->fd, data, length) || fdatasync (file->fd) != 0)
    return io_error (error, errno, file->path, what);
  return TRUE;
}

gboolean
dsh_session_file_truncate (DshSessionFile *file, goffset length, const char *what,
                           GError **error)
{
  if (ftruncate (file->fd, length) != 0 || fdatasync (file->fd) != 0)
    return io_error (error, errno, file->path, what);
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

char *
dsh_session_read_private_file (const char *path, gsize limit, gsize *out_length)
{
  struct stat st;
  char *text;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid () ||
      (st.st_mode & 077) != 0 || (guint64) st.st_size >= limit)
    {
      close (fd);
      return NULL;
    }
  text = read_to_end (fd, out_length, path, NULL);
  close (fd);
  return text;
}

void
dsh_session_write_private_file (const char *path, const char *data, gsize length)
{
  g_autofree char *temp = g_strdup_printf ("%s.XXXXXX", path);
  int out = g_mkstemp_full (temp, O_WRONLY | O_CLOEXEC, 0600);

  if (out < 0)
    return;
  if (!write_all (out, data, length) || close (out) != 0 || g_rename (temp, path) != 0)
    g_unlink (temp);
}
