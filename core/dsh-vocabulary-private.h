/* dsh-vocabulary-private.h — range checks for the closed enums, for code that must refuse an
 * out-of-range value with a GError rather than trip a precondition in *_to_string().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-approval-vocabulary.h"
#include "dsh-mode.h"

static inline gboolean
dsh_sandbox_mode_is_valid (DshSandboxMode mode)
{
  return (guint) mode <= (guint) DSH_SANDBOX_MODE_DANGER_FULL_ACCESS;
}

static inline gboolean
dsh_approval_policy_is_valid (DshApprovalPolicy policy)
{
  return (guint) policy <= (guint) DSH_APPROVAL_POLICY_NEVER;
}

static inline gboolean
dsh_approval_outcome_is_valid (DshApprovalOutcome outcome)
{
  return (guint) outcome <= (guint) DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;
}
