/* dsh-acl-program-search.h — where the runner finds a bare program name: on PATH only. Windows'
 * own search (CreateProcess without an application name) looks in the runner's directory and
 * its current directory first, and the current directory is the workspace, which an earlier
 * confined command could write.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Is program a bare name, one CreateProcess would search for: no '\' or '/' and no drive
 * ("C:name" is relative to that drive's current directory, so it is used as given)? */
int dsh_acl_program_is_bare       (const char *program);

/* Is entry, one element of PATH, a directory the search may look in: absolute, with a drive
 * ("C:\dir") or a share ("\\server\share")? Empty, relative, "." and "\dir" (the current
 * drive's) entries all depend on the current directory. */
int dsh_acl_path_entry_is_usable  (const char *entry);

/* Is path a file the search may take (not a directory), as the caller's system tells it? */
typedef int (*DshAclIsFile) (const char *path, void *data);

/* Looks the bare program up in path (PATH's value, its entries split at ';'), in order, only in
 * the usable entries: DIR\program, with ".exe" appended when program has no '.' at all, as
 * CreateProcess appends it. 0 with *found set to the first candidate is_file takes (free() it),
 * 1 when there is none, -1 when memory ran out. */
int dsh_acl_program_search        (const char   *program,
                                   const char   *path,
                                   DshAclIsFile  is_file,
                                   void         *data,
                                   char        **found);
