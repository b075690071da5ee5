/* dsh-policy.c — the per-call execution policy (its boxed GType is in dsh-boxed-types.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-policy.h"

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

DshSandboxPolicy *
dsh_sandbox_policy_copy (const DshSandboxPolicy *policy)
{
  DshSandboxPolicy *copy = dsh_sandbox_policy_new (policy->mode, policy->workspace_root,
                                                   policy->session_id);

  copy->writable_roots = g_strdupv (policy->writable_roots);
  copy->extra_writable_roots = g_strdupv (policy->extra_writable_roots);
  return copy;
}

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
