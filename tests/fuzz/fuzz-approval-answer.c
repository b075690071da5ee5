/* fuzz-approval-answer.c — libFuzzer target for the answer words an approver sends back and the
 * other closed words around approval (policy, sandbox mode, escalation target): a word is
 * accepted exactly when it is one of the vocabulary, spelled exactly, and then it writes back
 * to itself; anything else is refused with an error, never a default.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dsh-sandbox.h>

#include "fuzz-target.h"
#include "fuzz-util.h"

static const char *const outcome_words[] = { "allowed-once", "rejected", "cancelled",
                                             "unavailable", NULL };
static const char *const policy_words[] = { "ask", "never", NULL };
static const char *const mode_words[] = { "read-only", "workspace-write", "danger-full-access",
                                          NULL };
static const char *const target_words[] = { "workspace-write", "danger-full-access", NULL };

/* Accepted iff listed; set error iff refused. */
static void
assert_closed (const char *word, const char *const *vocabulary, gboolean ok, GError *error)
{
  g_assert_true (ok == g_strv_contains (vocabulary, word));
  g_assert_true (ok == (error == NULL));
  g_assert_true (error == NULL || g_error_matches (error, DSH_SANDBOX_ERROR,
                                                   DSH_SANDBOX_ERROR_INVALID_ARGUMENT));
  g_assert_true (error == NULL || g_utf8_validate (error->message, -1, NULL));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *word = g_strndup ((const char *) data, size);
  g_autoptr (GError) outcome_error = NULL;
  g_autoptr (GError) policy_error = NULL;
  g_autoptr (GError) mode_error = NULL;
  g_autoptr (GError) target_error = NULL;
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  DshApprovalPolicy policy;
  DshSandboxMode mode, target;
  gboolean ok;

  ok = dsh_approval_outcome_from_string (word, &outcome, &outcome_error);
  assert_closed (word, outcome_words, ok, outcome_error);
  if (ok)
    g_assert_cmpstr (dsh_approval_outcome_to_string (outcome), ==, word);
  else
    /* A refused answer never reads as a grant. */
    g_assert_cmpint (outcome, !=, DSH_APPROVAL_OUTCOME_ALLOWED_ONCE);

  ok = dsh_approval_policy_from_string (word, &policy, &policy_error);
  assert_closed (word, policy_words, ok, policy_error);
  if (ok)
    g_assert_cmpstr (dsh_approval_policy_to_string (policy), ==, word);

  ok = dsh_sandbox_mode_from_string (word, &mode, &mode_error);
  assert_closed (word, mode_words, ok, mode_error);
  if (ok)
    g_assert_cmpstr (dsh_sandbox_mode_to_string (mode), ==, word);

  ok = dsh_escalation_target_from_string (word, &target, &target_error);
  assert_closed (word, target_words, ok, target_error);
  if (ok)
    g_assert_cmpstr (dsh_sandbox_mode_to_string (target), ==, word);
  return 0;
}
