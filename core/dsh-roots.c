/* dsh-roots.c — canonical paths and the writable roots every enforcing layer derives from.
 *
 * The order matters for security: resolving symlinks before lexical normalisation makes
 * "a/link/../b" name the directory chdir would reach, not the lexical "a/b" the kernel never
 * visits.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots.h"

#include <stdlib.h>
#include <string.h>

char *
dsh_canonical_path (const char *path)
{
  g_autofree char *resolved = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  /* realpath(3) walks the path one component at a time through the kernel, so a ".." after a
   * symlink climbs from the symlink's target, exactly as chdir does. */
  resolved = realpath (path, NULL);
  if (resolved == NULL)
    return g_strdup (path);
  return g_steal_pointer (&resolved);
}

char *
dsh_workspace_root (const char *session_cwd, const char *fallback_root)
{
  const char *root = session_cwd != NULL ? session_cwd : fallback_root;
  g_autofree char *canonical = NULL;

  g_return_val_if_fail (root != NULL, NULL);

  canonical = dsh_canonical_path (root);
  return g_canonicalize_filename (canonical, NULL);
}

GStrv
dsh_writable_roots (const DshSandboxPolicy *policy)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  const char *candidates[3];

  g_return_val_if_fail (policy != NULL, NULL);

  if (policy->mode != DSH_SANDBOX_MODE_WORKSPACE_WRITE)
    return g_strv_builder_end (builder);

  /* The temp directory is listed on its own: mkstemp-family tools write there, and leaving it
   * out would deny what workspace-write promises. */
  candidates[0] = policy->workspace_root;
  candidates[1] = "/tmp";
  candidates[2] = g_get_tmp_dir ();

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      char *canonical = dsh_canonical_path (candidates[i]);

      if (g_ptr_array_find_with_equal_func (seen, canonical, g_str_equal, NULL))
        {
          g_free (canonical);
          continue;
        }
      g_strv_builder_add (builder, canonical);
      g_ptr_array_add (seen, canonical);
    }

  return g_strv_builder_end (builder);
}

gboolean
dsh_path_is_beneath (const char *path, const char *root)
{
  gsize len;

  g_return_val_if_fail (path != NULL && root != NULL, FALSE);

  len = strlen (root);
  while (len > 1 && root[len - 1] == '/')
    len--;
  if (len == 1 && root[0] == '/')
    return path[0] == '/';
  return strncmp (path, root, len) == 0 && (path[len] == '\0' || path[len] == '/');
}
