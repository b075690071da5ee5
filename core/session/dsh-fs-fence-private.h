/* dsh-fs-fence-private.h — test hooks of the filesystem fence.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Makes the fence use its portable component walk instead of openat2, as on kernels without
 * openat2; tests run every escape case through both paths. */
void  dsh_fs_fence_set_portable_walk_for_testing  (gboolean enabled);

G_END_DECLS
