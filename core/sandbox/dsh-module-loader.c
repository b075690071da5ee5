/* dsh-module-loader.c — loads a backend module found by the scan on POSIX systems: refuses any
 * the current user could not trust (wrong owner, writable by others), opens it lazily and
 * locally, and has its descriptor checked (dsh-backend-descriptor.c) before anything else in it
 * is touched. A module file is opened once, checked on that descriptor, and exactly those bytes
 * are loaded: a private, sealed copy (Linux), so that an operator rewriting the file in place
 * can never change or crash a call that uses it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef __linux__
#define _GNU_SOURCE /* memfd_create, file seals */
#endif
#include "dsh-module-loader-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#ifdef __linux__
#include <sys/mman.h>
#include <sys/sendfile.h>
#endif

#include "dsh-backend-host-private.h"
#include "dsh-config.h"
#include "dsh-number-text-private.h"
#include "dsh-platform-private.h"

/* The opened file itself (fd), and the directory whoever could swap it for another needs.
 * file_st receives the file's status the check saw. */
static char *
check_trusted (const char *path, int fd, struct stat *file_st)
{
#ifndef G_OS_WIN32
  g_autofree char *dir = g_path_get_dirname (path);
  struct stat dir_st;
  char *reason;

  if (fstat (fd, file_st) != 0)
    return g_strdup_printf ("cannot stat the module file: %s", g_strerror (errno));
  if (!S_ISREG (file_st->st_mode))
    return g_strdup ("the module is not a regular file");
  if ((reason = dsh_platform_owner_refusal ("the module file", (guint) file_st->st_uid,
                                            (guint) file_st->st_mode)) != NULL)
    return reason;
  if (stat (dir, &dir_st) != 0)
    return g_strdup_printf ("cannot stat the module directory: %s", g_strerror (errno));
  return dsh_platform_owner_refusal ("the module directory", (guint) dir_st.st_uid,
                                     (guint) dir_st.st_mode);
#else
  /* Ownership and ACLs are not checked on Windows yet: refuse rather than trust blindly. */
  memset (file_st, 0, sizeof (*file_st));
  return g_strdup ("module trust checks (owner, ACL) are not implemented on Windows yet");
#endif
}

#ifdef __linux__
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* Copies the size bytes the trust check saw from fd to copy, from where both stand, in the
 * kernel (sendfile()), or through a buffer where it cannot; a file that has grown since is
 * caught by the second look at it. Returns the bytes copied (fewer on an early end), or -1 with
 * errno set. */
static off_t
copy_bytes (int fd, int copy, off_t size, gboolean *read_failed)
{
  char buffer[16384];
  off_t copied = 0;

  while (copied < size)
    {
      ssize_t n = sendfile (copy, fd, NULL, (size_t) MIN (size - copied, 1 << 30));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && copied == 0 && (errno == EINVAL || errno == ENOSYS))
        break;
      if (n < 0)
        {
          *read_failed = FALSE;
          return -1;
        }
      if (n == 0)
        return copied;
      copied += n;
    }
  while (copied < size)
    {
      ssize_t n = read (fd, buffer, (size_t) MIN (size - copied, (off_t) sizeof (buffer)));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          *read_failed = TRUE;
          return -1;
        }
      if (n == 0)
        return copied;
      for (ssize_t done = 0; done < n;)
        {
          ssize_t w = write (copy, buffer + done, (size_t) (n - done));

          if (w < 0 && errno == EINTR)
            continue;
          if (w < 0)
            {
              *read_failed = FALSE;
              return -1;
            }
          done += w;
        }
      copied += n;
    }
  return copied;
}

/* A sealed in-memory copy of the checked file: nobody can write it, and the loader maps these
 * bytes, not the file's. before: the file as its trust check just saw it on fd. Returns the
 * copy's descriptor, or -1 with *reason set. */
static int
copy_checked_content (int fd, const struct stat *before, const char *name, char **reason)
{
  g_autofree char *memfd_name = g_strconcat ("dsh-backend-", name, NULL);
  struct stat after;
  gboolean read_failed = FALSE;
  off_t copied;
  int copy;

  copy = memfd_create (memfd_name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  /* Kernels before 6.3 know no MFD_EXEC; their memfds are executable anyway. */
  if (copy < 0 && errno == EINVAL)
    copy = memfd_create (memfd_name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (copy < 0)
    {
      *reason = g_strdup_printf ("cannot make a private copy of the module: %s",
                                 g_strerror (errno));
      return -1;
    }
  copied = copy_bytes (fd, copy, before->st_size, &read_failed);
  if (copied < 0)
    {
      *reason = g_strdup_printf (read_failed ? "cannot read the module file: %s"
                                             : "cannot make a private copy of the module: %s",
                                 g_strerror (errno));
      close (copy);
      return -1;
    }
  /* Bytes of two versions are no module: one caught mid-rewrite is refused, and the change
   * that is under way starts another scan anyway. */
  if (fstat (fd, &after) != 0 || after.st_size != before->st_size || copied != before->st_size ||
      after.st_mtim.tv_sec != before->st_mtim.tv_sec ||
      after.st_mtim.tv_nsec != before->st_mtim.tv_nsec || !dsh_platform_elf_is_complete (copy, copied))
    {
      *reason = g_strdup ("the module file changed while it was read, or is incomplete");
      close (copy);
      return -1;
    }
  if (fcntl (copy, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
    {
      *reason = g_strdup_printf ("cannot seal the private copy of the module: %s",
                                 g_strerror (errno));
      close (copy);
      return -1;
    }
  return copy;
}
#endif

/* Opens the module file once and returns what to hand to g_module_open() for exactly the bytes
 * checked (*out_fd keeps them alive), or NULL with module->refused_reason set. */
static char *
open_checked (DshBackendModule *module, const char *const *untrusted_roots, int *out_fd)
{
  struct stat file_st;
  int fd;

  *out_fd = -1;
  /* A confined command could have put this file there: loading it would run its code, and not
   * even opening it is ours to do (it could be a device). */
  if (dsh_backend_path_is_untrusted (module->path, untrusted_roots))
    {
      module->refused_reason = g_strdup ("the module lies inside a directory confined commands "
                                         "may write (the workspace, /tmp, the temp directory, "
                                         "an extra writable root, or one an earlier call "
                                         "granted)");
      return NULL;
    }
#ifdef G_OS_WIN32
  fd = g_open (module->path, O_RDONLY | O_BINARY, 0);
#else
  fd = open (module->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
#endif
  if (fd < 0)
    {
      module->refused_reason = g_strdup_printf ("cannot open the module file: %s",
                                                g_strerror (errno));
      return NULL;
    }
  module->refused_reason = check_trusted (module->path, fd, &file_st);
  if (module->refused_reason != NULL)
    {
      close (fd);
      return NULL;
    }
#ifdef __linux__
  {
    int copy = copy_checked_content (fd, &file_st, module->name, &module->refused_reason);
    GString *content;

    close (fd);
    if (copy < 0)
      return NULL;
    *out_fd = copy;
    content = g_string_new ("/proc/self/fd/");
    dsh_number_text_append_signed (content, copy);
    return g_string_free (content, FALSE);
  }
#else
  /* Elsewhere the file is loaded by its name: Windows keeps a loaded DLL from being written,
   * and macOS checks the signature of every page it maps. */
  close (fd);
  return g_strdup (module->path);
#endif
}

void
dsh_backend_module_load (DshBackendModule *module, const char *const *untrusted_roots)
{
  g_autofree char *content = NULL;
  GModule *handle;
  int content_fd;

  content = open_checked (module, untrusted_roots, &content_fd);
  if (content == NULL)
    return;
  handle = g_module_open (content, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (handle == NULL)
    {
      module->refused_reason = g_strdup_printf ("cannot open the module: %s", g_module_error ());
      if (content_fd >= 0)
        close (content_fd);
      return;
    }
  module->content_fd = content_fd;
  dsh_backend_module_describe (module, handle);
}
