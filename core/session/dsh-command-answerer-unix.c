/* dsh-command-answerer-unix.c — the approver command's platform part on POSIX: the request as a
 * private file on its stdin that nobody can change, SIGPIPE back to its default, a script's
 * first bytes read without hanging on a FIFO, and, on Linux, what an approver stopped early left
 * running stopped with it.
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
#include <sys/syscall.h>
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

#if defined(__linux__) && defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
/* The parent of process pid, from /proc/PID/stat: after the command name, which may hold
 * anything but ends at the last ')'; 0 when it cannot be read. */
static pid_t
parent_of (pid_t pid)
{
  char path[64];
  char buffer[1024];
  const char *end;
  ssize_t n;
  int fd;
  int parent = 0;

  g_snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  n = read (fd, buffer, sizeof buffer - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buffer[n] = '\0';
  end = strrchr (buffer, ')');
  if (end == NULL || sscanf (end + 1, " %*c %d", &parent) != 1)
    return 0;
  return (pid_t) parent;
}

static gboolean
tree_holds (GArray *tree, pid_t pid)
{
  for (guint i = 0; i < tree->len; i++)
    if (g_array_index (tree, pid_t, i) == pid)
      return TRUE;
  return FALSE;
}

/* Adds to tree (which holds the approver, stopped) every descendant, each stopped as it is
 * found: a stopped parent neither forks nor reaps, so no process found can be replaced by
 * another of the same number before it is killed. */
static void
stop_descendants (GArray *tree)
{
  for (gboolean grew = TRUE; grew;)
    {
      GDir *dir = g_dir_open ("/proc", 0, NULL);
      const char *name;

      grew = FALSE;
      if (dir == NULL)
        return;
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          guint64 number;
          pid_t pid;

          if (!g_ascii_string_to_unsigned (name, 10, 1, G_MAXINT, &number, NULL))
            continue;
          pid = (pid_t) number;
          if (tree_holds (tree, pid) || !tree_holds (tree, parent_of (pid)))
            continue;
          kill (pid, SIGSTOP);
          g_array_append_val (tree, pid);
          grew = TRUE;
        }
      g_dir_close (dir);
    }
}
#endif

void
dsh_approver_stop_descendants (GSubprocess *process)
{
#if defined(__linux__) && defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
  g_autoptr (GArray) tree = g_array_new (FALSE, FALSE, sizeof (pid_t));
  const char *identifier = g_subprocess_get_identifier (process);
  pid_t pid;
  int pidfd;

  /* The number is the approver's only while GLib has not reaped it: a descriptor taken while
   * the identifier is still there stays the approver's, however late the signal. */
  if (identifier == NULL)
    return;
  pid = (pid_t) g_ascii_strtoll (identifier, NULL, 10);
  pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  if (pidfd < 0)
    return;
  if (g_subprocess_get_identifier (process) != NULL &&
      syscall (SYS_pidfd_send_signal, pidfd, SIGSTOP, NULL, 0) == 0)
    {
      g_array_append_val (tree, pid);
      stop_descendants (tree);
      for (guint i = 1; i < tree->len; i++)
        kill (g_array_index (tree, pid_t, i), SIGKILL);
    }
  close (pidfd);
#else
  /* Elsewhere only the approver itself is killed. */
  (void) process;
#endif
}
