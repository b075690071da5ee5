/* dsh-platform-private.h — the few facts about the process and its files that the portable core
 * needs from the operating system. dsh-platform-unix.c answers them with POSIX calls; the Windows
 * side answers what it cannot check with the closed answer (no privilege to drop, no file it
 * trusts as private), so that nothing is believed there that was not verified.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* Does this process run with rights its invoker lacks (setuid, setgid, file capabilities)? */
gboolean dsh_platform_is_privileged      (void);

/* Appends the calling user's identity to a cache key ("uid=N;"). */
void     dsh_platform_append_user        (GString    *key);

/* Is dir a real directory (no link), the user's own, that nobody else may enter or write? */
gboolean dsh_platform_is_private_dir     (const char *dir);

/* Is path a file of the user's own that nobody else may write? */
gboolean dsh_platform_is_private_file    (const char *path);

/* Reads the whole of path into buf when it is a regular file of the user's own that nobody else
 * may write and shorter than size, checked on the descriptor it reads; FALSE otherwise. */
gboolean dsh_platform_read_private_file  (const char *path,
                                          char       *buf,
                                          gsize       size,
                                          gsize      *out_len);

/* Appends what identifies the file at path as it is now (device, inode, mode, owner, size,
 * modification and change times), so that any replacement, rewrite or touch changes it. */
void     dsh_platform_append_file_identity (GString    *key,
                                            const char *path);

/* Is path a program: executable by this process, and no directory (a directory with the
 * search bit passes the executable test)? */
gboolean dsh_platform_is_program_file    (const char *path);
/* Why a runner or helper at path must not be run (newly allocated), or NULL. Whoever may
 * rewrite it decides what a confined call really runs: the rule modules are held to, for the
 * file it resolves to, that file's directory and the directory path names it in. And a file
 * that cannot start would not fail to: execvp() runs an empty or cut-short one as a shell
 * script, whose status passes for the command's, or it crashes as if the command had. So it
 * must not be empty, an ELF file must be whole, and with must_be_elf (the project's own
 * helpers) it must be one. */
/* Why a file or directory owned by uid, with mode, is one someone else may rewrite, or NULL:
 * owned by neither root nor the current user, or writable by its group or others. what names
 * it in the sentence ("the module file"). On Windows, which has neither, always a refusal. */
char    *dsh_platform_owner_refusal      (const char *what,
                                          guint       uid,
                                          guint       mode);
char    *dsh_platform_program_refusal    (const char *path,
                                          gboolean    must_be_elf);
/* Is the ELF file on fd, size bytes long, whole: every loadable segment within those bytes?
 * Always TRUE where programs are no ELF files. */
gboolean dsh_platform_elf_is_complete    (int         fd,
                                          off_t       size);
/* The running kernel's release (newly allocated, "" when unknown) and its Landlock ABI (-1
 * when it has none). */
char    *dsh_platform_kernel_release     (void);
long     dsh_platform_landlock_abi       (void);

G_END_DECLS
