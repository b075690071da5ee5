/* dsh-permission-presets-cache-private.h — the deployment's permission presets, read again only
 * when their configuration file is no longer the file that was read.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-permission-presets.h"

G_BEGIN_DECLS

/* The presets of the configuration file at path, as dsh_permission_presets_new_from_file()
 * reads them (the same table, the same errors), or the built-in table for a NULL path. A table
 * read before is handed out again (a new reference; the table is read-only) while one stat of
 * path finds the identical file (device, inode, size, change and modification times) and $HOME
 * unchanged; a file that changed within the last moments is never kept, since a second change in
 * the same clock tick would leave its times as they were. */
DshPermissionPresets *dsh_permission_presets_load_cached (const char  *path,
                                                          GError     **error);

/* Whether the next load of path would hand out the kept table without reading (for tests). */
gboolean              dsh_permission_presets_cache_holds (const char  *path);

G_END_DECLS
