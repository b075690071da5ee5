/* dsh-classify.h — telling "the sandbox denied it" from "the sandbox runner itself failed" from
 * the command's own result, using only the exit status and stderr, runner failure first.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dsh-confined-argv.h"
#include "dsh-api.h"

G_BEGIN_DECLS

typedef enum {
  DSH_OUTCOME_COMPLETED,
  DSH_OUTCOME_DENIED,
  DSH_OUTCOME_RUNNER_FAILURE,
  /* These happen before anything runs. */
  DSH_OUTCOME_UNAVAILABLE,
  DSH_OUTCOME_ESCALATION_REFUSED,
  /* A writable root was refused (DSH_SANDBOX_ERROR_ROOT_REFUSED). */
  DSH_OUTCOME_ROOT_REFUSED,
  /* The call itself was malformed (DSH_SANDBOX_ERROR_INVALID_ARGUMENT). */
  DSH_OUTCOME_INVALID_ARGUMENT,
} DshOutcome;

DSH_API
const char  *dsh_outcome_to_string       (DshOutcome                  outcome);

/* Does this rule identify a runner failure? On a match *detail (if given) is the matched line. */
DSH_API
gboolean     dsh_runner_failure_rule_matches (const DshRunnerFailureRule *rule,
                                              int                         exit_code,
                                              const char                 *stderr_text,
                                              char                      **detail);

/* exit_code is the process's exit status, 128+N for a signal. Runner failure is checked first,
 * then denial; stderr is never rewritten. *detail receives the matched fatal line. */
DSH_API
DshOutcome   dsh_classify_result         (DshConfinedArgv            *confined,
                                          int                         exit_code,
                                          const char                 *stderr_text,
                                          char                      **detail);

/* The same for stderr bytes that may hold NUL bytes (what a command really wrote). */
DSH_API
DshOutcome   dsh_classify_result_len     (DshConfinedArgv            *confined,
                                          int                         exit_code,
                                          const char                 *stderr_data,
                                          gsize                       length,
                                          char                      **detail);

G_END_DECLS
