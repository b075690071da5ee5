/* dsh-fs-fence-private.h — test hooks of the filesystem fence, and what its platforms' sides
 * (dsh-fs-fence.c, dsh-fs-fence-windows.c) share from dsh-fs-fence-route.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dsh-policy.h"

G_BEGIN_DECLS

/* Makes the fence use its portable component walk instead of openat2, as on kernels without
 * openat2; tests run every escape case through both paths. */
void  dsh_fs_fence_set_portable_walk_for_testing  (gboolean enabled);

/* path as it can be shown in a message. */
const char *dsh_fs_fence_printable   (const char             *path);

/* Sets DSH_SANDBOX_ERROR_FS_DENIED: the mode's denial marker, path and why. */
void        dsh_fs_fence_set_denied  (GError                **error,
                                      const DshSandboxPolicy *policy,
                                      const char             *path,
                                      const char             *why);

/* Sets a G_IO_ERROR from errno: "cannot WHAT PATH: REASON". */
void        dsh_fs_fence_set_io_error (GError               **error,
                                       int                    saved_errno,
                                       const char            *what,
                                       const char            *path);

/* What of path lies below root, in the platform's own form (newly allocated), or NULL when root
 * does not contain it. Only a routing decision: the opens beneath the root are what contain. */
typedef gpointer (*DshFenceBelowFunc) (const char *path,
                                       const char *root);

typedef struct {
  /* Borrowed from the roots routed through. */
  const char *root;
  /* What DshFenceBelowFunc gave, freed with free_below. */
  gpointer below;
  GDestroyNotify free_below;
} DshFenceRoute;

/* The routes of path (absolute) through roots: each root that contains it, innermost first; then
 * the same for resolved (nullable: path through its resolved directory, where it differs). The
 * array frees what the routes hold. */
GArray     *dsh_fs_fence_route       (GStrv                   roots,
                                      const char             *path,
                                      const char             *resolved,
                                      DshFenceBelowFunc       below,
                                      GDestroyNotify          free_below);

G_END_DECLS
