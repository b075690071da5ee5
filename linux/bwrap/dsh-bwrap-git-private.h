/* dsh-bwrap-git-private.h — what the files of the git protection share.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-bwrap-exec.h"

/* Submodules nest and worktrees multiply; a repository with more git directories than this,
 * git directories nested deeper, or a submodule name of more components, is refused rather than
 * protected halfway. */
#define MAX_GIT_DIRS 256
#define MAX_GIT_DEPTH 6
#define MAX_NAME_DEPTH 32

/* dsh-bwrap-git-pointer.c */
/* `base/relative` (or `relative` alone when absolute) without "." and "..", lexically. */
char *join_normalised (const char *base, const char *relative);
/* A file in dirfd that names a path, as git reads it (NULL when missing or empty). */
char *read_pointer (int dirfd, const char *name, const char *path, int trim_blanks);
/* The absolute path as the kernel resolves it; see the definition. */
char *physical_path (const char *path, int *exists, int *through_writable_link);
/* target as named in a file of from_dir; the directory it leads to wherever it lies, opened
 * O_PATH (-1 when missing), its real path in *out_path. */
char *pointer_path (const char *from_dir, const char *target);
int open_pointed_dir (const char *from_dir, const char *target, char **out_path);
/* Where target, named in a file of from_dir, leads git inside the writable roots, or NULL. */
char *resolve_pointer (const char *from_dir, const char *target, const char *what, int flags,
                       int *fd);

/* dsh-bwrap-git-hold.c */
/* Whether path is a root; whether it is one or lies above one. */
int is_root (const char *path);
int holds_a_root (const char *path);
/* Holds dir, and each directory above it below its root, in place (see hold_work_trees()). */
void pin_work_tree (const char *dir);
void hold_reset (void);
