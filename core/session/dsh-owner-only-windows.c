/* dsh-owner-only-windows.c — files for the user alone on Windows: the protected, one-entry DACL
 * a new private file or directory gets, and the owner and DACL check of an open one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-owner-only-windows-private.h"

#include <aclapi.h>
#include <sddl.h>

/* The process's user, freed with g_free(); NULL when the token cannot be read. */
static TOKEN_USER *
current_user (void)
{
  g_autofree TOKEN_USER *user = NULL;
  HANDLE token;
  DWORD size = 0;
  gboolean ok;

  if (!OpenProcessToken (GetCurrentProcess (), TOKEN_QUERY, &token))
    return NULL;
  GetTokenInformation (token, TokenUser, NULL, 0, &size);
  user = g_malloc0 (size > 0 ? size : 1);
  ok = size > 0 && GetTokenInformation (token, TokenUser, user, size, &size);
  CloseHandle (token);
  return ok ? g_steal_pointer (&user) : NULL;
}

PSECURITY_DESCRIPTOR
dsh_owner_only_descriptor (gboolean for_directory)
{
  g_autofree TOKEN_USER *user = current_user ();
  PSECURITY_DESCRIPTOR descriptor = NULL;
  LPWSTR sid_text = NULL;
  g_autofree char *sid_utf8 = NULL;
  g_autofree char *text = NULL;
  g_autofree wchar_t *sddl = NULL;

  if (user == NULL || !ConvertSidToStringSidW (user->User.Sid, &sid_text))
    return NULL;
  sid_utf8 = g_utf16_to_utf8 (sid_text, -1, NULL, NULL, NULL);
  LocalFree (sid_text);
  if (sid_utf8 == NULL)
    return NULL;
  /* O: the user owns it; D:P a protected DACL; its one entry: all file rights, to the user,
   * inherited by files and directories made in a directory (OICI). */
  text = g_strdup_printf ("O:%sD:P(A;%s;FA;;;%s)", sid_utf8, for_directory ? "OICI" : "",
                          sid_utf8);
  sddl = g_utf8_to_utf16 (text, -1, NULL, NULL, NULL);
  if (sddl == NULL ||
      !ConvertStringSecurityDescriptorToSecurityDescriptorW (sddl, SDDL_REVISION_1, &descriptor,
                                                             NULL))
    return NULL;
  return descriptor;
}

/* Is sid the user's, or an account that can take ownership of any file anyway? */
static gboolean
is_trusted_trustee (PSID sid, PSID user)
{
  return EqualSid (sid, user) || IsWellKnownSid (sid, WinLocalSystemSid) ||
         IsWellKnownSid (sid, WinBuiltinAdministratorsSid);
}

gboolean
dsh_owner_only_handle (HANDLE handle)
{
  g_autofree TOKEN_USER *user = current_user ();
  PSECURITY_DESCRIPTOR descriptor = NULL;
  PSID owner = NULL;
  PACL dacl = NULL;
  gboolean ok;

  if (user == NULL ||
      GetSecurityInfo (handle, SE_FILE_OBJECT,
                       OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner, NULL,
                       &dacl, NULL, &descriptor) != ERROR_SUCCESS)
    return FALSE;
  /* A NULL DACL allows everyone everything. */
  ok = owner != NULL && EqualSid (owner, user->User.Sid) && dacl != NULL;
  for (DWORD i = 0; ok && i < dacl->AceCount; i++)
    {
      ACE_HEADER *header = NULL;

      if (!GetAce (dacl, i, (LPVOID *) &header))
        ok = FALSE;
      else if (header->AceType == ACCESS_DENIED_ACE_TYPE)
        continue;
      else if (header->AceType != ACCESS_ALLOWED_ACE_TYPE)
        ok = FALSE; /* Callback, object or conditional entries: not judged, not trusted. */
      else
        {
          ACCESS_ALLOWED_ACE *allowed = (ACCESS_ALLOWED_ACE *) header;

          ok = allowed->Mask == 0 ||
               is_trusted_trustee ((PSID) &allowed->SidStart, user->User.Sid);
        }
    }
  LocalFree (descriptor);
  return ok;
}
