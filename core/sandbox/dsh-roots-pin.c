/* dsh-roots-pin.c — the writable roots of a policy and of a call, as every platform hands them
 * out: none but in workspace-write, exactly what was pinned once pinned, and pinning and probing
 * by one resolution. How a root is resolved and what refuses it is the platform's
 * (dsh-roots.c, dsh-roots-windows.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots.h"
#include "dsh-roots-private.h"

/**
 * dsh_writable_roots:
 * @policy: a policy
 *
 * The one source of the roots the fence and every backend let a command write: empty unless the
 * mode is `workspace-write`; else the roots dsh_roots_pin() pinned into @policy, exactly; else the
 * workspace root, `/tmp`, the temporary directory and the extra roots, de-duplicated, in that
 * order, leaving out a temporary directory or extra root that would widen them.
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type filename): the writable roots
 *
 * Since: 0.1
 */
GStrv
dsh_writable_roots (const DshSandboxPolicy *policy)
{
  g_return_val_if_fail (policy != NULL, NULL);

  if (policy->mode != DSH_SANDBOX_MODE_WORKSPACE_WRITE)
    return g_new0 (char *, 1);
  if (policy->writable_roots != NULL)
    return g_strdupv (policy->writable_roots);
  return dsh_roots_unpinned (policy);
}

/**
 * dsh_roots_pin:
 * @policy: a `workspace-write` policy; its writable roots are pinned into it
 * @spelled_workspace: (nullable): the workspace as the caller spelled it (%NULL: the policy's root)
 * @session_created: (nullable): the session's creation time (ISO 8601), if any
 * @error: return location for a #GError
 *
 * Resolves the writable roots of a call exactly once, checks them on those very strings, records
 * them as granted and pins them into @policy, so that the backend, the runner and the fence get
 * exactly what was checked. Refuses a workspace of `/`; a temporary directory or extra root that
 * is `/`, a system directory, the home directory or an ancestor of it or of the workspace; a root
 * reached through a symlink a confined command could have planted; a workspace that moved while
 * it was checked. Does nothing for other modes.
 *
 * Returns: %TRUE when the roots are pinned (or none are needed); %FALSE with
 *   %DSH_SANDBOX_ERROR_ROOT_REFUSED naming the path and the reason
 *
 * Since: 0.1
 */
gboolean
dsh_roots_pin (DshSandboxPolicy *policy,
               const char *spelled_workspace,
               const char *session_created,
               GError **error)
{
  GStrv roots = NULL;

  g_return_val_if_fail (policy != NULL, FALSE);

  /* read-only grants nothing, so it never looks at the temp directory. */
  if (policy->mode != DSH_SANDBOX_MODE_WORKSPACE_WRITE)
    return TRUE;
  if (!dsh_roots_resolve (spelled_workspace != NULL ? spelled_workspace : policy->workspace_root,
                          policy->workspace_root, session_created,
                          (const char *const *) policy->extra_writable_roots,
                          DSH_ROOTS_RESOLVE_RECORD | DSH_ROOTS_RESOLVE_TEMP_ROOTS, &roots, error))
    return FALSE;
  g_strfreev (policy->writable_roots);
  policy->writable_roots = roots;
  return TRUE;
}

/**
 * dsh_roots_check:
 * @spelled_workspace: the workspace as the caller spelled it
 * @workspace_root: the canonical workspace root
 * @session_created: (nullable): the session's creation time (ISO 8601), if any
 * @extra: (array zero-terminated=1) (nullable): extra writable roots
 * @error: return location for a #GError
 *
 * The checks of dsh_roots_pin() for a `workspace-write` call with this workspace and these extra
 * roots, granting nothing (a probe).
 *
 * Returns: %TRUE when the roots would be accepted; %FALSE with %DSH_SANDBOX_ERROR_ROOT_REFUSED
 *
 * Since: 0.1
 */
gboolean
dsh_roots_check (const char *spelled_workspace,
                 const char *workspace_root,
                 const char *session_created,
                 const char *const *extra,
                 GError **error)
{
  g_auto (GStrv) roots = NULL;

  g_return_val_if_fail (spelled_workspace != NULL && workspace_root != NULL, FALSE);

  return dsh_roots_resolve (spelled_workspace, workspace_root, session_created, extra,
                            DSH_ROOTS_RESOLVE_TEMP_ROOTS, &roots, error);
}

/**
 * dsh_roots_check_new_workspace:
 * @spelled_workspace: the new session's cwd as spelled
 * @workspace_root: its canonical root
 * @extra: (array zero-terminated=1) (nullable): extra writable roots
 * @error: return location for a #GError
 *
 * The checks a new session's cwd and extra roots can get before any call (a root of `/`, planted
 * symlinks on the way), granting nothing; the temporary directory is the calls' own.
 *
 * Returns: %TRUE when they would be accepted; %FALSE with %DSH_SANDBOX_ERROR_ROOT_REFUSED
 *
 * Since: 0.1
 */
gboolean
dsh_roots_check_new_workspace (const char *spelled_workspace,
                               const char *workspace_root,
                               const char *const *extra,
                               GError **error)
{
  g_auto (GStrv) roots = NULL;

  g_return_val_if_fail (spelled_workspace != NULL && workspace_root != NULL, FALSE);

  return dsh_roots_resolve (spelled_workspace, workspace_root, NULL, extra, 0, &roots, error);
}

/**
 * dsh_roots_check_unplanted:
 * @spelled_workspace: the workspace as the caller spelled it
 * @workspace_root: the canonical root the policy holds
 * @error: return location for a #GError
 *
 * dsh_roots_check() without a session or extra roots: a writable root is only as trustworthy as
 * the path that leads to it.
 *
 * Returns: %TRUE when the roots would be accepted; %FALSE with %DSH_SANDBOX_ERROR_ROOT_REFUSED
 *
 * Since: 0.1
 */
gboolean
dsh_roots_check_unplanted (const char *spelled_workspace,
                           const char *workspace_root,
                           GError **error)
{
  return dsh_roots_check (spelled_workspace, workspace_root, NULL, NULL, error);
}

GStrv
dsh_roots_left_out_warnings (const DshSandboxPolicy *policy)
{
  GPtrArray *warnings = NULL;

  if (policy->mode != DSH_SANDBOX_MODE_WORKSPACE_WRITE)
    return NULL;
  for (gsize i = 0; policy->extra_writable_roots != NULL && policy->extra_writable_roots[i];
       i++)
    {
      const char *root = policy->extra_writable_roots[i];
      g_autofree char *shown = NULL;

      if (g_file_test (root, G_FILE_TEST_IS_DIR))
        continue;
      /* Text for a terminal and for JSON, whatever bytes the path holds. */
      shown = g_utf8_make_valid (root, -1);
      if (warnings == NULL)
        warnings = g_ptr_array_new ();
      g_ptr_array_add (warnings,
                       g_strdup_printf ("the extra writable root %s is no directory, so this "
                                        "call left it out: make it before the call that needs "
                                        "it",
                                        shown));
    }
  if (warnings == NULL)
    return NULL;
  g_ptr_array_add (warnings, NULL);
  return (GStrv) g_ptr_array_free (warnings, FALSE);
}
