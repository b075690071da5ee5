/* dsh-acl-remove-tree.c — a confined command may leave anything in its temp directory, links
 * included, and may still be running: a symbolic link or junction found inside is removed
 * itself, never followed (what was opened is checked, not what was listed), and every directory
 * on the way down is held open without delete sharing, so nothing above what is being removed
 * can be renamed or swapped meanwhile.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef UNICODE
#define UNICODE
#endif
#include "dsh-acl-remove-tree.h"

#include <windows.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* FileDispositionInfoEx and its flags (Windows 10 1809), which the headers declare only for a
 * newer _WIN32_WINNT than this build targets: the values are fixed by the ABI. */
#define DISPOSITION_INFO_EX ((FILE_INFO_BY_HANDLE_CLASS) 21)
#define DISPOSITION_DELETE 0x00000001u
#define DISPOSITION_IGNORE_READONLY 0x00000010u

/* Deeper nesting is left in place rather than risk the caller's stack. */
#define MAX_DEPTH 256

typedef struct {
  char *error;
  size_t error_size;
  int failed;
} Removal;

/* Keeps the first failure: what could not be removed, and why. */
static void
note (Removal *removal, const wchar_t *path, const char *what)
{
  DWORD code = GetLastError ();
  char name[1024];

  if (removal->failed)
    return;
  removal->failed = 1;
  if (WideCharToMultiByte (CP_UTF8, 0, path, -1, name, sizeof (name), NULL, NULL) == 0)
    snprintf (name, sizeof (name), "a path too long to show");
  snprintf (removal->error, removal->error_size, "cannot %s %s: Windows error %lu", what, name,
            (unsigned long) code);
}

static int
mark_deleted (HANDLE handle)
{
  FILE_DISPOSITION_INFO disposition = { .DeleteFile = TRUE };
  DWORD ignoring_read_only = DISPOSITION_DELETE | DISPOSITION_IGNORE_READONLY;
  BY_HANDLE_FILE_INFORMATION info;
  FILE_BASIC_INFO basic;

  if (SetFileInformationByHandle (handle, FileDispositionInfo, &disposition,
                                  sizeof (disposition)))
    return 1;
  /* A read-only file refuses deletion; this removes the name and leaves the attribute alone
   * (Windows 10 1809 and later). */
  if (SetFileInformationByHandle (handle, DISPOSITION_INFO_EX, &ignoring_read_only,
                                  sizeof (ignoring_read_only)))
    return 1;
  /* Else only the attribute's removal lets it go. The attribute belongs to the file, not to
   * this name: a file with another name (a hard link the command made to a file elsewhere) is
   * left as it is rather than changed outside the directory. */
  if (!GetFileInformationByHandle (handle, &info) || info.nNumberOfLinks != 1)
    return 0;
  if (!GetFileInformationByHandleEx (handle, FileBasicInfo, &basic, sizeof (basic)) ||
      (basic.FileAttributes & FILE_ATTRIBUTE_READONLY) == 0)
    return 0;
  basic.FileAttributes &= ~(DWORD) FILE_ATTRIBUTE_READONLY;
  if (basic.FileAttributes == 0)
    basic.FileAttributes = FILE_ATTRIBUTE_NORMAL;
  return SetFileInformationByHandle (handle, FileBasicInfo, &basic, sizeof (basic)) &&
         SetFileInformationByHandle (handle, FileDispositionInfo, &disposition,
                                     sizeof (disposition));
}

static wchar_t *
child_path (const wchar_t *dir, const wchar_t *name)
{
  size_t size = wcslen (dir) + 1 + wcslen (name) + 1;
  wchar_t *path = malloc (size * sizeof (wchar_t));

  if (path != NULL)
    swprintf (path, size, L"%ls\\%ls", dir, name);
  return path;
}

static void remove_path (Removal *removal, const wchar_t *path, int depth);

/* Lists the directory held open, not whatever its name leads to by now. */
static void
empty_directory (Removal *removal, HANDLE directory, const wchar_t *path, int depth)
{
  FILE_INFO_BY_HANDLE_CLASS pass = FileIdBothDirectoryRestartInfo;
  /* On the heap: one buffer per level of a deep tree would not fit the stack. */
  const DWORD size = 64 * 1024;
  unsigned char *buffer = malloc (size);

  if (buffer == NULL)
    {
      SetLastError (ERROR_NOT_ENOUGH_MEMORY);
      note (removal, path, "list");
      return;
    }
  while (GetFileInformationByHandleEx (directory, pass, buffer, size))
    {
      const unsigned char *at = buffer;

      pass = FileIdBothDirectoryInfo;
      for (;;)
        {
          const FILE_ID_BOTH_DIR_INFO *entry = (const FILE_ID_BOTH_DIR_INFO *) at;
          size_t length = entry->FileNameLength / sizeof (wchar_t);
          wchar_t *name = malloc ((length + 1) * sizeof (wchar_t));
          wchar_t *child;

          if (name == NULL)
            {
              SetLastError (ERROR_NOT_ENOUGH_MEMORY);
              note (removal, path, "list");
              free (buffer);
              return;
            }
          memcpy (name, entry->FileName, length * sizeof (wchar_t));
          name[length] = L'\0';
          if (wcscmp (name, L".") != 0 && wcscmp (name, L"..") != 0)
            {
              child = child_path (path, name);
              if (child == NULL)
                {
                  free (name);
                  free (buffer);
                  SetLastError (ERROR_NOT_ENOUGH_MEMORY);
                  note (removal, path, "list");
                  return;
                }
              remove_path (removal, child, depth + 1);
              free (child);
            }
          free (name);
          if (entry->NextEntryOffset == 0)
            break;
          at += entry->NextEntryOffset;
        }
    }
  if (GetLastError () != ERROR_NO_MORE_FILES)
    note (removal, path, "list");
  free (buffer);
}

static void
remove_path (Removal *removal, const wchar_t *path, int depth)
{
  /* The object itself, a link as a link. */
  HANDLE probe = CreateFileW (path, FILE_READ_ATTRIBUTES,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                              OPEN_EXISTING,
                              FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  BY_HANDLE_FILE_INFORMATION info;
  DWORD access = DELETE | FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES;
  HANDLE handle;
  int is_directory;

  if (probe == INVALID_HANDLE_VALUE)
    {
      note (removal, path, "open");
      return;
    }
  if (!GetFileInformationByHandle (probe, &info))
    {
      note (removal, path, "inspect");
      CloseHandle (probe);
      return;
    }
  is_directory = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0 &&
                 (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) == 0;
  if (is_directory)
    access |= FILE_LIST_DIRECTORY | SYNCHRONIZE;
  /* The same object again, whatever its name leads to now, shared for reading and writing
   * only: while it is open it can be neither renamed nor replaced. */
  handle = ReOpenFile (probe, access, FILE_SHARE_READ | FILE_SHARE_WRITE,
                       FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT);
  CloseHandle (probe);
  if (handle == INVALID_HANDLE_VALUE)
    {
      note (removal, path, "open");
      return;
    }
  if (is_directory)
    {
      if (depth >= MAX_DEPTH)
        {
          SetLastError (ERROR_FILENAME_EXCED_RANGE);
          note (removal, path, "descend into");
          CloseHandle (handle);
          return;
        }
      empty_directory (removal, handle, path, depth);
    }
  if (!mark_deleted (handle))
    note (removal, path, "remove");
  CloseHandle (handle);
}

int
dsh_acl_remove_tree (const char *path, char *error, size_t error_size)
{
  Removal removal = { .error = error, .error_size = error_size };
  int n = MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
  wchar_t *wide;
  DWORD attributes;
  int prefix;

  if (n <= 0 || (wide = malloc (((size_t) n + 4) * sizeof (wchar_t))) == NULL)
    {
      snprintf (error, error_size, "cannot remove %s: not valid UTF-8, or out of memory", path);
      return -1;
    }
  /* The long-path form, so that a deep tree stays reachable by name; a path in it already, or
   * a share's, keeps its own. */
  prefix = path[0] == '\\' ? 0 : 4;
  wcscpy (wide, L"\\\\?\\");
  MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide + prefix, n);
  attributes = GetFileAttributesW (wide);
  if (attributes == INVALID_FILE_ATTRIBUTES)
    {
      DWORD code = GetLastError ();

      free (wide);
      if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND)
        return 0;
      snprintf (error, error_size, "cannot inspect %s: Windows error %lu", path,
                (unsigned long) code);
      return -1;
    }
  /* Whatever stands in place of the directory is not the backend's to remove. */
  if ((attributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 ||
      (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0)
    {
      free (wide);
      snprintf (error, error_size, "%s is not a directory but a link or a file: left as it is",
                path);
      return -1;
    }
  remove_path (&removal, wide, 0);
  free (wide);
  return removal.failed ? -1 : 0;
}
