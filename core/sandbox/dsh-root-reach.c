/* dsh-root-reach.c — how far a confined command of a workspace reaches: everything it may write
 * under any confined mode, and whether it could change what a path names (the kernel's own walk
 * of the path, one name at a time, against those roots).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots.h"

#include <string.h>
#include <sys/stat.h>

/**
 * dsh_writable_roots_widest:
 * @policy: a policy
 *
 * Everything a confined command of @policy's workspace may write, whichever confined mode it
 * runs under, an approved escalation included: dsh_writable_roots() of `workspace-write` there
 * (exactly the roots dsh_roots_pin() pinned, when @policy has them), extra roots included. What
 * lies beneath these is out of bounds for anything that runs or decides unconfined: backend
 * modules, helpers, runners, approvers, session logs, configuration.
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type filename): the roots
 *
 * Since: 0.1
 */
GStrv
dsh_writable_roots_widest (const DshSandboxPolicy *policy)
{
  /* A shallow copy: the strings stay the caller's, and nothing is resolved twice. */
  DshSandboxPolicy widest;

  g_return_val_if_fail (policy != NULL, NULL);

  widest = *policy;
  widest.mode = DSH_SANDBOX_MODE_WORKSPACE_WRITE;
  return dsh_writable_roots (&widest);
}

static const char *
root_containing (const char *path, const char *const *roots)
{
  for (gsize i = 0; roots[i] != NULL; i++)
    {
      if (dsh_path_is_beneath (path, roots[i]))
        return roots[i];
    }
  return NULL;
}

/**
 * dsh_writable_root_on_way:
 * @path: (type filename): a path, absolute or relative to the current directory
 * @workspace_root: (type filename): the canonical workspace root (it is not resolved again)
 * @extra_roots: (nullable) (array zero-terminated=1) (element-type filename): the extra writable
 *   roots, or %NULL
 *
 * The root of dsh_writable_roots_widest() for that workspace that @path lies in, or that its way
 * passes through, as the kernel would walk it now: whoever may write a directory on the way may
 * swap the name looked up in it, whatever it names today.
 *
 * Returns: (transfer full) (nullable) (type filename): that root, or %NULL when no confined
 *   command could change what @path names
 *
 * Since: 0.1
 */
char *
dsh_writable_root_on_way (const char *path,
                          const char *workspace_root,
                          const char *const *extra_roots)
{
  /* Canonical already: resolving it again could follow a directory swapped since. */
  g_autofree char *root = g_canonicalize_filename (workspace_root, "/");
  DshSandboxPolicy policy = {
    .mode = DSH_SANDBOX_MODE_WORKSPACE_WRITE,
    .workspace_root = root,
    .extra_writable_roots = (char **) extra_roots,
  };
  g_autofree char *absolute = NULL;
  g_autoptr (GString) resolved = g_string_new (NULL);
  g_auto (GStrv) roots = dsh_writable_roots_widest (&policy);
  g_auto (GStrv) parts = NULL;
  GQueue pending = G_QUEUE_INIT;
  const char *hit = NULL;
  guint links = 0;

  g_return_val_if_fail (path != NULL, NULL);

  if (g_path_is_absolute (path))
    absolute = g_strdup (path);
  else
    {
      g_autofree char *here = g_get_current_dir ();

      absolute = g_build_filename (here, path, NULL);
    }
  parts = g_strsplit (absolute, "/", -1);
  for (gsize i = 0; parts[i] != NULL; i++)
    g_queue_push_tail (&pending, g_strdup (parts[i]));

  while (hit == NULL && !g_queue_is_empty (&pending))
    {
      g_autofree char *part = g_queue_pop_head (&pending);
      g_autofree char *candidate = NULL;
      g_autofree char *target = NULL;
      struct stat st;

      if (part[0] == '\0' || g_str_equal (part, "."))
        continue;
      hit = root_containing (resolved->len > 0 ? resolved->str : "/",
                             (const char *const *) roots);
      if (hit != NULL)
        break;
      if (g_str_equal (part, ".."))
        {
          char *slash = strrchr (resolved->str, '/');

          g_string_truncate (resolved, slash != NULL ? (gsize) (slash - resolved->str) : 0);
          continue;
        }
      candidate = g_strdup_printf ("%s/%s", resolved->str, part);
      if (lstat (candidate, &st) != 0 || !S_ISLNK (st.st_mode) ||
          (target = g_file_read_link (candidate, NULL)) == NULL || ++links > 40)
        {
          /* A missing name is judged where it would be created. */
          g_string_assign (resolved, candidate);
          continue;
        }
      {
        g_auto (GStrv) target_parts = g_strsplit (target, "/", -1);

        for (gsize i = g_strv_length (target_parts); i > 0; i--)
          g_queue_push_head (&pending, g_strdup (target_parts[i - 1]));
      }
      if (target[0] == '/')
        g_string_truncate (resolved, 0);
    }
  g_queue_clear_full (&pending, g_free);
  if (hit == NULL)
    hit = root_containing (resolved->len > 0 ? resolved->str : "/",
                           (const char *const *) roots);
  return g_strdup (hit);
}
