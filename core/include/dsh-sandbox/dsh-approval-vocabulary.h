/* dsh-approval-vocabulary.h — the closed approval vocabularies: the per-session approval policy
 * (ask | never) and the four approval outcomes, of which allowed-once is the only grant.
 *
 * The session log validates its `approval/policy` and `approval/decided` events against these,
 * so they live below both the log and the approval service.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "dsh-api.h"

G_BEGIN_DECLS

typedef enum {
  DSH_APPROVAL_POLICY_ASK,
  DSH_APPROVAL_POLICY_NEVER,
} DshApprovalPolicy;

/* "ask" is the default: a human (or a composed answerer) decides. */
#define DSH_APPROVAL_POLICY_DEFAULT DSH_APPROVAL_POLICY_ASK

/* Zero is "unavailable": an outcome variable nobody set reads as a refusal, never a grant. */
typedef enum {
  DSH_APPROVAL_OUTCOME_UNAVAILABLE,
  DSH_APPROVAL_OUTCOME_REJECTED,
  DSH_APPROVAL_OUTCOME_CANCELLED,
  DSH_APPROVAL_OUTCOME_ALLOWED_ONCE,
} DshApprovalOutcome;

/* Strict: anything but "ask" / "never" is DSH_SANDBOX_ERROR_INVALID_ARGUMENT. */
DSH_API
gboolean     dsh_approval_policy_from_string  (const char          *text,
                                               DshApprovalPolicy   *policy,
                                               GError             **error);
DSH_API
const char  *dsh_approval_policy_to_string    (DshApprovalPolicy    policy);

/* Strict: anything but the four outcome words is DSH_SANDBOX_ERROR_INVALID_ARGUMENT. */
DSH_API
gboolean     dsh_approval_outcome_from_string (const char          *text,
                                               DshApprovalOutcome  *outcome,
                                               GError             **error);
DSH_API
const char  *dsh_approval_outcome_to_string   (DshApprovalOutcome   outcome);

G_END_DECLS
