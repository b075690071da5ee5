/* dsh-session-fold-cache-private.h — a session log loaded through a cache of the fold of a
 * prefix of its file, so that a long session is not re-read and re-parsed on every call.
 *
 * The file stays the only truth. The cache is keyed by the file's device, inode and size at
 * the prefix, and the prefix's hash (checked unless the file's size and change time are
 * exactly those recorded: nothing was written since); it lives in a private directory of the
 * user, and anything unexpected in it (a member missing or extra, a value outside its
 * vocabulary, another file, a shorter file) makes the load read the whole file instead.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-session-log.h"

G_BEGIN_DECLS

/* dsh_session_log_load() through the fold cache at fold_cache (NULL: a plain load). The
 * events read (dsh_session_log_dup_events) are then only those after the cached prefix; the
 * folds (last mode, approval policy, preset, open turns) are the whole file's. Appends keep
 * the cache up to date. */
DshSessionLog *dsh_session_log_load_cached      (const char    *path,
                                                 const char    *fold_cache,
                                                 GError       **error);

/* The fold of everything consumed so far, canonically serialised (no file identity): two logs
 * with equal strings answer every fold alike. */
char          *dsh_session_log_fold_to_string   (DshSessionLog *self);

/* A log from memory continuing a fold serialised by dsh_session_log_fold_to_string() with
 * contents (the bytes after the prefix it covers). */
DshSessionLog *dsh_session_log_parse_continuing (const char    *fold,
                                                 const char    *contents,
                                                 gsize          length,
                                                 GError       **error);

/* The per-user cache file for the log at log_path, or NULL when no private directory can be
 * found or the cache is turned off (DSH_SANDBOX_FOLD_CACHE=off). Never below /tmp or the temp
 * directory; the caller still refuses one its confined commands could write. */
char          *dsh_session_fold_cache_path      (const char    *log_path);

/* Tests: read the log's times as a file system with a one-second clock stamps them (FAT, HFS+,
 * ext2 with small inodes; within one scheduler tick, every one before Linux 6.13). */
void           dsh_session_file_set_coarse_times_for_testing (gboolean coarse);

/* Tests: how long an append waits for the log's lock (microseconds; 0 restores the default). */
void           dsh_session_file_set_lock_patience_for_testing (gint64 usec);

G_END_DECLS
