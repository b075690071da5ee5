/* dsh-child-path-private.h — a directory and a name joined as g_build_filename() joins them,
 * without its general walk over separators in the usual case: module, helper and program paths
 * are built on every call, and some compare equal to a path built by g_build_filename().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exactly what g_build_filename (dir, name, NULL) returns (newly allocated). */
char *dsh_child_path (const char *dir,
                      const char *name);

G_END_DECLS
