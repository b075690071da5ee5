/* dsh-owner-only-windows-private.h — files for the user alone on Windows, where mode bits mean
 * nothing: the security descriptor a new private file or directory gets, and the check that an
 * open file lets nobody else in. For the session layer's Windows files only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <windows.h>

G_BEGIN_DECLS

/* A self-relative security descriptor for a new file or directory: owned by the user, with a
 * protected DACL (inheriting nothing from the directory it is made in) of one entry granting
 * the user everything, which a directory hands down to what is made in it. Free it with
 * LocalFree(); NULL with GetLastError() set. */
PSECURITY_DESCRIPTOR dsh_owner_only_descriptor (gboolean for_directory);

/* Is the open file (opened with READ_CONTROL) the user's own, with a DACL that allows nobody but
 * the user, SYSTEM and the Administrators (who can take any file anyway)? Checked on the handle,
 * so that what is checked is what is read. */
gboolean             dsh_owner_only_handle     (HANDLE handle);

G_END_DECLS
