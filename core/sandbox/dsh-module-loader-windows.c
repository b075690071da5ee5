/* dsh-module-loader-windows.c — loads a backend module found by the scan on Windows: refuses
 * any the current user could not trust (an owner other than this user or the administrators, a
 * DACL that lets anyone else write the DLL or its directory, a link in the DLL's place), and
 * loads exactly the file it checked: the DLL and its directory are held open, unshared for
 * writing and deletion, from the check until Windows has mapped the image, which then keeps the
 * file from being written. The DLL's own imports are looked up beside it and in System32 only,
 * never in the current directory or PATH.
 *
 * The scan (dsh-module-scan.c) and the descriptor's checks (dsh-backend-descriptor.c) are the
 * same on every platform.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-module-loader-private.h"

#include "dsh-files-windows-private.h"

#include "dsh-backend-host-private.h"
#include "dsh-windows-paths-private.h"

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

void
dsh_backend_module_load (DshBackendModule *module, const char *const *untrusted_roots)
{
  GModule *handle = open_checked (module, untrusted_roots);

  if (handle != NULL)
    dsh_backend_module_describe (module, handle);
}
