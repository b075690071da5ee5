/* dsh-files-windows.c — the Win32 calls behind the Windows side of the roots, the record of
 * granted roots and the module loader: opening a directory one name at a time without being
 * redirected, the path and identity Windows has for an open handle, and the owner and DACL
 * checks that stand in for the owner and mode bits of a POSIX file.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-files-windows-private.h"

#include <aclapi.h>
#include <sddl.h>
#include <string.h>

#include "dsh-windows-paths-private.h"

wchar_t *
dsh_windows_wide (const char *utf8, GError **error)
{
  return (wchar_t *) g_utf8_to_utf16 (utf8, -1, NULL, NULL, error);
}

char *
dsh_windows_narrow (const wchar_t *wide)
{
  return g_utf16_to_utf8 ((const gunichar2 *) wide, -1, NULL, NULL, NULL);
}

char *
dsh_windows_error_text (DWORD code)
{
  wchar_t *buffer = NULL;
  char *text = NULL;
  DWORD n = FormatMessageW (FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                              FORMAT_MESSAGE_IGNORE_INSERTS,
                            NULL, code, 0, (LPWSTR) &buffer, 0, NULL);

  if (n > 0 && buffer != NULL)
    text = dsh_windows_narrow (buffer);
  LocalFree (buffer);
  if (text == NULL)
    return g_strdup_printf ("Windows error %lu", (unsigned long) code);
  return g_strchomp (text);
}

char *
dsh_windows_full_path (const char *path)
{
  g_autofree wchar_t *wide = dsh_windows_wide (path, NULL);
  g_autofree wchar_t *full = NULL;
  DWORD n;

  if (wide == NULL)
    return NULL;
  n = GetFullPathNameW (wide, 0, NULL, NULL);
  if (n == 0)
    return NULL;
  full = g_new0 (wchar_t, n + 1);
  if (GetFullPathNameW (wide, n + 1, full, NULL) == 0)
    return NULL;
  return dsh_windows_narrow (full);
}

char *
dsh_windows_final_path (HANDLE handle)
{
  g_autofree wchar_t *buffer = NULL;
  g_autofree char *spelled = NULL;
  DWORD n = GetFinalPathNameByHandleW (handle, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);

  if (n == 0)
    return NULL;
  buffer = g_new0 (wchar_t, n + 1);
  if (GetFinalPathNameByHandleW (handle, buffer, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS) ==
      0)
    return NULL;
  spelled = dsh_windows_narrow (buffer);
  return spelled != NULL ? dsh_windows_path_strip_prefix (spelled) : NULL;
}

/* Opens one name as itself: listing access, so that the handle takes part in sharing and, not
 * sharing deletion, keeps the name from being renamed or removed while it is open. */
static HANDLE
open_one (const char *path, char **out_redirect, DWORD *out_code)
{
  g_autofree wchar_t *wide = dsh_windows_wide (path, NULL);
  FILE_ATTRIBUTE_TAG_INFO tag;
  HANDLE handle;

  if (wide == NULL)
    {
      *out_code = ERROR_INVALID_NAME;
      return INVALID_HANDLE_VALUE;
    }
  handle = CreateFileW (wide,
                        FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | READ_CONTROL | SYNCHRONIZE,
                        FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                        FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    {
      *out_code = GetLastError ();
      return INVALID_HANDLE_VALUE;
    }
  if (!GetFileInformationByHandleEx (handle, FileAttributeTagInfo, &tag, sizeof tag))
    {
      *out_code = GetLastError ();
      CloseHandle (handle);
      return INVALID_HANDLE_VALUE;
    }
  if ((tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 &&
      dsh_windows_reparse_tag_redirects ((guint32) tag.ReparseTag))
    {
      *out_redirect = g_strdup (path);
      *out_code = ERROR_CANT_ACCESS_FILE;
      CloseHandle (handle);
      return INVALID_HANDLE_VALUE;
    }
  if ((tag.FileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0)
    {
      *out_code = ERROR_DIRECTORY;
      CloseHandle (handle);
      return INVALID_HANDLE_VALUE;
    }
  return handle;
}

HANDLE
dsh_windows_open_directory (const char *path, char **out_redirect, DWORD *out_code)
{
  g_autoptr (GPtrArray) held = g_ptr_array_new ();
  g_autoptr (GString) walked = NULL;
  gsize top = dsh_windows_path_root_length (path);
  HANDLE handle;

  *out_redirect = NULL;
  *out_code = ERROR_SUCCESS;
  if (top == 0)
    {
      *out_code = ERROR_BAD_PATHNAME;
      return INVALID_HANDLE_VALUE;
    }
  walked = g_string_new_len (path, (gssize) top);
  g_string_append_c (walked, '\\');
  handle = open_one (walked->str, out_redirect, out_code);
  for (const char *p = path + top; handle != INVALID_HANDLE_VALUE && *p != '\0';)
    {
      const char *end = p;

      while (*end != '\0' && *end != '\\' && *end != '/')
        end++;
      /* The caller normalised the path: a "." or ".." left would be resolved by the lookup
       * itself, past the handles held. */
      if ((end - p == 1 && p[0] == '.') || (end - p == 2 && p[0] == '.' && p[1] == '.'))
        {
          CloseHandle (handle);
          handle = INVALID_HANDLE_VALUE;
          *out_code = ERROR_BAD_PATHNAME;
          break;
        }
      if (end > p)
        {
          if (walked->str[walked->len - 1] != '\\')
            g_string_append_c (walked, '\\');
          g_string_append_len (walked, p, (gssize) (end - p));
          /* The directory walked through stays open until the end: nothing above the next
           * name can move meanwhile. */
          g_ptr_array_add (held, handle);
          handle = open_one (walked->str, out_redirect, out_code);
        }
      p = *end != '\0' ? end + 1 : end;
    }
  for (guint i = 0; i < held->len; i++)
    CloseHandle (held->pdata[i]);
  return handle;
}

/* 100-nanosecond ticks since 1601 in microseconds since 1970. */
static gint64
unix_us (gint64 ticks)
{
  return (ticks - G_GINT64_CONSTANT (116444736000000000)) / 10;
}

gboolean
dsh_windows_identity (HANDLE handle,
                      DshRootIdentity *identity,
                      gboolean *out_is_link,
                      gint64 *out_changed_us)
{
  BY_HANDLE_FILE_INFORMATION info;
  FILE_ATTRIBUTE_TAG_INFO tag;
  FILE_BASIC_INFO basic;
  gint64 created;

  if (!GetFileInformationByHandle (handle, &info) ||
      !GetFileInformationByHandleEx (handle, FileAttributeTagInfo, &tag, sizeof tag) ||
      !GetFileInformationByHandleEx (handle, FileBasicInfo, &basic, sizeof basic))
    return FALSE;
  /* ULONGLONG, not gint64: the shifts must not depend on how a GLib build spells 64 bits. */
  created = (gint64) (((ULONGLONG) info.ftCreationTime.dwHighDateTime << 32) |
                      info.ftCreationTime.dwLowDateTime);
  identity->dev = info.dwVolumeSerialNumber;
  identity->ino = ((ULONGLONG) info.nFileIndexHigh << 32) | info.nFileIndexLow;
  identity->birth_ns = unix_us (created) * 1000;
  if (out_is_link != NULL)
    *out_is_link = (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 &&
                   dsh_windows_reparse_tag_redirects ((guint32) tag.ReparseTag);
  if (out_changed_us != NULL)
    *out_changed_us = unix_us (basic.ChangeTime.QuadPart);
  return TRUE;
}

/* The token's user or default owner (TokenUser, TokenOwner): a copy to LocalFree, or NULL. */
static PSID
token_sid (TOKEN_INFORMATION_CLASS which)
{
  HANDLE token = NULL;
  g_autofree guint8 *buffer = NULL;
  DWORD size = 0;
  PSID found, copy = NULL;

  if (!OpenProcessToken (GetCurrentProcess (), TOKEN_QUERY, &token))
    return NULL;
  GetTokenInformation (token, which, NULL, 0, &size);
  buffer = g_malloc0 (size > 0 ? size : 1);
  if (size == 0 || !GetTokenInformation (token, which, buffer, size, &size))
    {
      CloseHandle (token);
      return NULL;
    }
  CloseHandle (token);
  found = which == TokenUser ? ((TOKEN_USER *) buffer)->User.Sid : ((TOKEN_OWNER *) buffer)->Owner;
  size = GetLengthSid (found);
  copy = LocalAlloc (LPTR, size);
  if (copy != NULL && !CopySid (size, copy, found))
    {
      LocalFree (copy);
      copy = NULL;
    }
  return copy;
}

char *
dsh_windows_user_sid (void)
{
  PSID user = token_sid (TokenUser);
  wchar_t *text = NULL;
  char *sid = NULL;

  if (user != NULL && ConvertSidToStringSidW (user, &text))
    sid = dsh_windows_narrow (text);
  LocalFree (text);
  LocalFree (user);
  return sid;
}

/* The values dsh-windows-acl.c reads an ACE by are Windows' own. */
G_STATIC_ASSERT (DSH_WINDOWS_ACE_ALLOWED == ACCESS_ALLOWED_ACE_TYPE);
G_STATIC_ASSERT (DSH_WINDOWS_ACE_DENIED == ACCESS_DENIED_ACE_TYPE);
G_STATIC_ASSERT (DSH_WINDOWS_ACE_DENIED_OBJECT == ACCESS_DENIED_OBJECT_ACE_TYPE);
G_STATIC_ASSERT (DSH_WINDOWS_ACE_DENIED_CALLBACK == ACCESS_DENIED_CALLBACK_ACE_TYPE);
G_STATIC_ASSERT (DSH_WINDOWS_ACE_DENIED_CALLBACK_OBJECT == ACCESS_DENIED_CALLBACK_OBJECT_ACE_TYPE);
G_STATIC_ASSERT (DSH_WINDOWS_ACE_INHERIT_ONLY == INHERIT_ONLY_ACE);

/* sid as a string, or NULL. */
static char *
sid_text (PSID sid)
{
  wchar_t *text = NULL;
  char *shown = NULL;

  if (sid != NULL && ConvertSidToStringSidW (sid, &text))
    shown = dsh_windows_narrow (text);
  LocalFree (text);
  return shown;
}

char *
dsh_windows_untrusted_reason (HANDLE handle, DshWindowsTrust trust)
{
  PSECURITY_DESCRIPTOR descriptor = NULL;
  PSID owner = NULL, user, default_owner;
  PACL dacl = NULL;
  g_autoptr (GArray) aces = g_array_new (FALSE, TRUE, sizeof (DshWindowsAce));
  g_autoptr (GPtrArray) sids = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *owner_sid = NULL;
  g_autofree char *user_sid = NULL;
  g_autofree char *default_owner_sid = NULL;
  char *reason = NULL;
  DWORD rc;

  rc = GetSecurityInfo (handle, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION |
                                                  DACL_SECURITY_INFORMATION,
                        &owner, NULL, &dacl, NULL, &descriptor);
  if (rc != ERROR_SUCCESS)
    {
      g_autofree char *why = dsh_windows_error_text (rc);

      return g_strdup_printf ("cannot read its owner and DACL: %s", why);
    }
  for (DWORD i = 0; dacl != NULL && i < dacl->AceCount; i++)
    {
      ACE_HEADER *header;
      DshWindowsAce ace = { 0 };

      if (!GetAce (dacl, i, (void **) &header))
        {
          reason = g_strdup ("has a DACL that cannot be read");
          break;
        }
      ace.type = header->AceType;
      ace.flags = header->AceFlags;
      /* Only the plain kinds hold their SID right after the mask; the others are refused
       * by their type alone. */
      if (header->AceType == ACCESS_ALLOWED_ACE_TYPE || header->AceType == ACCESS_DENIED_ACE_TYPE)
        {
          ACCESS_ALLOWED_ACE *plain = (ACCESS_ALLOWED_ACE *) header;
          char *sid = sid_text ((PSID) &plain->SidStart);

          ace.mask = plain->Mask;
          ace.sid = sid;
          g_ptr_array_add (sids, sid);
        }
      g_array_append_val (aces, ace);
    }
  user = token_sid (TokenUser);
  default_owner = token_sid (TokenOwner);
  owner_sid = sid_text (owner);
  user_sid = sid_text (user);
  default_owner_sid = sid_text (default_owner);
  if (reason == NULL)
    reason = dsh_windows_acl_refusal (owner_sid, dacl != NULL, (const DshWindowsAce *) aces->data,
                                      aces->len, user_sid, default_owner_sid, trust);
  LocalFree (user);
  LocalFree (default_owner);
  LocalFree (descriptor);
  return reason;
}
