/* dsh-approval-vocabulary.c — strict parsing of the approval policy and outcome vocabularies:
 * a misspelling is an error, never a default.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-approval-vocabulary.h"

#include "dsh-error.h"
#include "dsh-vocabulary-private.h"

/**
 * DshApprovalOutcome:
 * @DSH_APPROVAL_OUTCOME_UNAVAILABLE: nobody could answer (zero: an unset outcome is a refusal)
 * @DSH_APPROVAL_OUTCOME_REJECTED: refused
 * @DSH_APPROVAL_OUTCOME_CANCELLED: the question was cancelled
 * @DSH_APPROVAL_OUTCOME_ALLOWED_ONCE: granted, for exactly one action
 *
 * The four approval outcomes, of which allowed-once is the only grant.
 *
 * Since: 0.1
 */

/**
 * DshApprovalPolicy:
 * @DSH_APPROVAL_POLICY_ASK: a person (or a composed answerer) decides
 * @DSH_APPROVAL_POLICY_NEVER: every request is rejected before any answerer runs
 *
 * A session's approval policy.
 *
 * Since: 0.1
 */

static const char *const policy_names[] = {
  [DSH_APPROVAL_POLICY_ASK] = "ask",
  [DSH_APPROVAL_POLICY_NEVER] = "never",
};

static const char *const outcome_names[] = {
  [DSH_APPROVAL_OUTCOME_ALLOWED_ONCE] = "allowed-once",
  [DSH_APPROVAL_OUTCOME_REJECTED] = "rejected",
  [DSH_APPROVAL_OUTCOME_CANCELLED] = "cancelled",
  [DSH_APPROVAL_OUTCOME_UNAVAILABLE] = "unavailable",
};

/**
 * dsh_approval_policy_from_string:
 * @text: (nullable): `ask` or `never`
 * @policy: (out): where the policy goes
 *
 * Returns: %TRUE with @policy set; %FALSE with %DSH_SANDBOX_ERROR_INVALID_ARGUMENT otherwise
 *
 * Since: 0.1
 */
gboolean
dsh_approval_policy_from_string (const char *text, DshApprovalPolicy *policy, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (policy_names); i++)
    {
      if (g_strcmp0 (text, policy_names[i]) == 0)
        {
          *policy = (DshApprovalPolicy) i;
          return TRUE;
        }
    }
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
               "unknown approval policy \"%s\": expected one of ask, never",
               dsh_vocabulary_printable (text));
  return FALSE;
}

/**
 * dsh_approval_policy_to_string:
 * @policy: an approval policy
 *
 * Returns: (transfer none): `ask` or `never`
 *
 * Since: 0.1
 */
const char *
dsh_approval_policy_to_string (DshApprovalPolicy policy)
{
  g_return_val_if_fail ((guint) policy < G_N_ELEMENTS (policy_names), NULL);
  return policy_names[policy];
}

/**
 * dsh_approval_outcome_from_string:
 * @text: (nullable): `allowed-once`, `rejected`, `cancelled` or `unavailable`
 * @outcome: (out): where the outcome goes
 *
 * Returns: %TRUE with @outcome set; %FALSE with %DSH_SANDBOX_ERROR_INVALID_ARGUMENT otherwise
 *
 * Since: 0.1
 */
gboolean
dsh_approval_outcome_from_string (const char *text, DshApprovalOutcome *outcome, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (outcome_names); i++)
    {
      if (g_strcmp0 (text, outcome_names[i]) == 0)
        {
          *outcome = (DshApprovalOutcome) i;
          return TRUE;
        }
    }
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
               "unknown approval outcome \"%s\": expected one of allowed-once, rejected, "
               "cancelled, unavailable",
               dsh_vocabulary_printable (text));
  return FALSE;
}

/**
 * dsh_approval_outcome_to_string:
 * @outcome: an approval outcome
 *
 * Returns: (transfer none): the outcome's word
 *
 * Since: 0.1
 */
const char *
dsh_approval_outcome_to_string (DshApprovalOutcome outcome)
{
  g_return_val_if_fail ((guint) outcome < G_N_ELEMENTS (outcome_names), NULL);
  return outcome_names[outcome];
}
