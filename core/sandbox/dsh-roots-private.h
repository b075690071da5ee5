/* dsh-roots-private.h — path helpers the roots code shares with the rest of the core.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* path made absolute against the current directory but not normalised: "a/link/../b" must keep
 * meaning what the kernel (chdir, open) would reach, so ".." is left for it to walk. */
char *dsh_absolute_path_as_spelled (const char *path);

/* An O_PATH descriptor of the directory at path (absolute), reached without following any
 * symlink (openat2 RESOLVE_NO_SYMLINKS; portable, or without openat2: one component at a time
 * with O_NOFOLLOW). -1 with errno set (ELOOP for a symlink on the way). */
int   dsh_open_directory_no_symlinks (const char *path,
                                      gboolean    portable);

G_END_DECLS
