/* dsh-windows-way-private.h — the way Windows walks a path, one name at a time through every
 * junction and symbolic link, held against writable roots: plain logic with the lookups handed
 * in, so that every host tests it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  /* No link there (or nothing at all). */
  DSH_WINDOWS_NAME_PLAIN,
  /* A link: *out_target is where it points, absolute or relative to the link's directory. */
  DSH_WINDOWS_NAME_LINK,
  /* A link whose target cannot be read, or names no path a walk could follow. */
  DSH_WINDOWS_NAME_UNREADABLE_LINK,
} DshWindowsName;

/* What is at path (absolute, no "." or ".." left in it). */
typedef DshWindowsName (*DshWindowsLookName) (const char *path,
                                              char      **out_target,
                                              gpointer    data);

/* The root of roots that path (absolute, normalised) lies in or whose way passes through, as
 * Windows would walk it now: whoever may write a directory on the way may swap the name looked
 * up in it. A link whose target cannot be read, and a walk through too many links, answer with
 * the link's own path: what it names cannot be told. NULL when no root is on the way; a new
 * string otherwise. */
char *dsh_windows_root_on_way (const char         *path,
                               const char *const  *roots,
                               DshWindowsLookName  look,
                               gpointer            data);

G_END_DECLS
