/* dsh-windows-files.c — the Win32 calls behind the Windows side of the roots, the record of
 * granted roots and the module loader: opening a directory one name at a time without being
 * redirected, the path and identity Windows has for an open handle, and the owner and DACL
 * checks that stand in for the owner and mode bits of a POSIX file.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-windows-files-private.h"

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
  handle = CreateFileW (wide, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | READ_CONTROL | SYNCHRONIZE,
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

/* Besides the user and the token's default owner: SYSTEM and the administrators may do anything
 * anyway; TrustedInstaller owns what Windows installs; OWNER RIGHTS stands for the owner. */
static const char *const admin_sids[] = {
  "S-1-5-18", "S-1-5-32-544",
  "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464", NULL,
};
static const char *const owner_only_sids[] = { "S-1-5-18", "S-1-5-32-544", NULL };
#define OWNER_RIGHTS_SID "S-1-3-4"

static gboolean
sid_is (PSID sid, const char *text)
{
  g_autofree wchar_t *wide = dsh_windows_wide (text, NULL);
  PSID known = NULL;
  gboolean equal;

  if (wide == NULL || !ConvertStringSidToSidW (wide, &known))
    return FALSE;
  equal = EqualSid (sid, known);
  LocalFree (known);
  return equal;
}

static gboolean
sid_trusted (PSID sid, PSID user, PSID default_owner, const char *const *others)
{
  if ((user != NULL && EqualSid (sid, user)) ||
      (default_owner != NULL && EqualSid (sid, default_owner)))
    return TRUE;
  for (gsize i = 0; others[i] != NULL; i++)
    {
      if (sid_is (sid, others[i]))
        return TRUE;
    }
  return FALSE;
}

static char *
sid_text (PSID sid)
{
  wchar_t *text = NULL;
  char *shown = NULL;

  if (ConvertSidToStringSidW (sid, &text))
    shown = dsh_windows_narrow (text);
  LocalFree (text);
  return shown != NULL ? shown : g_strdup ("an unreadable SID");
}

/* Rights that change what the object holds or who may change it. */
#define WRITE_RIGHTS (FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_DELETE_CHILD | \
                      DELETE | WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL |          \
                      MAXIMUM_ALLOWED)

static char *
dacl_refusal (PACL dacl, PSID user, PSID default_owner, const char *const *others)
{
  if (dacl == NULL)
    return g_strdup ("has no DACL, so everyone may write it");
  for (DWORD i = 0; i < dacl->AceCount; i++)
    {
      ACE_HEADER *header;
      ACCESS_ALLOWED_ACE *ace;

      if (!GetAce (dacl, i, (void **) &header))
        return g_strdup ("has a DACL that cannot be read");
      /* Entries only inherited by what it will hold do not apply to it; denials only deny. */
      if ((header->AceFlags & INHERIT_ONLY_ACE) != 0 || header->AceType == ACCESS_DENIED_ACE_TYPE ||
          header->AceType == ACCESS_DENIED_OBJECT_ACE_TYPE ||
          header->AceType == ACCESS_DENIED_CALLBACK_ACE_TYPE ||
          header->AceType == ACCESS_DENIED_CALLBACK_OBJECT_ACE_TYPE)
        continue;
      if (header->AceType != ACCESS_ALLOWED_ACE_TYPE)
        return g_strdup_printf ("has a DACL entry of a kind not checked here (type %u)",
                                (guint) header->AceType);
      ace = (ACCESS_ALLOWED_ACE *) header;
      if ((ace->Mask & WRITE_RIGHTS) == 0 || sid_is ((PSID) &ace->SidStart, OWNER_RIGHTS_SID) ||
          sid_trusted ((PSID) &ace->SidStart, user, default_owner, others))
        continue;
      {
        g_autofree char *who = sid_text ((PSID) &ace->SidStart);

        return g_strdup_printf ("may be written by %s (DACL entry %lu)", who, (unsigned long) i);
      }
    }
  return NULL;
}

char *
dsh_windows_untrusted_reason (HANDLE handle, DshWindowsTrust trust)
{
  const char *const *others = trust == DSH_WINDOWS_TRUST_OWNER_ONLY ? owner_only_sids : admin_sids;
  PSECURITY_DESCRIPTOR descriptor = NULL;
  PSID owner = NULL, user, default_owner;
  PACL dacl = NULL;
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
  user = token_sid (TokenUser);
  default_owner = token_sid (TokenOwner);
  if (user == NULL)
    reason = g_strdup ("cannot tell which user this process runs as");
  else if (owner == NULL ||
           !sid_trusted (owner, user, default_owner,
                         trust == DSH_WINDOWS_TRUST_OWNER_ONLY ? (const char *const[]) { NULL }
                                                              : others))
    {
      g_autofree char *who = owner != NULL ? sid_text (owner) : g_strdup ("nobody");

      reason = trust == DSH_WINDOWS_TRUST_OWNER_ONLY
                 ? g_strdup_printf ("is owned by %s, not by this user", who)
                 : g_strdup_printf ("is owned by %s, neither this user nor the administrators",
                                    who);
    }
  else
    reason = dacl_refusal (dacl, user, default_owner, others);
  LocalFree (user);
  LocalFree (default_owner);
  LocalFree (descriptor);
  return reason;
}
