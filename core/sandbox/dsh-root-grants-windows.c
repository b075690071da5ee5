/* dsh-root-grants-windows.c — the record of granted writable roots on Windows: one small file
 * per granted directory, named by its identity (volume serial, file index, creation time),
 * holding the time of its first grant and its path then, in a directory only this user may own
 * and write (its DACL is checked, as the mode bits are elsewhere).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-root-grants-private.h"

#include "dsh-files-windows-private.h"

#include <io.h>
#include <sddl.h>
#include <string.h>

#include "dsh-error.h"
#include "dsh-roots.h"
#include "dsh-windows-paths-private.h"

struct _DshRootGrants {
  /* Held open, unshared for deletion, so that the record stays where it was checked. */
  HANDLE dir_handle;
  /* Where Windows has it, for the entries, the reach check and messages. */
  char *dir;
};

static gboolean
refuse_code (GError **error, const char *dir, const char *what, DWORD code)
{
  g_autofree char *text = dsh_windows_error_text (code);
  g_autofree char *why = g_strdup_printf ("%s (%s)", what, text);

  return dsh_root_grants_refuse (error, dir, why);
}

/* Makes dir, if missing, with a protected DACL of this user and SYSTEM only: nothing it
 * inherits from above may open it to anyone else. */
static gboolean
make_private_dir (const char *dir, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *user = dsh_windows_user_sid ();
  g_autofree char *sddl = NULL;
  g_autofree wchar_t *wide_sddl = NULL;
  g_autofree wchar_t *wide = NULL;
  SECURITY_ATTRIBUTES attributes = { sizeof attributes, NULL, FALSE };
  gboolean made;
  DWORD code;

  if (user == NULL)
    return dsh_root_grants_refuse (error, dir, "cannot be made private: the user's SID is unknown");
  if (g_mkdir_with_parents (parent, 0700) != 0)
    return dsh_root_grants_refuse (error, dir, "cannot be created (its parent cannot be made)");
  sddl = g_strdup_printf ("D:P(A;OICI;FA;;;%s)(A;OICI;FA;;;SY)", user);
  wide_sddl = dsh_windows_wide (sddl, NULL);
  wide = dsh_windows_wide (dir, NULL);
  if (wide == NULL || wide_sddl == NULL ||
      !ConvertStringSecurityDescriptorToSecurityDescriptorW (wide_sddl, SDDL_REVISION_1,
                                                             &attributes.lpSecurityDescriptor,
                                                             NULL))
    return dsh_root_grants_refuse (error, dir, "cannot be given a private DACL");
  made = CreateDirectoryW (wide, &attributes);
  code = GetLastError ();
  LocalFree (attributes.lpSecurityDescriptor);
  if (!made && code != ERROR_ALREADY_EXISTS)
    return refuse_code (error, dir, "cannot be created", code);
  return TRUE;
}

DshRootGrants *
dsh_root_grants_open (const char *dir, GError **error)
{
  g_autoptr (DshRootGrants) grants = NULL;
  g_autofree char *full = NULL;
  g_autofree char *redirect = NULL;
  g_autofree char *untrusted = NULL;
  DWORD code;

  if (dsh_windows_path_root_length (dir) == 0)
    {
      dsh_root_grants_refuse (error, dir, "is not an absolute path");
      return NULL;
    }
  if (!make_private_dir (dir, error))
    return NULL;
  full = dsh_windows_full_path (dir);
  grants = g_new0 (DshRootGrants, 1);
  grants->dir_handle = full != NULL ? dsh_windows_open_directory (full, &redirect, &code)
                                    : INVALID_HANDLE_VALUE;
  if (grants->dir_handle == INVALID_HANDLE_VALUE)
    {
      if (redirect != NULL)
        {
          g_autofree char *why = g_strdup_printf ("is reached through the junction or symbolic "
                                                  "link %s", redirect);

          dsh_root_grants_refuse (error, dir, why);
        }
      else
        refuse_code (error, dir, "cannot be opened", full != NULL ? code : ERROR_BAD_PATHNAME);
      return NULL;
    }
  /* Only a directory of our own that nobody else can write is believed. */
  untrusted = dsh_windows_untrusted_reason (grants->dir_handle, DSH_WINDOWS_TRUST_OWNER_ONLY);
  if (untrusted != NULL)
    {
      g_autofree char *why = g_strdup_printf ("is not a private directory of this user: it %s",
                                              untrusted);

      dsh_root_grants_refuse (error, dir, why);
      return NULL;
    }
  grants->dir = dsh_windows_final_path (grants->dir_handle);
  if (grants->dir == NULL)
    {
      refuse_code (error, dir, "cannot be located", GetLastError ());
      return NULL;
    }
  return g_steal_pointer (&grants);
}

const char *
dsh_root_grants_dir (DshRootGrants *grants)
{
  return grants->dir;
}

void
dsh_root_grants_free (DshRootGrants *grants)
{
  if (grants == NULL)
    return;
  if (grants->dir_handle != NULL && grants->dir_handle != INVALID_HANDLE_VALUE)
    CloseHandle (grants->dir_handle);
  g_free (grants->dir);
  g_free (grants);
}

static wchar_t *
entry_path (DshRootGrants *grants, const DshRootIdentity *identity)
{
  char name[DSH_ROOT_GRANTS_ENTRY_NAME_SIZE];
  g_autofree char *path = NULL;

  dsh_root_grants_entry_name (identity, name);
  path = g_build_filename (grants->dir, name, NULL);
  return dsh_windows_wide (path, NULL);
}

gboolean
dsh_root_grants_lookup (DshRootGrants *grants, const DshRootIdentity *identity, gint64 *out_since)
{
  g_autofree wchar_t *path = entry_path (grants, identity);
  char text[64] = { 0 };
  DWORD n = 0;
  HANDLE handle;

  *out_since = 0;
  if (path == NULL)
    return TRUE;
  handle = CreateFileW (path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
                        FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    {
      /* Not granted; any other failure reads as granted since ever. */
      return GetLastError () != ERROR_FILE_NOT_FOUND;
    }
  if (!ReadFile (handle, text, sizeof text - 1, &n, NULL))
    n = 0;
  CloseHandle (handle);
  text[MIN (n, sizeof text - 1)] = '\0';
  *out_since = dsh_root_grants_entry_since (text, (gssize) n);
  return TRUE;
}

gboolean
dsh_root_grants_record (DshRootGrants *grants, const char *root, GError **error)
{
  g_autofree char *redirect = NULL;
  g_autofree wchar_t *path = NULL;
  g_autofree char *text = NULL;
  DshRootIdentity identity;
  gboolean known;
  DWORD code, written = 0;
  HANDLE root_handle, handle;
  gsize len;

  root_handle = dsh_windows_open_directory (root, &redirect, &code);
  if (root_handle == INVALID_HANDLE_VALUE)
    {
      g_autofree char *shown = g_utf8_make_valid (root, -1);
      g_autofree char *why = dsh_windows_error_text (code);

      /* Missing: nothing there to write into until it exists (it is recorded then). */
      if (redirect == NULL && (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND))
        return TRUE;
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                   "the writable root %s cannot be opened without following a link (%s): it "
                   "changed while it was being checked; refusing to run the command",
                   shown, redirect != NULL ? redirect : why);
      return FALSE;
    }
  known = dsh_windows_identity (root_handle, &identity, NULL, NULL);
  CloseHandle (root_handle);
  if (!known)
    return dsh_root_grants_refuse (error, grants->dir,
                                   "cannot take the identity of a writable root");

  path = entry_path (grants, &identity);
  if (path == NULL)
    return dsh_root_grants_refuse (error, grants->dir, "cannot name an entry");
  handle = CreateFileW (path, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
  if (handle == INVALID_HANDLE_VALUE && GetLastError () == ERROR_FILE_EXISTS)
    return TRUE;
  if (handle == INVALID_HANDLE_VALUE)
    return refuse_code (error, grants->dir, "cannot be written", GetLastError ());
  text = dsh_root_grants_entry_text (root);
  len = strlen (text);
  /* A torn entry reads as granted since ever: refusing more, never less. */
  if (!WriteFile (handle, text, (DWORD) len, &written, NULL) || written != len)
    {
      CloseHandle (handle);
      return dsh_root_grants_refuse (error, grants->dir, "cannot be written");
    }
  CloseHandle (handle);
  return TRUE;
}

gboolean
dsh_root_identity_of_path (const char *path, DshRootIdentity *identity)
{
  g_autofree wchar_t *wide = dsh_windows_wide (path, NULL);
  gboolean known;
  HANDLE handle;

  if (wide == NULL)
    return FALSE;
  handle = CreateFileW (wide, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    return FALSE;
  known = dsh_windows_identity (handle, identity, NULL, NULL);
  CloseHandle (handle);
  return known;
}

gboolean
dsh_root_identity_at (int dir_fd,
                      const char *path,
                      DshRootIdentity *identity,
                      gboolean *out_is_link,
                      gint64 *out_changed_us)
{
  HANDLE dir = (HANDLE) _get_osfhandle (dir_fd);
  g_autofree char *dir_path = NULL;
  g_autofree char *child_path = NULL;
  g_autofree char *opened_path = NULL;
  g_autofree char *opened_parent = NULL;
  g_autofree wchar_t *wide = NULL;
  gboolean known;
  HANDLE child;

  if (dir == INVALID_HANDLE_VALUE)
    return FALSE;
  if (*path == '\0')
    return dsh_windows_identity (dir, identity, out_is_link, out_changed_us);
  /* Win32 opens no name relative to a handle: the name is opened beneath the directory's own
   * path, and what was opened must lie in that very directory. */
  dir_path = dsh_windows_final_path (dir);
  if (dir_path == NULL || strpbrk (path, "\\/") != NULL)
    return FALSE;
  child_path = g_build_filename (dir_path, path, NULL);
  wide = dsh_windows_wide (child_path, NULL);
  if (wide == NULL)
    return FALSE;
  child = CreateFileW (wide, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
                       NULL);
  if (child == INVALID_HANDLE_VALUE)
    return FALSE;
  opened_path = dsh_windows_final_path (child);
  opened_parent = opened_path != NULL ? g_path_get_dirname (opened_path) : NULL;
  known = opened_parent != NULL && dsh_windows_path_is_beneath (opened_parent, dir_path) &&
          dsh_windows_path_is_beneath (dir_path, opened_parent) &&
          dsh_windows_identity (child, identity, out_is_link, out_changed_us);
  CloseHandle (child);
  return known;
}
