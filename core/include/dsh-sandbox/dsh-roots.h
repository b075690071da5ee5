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
 * normalised only after the filesystem lookup; through a symlink an earlier confined command
 * could have planted (made beneath a directory after it was granted), the path of that symlink,
 * which no layer then opens. */
DSH_API
char  *dsh_workspace_root  (const char             *session_cwd,
                            const char             *fallback_root);

/* Empty unless workspace-write; else the roots dsh_roots_pin() pinned into the policy, exactly;
 * else [workspace root, /tmp, temp dir, extra roots...], de-duplicated, in that order, the
 * workspace root taken as the canonical string it already is (never resolved again) and a temp
 * directory or extra root that would widen the roots left out. The one source for the fence and for profile generation. */
DSH_API
GStrv  dsh_writable_roots  (const DshSandboxPolicy *policy);

/* Everything a confined command of policy's workspace may write, whichever confined mode it runs
 * under, an approved escalation included: dsh_writable_roots() of workspace-write there. Nothing
 * that runs or decides unconfined may come from beneath these. */
DSH_API
GStrv  dsh_writable_roots_widest (const DshSandboxPolicy *policy);

/* The root of dsh_writable_roots_widest() (workspace_root canonical, extra_roots nullable) that
 * path lies in or whose way passes through one, as the kernel would walk it now: a new string,
 * or NULL when no confined command could change what path names. */
DSH_API
char  *dsh_writable_root_on_way (const char             *path,
                                 const char             *workspace_root,
                                 const char *const      *extra_roots);

/* Resolves the writable roots of a workspace-write call exactly once and checks them on those
 * very strings, then records them as granted and pins them into policy, so that the backend,
 * the runner and the fence receive exactly what was checked. spelled_workspace is the workspace
 * as the caller spelled it (NULL: policy->workspace_root); session_created the session's ISO
 * 8601 creation time, if any; policy->extra_writable_roots join after the temp roots. Refuses
 * (DSH_SANDBOX_ERROR_ROOT_REFUSED, naming the path and the reason): a workspace of /; a temp
 * directory or extra root that is /, a system directory, $HOME, or an ancestor of $HOME or of
 * the workspace; a root reached through a symlink that lies inside one
 * of this call's roots, that was made inside a directory after that directory was granted to
 * confined commands, or (with a session) that was made after the session was created; a
 * workspace that moved while it was checked; and any call when the per-user record of granted
 * roots cannot be trusted or written. Does nothing for other modes: read-only never looks at
 * the temp directory. */
DSH_API
gboolean dsh_roots_pin       (DshSandboxPolicy       *policy,
                              const char             *spelled_workspace,
                              const char             *session_created,
                              GError                **error);

/* The same checks for a workspace-write call with this workspace and extra roots (NULL for
 * none), granting nothing (a probe). */
DSH_API
gboolean dsh_roots_check     (const char             *spelled_workspace,
                              const char             *workspace_root,
                              const char             *session_created,
                              const char *const      *extra,
                              GError                **error);

/* The checks a new session's cwd and extra roots can get before any call (a root of /, planted
 * symlinks on the way), granting nothing; the temp directory is the calls' own. */
DSH_API
gboolean dsh_roots_check_new_workspace (const char   *spelled_workspace,
                                        const char   *workspace_root,
                                        const char *const *extra,
                                        GError      **error);

/* Refuses a workspace root of / (DSH_SANDBOX_ERROR_ROOT_REFUSED): under workspace-write it
 * would make the whole host writable. */
DSH_API
gboolean dsh_roots_check_workspace (const char       *workspace_root,
                                    GError          **error);

/* Is path (canonical) root itself or beneath it? Both are compared as spelled. */
DSH_API
gboolean dsh_path_is_beneath (const char             *path,
                              const char             *root);

/* dsh_roots_check() without a session. */
DSH_API
gboolean dsh_roots_check_unplanted (const char             *spelled_workspace,
                                    const char             *workspace_root,
                                    GError                **error);

/* A session's cwd was fixed when the session was created (created: its ISO 8601 time); a symlink
 * on the way to it made since then is what a command of another, enclosing workspace would plant
 * to move this session's workspace. FALSE (DSH_SANDBOX_ERROR_ROOT_REFUSED) when there is one. */
DSH_API
gboolean dsh_roots_check_session_cwd (const char             *cwd,
                                      const char             *created,
                                      GError                **error);

G_END_DECLS
