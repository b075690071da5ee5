/* dsh-windows-paths-private.h — how the Windows side of the core reads a Windows path: what is
 * absolute, what lies beneath what, which roots would reach too far, and which reparse points
 * redirect a lookup. Plain string logic, built and tested on every host.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* path without the \\?\ (or \\.\) prefix Windows puts on the paths it reports, \\?\UNC\s\x
 * spelled \\s\x; a new string. */
char     *dsh_windows_path_strip_prefix    (const char *path);

/* The length of path's volume part ("C:\" is 3, "\\server\share\" its length without the last
 * separator), or 0 when path is not absolute: "C:x" is relative to C:'s current directory and
 * "\x" to the current drive, and neither names one directory. */
gsize     dsh_windows_path_root_length     (const char *path);

/* Is path root itself or beneath it? '/' and '\' are one separator and ASCII letters compare
 * without case, as NTFS and the Win32 layer compare names; a trailing separator is ignored. */
gboolean  dsh_windows_path_is_beneath      (const char *path,
                                            const char *root);

/* Why root (canonical) may not be a writable root next to workspace (NULL: root is the
 * workspace itself), or NULL when it may: not absolute; a "." or ".." component or a stream
 * (C:\x:y); the root of a drive or share; profile (the user's profile directory, may be NULL)
 * or an ancestor of it; beneath one of system_trees (NULL-terminated, may be NULL); a strict
 * ancestor of the workspace. A new string. */
char     *dsh_windows_root_refusal         (const char        *root,
                                            const char        *workspace,
                                            const char        *profile,
                                            const char *const *system_trees);

/* Does a reparse point with this tag send a lookup elsewhere (a symbolic link, a junction or
 * mount point, any name surrogate, any tag not known to keep the name where it is)? Only the
 * placeholders of file-storage services (cloud files, deduplication, compression, HSM) are
 * known not to. */
gboolean  dsh_windows_reparse_tag_redirects (guint32 tag);

/* The target a symbolic link or junction names, from its reparse data (what
 * FSCTL_GET_REPARSE_POINT answers, len bytes, little-endian): an absolute drive or share path,
 * or a path relative to the link's own directory; NULL when the data is of another kind, is
 * malformed, or names something else (a volume by GUID, a path from the top of the current
 * drive). A new string. */
char     *dsh_windows_reparse_target       (const guint8 *data,
                                            gsize         len);

/* Would CreateProcess start program (a name or path) as a batch file, through cmd.exe? Its
 * last name is read as Windows opens it: a stream suffix (":x", "::$DATA") cut, trailing dots
 * and spaces dropped; then an extension beginning ".bat" or ".cmd", in any case, is a batch
 * file. */
gboolean  dsh_windows_program_is_batch     (const char *program);

G_END_DECLS
