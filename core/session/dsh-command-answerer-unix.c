/* dsh-command-answerer-unix.c — the approver command's platform part on POSIX: the request as an
 * unlinked private file on its stdin, SIGPIPE back to its default, and a script's first bytes
 * read without hanging on a FIFO.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-command-answerer-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
reset_sigpipe (gpointer user_data)
{
  /* The approver gets the default disposition whatever this process uses. */
  signal (SIGPIPE, SIG_DFL);
}

/* The request as an unlinked private file: no pipe to write, so an approver that answers
 * without reading its stdin can neither block us nor raise SIGPIPE here. */
static int
request_file (const char *text, GError **error)
{
  g_autofree char *path = NULL;
  gsize length = strlen (text);
  int fd = g_file_open_tmp ("dsh-approval-XXXXXX.json", &path, error);

  if (fd < 0)
    return -1;
  g_unlink (path);
  for (gsize done = 0; done < length;)
    {
      gssize n = write (fd, text + done, length - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;

          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "cannot write the approval request: %s", g_strerror (saved));
          return -1;
        }
      done += (gsize) n;
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
