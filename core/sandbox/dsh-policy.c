/* dsh-policy.c — the per-call execution policy (its boxed GType is in dsh-boxed-types.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-policy.h"

/**
 * DshSandboxPolicy:
 * @mode: the call's mode
 * @workspace_root: the absolute workspace root, canonical when it came from dsh_workspace_root()
 * @session_id: (nullable): the session's opaque identity, or %NULL for an agentless call
 * @writable_roots: (array zero-terminated=1) (nullable): the call's writable roots as
 *   dsh_roots_pin() resolved and checked them, once; %NULL until then. When set, the backend,
 *   the runner and the fence receive exactly these strings.
 * @extra_writable_roots: (array zero-terminated=1) (nullable): extra writable roots for
 *   `workspace-write`, joined after the temporary roots
 *
 * The execution policy of one call, carried per call and never fixed on a provider.
 *
 * Since: 0.1
 */

/**
 * dsh_sandbox_policy_new:
 * @mode: the call's mode
 * @workspace_root: the absolute workspace root (canonical when it came from dsh_workspace_root())
 * @session_id: (nullable): the session's id, or %NULL for an agentless call
 *
 * Returns: (transfer full): a new policy; free it with dsh_sandbox_policy_free()
 *
 * Since: 0.1
 */
DshSandboxPolicy *
dsh_sandbox_policy_new (DshSandboxMode mode, const char *workspace_root, const char *session_id)
{
  DshSandboxPolicy *policy = g_new0 (DshSandboxPolicy, 1);

  g_return_val_if_fail (workspace_root != NULL, NULL);

  policy->mode = mode;
  policy->workspace_root = g_strdup (workspace_root);
  policy->session_id = g_strdup (session_id);
  return policy;
}

/**
 * dsh_sandbox_policy_copy:
 * @policy: a policy
 *
 * Returns: (transfer full): a copy of @policy
 *
 * Since: 0.1
 */
DshSandboxPolicy *
dsh_sandbox_policy_copy (const DshSandboxPolicy *policy)
{
  DshSandboxPolicy *copy = dsh_sandbox_policy_new (policy->mode, policy->workspace_root,
                                                   policy->session_id);

  copy->writable_roots = g_strdupv (policy->writable_roots);
  copy->extra_writable_roots = g_strdupv (policy->extra_writable_roots);
  return copy;
}

/**
 * dsh_sandbox_policy_free:
 * @policy: (nullable) (transfer full): a policy
 *
 * Frees @policy and its strings.
 *
 * Since: 0.1
 */
void
dsh_sandbox_policy_free (DshSandboxPolicy *policy)
{
  if (policy == NULL)
    return;
  g_free (policy->workspace_root);
  g_free (policy->session_id);
  g_strfreev (policy->writable_roots);
  g_strfreev (policy->extra_writable_roots);
  g_free (policy);
}

/**
 * dsh_sandbox_policy_set_extra_writable_roots:
 * @policy: a policy
 * @roots: (array zero-terminated=1) (nullable): absolute extra writable roots for
 *   `workspace-write`, or %NULL for none
 *
 * Replaces the policy's extra writable roots with copies of @roots. A binding cannot assign an
 * array field of a boxed struct: this is how it sets them. Like the field, they are only asked
 * for: dsh_roots_pin() resolves and checks them when the call is made.
 *
 * Since: 0.2
 */
void
dsh_sandbox_policy_set_extra_writable_roots (DshSandboxPolicy *policy, const char *const *roots)
{
  g_return_if_fail (policy != NULL);

  g_strfreev (policy->extra_writable_roots);
  policy->extra_writable_roots = roots != NULL && roots[0] != NULL ? g_strdupv ((char **) roots)
                                                                   : NULL;
}
