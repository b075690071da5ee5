/* dsh-files-windows-private.h — the Win32 means the Windows side of the core shares: UTF-8 and
 * UTF-16, error texts, opening a directory without being redirected on the way, a file's own
 * canonical path and identity, and who may own and write a file.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <windows.h>

#include "dsh-root-grants-private.h"
#include "dsh-windows-acl-private.h"

G_BEGIN_DECLS

/* path in UTF-16 for a W function, or NULL (with a G_CONVERT_ERROR) when it is not UTF-8. */
wchar_t  *dsh_windows_wide             (const char    *utf8,
                                        GError       **error);
/* wide in UTF-8, or NULL when it is not valid UTF-16. */
char     *dsh_windows_narrow           (const wchar_t *wide);
/* The system's sentence for a Win32 error code. */
char     *dsh_windows_error_text       (DWORD          code);

/* path made absolute and normalised the way the Win32 layer does before any lookup ("." and
 * ".." taken away lexically, '/' spelled '\'), or NULL when Windows cannot. */
char     *dsh_windows_full_path        (const char    *path);

/* Where Windows itself says the object open as handle is (short names, substituted drives,
 * links resolved; no \\?\ prefix), or NULL. */
char     *dsh_windows_final_path       (HANDLE         handle);

/* Opens the directory at path (absolute, normalised), walking one name at a time from the top
 * of its drive or share, each opened as itself (a reparse point is not followed) and held open
 * without sharing deletion, so that no directory on the way can be renamed, removed or swapped
 * for a link until the walk is done. INVALID_HANDLE_VALUE when a name on the way is a symbolic
 * link, junction or other redirecting reparse point (*out_redirect: where, newly allocated), is
 * no directory, or cannot be opened (*out_code: the Win32 error). The handle keeps the
 * directory itself from being renamed or removed while it is open. */
HANDLE    dsh_windows_open_directory   (const char    *path,
                                        char         **out_redirect,
                                        DWORD         *out_code);

/* The identity (volume serial, file index, creation time) of the object open as handle, whether
 * it is a redirecting reparse point, and when it last changed (microseconds, Unix time). */
gboolean  dsh_windows_identity         (HANDLE           handle,
                                        DshRootIdentity *identity,
                                        gboolean        *out_is_link,
                                        gint64          *out_changed_us);

/* Why the object open as handle (opened with READ_CONTROL) is not to be trusted under that
 * rule (dsh_windows_acl_refusal() of its owner and DACL), or NULL when it is. A new string. */
char     *dsh_windows_untrusted_reason (HANDLE           handle,
                                        DshWindowsTrust  trust);

/* The calling user's SID as a string ("S-1-5-21-..."), or NULL. */
char     *dsh_windows_user_sid         (void);

G_END_DECLS
