/* dsh-module-loader.c — finds backend modules, refuses any the current user could not trust
 * (wrong owner, writable by others), opens them lazily and locally, and checks the descriptor's
 * ABI before anything else in it is touched. A module file is opened once, checked on that
 * descriptor, and exactly those bytes are loaded: a private, sealed copy (Linux), so that an
 * operator rewriting the file in place can never change or crash a call that uses it.
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
#include <link.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#endif

#include "dsh-backend-host-private.h"
#include "dsh-config.h"

#define MODULE_PREFIX "libdsh-backend-"

void
dsh_backend_module_free (DshBackendModule *module)
{
  if (module == NULL)
    return;
  /* The provider's lifetime ends here: its state goes before the code that owns it. */
  if (module->instance != NULL)
    module->descriptor->instance_free (module->instance);
  /* Modules hold no GTypes, so closing is safe once no descriptor pointer is in use. */
  if (module->module != NULL)
    g_module_close (module->module);
  g_mutex_clear (&module->instance_lock);
  /* Kept open while loaded: a later copy must not reuse its /proc/self/fd name, which the
   * dynamic loader and GModule would take for this library. */
  if (module->content_fd >= 0)
    close (module->content_fd);
  g_free (module->path);
  g_free (module->name);
  g_free (module->description);
  g_free (module->version);
  g_free (module->license);
  g_free (module->origin);
  g_free (module->refused_reason);
  g_free (module);
}

static int32_t
host_backend_os (void)
{
#if defined(__linux__)
  return DSH_BACKEND_OS_LINUX;
#elif defined(__APPLE__)
  return DSH_BACKEND_OS_MACOS;
#elif defined(_WIN32)
  return DSH_BACKEND_OS_WINDOWS;
#else
  return 0;
#endif
}

static const char *
backend_os_name (int32_t os)
{
  switch (os)
    {
    case DSH_BACKEND_OS_LINUX:
      return "linux";
    case DSH_BACKEND_OS_MACOS:
      return "macos";
    case DSH_BACKEND_OS_WINDOWS:
      return "windows";
    default:
      return "an unknown OS";
    }
}

/* "libdsh-backend-foo-bar.so" -> "foo-bar"; NULL for files that are not backend modules. */
static char *
name_from_file (const char *basename)
{
  g_autofree char *suffix = g_strconcat (".", G_MODULE_SUFFIX, NULL);

  if (!g_str_has_prefix (basename, MODULE_PREFIX) || !g_str_has_suffix (basename, suffix))
    return NULL;
  return g_strndup (basename + strlen (MODULE_PREFIX),
                    strlen (basename) - strlen (MODULE_PREFIX) - strlen (suffix));
}

char *
dsh_module_loader_name_from_path (const char *path)
{
  g_autofree char *basename = g_path_get_basename (path);

  return name_from_file (basename);
}

static gboolean
is_valid_name (const char *name)
{
  if (name == NULL || name[0] == '\0' || strlen (name) > 64)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    {
      if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p) && *p != '-')
        return FALSE;
    }
  return TRUE;
}

/* The opened file itself (fd), and the directory whoever could swap it for another needs. */
static char *
check_trusted (const char *path, int fd)
{
#ifndef G_OS_WIN32
  g_autofree char *dir = g_path_get_dirname (path);
  struct stat file_st, dir_st;
  uid_t me = getuid ();

  if (fstat (fd, &file_st) != 0)
    return g_strdup_printf ("cannot stat the module file: %s", g_strerror (errno));
  if (!S_ISREG (file_st.st_mode))
    return g_strdup ("the module is not a regular file");
  if (file_st.st_uid != 0 && file_st.st_uid != me)
    return g_strdup_printf ("the module file is owned by uid %u, neither root nor the current "
                            "user", (guint) file_st.st_uid);
  if ((file_st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return g_strdup_printf ("the module file is writable by %s (mode %04o)",
                            (file_st.st_mode & S_IWOTH) ? "others" : "its group",
                            (guint) (file_st.st_mode & 07777));
  if (stat (dir, &dir_st) != 0)
    return g_strdup_printf ("cannot stat the module directory: %s", g_strerror (errno));
  if (dir_st.st_uid != 0 && dir_st.st_uid != me)
    return g_strdup_printf ("the module directory is owned by uid %u, neither root nor the "
                            "current user", (guint) dir_st.st_uid);
  if ((dir_st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return g_strdup_printf ("the module directory is writable by %s (mode %04o)",
                            (dir_st.st_mode & S_IWOTH) ? "others" : "its group",
                            (guint) (dir_st.st_mode & 07777));
  return NULL;
#else
  /* Ownership and ACLs are not checked on Windows yet: refuse rather than trust blindly. */
  return g_strdup ("module trust checks (owner, ACL) are not implemented on Windows yet");
#endif
}

#ifdef __linux__
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* A file caught while it was being written may end before its segments do; mapping those would
 * fault (SIGBUS) inside the dynamic loader. Every loadable segment must lie in the copy. */
static gboolean
segments_lie_within (int fd, off_t size)
{
  ElfW (Ehdr) header;
  /* A module has about ten program headers: read them a batch at a time. */
  ElfW (Phdr) segments[32];

  if (pread (fd, &header, sizeof (header), 0) != (ssize_t) sizeof (header) ||
      memcmp (header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_phentsize != sizeof (segments[0]))
    return FALSE;
  for (guint first = 0; first < header.e_phnum; first += G_N_ELEMENTS (segments))
    {
      guint n = MIN (header.e_phnum - first, G_N_ELEMENTS (segments));
      off_t at = (off_t) header.e_phoff + (off_t) first * (off_t) sizeof (segments[0]);
      ssize_t want = (ssize_t) (n * sizeof (segments[0]));

      if (pread (fd, segments, (size_t) want, at) != want)
        return FALSE;
      for (guint i = 0; i < n; i++)
        {
          const ElfW (Phdr) *segment = &segments[i];

          if (segment->p_type == PT_LOAD &&
              (segment->p_offset > (guint64) size ||
               segment->p_filesz > (guint64) size - segment->p_offset))
            return FALSE;
        }
    }
  return TRUE;
}

/* Copies fd to copy from where both stand, in the kernel (sendfile()), or through a buffer where
 * it cannot. Returns the bytes copied, or -1 with errno set. */
static off_t
copy_bytes (int fd, int copy, gboolean *read_failed)
{
  char buffer[16384];
  off_t copied = 0;

  for (;;)
    {
      ssize_t n = sendfile (copy, fd, NULL, 1 << 20);

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
  for (;;)
    {
      ssize_t n = read (fd, buffer, sizeof (buffer));

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
}

/* A sealed in-memory copy of the checked file: nobody can write it, and the loader maps these
 * bytes, not the file's. Returns the copy's descriptor, or -1 with *reason set. */
static int
copy_checked_content (int fd, const char *name, char **reason)
{
  g_autofree char *memfd_name = g_strdup_printf ("dsh-backend-%s", name);
  struct stat before, after;
  gboolean read_failed = FALSE;
  off_t copied;
  int copy;

  if (fstat (fd, &before) != 0)
    {
      *reason = g_strdup_printf ("cannot stat the module file: %s", g_strerror (errno));
      return -1;
    }

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
  copied = copy_bytes (fd, copy, &read_failed);
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
  if (fstat (fd, &after) != 0 || after.st_size != before.st_size || copied != before.st_size ||
      after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
      after.st_mtim.tv_nsec != before.st_mtim.tv_nsec || !segments_lie_within (copy, copied))
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
  int fd;

  *out_fd = -1;
  /* A confined command could have put this file there: loading it would run its code, and not
   * even opening it is ours to do (it could be a device). */
  if (dsh_backend_path_is_untrusted (module->path, untrusted_roots))
    {
      module->refused_reason = g_strdup ("the module lies inside a directory confined commands "
                                         "may write (the workspace, /tmp or the temp "
                                         "directory)");
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
  module->refused_reason = check_trusted (module->path, fd);
  if (module->refused_reason != NULL)
    {
      close (fd);
      return NULL;
    }
#ifdef __linux__
  {
    int copy = copy_checked_content (fd, module->name, &module->refused_reason);

    close (fd);
    if (copy < 0)
      return NULL;
    *out_fd = copy;
    return g_strdup_printf ("/proc/self/fd/%d", copy);
  }
#else
  /* Elsewhere the file is loaded by its name: Windows keeps a loaded DLL from being written,
   * and macOS checks the signature of every page it maps. */
  close (fd);
  return g_strdup (module->path);
#endif
}

const char *const *
dsh_backend_descriptor_denial_exclusions (const DshBackendDescriptor *desc)
{
  return desc->abi_minor >= 1 ? desc->denial_exclusions : NULL;
}

static char *
check_descriptor (const DshBackendDescriptor *desc)
{
  const char *const *exclusions;

  if (desc == NULL)
    return g_strdup ("the entry point returned no descriptor");
  if (desc->abi_major != DSH_BACKEND_ABI_MAJOR)
    return g_strdup_printf ("backend ABI %u.%u is incompatible with the core's ABI %u.%u "
                            "(major version differs)",
                            desc->abi_major, desc->abi_minor,
                            DSH_BACKEND_ABI_MAJOR, DSH_BACKEND_ABI_MINOR);
  if (desc->abi_minor > DSH_BACKEND_ABI_MINOR)
    return g_strdup_printf ("backend ABI %u.%u is newer than the core's ABI %u.%u",
                            desc->abi_major, desc->abi_minor,
                            DSH_BACKEND_ABI_MAJOR, DSH_BACKEND_ABI_MINOR);
  if (!is_valid_name (desc->name))
    return g_strdup ("the descriptor's name is missing or not made of [a-z0-9-]");
  if (desc->confine == NULL)
    return g_strdup ("the descriptor has no confine function");
  if (desc->denial_signatures == NULL || desc->denial_signatures[0] == NULL)
    return g_strdup ("the descriptor has no denial signatures");
  exclusions = dsh_backend_descriptor_denial_exclusions (desc);
  for (size_t i = 0; exclusions != NULL && exclusions[i] != NULL; i++)
    {
      if (exclusions[i][0] == '\0')
        return g_strdup ("the descriptor has an empty denial exclusion");
    }
  if (desc->runner_failure_rules == NULL || desc->n_runner_failure_rules == 0)
    return g_strdup ("the descriptor has no runner-failure rules");
  if (DSH_BACKEND_ABI_AT_LEAST (desc, 1) &&
      (desc->instance_new == NULL) != (desc->instance_free == NULL))
    return g_strdup ("the descriptor has only one of instance_new and instance_free");
  for (size_t i = 0; i < desc->n_runner_failure_rules; i++)
    {
      const char *const *fatal = desc->runner_failure_rules[i].fatal_signatures;

      if (fatal == NULL || fatal[0] == NULL)
        return g_strdup_printf ("runner-failure rule %zu has no fatal signatures", i);
      for (size_t j = 0; fatal[j] != NULL; j++)
        {
          if (fatal[j][0] == '\0')
            return g_strdup_printf ("runner-failure rule %zu has an empty fatal signature", i);
        }
    }
  if (desc->os != host_backend_os ())
    return g_strdup_printf ("the backend is for %s, not this host", backend_os_name (desc->os));
  return NULL;
}

static char *
optional_text (const char *text)
{
  return text != NULL && text[0] != '\0' ? g_utf8_make_valid (text, -1) : NULL;
}

static void
load_module (DshBackendModule *module, const char *const *untrusted_roots)
{
  g_autofree char *specific = NULL;
  g_autofree char *content = NULL;
  DshBackendDescribeFunc describe = NULL;
  const DshBackendDescriptor *desc;
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

  /* The scan only keeps files whose name gives a backend name. */
  specific = g_strdup_printf ("dsh_backend_%s_describe", module->name);
  g_strdelimit (specific, "-", '_');
  if (!g_module_symbol (handle, specific, (gpointer *) &describe) &&
      !g_module_symbol (handle, "dsh_backend_describe", (gpointer *) &describe))
    describe = NULL;
  if (describe == NULL)
    {
      module->refused_reason = g_strdup_printf ("the module exports neither %s nor "
                                                "dsh_backend_describe",
                                                specific);
      g_module_close (handle);
      return;
    }

  desc = describe ();
  module->refused_reason = check_descriptor (desc);
  /* DSH_SANDBOX_BACKEND picks modules by file name, before opening them: the names must agree. */
  if (module->refused_reason == NULL && !g_str_equal (desc->name, module->name))
    module->refused_reason = g_strdup_printf ("the descriptor names the backend \"%s\", but the "
                                              "file is named for \"%s\"",
                                              desc->name, module->name);
  if (module->refused_reason != NULL)
    {
      g_module_close (handle);
      return;
    }

  module->description = g_utf8_make_valid (desc->description != NULL ? desc->description : "", -1);
  if (DSH_BACKEND_ABI_AT_LEAST (desc, 1))
    {
      module->version = optional_text (desc->version);
      module->license = optional_text (desc->license);
      module->origin = optional_text (desc->origin);
    }
  module->priority = desc->priority;
  module->descriptor = desc;
  module->module = handle;
}

gboolean
dsh_backend_module_bind_instance (DshBackendModule *module, DshBackendCall *call)
{
  DshBackendHost *host = &call->host;
  const DshBackendDescriptor *desc = module->descriptor;

  if (!DSH_BACKEND_ABI_AT_LEAST (desc, 1) || desc->instance_new == NULL)
    return TRUE;
  /* Concurrent first calls of one provider must agree on one instance. */
  g_mutex_lock (&module->instance_lock);
  if (module->instance == NULL)
    module->instance = desc->instance_new (host);
  host->instance = module->instance;
  g_mutex_unlock (&module->instance_lock);
  if (host->instance == NULL && call->error == NULL)
    call->error = g_strdup ("the backend could not create its per-provider state");
  return host->instance != NULL;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
dsh_module_loader_scan (const char *const *dirs,
                        const char *const *untrusted_roots,
                        const char *only_name)
{
  GPtrArray *modules = g_ptr_array_new_with_free_func ((GDestroyNotify) dsh_backend_module_free);
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize d = 0; dirs != NULL && dirs[d] != NULL; d++)
    {
      g_autoptr (GDir) dir = g_dir_open (dirs[d], 0, NULL);
      g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
      const char *entry;

      if (dir == NULL)
        continue;
      while ((entry = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (files, g_strdup (entry));
      g_ptr_array_sort (files, compare_strings);

      for (guint i = 0; i < files->len; i++)
        {
          g_autofree char *file_name = name_from_file (files->pdata[i]);
          DshBackendModule *module;

          if (file_name == NULL)
            continue;
          module = g_new0 (DshBackendModule, 1);
          g_mutex_init (&module->instance_lock);
          module->content_fd = -1;
          module->path = g_build_filename (dirs[d], files->pdata[i], NULL);
          module->name = g_steal_pointer (&file_name);
          module->excluded = only_name != NULL && !g_str_equal (module->name, only_name);
          if (module->excluded)
            {
              g_ptr_array_add (modules, module);
              continue;
            }
          load_module (module, untrusted_roots);

          if (module->refused_reason == NULL && g_hash_table_contains (names, module->name))
            {
              module->refused_reason = g_strdup_printf ("a backend named \"%s\" was already "
                                                        "loaded from an earlier file",
                                                        module->name);
              g_clear_pointer (&module->module, g_module_close);
              module->descriptor = NULL;
            }
          if (module->refused_reason == NULL)
            g_hash_table_add (names, module->name);
          g_ptr_array_add (modules, module);
        }
    }
  return modules;
}
