/* dsh-roots.c — canonical paths and the writable roots every enforcing layer derives from.
 *
 * The order matters for security: resolving symlinks before lexical normalisation makes
 * "a/link/../b" name the directory chdir would reach, not the lexical "a/b" the kernel never
 * visits.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots.h"
#include "dsh-roots-private.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-error.h"
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

char *
dsh_absolute_path_as_spelled (const char *path)
{
  g_autofree char *here = NULL;

  if (g_path_is_absolute (path))
    return g_strdup (path);
  here = g_get_current_dir ();
  return g_build_filename (here, path, NULL);
}

/* Walks path the way the kernel resolves it and returns the first symlink (a new string) that
 * lies inside one of writable or was changed after not_before (Unix time in microseconds; 0 for
 * none), or NULL. A missing component ends the walk: nothing lies beyond it. When the walk went
 * all the way, *out_resolved (if given) is where it ended. */
static char *
find_planted_symlink (const char *path,
                      const char *const *writable,
                      gint64 not_before,
                      char **out_resolved)
{
  GQueue *pending = g_queue_new ();
  g_autoptr (GString) resolved = g_string_new (NULL);
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  char *planted = NULL;
  guint links = 0;

  for (gsize i = 0; parts[i] != NULL; i++)
    g_queue_push_tail (pending, g_strdup (parts[i]));

  while (planted == NULL && !g_queue_is_empty (pending))
    {
      g_autofree char *part = g_queue_pop_head (pending);
      g_autofree char *candidate = NULL;
      g_autofree char *target = NULL;
      struct stat st;

      if (part[0] == '\0' || g_str_equal (part, "."))
        continue;
      if (g_str_equal (part, ".."))
        {
          char *slash = strrchr (resolved->str, '/');

          g_string_truncate (resolved, slash != NULL ? (gsize) (slash - resolved->str) : 0);
          continue;
        }

      candidate = g_strdup_printf ("%s/%s", resolved->str, part);
      if (lstat (candidate, &st) != 0)
        break;
      if (!S_ISLNK (st.st_mode))
        {
          g_string_assign (resolved, candidate);
          continue;
        }

      for (gsize i = 0; writable != NULL && writable[i] != NULL; i++)
        {
          if (dsh_path_is_beneath (resolved->len > 0 ? resolved->str : "/", writable[i]))
            planted = g_strdup (candidate);
        }
      if (planted == NULL && not_before > 0 &&
          (gint64) st.st_ctim.tv_sec * G_USEC_PER_SEC + st.st_ctim.tv_nsec / 1000 > not_before)
        planted = g_strdup (candidate);
      target = g_file_read_link (candidate, NULL);
      if (planted != NULL || target == NULL || ++links > 40)
        break;

      /* Continue through the link's target, as the kernel does. */
      {
        g_auto (GStrv) target_parts = g_strsplit (target, "/", -1);

        for (gsize i = g_strv_length (target_parts); i > 0; i--)
          g_queue_push_head (pending, g_strdup (target_parts[i - 1]));
      }
      if (target[0] == '/')
        g_string_truncate (resolved, 0);
    }

  if (out_resolved != NULL && planted == NULL && g_queue_is_empty (pending))
    *out_resolved = g_strdup (resolved->len > 0 ? resolved->str : "/");
  g_queue_free_full (pending, g_free);
  return planted;
}

static gboolean
planted_error (GError **error, const char *root, const char *planted)
{
  g_autofree char *valid_root = g_utf8_make_valid (root, -1);
  g_autofree char *valid = g_utf8_make_valid (planted, -1);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
               "the writable root %s is reached through the symlink %s, which lies where "
               "confined commands may write: a command could have planted it to move this "
               "call's writable roots; refusing to run the command",
               valid_root, valid);
  return FALSE;
}

gboolean
dsh_roots_check_unplanted (const char *spelled_workspace,
                           const char *workspace_root,
                           GError **error)
{
  g_autoptr (DshSandboxPolicy) widest = NULL;
  g_auto (GStrv) writable = NULL;
  g_autofree char *absolute = NULL;
  g_autofree char *planted = NULL;
  g_autofree char *resolved = NULL;
  const char *temp_areas[2];

  g_return_val_if_fail (spelled_workspace != NULL, FALSE);
  g_return_val_if_fail (workspace_root != NULL, FALSE);

  if (g_str_equal (workspace_root, "/"))
    return TRUE;
  widest = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, workspace_root, NULL);
  writable = dsh_writable_roots (widest);

  /* As spelled, made absolute but not normalised: ".." must be walked the kernel's way. */
  absolute = dsh_absolute_path_as_spelled (spelled_workspace);
  planted = find_planted_symlink (absolute, (const char *const *) writable, 0, &resolved);
  if (planted != NULL)
    return planted_error (error, spelled_workspace, planted);
  /* The root was resolved a moment ago; resolving it again must land in the same place, or
   * something is moving it right now. */
  if (resolved != NULL && !g_str_equal (resolved, workspace_root))
    {
      g_autofree char *valid = g_utf8_make_valid (spelled_workspace, -1);

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                   "the workspace %s changed while it was being checked; refusing to run the "
                   "command",
                   valid);
      return FALSE;
    }

  temp_areas[0] = "/tmp";
  temp_areas[1] = g_get_tmp_dir ();
  for (guint i = 0; i < G_N_ELEMENTS (temp_areas); i++)
    {
      g_autofree char *in_temp = g_path_is_absolute (temp_areas[i])
                                   ? find_planted_symlink (temp_areas[i],
                                                           (const char *const *) writable, 0,
                                                           NULL)
                                   : NULL;

      if (in_temp != NULL)
        return planted_error (error, temp_areas[i], in_temp);
    }
  return TRUE;
}

gboolean
dsh_roots_check_session_cwd (const char *cwd, const char *created, GError **error)
{
  g_autoptr (GDateTime) when = g_date_time_new_from_iso8601 (created, NULL);
  g_autofree char *planted = NULL;

  g_return_val_if_fail (cwd != NULL, FALSE);

  /* No creation time to compare with: nothing can be told apart, so nothing is refused here. */
  if (when == NULL || !g_path_is_absolute (cwd))
    return TRUE;
  planted = find_planted_symlink (cwd, NULL,
                                  g_date_time_to_unix (when) * G_USEC_PER_SEC +
                                    g_date_time_get_microsecond (when),
                                  NULL);
  if (planted != NULL)
    {
      g_autofree char *valid_cwd = g_utf8_make_valid (cwd, -1);
      g_autofree char *valid = g_utf8_make_valid (planted, -1);

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                   "the session's cwd %s is reached through the symlink %s, made after the "
                   "session was created: a command could have planted it to move the "
                   "session's workspace; refusing to run the command",
                   valid_cwd, valid);
      return FALSE;
    }
  return TRUE;
}
