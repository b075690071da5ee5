/* dsh-acl-remove-tree.h — removing a private temp directory and what confined commands left in
 * it (Windows only).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>

/* Removes the directory path (UTF-8, absolute) and everything beneath it, never anything
 * outside it. 0, or -1 with a sentence in error (what is left stays). */
int dsh_acl_remove_tree (const char *path,
                         char       *error,
                         size_t      error_size);
