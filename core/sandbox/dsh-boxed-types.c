/* dsh-boxed-types.c — the GTypes of the plain structs (the policy, a runner-failure rule, a run's result), kept
 * apart from the structs themselves: code that only uses them, like the command's exec path,
 * then never starts GObject's type system, which costs a tenth of a millisecond per process.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-confined-argv.h"
#include "dsh-policy.h"
#include "dsh-run.h"

/* GLib's boxed-type macro converts to a transparent union, which -Wpedantic rejects. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
G_DEFINE_BOXED_TYPE (DshSandboxPolicy, dsh_sandbox_policy, dsh_sandbox_policy_copy,
                     dsh_sandbox_policy_free)
G_DEFINE_BOXED_TYPE (DshRunnerFailureRule, dsh_runner_failure_rule, dsh_runner_failure_rule_copy,
                     dsh_runner_failure_rule_free)
G_DEFINE_BOXED_TYPE (DshRunResult, dsh_run_result, dsh_run_result_copy, dsh_run_result_free)
#pragma GCC diagnostic pop
