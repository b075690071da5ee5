/* dsh-windows-way.c — the walk Windows makes of a path, against writable roots: the Win32 layer
 * takes "." and ".." away before a lookup, and the lookup itself follows junctions and symbolic
 * links wherever they are, so the walk goes on from each link's target, absolute or relative to
 * the link's directory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-windows-way-private.h"

#include <string.h>

#include "dsh-windows-paths-private.h"

/* Windows gives up after 63 links in one lookup. */
#define MAX_LINKS 63

static const char *
root_containing (const char *path, const char *const *roots)
{
  for (gsize i = 0; roots[i] != NULL; i++)
    {
      if (dsh_windows_path_is_beneath (path, roots[i]))
        return roots[i];
    }
  return NULL;
}

static void
push_names (GQueue *pending, const char *path)
{
  g_auto (GStrv) names = g_strsplit_set (path, "\\/", -1);

  for (gsize i = g_strv_length (names); i > 0; i--)
    g_queue_push_head (pending, g_strdup (names[i - 1]));
}

char *
dsh_windows_root_on_way (const char *path,
                         const char *const *roots,
                         DshWindowsLookName look,
                         gpointer data)
{
  gsize top = dsh_windows_path_root_length (path);
  g_autoptr (GString) resolved = NULL;
  GQueue pending = G_QUEUE_INIT;
  const char *hit = NULL;
  char *unreadable = NULL;
  guint links = 0;

  if (top == 0)
    return g_strdup (root_containing (path, roots));
  resolved = g_string_new_len (path, (gssize) top);
  push_names (&pending, path + top);

  while (hit == NULL && unreadable == NULL && !g_queue_is_empty (&pending))
    {
      g_autofree char *part = g_queue_pop_head (&pending);
      g_autofree char *candidate = NULL;
      g_autofree char *target = NULL;
      gsize volume = dsh_windows_path_root_length (resolved->str);
      gsize target_top;

      if (part[0] == '\0' || g_str_equal (part, "."))
        continue;
      hit = root_containing (resolved->str, roots);
      if (hit != NULL)
        break;
      if (g_str_equal (part, ".."))
        {
          char *sep = strrchr (resolved->str, '\\');

          /* ".." of the top of a drive or share is that top. */
          if (sep != NULL)
            g_string_truncate (resolved, MAX ((gsize) (sep - resolved->str), volume));
          continue;
        }
      candidate = g_strdup_printf ("%s%s%s", resolved->str,
                                   g_str_has_suffix (resolved->str, "\\") ? "" : "\\", part);
      switch (look (candidate, &target, data))
        {
        case DSH_WINDOWS_NAME_PLAIN:
          /* A missing name is judged where it would be created. */
          g_string_assign (resolved, candidate);
          continue;
        case DSH_WINDOWS_NAME_LINK:
          if (target != NULL && ++links <= MAX_LINKS)
            break;
          G_GNUC_FALLTHROUGH;
        case DSH_WINDOWS_NAME_UNREADABLE_LINK:
        default:
          unreadable = g_steal_pointer (&candidate);
          continue;
        }
      target_top = dsh_windows_path_root_length (target);
      push_names (&pending, target + target_top);
      if (target_top > 0)
        g_string_assign (resolved, "");
      g_string_append_len (resolved, target, (gssize) target_top);
    }
  g_queue_clear_full (&pending, g_free);
  if (unreadable != NULL)
    return unreadable;
  if (hit == NULL)
    hit = root_containing (resolved->str, roots);
  return g_strdup (hit);
}
