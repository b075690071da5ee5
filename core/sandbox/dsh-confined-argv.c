/* dsh-confined-argv.c — the immutable result of confine(), as a GObject around a
 * DshConfinement. Everything is copied out of the backend module, so a result outlives the
 * provider that produced it (hot reload).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-confinement-private.h"

#include <string.h>

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

const char *const *
dsh_confined_argv_get_argv (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->confinement->argv;
}

const char *
dsh_confined_argv_get_backend (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return self->confinement->backend;
}

DshEnforcement
dsh_confined_argv_get_enforcement (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), DSH_ENFORCEMENT_PARTIAL);
  return self->confinement->enforcement;
}

const char *const *
dsh_confined_argv_get_reasons (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->confinement->reasons;
}

const char *const *
dsh_confined_argv_get_denial_signatures (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->confinement->denial_signatures;
}

const char *const *
dsh_confined_argv_get_denial_exclusions (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->confinement->denial_exclusions;
}

GPtrArray *
dsh_confined_argv_get_runner_failure_rules (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return self->confinement->runner_failure_rules;
}

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

DshOutcome
dsh_classify_result (DshConfinedArgv *confined,
                     int exit_code,
                     const char *stderr_text,
                     char **detail)
{
  return dsh_classify_result_len (confined, exit_code, stderr_text,
                                  stderr_text != NULL ? strlen (stderr_text) : 0, detail);
}
