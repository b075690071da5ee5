/* dsh-vocabulary-private.h — range checks for the closed enums, for code that must refuse an
 * out-of-range value with a GError rather than trip a precondition in *_to_string(); and how
 * a refused word is quoted back.
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

/* A word from outside (NULL: empty), safe to quote in an error message. */
static inline const char *
dsh_vocabulary_printable (const char *text)
{
  if (text == NULL)
    return "";
  return g_utf8_validate (text, -1, NULL) ? text : "(not UTF-8)";
}
