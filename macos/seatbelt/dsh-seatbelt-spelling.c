/* dsh-seatbelt-spelling.c — the spelling under which macOS, and so Seatbelt, sees a path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-seatbelt-spelling.h"

#include <stdio.h>
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

/* Does path lie at or beneath dir, dir's letters in any ASCII case? The default APFS volume
 * takes /system/volumes/data/private/tmp for /System/Volumes/Data/private/tmp, while a
 * program writing there spells it /private/tmp like everything else: a root kept in another
 * case would escape the folding below and so the rules of any root it lies in. On a
 * case-sensitive install the other spellings of these names do not exist at the top of the
 * sealed system volume, and on its data volume only an administrator could make one. */
static int
is_at_or_beneath (const char *path, const char *dir, size_t dir_len)
{
  for (size_t i = 0; i < dir_len; i++)
    {
      char c = path[i] >= 'A' && path[i] <= 'Z' ? (char) (path[i] - 'A' + 'a') : path[i];
      char d = dir[i] >= 'A' && dir[i] <= 'Z' ? (char) (dir[i] - 'A' + 'a') : dir[i];

      if (c != d)
        return 0;
    }
  return path[dir_len] == '\0' || path[dir_len] == '/';
}

/* The entry of list that path lies at or beneath, or NULL. */
static const char *
entry_holding (const char *path, const char *const *list)
{
  for (size_t i = 0; list[i] != NULL; i++)
    {
      if (is_at_or_beneath (path, list[i], strlen (list[i])))
        return list[i];
    }
  return NULL;
}

char *
dsh_seatbelt_macos_spelling (const char *path)
{
  /* What path becomes: head, then the name it starts with as macOS spells it, then rest. */
  const char *head = "";
  const char *name = "";
  const char *rest = path;
  const char *entry;
  size_t len, size;
  char *spelled;

  if (is_at_or_beneath (path, DATA_VOLUME, strlen (DATA_VOLUME)) &&
      (entry = entry_holding (path + strlen (DATA_VOLUME), firmlinks)) != NULL)
    {
      name = entry;
      rest = path + strlen (DATA_VOLUME) + strlen (entry);
    }
  else if ((entry = entry_holding (path, private_links)) != NULL)
    {
      head = "/private";
      name = entry;
      rest = path + strlen (entry);
    }
  len = strlen (rest);
  while (len > (*name == '\0' ? 1 : 0) && rest[len - 1] == '/')
    len--;

  size = strlen (head) + strlen (name) + len + 1;
  spelled = malloc (size);
  if (spelled == NULL)
    return NULL;
  snprintf (spelled, size, "%s%s%.*s", head, name, (int) len, rest);
  return spelled;
}
