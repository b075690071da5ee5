/* dsh-probe-cache-private.h — remembering across processes that the first candidate of a chain
 * passed its functional probe, so that a command-line call does not pay that probe every time.
 *
 * Safe by construction: an entry only says that the preferred, already vetted candidate of an
 * exact chain works; it holds no argv. A stale entry can at worst skip that candidate's probe,
 * whose runner may then fail (a runner failure). When that candidate heads its chain the entry
 * also lists the chain's module files, so that the next call opens only the head's module (still
 * vetted and checked): an entry forged with its chain in another order could thus pick another
 * module of the chain as head, never an unconfined run. Only the user's own unconfined
 * processes can write the file: one beneath the roots confined commands may write is neither
 * read nor written.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The default per-user cache file, or NULL when no private directory can be found. */
char     *dsh_probe_cache_default_path (void);

/* One chain member's identity: its name and module file (device, inode, mode, owner, size,
 * mtime, ctime). */
void      dsh_probe_cache_add_member   (GString    *key,
                                        const char *name,
                                        const char *module_path);

/* A runner file's identity (bwrap, the Landlock launcher), as for a module file. */
void      dsh_probe_cache_add_file     (GString    *key,
                                        const char *path);

/* The running kernel's release and its Landlock ABI (-1 when it has none). */
void      dsh_probe_cache_add_host     (GString    *key);
void      dsh_probe_cache_add_host_values (GString    *key,
                                           const char *kernel_release,
                                           long        landlock_abi);

/* Reads the entry: its key and, when it has them, the chain of module files it was written for
 * and the identities of the module directories then (each NULL otherwise; chain and dirs may be
 * NULL when not wanted). FALSE when there is no entry the user could have written. */
gboolean  dsh_probe_cache_read         (const char  *path,
                                        char       **key,
                                        GStrv       *chain,
                                        GStrv       *dirs);

/* A module directory's identity (device, inode, mode, owner, size, mtime, ctime): any entry
 * added, removed or renamed in it changes it. unchanged_since (seconds since the epoch, or 0):
 * NULL unless the directory's entries last changed a few seconds before it (its mtime), so that
 * a later change tells apart even where a file system stamps times coarsely; with it, NULL too
 * for no directory (without it, what stands there is named as it is, and matches no directory's
 * identity). */
char     *dsh_probe_cache_dir_identity (const char  *dir,
                                        gint64       unchanged_since);

/* Does the file hold an entry for exactly key? Entries do not age: the key names everything
 * the probe's outcome depends on. */
gboolean  dsh_probe_cache_lookup       (const char  *path,
                                        const char  *key);

/* Best effort: a cache that cannot be written only costs a probe next time. chain (nullable):
 * the chain's module files in priority order, when the candidate that passed heads it; dirs
 * (nullable, only with chain): the identities of the module directories, when those files were
 * all the module files in them. */
void      dsh_probe_cache_store        (const char        *path,
                                        const char        *key,
                                        const char *const *chain,
                                        const char *const *dirs);

G_END_DECLS
