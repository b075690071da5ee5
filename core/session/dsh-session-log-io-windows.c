/* dsh-session-log-io-windows.c — the file operations under the session log and its fold cache on
 * Windows: the same semantics as on POSIX with the Win32 means for them. Appends hold
 * LockFileEx() on one byte far past any end of file (Windows byte-range locks are mandatory, so
 * locking the data itself would keep readers out) and write through a FILE_APPEND_DATA handle;
 * identity is the volume serial number and file index; a new log and the fold cache's files are
 * for the user alone, and a cache file is read only when it still is (dsh-owner-only-windows.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log-private.h"
#include "dsh-session-fold-cache-private.h"

#include <windows.h>

#include <glib/gstdio.h>

#include "dsh-error.h"
#include "dsh-owner-only-windows-private.h"

/* The byte every writer locks: past any size a log reaches, so nothing ever reads or writes it. */
#define APPEND_LOCK_OFFSET G_GUINT64_CONSTANT (0x7FFFFFFFFFFFFFF0)

/* 100 ns intervals between 1601-01-01 and 1970-01-01, where FILETIME and Unix time begin. */
#define FILETIME_UNIX_EPOCH G_GINT64_CONSTANT (116444736000000000)

struct _DshSessionFile {
  HANDLE handle;
  char *path;
};

static gboolean
win32_error (GError **error, DWORD code, const char *path, const char *what)
{
  g_autofree char *reason = g_win32_error_message ((gint) code);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG, "%s: cannot %s: %s", path,
               what, reason);
  return FALSE;
}

static wchar_t *
wide_path (const char *path, GError **error)
{
  wchar_t *wide = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);

  if (wide == NULL)
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                 "%s: the path is not valid UTF-8", path);
  return wide;
}

static void
split_filetime (gint64 ticks, gint64 *out_sec, guint32 *out_nsec)
{
  gint64 sec = (ticks - FILETIME_UNIX_EPOCH) / 10000000;
  gint64 rest = (ticks - FILETIME_UNIX_EPOCH) % 10000000;

  if (rest < 0)
    {
      rest += 10000000;
      sec--;
    }
  *out_sec = sec;
  *out_nsec = (guint32) rest * 100u;
}

/* FALSE with GetLastError() set unless handle is an open regular file, then info filled. */
static gboolean
query_handle (HANDLE handle, DshSessionFileInfo *info)
{
  BY_HANDLE_FILE_INFORMATION by_handle;
  FILE_BASIC_INFO basic;

  if (!GetFileInformationByHandle (handle, &by_handle) ||
      !GetFileInformationByHandleEx (handle, FileBasicInfo, &basic, sizeof basic))
    return FALSE;
  info->volume = by_handle.dwVolumeSerialNumber;
  info->index = ((guint64) by_handle.nFileIndexHigh << 32) | by_handle.nFileIndexLow;
  info->size = (goffset) (((guint64) by_handle.nFileSizeHigh << 32) | by_handle.nFileSizeLow);
  /* ChangeTime moves with every write and every metadata change, as ctime does. */
  split_filetime (basic.ChangeTime.QuadPart, &info->change_sec, &info->change_nsec);
  split_filetime (basic.LastWriteTime.QuadPart, &info->modify_sec, &info->modify_nsec);
  dsh_session_file_info_settle (info);
  return TRUE;
}

static gboolean
is_regular_file (HANDLE handle)
{
  BY_HANDLE_FILE_INFORMATION by_handle;

  return GetFileType (handle) == FILE_TYPE_DISK &&
         GetFileInformationByHandle (handle, &by_handle) &&
         (by_handle.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

static DshSessionFile *
file_new (HANDLE handle, const char *path)
{
  DshSessionFile *file = g_new0 (DshSessionFile, 1);

  file->handle = handle;
  file->path = g_strdup (path);
  return file;
}

void
dsh_session_file_close (DshSessionFile *file)
{
  if (file == NULL)
    return;
  /* Closing the handle releases its lock. */
  CloseHandle (file->handle);
  g_free (file->path);
  g_free (file);
}

DshSessionFile *
dsh_session_file_open (const char *path, DshSessionFileAccess access, DshSessionFileInfo *info,
                       GError **error)
{
  g_autofree wchar_t *wide = wide_path (path, error);
  /* FILE_APPEND_DATA without FILE_WRITE_DATA: every write lands at the end of the file. */
  DWORD rights = access == DSH_SESSION_FILE_APPEND ? GENERIC_READ | FILE_APPEND_DATA
                                                   : GENERIC_READ;
  HANDLE handle;

  if (wide == NULL)
    return NULL;
  /* Other writers and readers keep the log open too; a rename stays possible, as on POSIX. */
  handle = CreateFileW (wide, rights, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                        NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    {
      win32_error (error, GetLastError (), path, "open the session log");
      return NULL;
    }
  /* A pipe, a console or a device answers to a path too: only a file on disk is a log. */
  if (!is_regular_file (handle) || !query_handle (handle, info))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log is not a regular file", path);
      CloseHandle (handle);
      return NULL;
    }
  return file_new (handle, path);
}

/* A new file at path, the user's alone; INVALID_HANDLE_VALUE with GetLastError() set. */
static HANDLE
create_private (const char *path, DWORD rights)
{
  g_autofree wchar_t *wide = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);
  PSECURITY_DESCRIPTOR descriptor;
  SECURITY_ATTRIBUTES attributes = { sizeof attributes, NULL, FALSE };
  HANDLE handle;
  DWORD code;

  if (wide == NULL)
    {
      SetLastError (ERROR_INVALID_NAME);
      return INVALID_HANDLE_VALUE;
    }
  descriptor = dsh_owner_only_descriptor (FALSE);
  if (descriptor == NULL)
    return INVALID_HANDLE_VALUE;
  attributes.lpSecurityDescriptor = descriptor;
  handle = CreateFileW (wide, rights, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                        &attributes, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
  code = GetLastError ();
  LocalFree (descriptor);
  SetLastError (code);
  return handle;
}

DshSessionFile *
dsh_session_file_create (const char *path, GError **error)
{
  HANDLE handle = create_private (path, GENERIC_READ | FILE_APPEND_DATA);

  if (handle == INVALID_HANDLE_VALUE)
    {
      win32_error (error, GetLastError (), path, "create the session log");
      return NULL;
    }
  return file_new (handle, path);
}

gboolean
dsh_session_file_query (DshSessionFile *file, DshSessionFileInfo *info, GError **error)
{
  if (!query_handle (file->handle, info))
    return win32_error (error, GetLastError (), file->path, "stat the session log");
  return TRUE;
}

void
dsh_session_file_set_coarse_times_for_testing (gboolean coarse)
{
  /* NTFS is coarse already. */
}

gboolean
dsh_session_file_times_are_fine (DshSessionFile *file)
{
  /* NTFS stamps writes from the system's coarse clock (a tick of about 15 ms). */
  return FALSE;
}

static int
try_lock (DshSessionFile *file, GError **error)
{
  OVERLAPPED where = { 0 };
  DWORD code;

  where.Offset = (DWORD) (APPEND_LOCK_OFFSET & 0xFFFFFFFFu);
  where.OffsetHigh = (DWORD) (APPEND_LOCK_OFFSET >> 32);
  if (LockFileEx (file->handle, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0,
                  &where))
    return 1;
  code = GetLastError ();
  if (code == ERROR_LOCK_VIOLATION || code == ERROR_IO_PENDING)
    return 0;
  win32_error (error, code, file->path, "lock the session log");
  return -1;
}

gboolean
dsh_session_file_lock (DshSessionFile *file, GError **error)
{
  return dsh_session_file_lock_patiently (file, file->path, try_lock, error);
}

gssize
dsh_session_file_read_at (DshSessionFile *file, char *buf, gsize size, goffset offset)
{
  OVERLAPPED where = { 0 };
  DWORD n = 0;

  where.Offset = (DWORD) ((guint64) offset & 0xFFFFFFFFu);
  where.OffsetHigh = (DWORD) ((guint64) offset >> 32);
  if (!ReadFile (file->handle, buf, (DWORD) MIN (size, G_MAXINT32), &n, &where))
    return GetLastError () == ERROR_HANDLE_EOF ? 0 : -1;
  return (gssize) n;
}

char *
dsh_session_file_read_from (DshSessionFile *file, goffset offset, gsize *out_length,
                            GError **error)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  guint8 chunk[65536];

  for (;;)
    {
      gssize n = dsh_session_file_read_at (file, (char *) chunk, sizeof chunk,
                                           offset + (goffset) bytes->len);

      if (n < 0)
        {
          win32_error (error, GetLastError (), file->path, "read the session log");
          return NULL;
        }
      if (n == 0)
        break;
      g_byte_array_append (bytes, chunk, (guint) n);
    }
  *out_length = bytes->len;
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&bytes), FALSE);
}

/* FALSE with GetLastError() set unless every byte was written. */
static gboolean
write_all (HANDLE handle, const char *data, gsize length)
{
  while (length > 0)
    {
      DWORD n = 0;

      if (!WriteFile (handle, data, (DWORD) MIN (length, G_MAXINT32), &n, NULL))
        return FALSE;
      if (n == 0)
        {
          SetLastError (ERROR_WRITE_FAULT);
          return FALSE;
        }
      data += n;
      length -= n;
    }
  return TRUE;
}

gboolean
dsh_session_file_append (DshSessionFile *file, const char *data, gsize length, const char *what,
                         GError **error)
{
  if (!write_all (file->handle, data, length) || !FlushFileBuffers (file->handle))
    return win32_error (error, GetLastError (), file->path, what);
  return TRUE;
}

gboolean
dsh_session_file_truncate (DshSessionFile *file, goffset length, const char *what,
                           GError **error)
{
  FILE_END_OF_FILE_INFO end = { 0 };
  HANDLE writer;
  gboolean ok;

  /* The append handle cannot move the end back; a second handle on the very same file can,
   * with no path looked up again. */
  writer = ReOpenFile (file->handle, GENERIC_WRITE,
                       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, 0);
  if (writer == INVALID_HANDLE_VALUE)
    return win32_error (error, GetLastError (), file->path, what);
  end.EndOfFile.QuadPart = length;
  ok = SetFileInformationByHandle (writer, FileEndOfFileInfo, &end, sizeof end) &&
       FlushFileBuffers (writer);
  if (!ok)
    {
      DWORD code = GetLastError ();

      CloseHandle (writer);
      return win32_error (error, code, file->path, what);
    }
  CloseHandle (writer);
  return TRUE;
}

void
dsh_session_sync_directory_of (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree wchar_t *wide = g_utf8_to_utf16 (dir, -1, NULL, NULL, NULL);
  HANDLE handle;

  if (wide == NULL)
    return;
  /* Best effort, as fsync of the directory on POSIX: a directory is flushed through a handle
   * with write access to it, which a user may lack; the header itself is already flushed. */
  handle = CreateFileW (wide, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                        NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    return;
  FlushFileBuffers (handle);
  CloseHandle (handle);
}

char *
dsh_session_read_private_file (const char *path, gsize limit, gsize *out_length)
{
  g_autofree wchar_t *wide = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);
  BY_HANDLE_FILE_INFORMATION by_handle;
  DshSessionFile file = { INVALID_HANDLE_VALUE, (char *) path };
  char *text;
  guint64 size;

  if (wide == NULL)
    return NULL;
  /* FILE_FLAG_OPEN_REPARSE_POINT opens a symbolic link or junction itself, as O_NOFOLLOW does;
   * it is then refused below for being one. */
  file.handle = CreateFileW (wide, GENERIC_READ | READ_CONTROL,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                             OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (file.handle == INVALID_HANDLE_VALUE)
    return NULL;
  size = 0;
  if (!is_regular_file (file.handle) ||
      !GetFileInformationByHandle (file.handle, &by_handle) ||
      (by_handle.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 ||
      (size = ((guint64) by_handle.nFileSizeHigh << 32) | by_handle.nFileSizeLow) >= limit ||
      !dsh_owner_only_handle (file.handle))
    {
      CloseHandle (file.handle);
      return NULL;
    }
  text = dsh_session_file_read_from (&file, 0, out_length, NULL);
  CloseHandle (file.handle);
  return text;
}

void
dsh_session_write_private_file (const char *path, const char *data, gsize length)
{
  g_autofree char *suffix = g_uuid_string_random ();
  g_autofree char *temp = g_strdup_printf ("%s.%s", path, suffix);
  g_autofree wchar_t *wide_temp = g_utf8_to_utf16 (temp, -1, NULL, NULL, NULL);
  g_autofree wchar_t *wide_target = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);
  HANDLE handle;
  gboolean ok;

  if (wide_temp == NULL || wide_target == NULL)
    return;
  handle = create_private (temp, GENERIC_WRITE);
  if (handle == INVALID_HANDLE_VALUE)
    return;
  ok = write_all (handle, data, length);
  ok = CloseHandle (handle) && ok;
  /* The replaced file's DACL goes with it: the new name keeps the new file's own. */
  if (!ok || !MoveFileExW (wide_temp, wide_target, MOVEFILE_REPLACE_EXISTING))
    DeleteFileW (wide_temp);
}
