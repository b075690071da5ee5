/* dsh-confined-argv.c — the immutable result of confine(). Everything is copied out of the
 * backend module, so a result outlives the provider that produced it (hot reload).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-confined-argv.h"

struct _DshConfinedArgv {
  GObject parent_instance;

  GStrv argv;
  char *backend;
  DshEnforcement enforcement;
  GStrv reasons;
  GStrv denial_signatures;
  GPtrArray *runner_failure_rules;
};

G_DEFINE_FINAL_TYPE (DshConfinedArgv, dsh_confined_argv, G_TYPE_OBJECT)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
G_DEFINE_BOXED_TYPE (DshRunnerFailureRule, dsh_runner_failure_rule, dsh_runner_failure_rule_copy,
                     dsh_runner_failure_rule_free)
#pragma GCC diagnostic pop

static const char *const empty_strv[] = { NULL };

DshRunnerFailureRule *
dsh_runner_failure_rule_new (const int *allowed_exit_codes,
                             gsize n_allowed_exit_codes,
                             const char *const *fatal_signatures,
                             const char *const *informational_lines)
{
  DshRunnerFailureRule *rule = g_new0 (DshRunnerFailureRule, 1);

  if (allowed_exit_codes != NULL && n_allowed_exit_codes > 0)
    {
      rule->allowed_exit_codes = g_array_sized_new (FALSE, FALSE, sizeof (int),
                                                    n_allowed_exit_codes);
      g_array_append_vals (rule->allowed_exit_codes, allowed_exit_codes, n_allowed_exit_codes);
    }
  rule->fatal_signatures = g_strdupv ((char **) (fatal_signatures != NULL ? fatal_signatures
                                                                          : empty_strv));
  rule->informational_lines = informational_lines != NULL
                                ? g_strdupv ((char **) informational_lines)
                                : NULL;
  return rule;
}

DshRunnerFailureRule *
dsh_runner_failure_rule_copy (const DshRunnerFailureRule *rule)
{
  return dsh_runner_failure_rule_new (
    rule->allowed_exit_codes != NULL ? (const int *) (void *) rule->allowed_exit_codes->data : NULL,
    rule->allowed_exit_codes != NULL ? rule->allowed_exit_codes->len : 0,
    (const char *const *) rule->fatal_signatures,
    (const char *const *) rule->informational_lines);
}

void
dsh_runner_failure_rule_free (DshRunnerFailureRule *rule)
{
  if (rule == NULL)
    return;
  g_clear_pointer (&rule->allowed_exit_codes, g_array_unref);
  g_strfreev (rule->fatal_signatures);
  g_strfreev (rule->informational_lines);
  g_free (rule);
}

static void
dsh_confined_argv_finalize (GObject *object)
{
  DshConfinedArgv *self = DSH_CONFINED_ARGV (object);

  g_strfreev (self->argv);
  g_free (self->backend);
  g_strfreev (self->reasons);
  g_strfreev (self->denial_signatures);
  g_ptr_array_unref (self->runner_failure_rules);

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

static GStrv
copy_strv (const char *const *strv)
{
  return g_strdupv ((char **) (strv != NULL ? strv : empty_strv));
}

DshConfinedArgv *
dsh_confined_argv_new (const char *const *argv,
                       const char *backend,
                       DshEnforcement enforcement,
                       const char *const *reasons,
                       const char *const *denial_signatures,
                       GPtrArray *runner_failure_rules)
{
  DshConfinedArgv *self = g_object_new (DSH_TYPE_CONFINED_ARGV, NULL);

  self->argv = copy_strv (argv);
  self->backend = g_strdup (backend);
  self->enforcement = enforcement;
  self->reasons = copy_strv (reasons);
  self->denial_signatures = copy_strv (denial_signatures);
  self->runner_failure_rules = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_runner_failure_rule_free);
  for (guint i = 0; runner_failure_rules != NULL && i < runner_failure_rules->len; i++)
    g_ptr_array_add (self->runner_failure_rules,
                     dsh_runner_failure_rule_copy (runner_failure_rules->pdata[i]));
  return self;
}

const char *const *
dsh_confined_argv_get_argv (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->argv;
}

const char *
dsh_confined_argv_get_backend (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return self->backend;
}

DshEnforcement
dsh_confined_argv_get_enforcement (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), DSH_ENFORCEMENT_PARTIAL);
  return self->enforcement;
}

const char *const *
dsh_confined_argv_get_reasons (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->reasons;
}

const char *const *
dsh_confined_argv_get_denial_signatures (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return (const char *const *) self->denial_signatures;
}

GPtrArray *
dsh_confined_argv_get_runner_failure_rules (DshConfinedArgv *self)
{
  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);
  return self->runner_failure_rules;
}
