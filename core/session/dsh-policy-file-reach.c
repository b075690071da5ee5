/* dsh-policy-file-reach.c — files that decide policy, kept out of confined commands' reach: one
 * rule for the command line, serve and the library's whole call.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-policy-file-reach-private.h"

#include "dsh-error.h"
#include "dsh-roots.h"
#include "dsh-root-grants-private.h"

gboolean
dsh_policy_file_check_never_granted (const char *what, const char *path, const char *canonical,
                                     GError **error)
{
  g_autofree char *granted = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *shown_granted = NULL;

  if (!dsh_root_grants_find_granted_above (path, &granted, error))
    return FALSE;
  if (granted == NULL)
    return TRUE;
  shown = g_utf8_make_valid (canonical, -1);
  shown_granted = g_utf8_make_valid (granted, -1);
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
               "the %s %s lies inside %s, which was granted to confined commands as a writable "
               "root before: one of them could have rewritten this policy; keep it outside "
               "every directory ever granted",
               what, shown, shown_granted);
  return FALSE;
}

gboolean
dsh_policy_file_check_out_of_reach (const char *what, const char *path, const char *workspace_root,
                                    const char *const *extra_roots, GError **error)
{
  g_autofree char *canonical = dsh_canonical_path (path);
  g_autofree char *root = dsh_writable_root_on_way (path, workspace_root, extra_roots);

  if (root != NULL)
    {
      g_autofree char *shown = g_utf8_make_valid (canonical, -1);
      g_autofree char *shown_root = g_utf8_make_valid (root, -1);

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "the %s %s lies inside, or is reached through, %s, which confined "
                   "commands may write: a command could rewrite its own policy; keep it outside "
                   "the workspace, /tmp, the temp directory and the extra writable roots",
                   what, shown, shown_root);
      return FALSE;
    }
  /* Nor may any other call's commands have reached it: another session's, or a sessionless
   * call's, extra writable root. */
  return dsh_policy_file_check_never_granted (what, path, canonical, error);
}
