/* dsh-command-answerer-unix.c — the approver command's platform part on POSIX: the request as a
 * private file on its stdin that nobody can change, SIGPIPE back to its default, and a script's
 * first bytes read without hanging on a FIFO.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* memfd_create, file seals */

#include "dsh-command-answerer-private.h"
#include "dsh-root-grants-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

static void
reset_sigpipe (gpointer user_data)
{
  /* The approver gets the default disposition whatever this process uses. */
  signal (SIGPIPE, SIG_DFL);
}

/* Where no memfd can be made: a private file in the record of granted roots, unlinked at once.
 * The record lies out of every call's writable roots (dsh_root_grants_check_out_of_reach()),
 * so no confined command can open the file while it has a name; the temp directory, one of
 * every command's writable roots, would have let one open it in that moment and rewrite the
 * request later. The approver gets it opened read-only, and the file is made read-only once
 * written, so that reopening it (through /proc) cannot write it either, short of root. */
static int
request_file_open_in_record (int *read_fd, GError **error)
{
  g_autofree char *dir = dsh_root_grants_default_dir ();
  DshRootGrants *grants = dsh_root_grants_open (dir, error);
  g_autofree char *path = NULL;
  int fd, saved;

  if (grants == NULL)
    return -1;
  path = g_build_filename (dsh_root_grants_dir (grants), "approval-request-XXXXXX", NULL);
  dsh_root_grants_free (grants);
  fd = g_mkstemp_full (path, O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    {
      *read_fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      saved = errno;
      g_unlink (path);
      if (*read_fd >= 0)
        return fd;
      close (fd);
      errno = saved;
    }
  saved = errno;
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
               "cannot make the approval request: %s", g_strerror (saved));
  return -1;
}

#ifdef __linux__
/* A file with no name, sealed once written, so that not even a reopening through /proc can
 * change it. */
#define SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)

static int
request_file_open (gboolean *sealable, int *read_fd, GError **error)
{
  int fd = memfd_create ("dsh-approval-request", MFD_CLOEXEC | MFD_ALLOW_SEALING);

  *sealable = fd >= 0;
  /* Kernels before 3.17, or a filter that refuses the call. */
  if (fd < 0 && (errno == ENOSYS || errno == EPERM))
    return request_file_open_in_record (read_fd, error);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot make the approval request: %s", g_strerror (saved));
    }
  return fd;
}

static gboolean
request_file_seal (int fd, gboolean sealable, GError **error)
{
  if (!sealable || fcntl (fd, F_ADD_SEALS, SEALS) == 0)
    return TRUE;
  {
    int saved = errno;

    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                 "cannot seal the approval request: %s", g_strerror (saved));
    return FALSE;
  }
}
#else
/* Not verified against a racing confined command on these systems. */
static int
request_file_open (gboolean *sealable, int *read_fd, GError **error)
{
  *sealable = FALSE;
  return request_file_open_in_record (read_fd, error);
}

static gboolean
request_file_seal (int fd, gboolean sealable, GError **error)
{
  return TRUE;
}
#endif

/* The request as a private file: no pipe to write, so an approver that answers without reading
 * its stdin can neither block us nor raise SIGPIPE here. */
static int
request_file (const char *text, GError **error)
{
  gsize length = strlen (text);
  gboolean sealable = FALSE;
  int read_fd = -1;
  int fd = request_file_open (&sealable, &read_fd, error);

  if (fd < 0)
    return -1;
  for (gsize done = 0; done < length;)
    {
      gssize n = write (fd, text + done, length - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;

          close (fd);
          if (read_fd >= 0)
            close (read_fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "cannot write the approval request: %s", g_strerror (saved));
          return -1;
        }
      done += (gsize) n;
    }
  /* A file in the record: read-only from now on, handed over as opened for reading. */
  if (read_fd >= 0)
    {
      (void) fchmod (fd, 0400);
      close (fd);
      return read_fd;
    }
  if (!request_file_seal (fd, sealable, error))
    {
      close (fd);
      return -1;
    }
  if (lseek (fd, 0, SEEK_SET) != 0)
    {
      int saved = errno;

      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot rewind the approval request: %s", g_strerror (saved));
      return -1;
    }
  return fd;
}

gboolean
dsh_approver_stdin_prepare (GSubprocessLauncher *launcher, const char *text, GError **error)
{
  int fd = request_file (text, error);

  if (fd < 0)
    return FALSE;
  g_subprocess_launcher_take_stdin_fd (launcher, fd);
  g_subprocess_launcher_set_child_setup (launcher, reset_sigpipe, NULL, NULL);
  return TRUE;
}

void
dsh_approver_stdin_deliver (GSubprocess *process, const char *text)
{
  /* The file already holds it all. */
}

gssize
dsh_approver_read_head (const char *path, char *buf, gsize size)
{
  struct stat st;
  gssize n;
  int fd;

  /* Non-blocking: a FIFO planted in place of a script must not hang this check. */
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return -1;
    }
  do
    n = read (fd, buf, size);
  while (n < 0 && errno == EINTR);
  close (fd);
  return n;
}
