/* dsh-report-destination.c — opening where "exec --report" writes. A file path is opened the
 * careful way (no symlink, no FIFO: dsh-sandbox writes unconfined, and a confined command may
 * have planted either, at the file or, beneath a directory some call could write, on the way to
 * it); "-" and /dev/fd/N name descriptors the caller handed over, which are duplicated, never
 * opened by name, so no planted file is involved.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-report-destination.h"

#include "dsh-root-grants-private.h"
#include "dsh-roots-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "-" is 1; "/dev/fd/N", "/dev/stdout" and "/dev/stderr" name N, 1 and 2; else -1. */
static int
named_descriptor (const char *path)
{
  guint64 number;

  if (g_str_equal (path, "-") || g_str_equal (path, "/dev/stdout"))
    return 1;
  if (g_str_equal (path, "/dev/stderr"))
    return 2;
  if (g_str_has_prefix (path, "/dev/fd/") &&
      g_ascii_string_to_unsigned (path + strlen ("/dev/fd/"), 10, 0, G_MAXINT, &number, NULL))
    return (int) number;
  return -1;
}

static int
open_descriptor (const char *path, int fd, GError **error)
{
  int flags = fcntl (fd, F_GETFL);
  int copy;

  if (flags < 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_BADF,
                   "cannot write the report to %s: descriptor %d is not open", path, fd);
      return -1;
    }
  if ((flags & O_ACCMODE) == O_RDONLY)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_BADF,
                   "cannot write the report to %s: descriptor %d is open for reading only",
                   path, fd);
      return -1;
    }
  copy = fcntl (fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot write the report to %s: %s", path, g_strerror (saved));
    }
  return copy;
}

/* The directory the report goes in, reached by one walk that follows no symlink beneath a
 * directory that was ever a writable root (none at all when the record cannot tell): a command
 * of that grant could have swapped a directory there for a link out of it. What the walk
 * reached is what is written in, so nothing is looked up twice. */
static int
open_directory (const char *path, const char *dir, GError **error)
{
  g_autofree char *record = dsh_root_grants_default_dir ();
  g_autoptr (DshRootGrants) grants = dsh_root_grants_open (record, NULL);
  g_autofree char *untrusted = NULL;
  int fd;
  int saved;

  if (grants != NULL)
    fd = dsh_roots_open_within_grants (grants, dir, &untrusted);
  else if ((fd = dsh_open_directory_no_symlinks (dir, FALSE)) < 0 && errno == ELOOP)
    untrusted = g_strdup (dir);
  saved = errno;
  if (fd >= 0)
    return fd;
  if (untrusted != NULL && saved == ELOOP)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_LOOP,
                 "cannot open the report file %s: the way to it passes a symbolic link beneath "
                 "%s, a directory confined commands were given to write",
                 path, untrusted);
  else
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                 "cannot open the report file %s: %s", path, g_strerror (saved));
  return -1;
}

static int
open_file (const char *path, GError **error)
{
  g_autofree char *spelled = dsh_absolute_path_as_spelled (path);
  g_autofree char *dir = g_path_get_dirname (spelled);
  g_autofree char *name = g_path_get_basename (spelled);
  struct stat st;
  int dir_fd;
  int saved;
  int fd;

  dir_fd = open_directory (path, dir, error);
  if (dir_fd < 0)
    return -1;
  fd = openat (dir_fd, name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  saved = errno;
  close (dir_fd);
  errno = saved;
  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot open the report file %s: %s", path,
                   saved == ELOOP   ? "it is a symbolic link"
                   : saved == ENXIO ? "it is not a regular file"
                                    : g_strerror (saved));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "cannot open the report file %s: it is not a regular file", path);
      close (fd);
      return -1;
    }
  if (ftruncate (fd, 0) != 0 || fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) != 0)
    {
      saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot open the report file %s: %s", path, g_strerror (saved));
      close (fd);
      return -1;
    }
  return fd;
}

int
dsh_report_destination_open (const char *path, GError **error)
{
  g_autofree char *shown = g_utf8_make_valid (path, -1);
  int fd = named_descriptor (path);

  return fd >= 0 ? open_descriptor (shown, fd, error) : open_file (path, error);
}

const char *
dsh_report_option_find (int argc, char *const *argv)
{
  const char *found = NULL;

  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--report") && i + 1 < argc)
        found = argv[++i];
      else if (g_str_has_prefix (argv[i], "--report="))
        found = argv[i] + strlen ("--report=");
      /* Every other long option of exec takes a value too, which is never an option. */
      else if (g_str_has_prefix (argv[i], "--") && strchr (argv[i], '=') == NULL &&
               i + 1 < argc && !g_str_has_prefix (argv[i + 1], "--"))
        i++;
    }
  return found;
}
