/* dsh-root-reach-windows.c — whether a confined command of a workspace could change what a path
 * names, on Windows: the walk Windows makes of the path, one name at a time, through every
 * junction and symbolic link (the walk itself is dsh-windows-way.c), against everything that
 * command may write under any confined mode (dsh-roots-widest.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots.h"

#include "dsh-files-windows-private.h"

#include <winioctl.h>

#include "dsh-windows-paths-private.h"
#include "dsh-windows-way-private.h"

/* The name at path opened as itself: a link is read, not followed. */
static DshWindowsName
look_name (const char *path, char **out_target, gpointer unused)
{
  g_autofree wchar_t *wide = dsh_windows_wide (path, NULL);
  g_autofree guint8 *data = NULL;
  FILE_ATTRIBUTE_TAG_INFO tag;
  DshWindowsName name = DSH_WINDOWS_NAME_PLAIN;
  DWORD got = 0;
  HANDLE handle;

  *out_target = NULL;
  if (wide == NULL)
    return DSH_WINDOWS_NAME_UNREADABLE_LINK;
  handle = CreateFileW (wide, FILE_READ_ATTRIBUTES,
                        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
                        NULL);
  if (handle == INVALID_HANDLE_VALUE)
    return DSH_WINDOWS_NAME_PLAIN;
  if (!GetFileInformationByHandleEx (handle, FileAttributeTagInfo, &tag, sizeof tag))
    name = DSH_WINDOWS_NAME_UNREADABLE_LINK;
  else if ((tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 &&
           dsh_windows_reparse_tag_redirects ((guint32) tag.ReparseTag))
    {
      data = g_malloc0 (MAXIMUM_REPARSE_DATA_BUFFER_SIZE);
      if (DeviceIoControl (handle, FSCTL_GET_REPARSE_POINT, NULL, 0, data,
                           MAXIMUM_REPARSE_DATA_BUFFER_SIZE, &got, NULL))
        *out_target = dsh_windows_reparse_target (data, got);
      name = *out_target != NULL ? DSH_WINDOWS_NAME_LINK : DSH_WINDOWS_NAME_UNREADABLE_LINK;
    }
  CloseHandle (handle);
  return name;
}

char *
dsh_writable_root_on_way (const char *path,
                          const char *workspace_root,
                          const char *const *extra_roots)
{
  /* Canonical already: resolving it again could follow a directory swapped since. */
  DshSandboxPolicy policy = {
    .mode = DSH_SANDBOX_MODE_WORKSPACE_WRITE,
    .workspace_root = (char *) workspace_root,
    .extra_writable_roots = (char **) extra_roots,
  };
  g_auto (GStrv) roots = dsh_writable_roots_widest (&policy);
  g_autofree char *absolute = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  /* The Win32 layer takes "." and ".." away before the lookup: so does this. */
  absolute = dsh_windows_full_path (path);
  return dsh_windows_root_on_way (absolute != NULL ? absolute : path,
                                  (const char *const *) roots, look_name, NULL);
}
