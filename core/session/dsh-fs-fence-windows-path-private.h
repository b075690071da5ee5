/* dsh-fs-fence-windows-path-private.h — how the filesystem fence reads a Windows path: below
 * which writable root it lies, and the names it then opens one at a time from the root's
 * handle. Pure string logic, built and tested on every host.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The names of path below root, in order, when root contains path; an empty vector when path
 * is root itself; NULL when it does not contain it. Both must be absolute Windows paths, on a
 * drive ("C:\dir") or a share ("\\server\share\dir"), with either slash; "." is dropped and
 * ".." taken back lexically, as Win32 reads a path; names compare as NTFS compares them, each
 * character upcased one for one (never sharp s as "ss"), nothing outside the BMP. Verbatim and
 * device paths ("\\?\", "\\.\") are never below a root. Only a routing decision: the opens
 * from the root's handle are what contain. */
GStrv        dsh_fence_windows_names_below  (const char *path,
                                             const char *root);

/* Why the fence will neither open nor create a file of this name on Windows, or NULL: a stream
 * (":"), a trailing dot or space (which Win32 drops from the names it is given), a device name
 * (CON, NUL, COM1, ...), or a character Windows forbids in names. */
const char  *dsh_fence_windows_name_refusal (const char *name);

/* What a write tool does to an entry, for the git judgement (as the POSIX fence's EntryUse). */
typedef enum {
  DSH_FENCE_WINDOWS_USE_WRITE,            /* opens it for writing, or renames onto it */
  DSH_FENCE_WINDOWS_USE_REMOVE,           /* unlinks a file, or renames one away */
  DSH_FENCE_WINDOWS_USE_REMOVE_EMPTY_DIR, /* rmdir: only an empty directory goes */
  DSH_FENCE_WINDOWS_USE_MAKE_DIR,
  DSH_FENCE_WINDOWS_USE_MOVE_DIR,         /* renames a directory away or into place */
} DshFenceWindowsUse;

/* Why the fence keeps the entry whose names below its root are names[0 .. n) read-only for
 * use, or NULL: a .git entry itself (a .git file says where git finds the repository; a .git
 * directory moved away takes its hooks and config out of reach of every rule), and beneath a
 * .git directory — in every git directory there, a submodule's in modules\ and a linked
 * worktree's in worktrees\ included — anything beneath a hooks directory, a config,
 * config.worktree or commondir, a short name, and a directory moved away or into place. The names are the
 * long ones Windows resolved (a short name like GIT~1 is resolved before asking). */
const char  *dsh_fence_windows_git_refusal  (const char *const  *names,
                                             guint               n,
                                             DshFenceWindowsUse  use);

G_END_DECLS
