/* dsh-fs-fence-route.c — what the filesystem fence decides alike on every platform: what a
 * denial says, and which writable roots may hold a path, innermost first, as spelled and then
 * through its resolved directory. How a path lies below a root, and every open beneath it, is
 * the platform's (dsh-fs-fence.c, dsh-fs-fence-windows.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-fs-fence-private.h"

#include <gio/gio.h>
#include <string.h>

#include "dsh-error.h"
#include "dsh-texts.h"

const char *
dsh_fs_fence_printable (const char *path)
{
  return g_utf8_validate (path, -1, NULL) ? path : "(path not UTF-8)";
}

void
dsh_fs_fence_set_denied (GError **error, const DshSandboxPolicy *policy, const char *path,
                         const char *why)
{
  g_autofree char *marker = dsh_text_denial_marker (policy->mode);

  /* The same marker bash reports, so the model recognises a policy denial the same way from
   * either enforcing family. */
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_FS_DENIED, "%s %s: %s", marker,
               dsh_fs_fence_printable (path), why);
}

void
dsh_fs_fence_set_io_error (GError **error, int saved_errno, const char *what, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno), "cannot %s %s: %s", what,
               dsh_fs_fence_printable (path), g_strerror (saved_errno));
}

static void
route_clear (gpointer data)
{
  DshFenceRoute *route = data;

  route->free_below (route->below);
}

static gint
inner_root_first (gconstpointer a, gconstpointer b)
{
  return (gint) strlen (((const DshFenceRoute *) b)->root) -
         (gint) strlen (((const DshFenceRoute *) a)->root);
}

static void
add_routes (GArray *routes, GStrv roots, const char *path, DshFenceBelowFunc below,
            GDestroyNotify free_below)
{
  guint first = routes->len;

  for (guint i = 0; roots[i] != NULL; i++)
    {
      DshFenceRoute r = { roots[i], below (path, roots[i]), free_below };

      if (r.below != NULL)
        g_array_append_val (routes, r);
    }
  /* Nested roots (a workspace under /tmp): the innermost first. */
  if (routes->len > first + 1)
    g_array_sort (routes, inner_root_first);
}

GArray *
dsh_fs_fence_route (GStrv roots, const char *path, const char *resolved,
                    DshFenceBelowFunc below, GDestroyNotify free_below)
{
  GArray *routes = g_array_new (FALSE, FALSE, sizeof (DshFenceRoute));

  g_array_set_clear_func (routes, route_clear);
  add_routes (routes, roots, path, below, free_below);
  if (resolved != NULL)
    {
      g_autoptr (GArray) more = g_array_new (FALSE, FALSE, sizeof (DshFenceRoute));

      /* Appended as they are: the routes own what they hold, more only carries them. */
      add_routes (more, roots, resolved, below, free_below);
      g_array_append_vals (routes, more->data, more->len);
    }
  return routes;
}
