/* dsh-seatbelt-spelling.h — the spelling under which macOS, and so Seatbelt, sees a path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* /tmp, /var (and so /var/folders/... and a $TMPDIR beneath it) and /etc are symlinks into
 * /private on macOS, and Seatbelt matches the resolved path: a root spelled /tmp would match
 * nothing. A firmlinked directory spelled through /System/Volumes/Data loses that prefix
 * (/System/Volumes/Data/private/tmp is /private/tmp). Trailing slashes go; other paths are returned as they are. Returns a malloc'd
 * string, or NULL when out of memory. */
char *dsh_seatbelt_macos_spelling (const char *path);

#ifdef __cplusplus
}
#endif
