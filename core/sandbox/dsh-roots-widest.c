/* dsh-roots-widest.c — everything a confined command of a workspace may write, whichever
 * confined mode it runs under: the bound that whatever runs or decides unconfined must stay out
 * of, the same on every platform.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots.h"

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
