/* dsh-root-reach-windows.c — how far a confined command of a workspace reaches, on Windows:
 * everything it may write under any confined mode, and whether it could change what a path
 * names (the walk Windows makes of the path, one name at a time, through every junction and
 * symbolic link, against those roots).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots.h"

#include "dsh-windows-files-private.h"

#include <string.h>
#include <winioctl.h>

#include "dsh-windows-paths-private.h"

GStrv
dsh_writable_roots_widest (const DshSandboxPolicy *policy)
{
  /* A shallow copy: the strings stay the caller's, and nothing is resolved twice. */
  DshSandboxPolicy widest;

  g_return_val_if_fail (policy != NULL, NULL);

  widest = *policy;
  widest.mode = DSH_SANDBOX_MODE_WORKSPACE_WRITE;
  return dsh_writable_roots (&widest);
}

static const char *
root_containing (const char *path, const char *const *roots)
{
  for (gsize i = 0; roots[i] != NULL; i++)
    {
      if (dsh_path_is_beneath (path, roots[i]))
        return roots[i];
    }
  return NULL;
}

/* The reparse data of a symbolic link or a junction, as the file system keeps it. */
#define TAG_MOUNT_POINT 0xA0000003u
#define TAG_SYMLINK 0xA000000Cu
#define SYMLINK_RELATIVE 0x1u

typedef struct {
  ULONG tag;
  USHORT data_length;
  USHORT reserved;
  USHORT substitute_offset;
  USHORT substitute_length;
  USHORT print_offset;
  USHORT print_length;
} ReparseHeader;

/* The target of a link (an absolute path, or relative to the link's directory), or NULL when
 * the link cannot be read or is of a kind that names no path a walk could follow. */
static char *
read_link (HANDLE handle)
{
  g_autofree guint8 *buffer = g_malloc0 (MAXIMUM_REPARSE_DATA_BUFFER_SIZE);
  const ReparseHeader *header = (const ReparseHeader *) buffer;
  g_autofree wchar_t *name = NULL;
  g_autofree char *target = NULL;
  const guint8 *path_buffer;
  gsize names_end;
  DWORD got = 0;
  ULONG flags = 0;

  if (!DeviceIoControl (handle, FSCTL_GET_REPARSE_POINT, NULL, 0, buffer,
                        MAXIMUM_REPARSE_DATA_BUFFER_SIZE, &got, NULL) ||
      got < sizeof (ReparseHeader))
    return NULL;
  if (header->tag == TAG_SYMLINK)
    {
      if (got < sizeof (ReparseHeader) + sizeof (ULONG))
        return NULL;
      memcpy (&flags, buffer + sizeof (ReparseHeader), sizeof flags);
      path_buffer = buffer + sizeof (ReparseHeader) + sizeof (ULONG);
    }
  else if (header->tag == TAG_MOUNT_POINT)
    path_buffer = buffer + sizeof (ReparseHeader);
  else
    return NULL;
  names_end = (gsize) (path_buffer - buffer) + header->substitute_offset +
              header->substitute_length;
  if (names_end > got || header->substitute_length % 2 != 0)
    return NULL;
  name = g_new0 (wchar_t, header->substitute_length / 2 + 1);
  memcpy (name, path_buffer + header->substitute_offset, header->substitute_length);
  target = dsh_windows_narrow (name);
  if (target == NULL)
    return NULL;
  if ((flags & SYMLINK_RELATIVE) != 0)
    return g_steal_pointer (&target);
  /* An absolute target is an NT path: \??\C:\x or \??\UNC\server\share\x. */
  if (g_str_has_prefix (target, "\\??\\"))
    {
      target[1] = '\\';
      {
        char *stripped = dsh_windows_path_strip_prefix (target);

        g_free (target);
        target = stripped;
      }
    }
  return dsh_windows_path_root_length (target) > 0 ? g_steal_pointer (&target) : NULL;
}

/* Is the name at path a link a lookup follows? *out_target: where it points (NULL when that
 * cannot be read). */
static gboolean
is_link (const char *path, char **out_target)
{
  g_autofree wchar_t *wide = dsh_windows_wide (path, NULL);
  FILE_ATTRIBUTE_TAG_INFO tag;
  gboolean link = FALSE;
  HANDLE handle;

  *out_target = NULL;
  if (wide == NULL)
    return FALSE;
  handle = CreateFileW (wide, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                        NULL, OPEN_EXISTING,
                        FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    return FALSE;
  if (GetFileInformationByHandleEx (handle, FileAttributeTagInfo, &tag, sizeof tag) &&
      (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 &&
      dsh_windows_reparse_tag_redirects ((guint32) tag.ReparseTag))
    {
      link = TRUE;
      *out_target = read_link (handle);
    }
  CloseHandle (handle);
  return link;
}

static void
push_names (GQueue *pending, const char *path)
{
  g_auto (GStrv) names = g_strsplit_set (path, "\\/", -1);

  for (gsize i = g_strv_length (names); i > 0; i--)
    g_queue_push_head (pending, g_strdup (names[i - 1]));
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
  g_autoptr (GString) resolved = NULL;
  GQueue pending = G_QUEUE_INIT;
  const char *hit = NULL;
  char *unreadable = NULL;
  gsize top;
  guint links = 0;

  g_return_val_if_fail (path != NULL, NULL);

  /* The Win32 layer takes "." and ".." away before the lookup: so does this. */
  absolute = dsh_windows_full_path (path);
  if (absolute == NULL || (top = dsh_windows_path_root_length (absolute)) == 0)
    return g_strdup (root_containing (path, (const char *const *) roots));
  resolved = g_string_new_len (absolute, (gssize) top);
  push_names (&pending, absolute + top);

  while (hit == NULL && unreadable == NULL && !g_queue_is_empty (&pending))
    {
      g_autofree char *part = g_queue_pop_head (&pending);
      g_autofree char *candidate = NULL;
      g_autofree char *target = NULL;
      gsize volume = dsh_windows_path_root_length (resolved->str);

      if (part[0] == '\0' || g_str_equal (part, "."))
        continue;
      hit = root_containing (resolved->str, (const char *const *) roots);
      if (hit != NULL)
        break;
      if (g_str_equal (part, ".."))
        {
          char *sep = strrchr (resolved->str, '\\');

          /* ".." of the top of a drive or share is that top. */
          if (sep != NULL)
            g_string_truncate (resolved, MAX ((gsize) (sep - resolved->str), volume));
          continue;
        }
      candidate = g_strdup_printf ("%s%s%s", resolved->str,
                                   g_str_has_suffix (resolved->str, "\\") ? "" : "\\", part);
      if (!is_link (candidate, &target))
        {
          /* A missing name is judged where it would be created. */
          g_string_assign (resolved, candidate);
          continue;
        }
      /* A link whose target cannot be read could name anything: it answers for itself. */
      if (target == NULL || ++links > 63)
        {
          unreadable = g_steal_pointer (&candidate);
          break;
        }
      push_names (&pending, target + dsh_windows_path_root_length (target));
      if (dsh_windows_path_root_length (target) > 0)
        {
          g_string_assign (resolved, "");
          g_string_append_len (resolved, target, (gssize) dsh_windows_path_root_length (target));
        }
    }
  g_queue_clear_full (&pending, g_free);
  if (unreadable != NULL)
    return unreadable;
  if (hit == NULL)
    hit = root_containing (resolved->str, (const char *const *) roots);
  return g_strdup (hit);
}
