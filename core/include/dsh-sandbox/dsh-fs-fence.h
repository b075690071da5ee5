/* dsh-fs-fence.h — the in-process filesystem fence for write tools: opens and mutates paths only
 * beneath one of dsh_writable_roots(policy).
 *
 * On Linux every operation resolves its path with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS) from an O_PATH descriptor of the root, so the kernel itself refuses
 * "..", absolute and symlink escapes and /proc magic links, with no window between a check and
 * the use. Kernels without openat2 get a component-by-component walk that refuses every symlink
 * and "..". On Windows each name is opened from the previous directory's handle (NtCreateFile
 * with FILE_OPEN_REPARSE_POINT) and every reparse point met is refused; flags and mode are the C
 * runtime's. A refusal is DSH_SANDBOX_ERROR_FS_DENIED whose message starts with the same denial
 * marker bash reports ("[sandbox: file access denied under <mode> mode]"); other failures
 * (ENOENT, EISDIR, ...) are G_IO_ERROR errors.
 *
 * read-only denies every operation; danger-full-access is unconfined (plain *at calls).
 * Relative paths are taken against the current directory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "dsh-policy.h"
#include "dsh-api.h"

G_BEGIN_DECLS

/* open(2) beneath a writable root: flags as for open (O_CLOEXEC is added), mode for O_CREAT.
 * Returns a new descriptor, or -1 with error set. */
DSH_API
int       dsh_fs_fence_open   (const DshSandboxPolicy  *policy,
                               const char              *path,
                               int                      flags,
                               mode_t                   mode,
                               GError                 **error);
DSH_API
gboolean  dsh_fs_fence_mkdir  (const DshSandboxPolicy  *policy,
                               const char              *path,
                               mode_t                   mode,
                               GError                 **error);
/* Removes a file or symlink (not following it); remove_dir: rmdir an empty directory instead. */
DSH_API
gboolean  dsh_fs_fence_unlink (const DshSandboxPolicy  *policy,
                               const char              *path,
                               gboolean                 remove_dir,
                               GError                 **error);
/* Both ends must be beneath writable roots (not necessarily the same one). */
DSH_API
gboolean  dsh_fs_fence_rename (const DshSandboxPolicy  *policy,
                               const char              *from,
                               const char              *to,
                               GError                 **error);

G_END_DECLS
