/* dsh-roots-private.h — path helpers the roots code shares with the rest of the core.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* path made absolute against the current directory but not normalised: "a/link/../b" must keep
 * meaning what the kernel (chdir, open) would reach, so ".." is left for it to walk. */
char *dsh_absolute_path_as_spelled (const char *path);

G_END_DECLS
