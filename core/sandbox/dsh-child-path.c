/* dsh-child-path.c — a directory and a name joined as g_build_filename() joins them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-child-path-private.h"

#include <string.h>

char *
dsh_child_path (const char *dir, const char *name)
{
#ifndef G_OS_WIN32
  gsize dir_len = strlen (dir);
  gsize name_len = strlen (name);

  /* An absolute dir not ending in a separator and a name neither starting nor ending in one:
   * g_build_filename() keeps both whole and puts one separator between them. Anything else
   * (an empty part, separators to fold, "/" itself) is left to it. */
  if (dir_len > 1 && dir[0] == '/' && dir[dir_len - 1] != '/' && name_len > 0 &&
      name[0] != '/' && name[name_len - 1] != '/')
    {
      char *path = g_malloc (dir_len + 1 + name_len + 1);

      memcpy (path, dir, dir_len);
      path[dir_len] = '/';
      memcpy (path + dir_len + 1, name, name_len + 1);
      return path;
    }
#endif
  return g_build_filename (dir, name, NULL);
}
