/* dsh-roots-private.h — path helpers the roots code shares with the rest of the core, and what
 * each platform's roots code (dsh-roots.c, dsh-roots-windows.c) answers for the portable entry
 * points of dsh-roots-pin.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dsh-policy.h"
#include "dsh-root-grants-private.h"

G_BEGIN_DECLS

/* path made absolute against the current directory but not normalised: "a/link/../b" must keep
 * meaning what the kernel (chdir, open) would reach, so ".." is left for it to walk. */
char *dsh_absolute_path_as_spelled (const char *path);

/* g_canonicalize_filename (path, NULL) for an absolute path, with only a copy when path is in
 * that form already (no empty, "." or ".." component, no trailing slash). */
char *dsh_lexically_canonical (const char *path);

/* An O_PATH descriptor of the directory at path (absolute), reached without following any
 * symlink (openat2 RESOLVE_NO_SYMLINKS; portable, or without openat2: one component at a time
 * with O_NOFOLLOW). -1 with errno set (ELOOP for a symlink on the way). */
int   dsh_open_directory_no_symlinks (const char *path,
                                      gboolean    portable);

/* Both set error to DSH_SANDBOX_ERROR_ROOT_REFUSED and return FALSE: the what (a workspace, a
 * temp directory, an extra writable root) spelled, resolved to root, is refused for why (what it
 * is: "is /"); or it changed while it was being checked. */
gboolean dsh_roots_refuse_root  (GError     **error,
                                 const char  *what,
                                 const char  *spelled,
                                 const char  *root,
                                 const char  *why);
gboolean dsh_roots_refuse_moved (GError     **error,
                                 const char  *what,
                                 const char  *spelled);

/* This process's own dsh-sandbox code, which no writable root may hold: a confined command
 * could replace it, and the next call would run the command's code unconfined. The library's
 * own file (a shared library found by dladdr) is known without this; a command that links the
 * code in names its executables (canonical): what the user runs next (the dsh-sandbox command,
 * the full command it hands over to). uninstalled: a development build, which an exemption for
 * an uninstalled build under /tmp or the temp directory covers (a call's temp roots holding it
 * are not refused), as untrusted_roots() in dsh-run.c exempts its tree. Call it before any
 * thread is started. */
void     dsh_roots_protect_own_code     (const char  *file,
                                         const char  *what,
                                         gboolean     uninstalled);

/* The shared library this code is in (canonical; *out_uninstalled: the build tree's), or NULL
 * when it is linked into the executable or cannot be told (dsh-roots.c, dsh-roots-windows.c). */
char    *dsh_roots_own_library_file     (gboolean    *out_uninstalled);

/* Refuses (DSH_SANDBOX_ERROR_ROOT_REFUSED) roots (canonical, NULL-terminated, the workspace
 * first) of which one holds one of the files above; tmp_root and tmpdir_root (nullable): the
 * call's temp roots, where an uninstalled build's file is let be. */
gboolean dsh_roots_check_own_code       (const char *const *roots,
                                         const char        *tmp_root,
                                         const char        *tmpdir_root,
                                         GError           **error);

typedef enum {
  /* Record the roots as granted (a call that hands them out). */
  DSH_ROOTS_RESOLVE_RECORD = 1 << 0,
  /* The temp roots too (a call; a new session's cwd has none of its own yet). */
  DSH_ROOTS_RESOLVE_TEMP_ROOTS = 1 << 1,
} DshRootsResolveFlags;

/* Resolves the roots of a workspace-write call with workspace_root (canonical, from
 * spelled_workspace; NULL, with DSH_ROOTS_RESOLVE_RECORD and not on Windows: where the walk of
 * spelled_workspace ends, which must be an existing directory of a UTF-8 path) exactly once,
 * checks them, and records them as granted with DSH_ROOTS_RESOLVE_RECORD. *out_roots receives
 * them: the workspace first, then the temp roots (with DSH_ROOTS_RESOLVE_TEMP_ROOTS) and the
 * extra roots, de-duplicated. session_created (nullable, ISO 8601) dates what a session's cwd
 * may be reached through. */
gboolean dsh_roots_resolve              (const char            *spelled_workspace,
                                         const char            *workspace_root,
                                         const char            *session_created,
                                         const char *const     *extra,
                                         DshRootsResolveFlags   flags,
                                         GStrv                 *out_roots,
                                         GError               **error);

/* dsh_roots_pin() for a workspace-write policy whose workspace root is not resolved yet: the
 * one walk of spelled_workspace (absolute) is its resolution, and policy->workspace_root becomes
 * where it ended. Refuses, granting nothing, whatever dsh_roots_pin() would refuse and a
 * workspace that is missing, not a directory, not UTF-8 or /, in words that need not be those
 * of the general way (which a caller then takes, for its own words). Unix only. */
gboolean dsh_roots_pin_walked           (DshSandboxPolicy       *policy,
                                         const char             *spelled_workspace,
                                         GError                **error);

/* The roots of a workspace-write policy nothing was pinned into: the workspace root as the
 * policy holds it (never resolved again), then the temp roots and extra roots that would not
 * widen them. */
GStrv    dsh_roots_unpinned             (const DshSandboxPolicy *policy);

/* Which of a workspace-write policy's extra writable roots (as asked for) are no directory, a
 * sentence each: a call leaves them out, and its command's denial there would otherwise read
 * as if it had them. NULL when there are none. */
GStrv    dsh_roots_left_out_warnings    (const DshSandboxPolicy *policy);

/* Where path (made absolute as spelled) leads, canonical, through no symlink a confined command
 * could have planted: one made since session_created (nullable, ISO 8601), or beneath a
 * directory after its grant (any symlink, when the record cannot be read). Where the way passes
 * such a symlink, *out_planted (nullable) is set and the path of that symlink comes back: no
 * layer opens it, for each opens its roots without following a symlink. */
char    *dsh_roots_unplanted_root       (const char             *path,
                                         const char             *session_created,
                                         gboolean               *out_planted);

/* Where path (absolute, as spelled) leads, asked of grants on the way there: the granted
 * directory beneath which a symlink on the way lies (of any age: where it leads was for that
 * grant's commands to choose), else the nearest granted directory at or above where the path
 * ends (or, for a missing path, the directory its walk reached); NULL for none. */
char    *dsh_roots_granted_on_the_way   (DshRootGrants          *grants,
                                         const char             *spelled);

/* For directories code is loaded from, whose files are then opened without following any
 * symlink: the granted directory above each of dirs that has one (a directory reached through
 * a symlink takes dsh_roots_granted_on_the_way()), each ancestor asked once. */
GStrv    dsh_roots_granted_above_dirs   (DshRootGrants          *grants,
                                         const char *const      *dirs);

/* An O_PATH descriptor of what path (absolute) leads to, reached by that same walk, which
 * follows a symlink only where no granted directory lies above it. -1 with errno set: ELOOP,
 * *out_granted receiving the granted directory, for a symlink beneath one. Unix only. */
int      dsh_roots_open_within_grants   (DshRootGrants          *grants,
                                         const char             *path,
                                         char                  **out_granted);

G_END_DECLS
