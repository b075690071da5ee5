/* dsh-roots.h — canonical paths, the workspace root and the writable roots of a policy.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dsh-policy.h"
#include "dsh-api.h"

G_BEGIN_DECLS

/* Filesystem identity first (the kernel's own component-by-component lookup), lexical
 * normalisation after. When resolution fails the spelling is returned as-is: a missing root
 * matches nothing until it exists. Never returns NULL. */
DSH_API
char  *dsh_canonical_path  (const char             *path);

/* canonical(session_cwd) or, without one, canonical(fallback_root), made absolute and lexically
 * normalised only after the filesystem lookup. */
DSH_API
char  *dsh_workspace_root  (const char             *session_cwd,
                            const char             *fallback_root);

/* Empty unless workspace-write; else [workspace root, /tmp, temp dir], each canonical,
 * de-duplicated, in that order. The one source for the fence and for profile generation. */
DSH_API
GStrv  dsh_writable_roots  (const DshSandboxPolicy *policy);

/* Is path (canonical) root itself or beneath it? Both are compared as spelled. */
DSH_API
gboolean dsh_path_is_beneath (const char             *path,
                              const char             *root);

/* A writable root is only as trustworthy as the path that leads to it: when resolving the spelled
 * workspace, /tmp or the temp directory follows a symlink that lies inside a directory confined
 * commands of this workspace may write, an earlier command could have planted it to move this
 * call's writable roots anywhere (its own workspace renamed, a link put in its place); and when
 * the spelled workspace no longer resolves to workspace_root (the canonical root the policy
 * holds), it is being moved right now. Sets DSH_SANDBOX_ERROR_UNAVAILABLE and returns FALSE
 * then. A workspace of / is accepted: such a caller already lets commands write everywhere. */
DSH_API
gboolean dsh_roots_check_unplanted (const char             *spelled_workspace,
                                    const char             *workspace_root,
                                    GError                **error);

/* A session's cwd was fixed when the session was created (created: its ISO 8601 time); a symlink
 * on the way to it made since then is what a command of another, enclosing workspace would plant
 * to move this session's workspace. FALSE (DSH_SANDBOX_ERROR_UNAVAILABLE) when there is one. */
DSH_API
gboolean dsh_roots_check_session_cwd (const char             *cwd,
                                      const char             *created,
                                      GError                **error);

G_END_DECLS
