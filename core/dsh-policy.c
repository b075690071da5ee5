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
  return dsh_sandbox_policy_new (policy->mode, policy->workspace_root, policy->session_id);
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
  g_free (policy);
}
