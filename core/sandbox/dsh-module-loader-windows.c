/* dsh-module-loader-windows.c — finds backend modules on Windows, refuses any the current user
 * could not trust (an owner other than this user or the administrators, a DACL that lets anyone
 * else write the DLL or its directory, a link in the DLL's place), and loads exactly the file it
 * checked: the DLL and its directory are held open, unshared for writing and deletion, from the
 * check until Windows has mapped the image, which then keeps the file from being written. The
 * DLL's own imports are looked up beside it and in System32 only, never in the current
 * directory or PATH.
 *
 * What follows the loading (the descriptor's checks, instances, the scan) is dsh-module-loader.c's,
 * copied so that neither file needs the other's platform: a change to one belongs in both.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-module-loader-private.h"

#include "dsh-files-windows-private.h"

#include <string.h>

#include "dsh-backend-host-private.h"
#include "dsh-config.h"
#include "dsh-windows-paths-private.h"

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
  return DSH_BACKEND_OS_WINDOWS;
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

/* Opens path as itself for the trust checks: a link in its place is refused, not followed, and
 * while the handle is open nobody may write, rename or remove it. */
static HANDLE
open_unshared (const char *path, gboolean directory, char **reason)
{
  g_autofree wchar_t *wide = dsh_windows_wide (path, NULL);
  FILE_ATTRIBUTE_TAG_INFO tag;
  HANDLE handle;

  if (wide == NULL)
    {
      *reason = g_strdup ("the module's path is not valid UTF-8");
      return INVALID_HANDLE_VALUE;
    }
  handle = CreateFileW (wide, (directory ? FILE_LIST_DIRECTORY : GENERIC_READ) | READ_CONTROL |
                                FILE_READ_ATTRIBUTES,
                        FILE_SHARE_READ, NULL, OPEN_EXISTING,
                        FILE_FLAG_OPEN_REPARSE_POINT | (directory ? FILE_FLAG_BACKUP_SEMANTICS : 0),
                        NULL);
  if (handle == INVALID_HANDLE_VALUE)
    {
      g_autofree char *why = dsh_windows_error_text (GetLastError ());

      *reason = g_strdup_printf ("cannot open the module %s: %s",
                                 directory ? "directory" : "file", why);
      return INVALID_HANDLE_VALUE;
    }
  if (!GetFileInformationByHandleEx (handle, FileAttributeTagInfo, &tag, sizeof tag))
    *reason = g_strdup ("cannot read the module file's attributes");
  else if ((tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 &&
           dsh_windows_reparse_tag_redirects ((guint32) tag.ReparseTag))
    *reason = g_strdup_printf ("the module %s is a symbolic link or junction",
                               directory ? "directory" : "file");
  else if (directory != ((tag.FileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0))
    *reason = g_strdup (directory ? "the module directory is not a directory"
                                  : "the module is not a regular file");
  else if (!directory && GetFileType (handle) != FILE_TYPE_DISK)
    *reason = g_strdup ("the module is not a regular file");
  if (*reason != NULL)
    {
      CloseHandle (handle);
      return INVALID_HANDLE_VALUE;
    }
  return handle;
}

static char *
check_trusted (HANDLE handle, const char *what)
{
  g_autofree char *why = dsh_windows_untrusted_reason (handle, DSH_WINDOWS_TRUST_USER_OR_ADMINS);

  return why != NULL ? g_strdup_printf ("the module %s %s", what, why) : NULL;
}

/* Checks the module file and its directory on handles held until the image is mapped, then
 * loads it; NULL with module->refused_reason set. */
static GModule *
open_checked (DshBackendModule *module, const char *const *untrusted_roots)
{
  g_autofree char *dir = g_path_get_dirname (module->path);
  g_autofree wchar_t *wide = NULL;
  HANDLE dir_handle, file_handle;
  HMODULE image = NULL;
  GModule *handle = NULL;

  /* A confined command could have put this file there: loading it would run its code, and not
   * even opening it is ours to do (it could be a device). */
  if (dsh_backend_path_is_untrusted (module->path, untrusted_roots))
    {
      module->refused_reason = g_strdup ("the module lies inside a directory confined commands "
                                         "may write (the workspace or the temp directory)");
      return NULL;
    }
  dir_handle = open_unshared (dir, TRUE, &module->refused_reason);
  if (dir_handle == INVALID_HANDLE_VALUE)
    return NULL;
  file_handle = open_unshared (module->path, FALSE, &module->refused_reason);
  if (file_handle != INVALID_HANDLE_VALUE)
    {
      module->refused_reason = check_trusted (file_handle, "file");
      if (module->refused_reason == NULL)
        module->refused_reason = check_trusted (dir_handle, "directory");
    }
  wide = module->refused_reason == NULL ? dsh_windows_wide (module->path, NULL) : NULL;
  if (wide != NULL)
    {
      /* The DLL's imports come from beside it or from System32, never from the current
       * directory or PATH. GModule then takes the image already mapped. */
      image = LoadLibraryExW (wide, NULL, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
                                            LOAD_LIBRARY_SEARCH_SYSTEM32);
      if (image == NULL)
        {
          g_autofree char *why = dsh_windows_error_text (GetLastError ());

          module->refused_reason = g_strdup_printf ("cannot load the module: %s", why);
        }
      else
        {
          handle = g_module_open (module->path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
          if (handle == NULL)
            module->refused_reason = g_strdup_printf ("cannot open the module: %s",
                                                      g_module_error ());
          FreeLibrary (image);
        }
    }
  if (file_handle != INVALID_HANDLE_VALUE)
    CloseHandle (file_handle);
  CloseHandle (dir_handle);
  return handle;
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
  DshBackendDescribeFunc describe = NULL;
  const DshBackendDescriptor *desc;
  GModule *handle = open_checked (module, untrusted_roots);

  if (handle == NULL)
    return;

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
