/* dsh-fs-fence-posix-private.h — what the POSIX side of the filesystem fence shares between
 * its files: the outcome of resolving beneath a root, and the judgement of git's own files
 * (dsh-fs-fence-git.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Outcome of trying one root. DENIED: the path escapes this root (another root may contain
 * it); FAILED: a real error (errno saved) that no other root would change. */
typedef enum {
  BENEATH_OK,
  BENEATH_DENIED,
  BENEATH_FAILED,
  BENEATH_PROTECTED, /* beneath the root, but one of git's own files */
} BeneathResult;

/* What a fenced call does to the entry it judges. */
typedef enum {
  USE_WRITE,    /* opens it for writing, or renames onto it */
  USE_REMOVE,   /* unlinks it, or renames it away */
  USE_REMOVE_EMPTY_DIR, /* rmdir: only an empty directory goes, which holds no git file */
  USE_MAKE_DIR,
  USE_MOVE_DIR_IN, /* renames a directory (or a symlink) onto it: what it holds comes along */
} EntryUse;

/* Where the entry leaf of directory parent_fd stands: OK beneath root_fd, PROTECTED when it is
 * one of git's own files (or, removed, what makes a git directory one), DENIED when walking up
 * from parent_fd never meets the root, FAILED (errno) when that walk cannot be made. */
BeneathResult dsh_fs_fence_judge_entry (int         root_fd,
                                        int         parent_fd,
                                        const char *leaf,
                                        EntryUse    use);

G_END_DECLS
