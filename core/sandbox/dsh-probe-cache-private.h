/* dsh-probe-cache-private.h — remembering across processes that the first candidate of a chain
 * passed its functional probe, so that a command-line call does not pay that probe every time.
 *
 * Safe by construction: an entry only says that the preferred, already vetted candidate of an
 * exact chain works; it holds no argv and names no other candidate. A stale or forged entry can
 * at worst skip that candidate's probe, whose runner may then fail (a runner failure) — it can
 * neither cause an unconfined run nor steer the choice to a weaker backend.
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

/* Does the file hold an entry for exactly key? Entries do not age: the key names everything
 * the probe's outcome depends on. */
gboolean  dsh_probe_cache_lookup       (const char  *path,
                                        const char  *key);

/* Best effort: a cache that cannot be written only costs a probe next time. */
void      dsh_probe_cache_store        (const char  *path,
                                        const char  *key);

G_END_DECLS
