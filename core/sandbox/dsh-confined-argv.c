/* dsh-confined-argv.c — the immutable result of confine(), as a GObject around a
 * DshConfinement. Everything is copied out of the backend module, so a result outlives the
 * provider that produced it (hot reload).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-confinement-private.h"

#include <string.h>

/**
 * DshConfinedArgv:
 *
 * What dsh_sandbox_provider_confine() hands back: the argv to spawn instead of the caller's, how
 * completely it is enforced and why, and the backend's stderr classifiers, which
 * dsh_classify_result() applies.
 *
 * Since: 0.1
 */

struct _DshConfinedArgv {
  GObject parent_instance;

  DshConfinement *confinement;
};

G_DEFINE_FINAL_TYPE (DshConfinedArgv, dsh_confined_argv, G_TYPE_OBJECT)

static void
dsh_confined_argv_finalize (GObject *object)
{
  DshConfinedArgv *self = DSH_CONFINED_ARGV (object);

  dsh_confinement_free (self->confinement);

  G_OBJECT_CLASS (dsh_confined_argv_parent_class)->finalize (object);
}

static void
dsh_confined_argv_class_init (DshConfinedArgvClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_confined_argv_finalize;
}

static void
dsh_confined_argv_init (DshConfinedArgv *self)
{
}

DshConfinedArgv *
dsh_confined_argv_new_take (DshConfinement *confinement)
{
  DshConfinedArgv *self = g_object_new (DSH_TYPE_CONFINED_ARGV, NULL);

  self->confinement = confinement;
  return self;
}

/**
 * dsh_confined_argv_new:
 * @argv: (array zero-terminated=1): the argv to spawn instead of the caller's
 * @backend: the backend's name
 * @enforcement: how completely the backend enforces the policy
 * @reasons: (array zero-terminated=1) (nullable): why enforcement is partial
 * @denial_signatures: (array zero-terminated=1) (nullable): stderr substrings that mean a denial
 * @runner_failure_rules: (element-type DshRunnerFailureRule) (nullable): what a failure of the
 *   runner itself looks like
 *
 * Every argument is copied.
 *
 * Returns: (transfer full): a new #DshConfinedArgv
 *
 * Since: 0.1
 */
DshConfinedArgv *
dsh_confined_argv_new (const char *const *argv,
                       const char *backend,
                       DshEnforcement enforcement,
                       const char *const *reasons,
                       const char *const *denial_signatures,
                       GPtrArray *runner_failure_rules)
{
  return dsh_confined_argv_new_full (argv, backend, enforcement, reasons, denial_signatures,
                                     NULL, runner_failure_rules);
}

/**
 * dsh_confined_argv_new_full:
 * @argv: (array zero-terminated=1): the argv to spawn instead of the caller's
 * @backend: the backend's name
 * @enforcement: how completely the backend enforces the policy
 * @reasons: (array zero-terminated=1) (nullable): why enforcement is partial
 * @denial_signatures: (array zero-terminated=1) (nullable): stderr substrings that mean a denial
 * @denial_exclusions: (array zero-terminated=1) (nullable): a stderr line containing one of these
 *   (case-insensitive) is never taken for a denial
 * @runner_failure_rules: (element-type DshRunnerFailureRule) (nullable): what a failure of the
 *   runner itself looks like
 *
 * dsh_confined_argv_new() with denial exclusions. Every argument is copied.
 *
 * Returns: (transfer full): a new #DshConfinedArgv
 *
 * Since: 0.1
 */
DshConfinedArgv *
dsh_confined_argv_new_full (const char *const *argv,
                            const char *backend,
                            DshEnforcement enforcement,
                            const char *const *reasons,
                            const char *const *denial_signatures,
                            const char *const *denial_exclusions,
                            GPtrArray *runner_failure_rules)
{
  return dsh_confined_argv_new_take (dsh_confinement_new (argv, backend, enforcement, reasons,
                                                          denial_signatures, denial_exclusions,
                                                          runner_failure_rules));
}

/**
 * dsh_confined_argv_get_argv:
 * @self: a #DshConfinedArgv
 *
 * Returns: (transfer none) (array zero-terminated=1): the argv to spawn, with only descriptors 0
 *   to 2, instead of the caller's
 *
 * Since: 0.1
 */
const char *const *
dsh_confined_argv_get_argv (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->confinement->argv;
}

/**
 * dsh_confined_argv_get_backend:
 * @self: a #DshConfinedArgv
 *
 * Returns: (transfer none): the name of the backend that confined the command
 *
 * Since: 0.1
 */
const char *
dsh_confined_argv_get_backend (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return self->confinement->backend;
}

/**
 * dsh_confined_argv_get_enforcement:
 * @self: a #DshConfinedArgv
 *
 * Returns: how completely the backend enforces the policy
 *
 * Since: 0.1
 */
DshEnforcement
dsh_confined_argv_get_enforcement (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), DSH_ENFORCEMENT_PARTIAL);
  return self->confinement->enforcement;
}

/**
 * dsh_confined_argv_get_reasons:
 * @self: a #DshConfinedArgv
 *
 * Returns: (transfer none) (array zero-terminated=1): why enforcement is partial; empty when full
 *
 * Since: 0.1
 */
const char *const *
dsh_confined_argv_get_reasons (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->confinement->reasons;
}

/**
 * dsh_confined_argv_get_denial_signatures:
 * @self: a #DshConfinedArgv
 *
 * Returns: (transfer none) (array zero-terminated=1): the case-insensitive stderr substrings that
 *   mean this backend denied an access
 *
 * Since: 0.1
 */
const char *const *
dsh_confined_argv_get_denial_signatures (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->confinement->denial_signatures;
}

/**
 * dsh_confined_argv_get_denial_exclusions:
 * @self: a #DshConfinedArgv
 *
 * Returns: (transfer none) (array zero-terminated=1): the stderr substrings that keep a line from
 *   being taken for a denial; empty when the backend excludes nothing
 *
 * Since: 0.1
 */
const char *const *
dsh_confined_argv_get_denial_exclusions (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->confinement->denial_exclusions;
}

/**
 * dsh_confined_argv_get_runner_failure_rules:
 * @self: a #DshConfinedArgv
 *
 * Returns: (transfer none) (element-type DshRunnerFailureRule): what a failure of the runner
 *   itself looks like
 *
 * Since: 0.1
 */
GPtrArray *
dsh_confined_argv_get_runner_failure_rules (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return self->confinement->runner_failure_rules;
}

/**
 * dsh_classify_result_len:
 * @confined: what dsh_sandbox_provider_confine() returned for the command
 * @exit_code: the process's exit status (128+N for signal N)
 * @stderr_data: (array length=length) (element-type guint8) (nullable): the bytes the process
 *   wrote on stderr, which may hold NUL bytes
 * @length: how many bytes @stderr_data holds
 * @detail: (out) (optional) (nullable) (transfer full): the matched fatal line of a runner failure
 *
 * The same as dsh_classify_result() for stderr as bytes: what a command really wrote.
 *
 * Returns: %DSH_OUTCOME_RUNNER_FAILURE, %DSH_OUTCOME_DENIED or %DSH_OUTCOME_COMPLETED
 *
 * Since: 0.1
 */
/* Declared in dsh-classify.h; defined here so that classification itself needs no GObject. */
DshOutcome
dsh_classify_result_len (DshConfinedArgv *confined,
                         int exit_code,
                         const char *stderr_data,
                         gsize length,
                         char **detail)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (confined), DSH_OUTCOME_COMPLETED);
  return dsh_confinement_classify (confined->confinement, exit_code, stderr_data, length, detail);
}

/**
 * dsh_classify_result:
 * @confined: what dsh_sandbox_provider_confine() returned for the command
 * @exit_code: the process's exit status (128+N for signal N)
 * @stderr_text: (nullable): what the process wrote on stderr
 * @detail: (out) (optional) (nullable) (transfer full): the matched fatal line of a runner failure
 *
 * Tells "the sandbox denied it" from "the runner itself failed" from the command's own result,
 * by the exit status and stderr only: runner failure is checked first, then denial. stderr is
 * never rewritten.
 *
 * Returns: %DSH_OUTCOME_RUNNER_FAILURE, %DSH_OUTCOME_DENIED or %DSH_OUTCOME_COMPLETED
 *
 * Since: 0.1
 */
DshOutcome
dsh_classify_result (DshConfinedArgv *confined,
                     int exit_code,
                     const char *stderr_text,
                     char **detail)
{
  return dsh_classify_result_len (confined, exit_code, stderr_text,
                                  stderr_text != NULL ? strlen (stderr_text) : 0, detail);
}
