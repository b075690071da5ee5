/* dsh-seatbelt-spelling.c — the spelling under which macOS, and so Seatbelt, sees a path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-seatbelt-spelling.h"

#include <stdlib.h>
#include <string.h>

/* The top-level symlinks a stock macOS has into /private. */
static const char *const private_links[] = { "/tmp", "/var", "/etc", NULL };

static int
is_at_or_beneath (const char *path, const char *dir, size_t dir_len)
{
  return strncmp (path, dir, dir_len) == 0 && (path[dir_len] == '\0' || path[dir_len] == '/');
}

char *
dsh_seatbelt_macos_spelling (const char *path)
{
  const char *prefix = "";
  size_t len = strlen (path);
  char *spelled;

  while (len > 1 && path[len - 1] == '/')
    len--;
  for (size_t i = 0; private_links[i] != NULL; i++)
    {
      if (is_at_or_beneath (path, private_links[i], strlen (private_links[i])))
        {
          prefix = "/private";
          break;
        }
    }

  spelled = malloc (strlen (prefix) + len + 1);
  if (spelled == NULL)
    return NULL;
  memcpy (spelled, prefix, strlen (prefix));
  memcpy (spelled + strlen (prefix), path, len);
  spelled[strlen (prefix) + len] = '\0';
  return spelled;
}
