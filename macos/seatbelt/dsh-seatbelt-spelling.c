/* dsh-seatbelt-spelling.c — the spelling under which macOS, and so Seatbelt, sees a path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-seatbelt-spelling.h"

#include <stdlib.h>
#include <string.h>

/* The top-level symlinks a stock macOS has into /private. */
static const char *const private_links[] = { "/tmp", "/var", "/etc", NULL };

/* Since 10.15 these live on the data volume and are firmlinked into the system volume, so each
 * has two spellings: /Users/me and /System/Volumes/Data/Users/me are one directory. A root
 * spelled one way inside a root spelled the other (/System/Volumes/Data/private/tmp/ws and
 * /tmp) would be writable through the outer root while its own .git rules match nothing,
 * whichever spelling the kernel reports. With one spelling for every root, a path spelled the
 * other way matches no root at all. (The list is /usr/share/firmlinks.) */
#define DATA_VOLUME "/System/Volumes/Data"
static const char *const firmlinks[] = {
  "/AppleInternal", "/Applications", "/Library", "/System/Library/Caches", "/Users", "/Volumes",
  "/cores", "/opt", "/private", "/usr/libexec/cups", "/usr/local", "/usr/share/snmp", NULL,
};

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

  if (is_at_or_beneath (path, DATA_VOLUME, strlen (DATA_VOLUME)))
    {
      const char *rest = path + strlen (DATA_VOLUME);

      for (size_t i = 0; firmlinks[i] != NULL; i++)
        {
          if (is_at_or_beneath (rest, firmlinks[i], strlen (firmlinks[i])))
            {
              path = rest;
              len = strlen (path);
              break;
            }
        }
    }
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
