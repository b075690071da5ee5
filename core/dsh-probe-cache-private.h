/* dsh-probe-cache-private.h — remembering a chain's probe results across processes, so that a
 * command-line call does not pay a functional probe every time.
 *
 * Safe by construction: an entry names only which of the already loaded and vetted candidates
 * passed; it never holds an argv. A stale or forged entry can at worst pick another confining
 * backend, whose runner may then fail (a runner failure) or find nothing usable (unavailable) —
 * never an unconfined run.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Entries older than this are ignored. */
#define DSH_PROBE_CACHE_TTL_SECONDS 300

/* The default per-user cache file, or NULL when no private directory can be found. */
char     *dsh_probe_cache_default_path (void);

/* One chain member's identity: its name and module file (device, inode, size, mtime). */
void      dsh_probe_cache_add_member   (GString    *key,
                                        const char *name,
                                        const char *module_path);

/* When the file holds a fresh entry for key: TRUE with *selected (the passing candidate) and
 * *failures (name -> detail of each candidate that failed before it). */
gboolean  dsh_probe_cache_lookup       (const char  *path,
                                        const char  *key,
                                        char       **selected,
                                        GHashTable **failures);

/* Best effort: a cache that cannot be written only costs a probe next time. */
void      dsh_probe_cache_store        (const char  *path,
                                        const char  *key,
                                        const char  *selected,
                                        GHashTable  *failures);

G_END_DECLS
