/* dsh-confinement.c — the plain result of confining one command and its runner-failure rules.
 * Nothing here touches GObject (their GTypes are registered in dsh-boxed-types.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-confinement-private.h"

#include <string.h>

/**
 * DshRunnerFailureRule:
 * @allowed_exit_codes: (element-type gint) (nullable): the exit codes the rule may match on, or
 *   %NULL for any nonzero exit
 * @fatal_signatures: (array zero-terminated=1): case-insensitive substrings of one stderr line
 * @informational_lines: (array zero-terminated=1) (nullable): benign lines removed first, by
 *   case-insensitive whole-line equality
 *
 * Evidence that a runner failed before it ran the command.
 *
 * Since: 0.1
 */

static const char *const empty_strv[] = { NULL };

static GStrv
copy_strv (const char *const *strv)
{
  return g_strdupv ((char **) (strv != NULL ? strv : empty_strv));
}

/* strv copied into one allocation, the pointers and then the strings: one allocation where
 * g_strdupv makes one per string (a runner's argv has some thirty), freed with g_free. */
static GStrv
copy_strv_packed (const char *const *strv)
{
  gsize n = 0, bytes = 0;
  char **copy;
  char *p;

  if (strv == NULL)
    strv = empty_strv;
  for (; strv[n] != NULL; n++)
    bytes += strlen (strv[n]) + 1;
  copy = g_malloc ((n + 1) * sizeof (char *) + bytes);
  p = (char *) (copy + n + 1);
  for (gsize i = 0; i < n; i++)
    {
      gsize size = strlen (strv[i]) + 1;

      memcpy (p, strv[i], size);
      copy[i] = p;
      p += size;
    }
  copy[n] = NULL;
  return copy;
}

/**
 * dsh_runner_failure_rule_new:
 * @allowed_exit_codes: (array length=n_allowed_exit_codes) (nullable): the exit codes the rule may
 *   match on, or %NULL for any nonzero exit
 * @n_allowed_exit_codes: how many codes @allowed_exit_codes holds
 * @fatal_signatures: (array zero-terminated=1) (nullable): case-insensitive substrings of one
 *   stderr line
 * @informational_lines: (array zero-terminated=1) (nullable): benign lines removed first
 *
 * Every argument is copied.
 *
 * Returns: (transfer full): a new rule; free it with dsh_runner_failure_rule_free()
 *
 * Since: 0.1
 */
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
  rule->fatal_signatures = copy_strv (fatal_signatures);
  rule->informational_lines = informational_lines != NULL
                                ? g_strdupv ((char **) informational_lines)
                                : NULL;
  return rule;
}

/**
 * dsh_runner_failure_rule_copy:
 * @rule: a rule
 *
 * Returns: (transfer full): a copy of @rule
 *
 * Since: 0.1
 */
DshRunnerFailureRule *
dsh_runner_failure_rule_copy (const DshRunnerFailureRule *rule)
{
  return dsh_runner_failure_rule_new (
    rule->allowed_exit_codes != NULL ? (const int *) (void *) rule->allowed_exit_codes->data : NULL,
    rule->allowed_exit_codes != NULL ? rule->allowed_exit_codes->len : 0,
    (const char *const *) rule->fatal_signatures,
    (const char *const *) rule->informational_lines);
}

/**
 * dsh_runner_failure_rule_free:
 * @rule: (nullable) (transfer full): a rule
 *
 * Frees @rule and what it holds.
 *
 * Since: 0.1
 */
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

DshDialect *
dsh_dialect_new (const char *const *denial_signatures, const char *const *denial_exclusions)
{
  DshDialect *self = g_new0 (DshDialect, 1);

  g_atomic_ref_count_init (&self->refs);
  self->denial_signatures = copy_strv_packed (denial_signatures);
  self->denial_exclusions = copy_strv_packed (denial_exclusions);
  self->runner_failure_rules = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_runner_failure_rule_free);
  return self;
}

DshDialect *
dsh_dialect_ref (DshDialect *self)
{
  g_atomic_ref_count_inc (&self->refs);
  return self;
}

void
dsh_dialect_unref (DshDialect *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->refs))
    return;
  g_free (self->denial_signatures);
  g_free (self->denial_exclusions);
  g_ptr_array_unref (self->runner_failure_rules);
  g_free (self);
}

DshConfinement *
dsh_confinement_new_taking (GStrv argv,
                            GStringChunk *argv_strings,
                            const char *backend,
                            DshEnforcement enforcement,
                            GStrv reasons,
                            DshDialect *dialect)
{
  DshConfinement *self = g_new (DshConfinement, 1);

  self->argv = argv;
  self->argv_strings = argv_strings;
  self->backend = g_strdup (backend);
  self->enforcement = enforcement;
  self->reasons = reasons;
  self->dialect = dsh_dialect_ref (dialect);
  self->denial_signatures = dialect->denial_signatures;
  self->denial_exclusions = dialect->denial_exclusions;
  self->runner_failure_rules = dialect->runner_failure_rules;
  return self;
}

DshConfinement *
dsh_confinement_new_in_dialect (const char *const *argv,
                                const char *backend,
                                DshEnforcement enforcement,
                                const char *const *reasons,
                                DshDialect *dialect)
{
  return dsh_confinement_new_taking (copy_strv_packed (argv), NULL, backend, enforcement,
                                     copy_strv (reasons), dialect);
}

DshConfinement *
dsh_confinement_new (const char *const *argv,
                     const char *backend,
                     DshEnforcement enforcement,
                     const char *const *reasons,
                     const char *const *denial_signatures,
                     const char *const *denial_exclusions,
                     GPtrArray *runner_failure_rules)
{
  g_autoptr (DshDialect) dialect = dsh_dialect_new (denial_signatures, denial_exclusions);

  for (guint i = 0; runner_failure_rules != NULL && i < runner_failure_rules->len; i++)
    g_ptr_array_add (dialect->runner_failure_rules,
                     dsh_runner_failure_rule_copy (runner_failure_rules->pdata[i]));
  return dsh_confinement_new_in_dialect (argv, backend, enforcement, reasons, dialect);
}

void
dsh_confinement_free (DshConfinement *self)
{
  if (self == NULL)
    return;
  g_free (self->argv);
  if (self->argv_strings != NULL)
    g_string_chunk_free (self->argv_strings);
  g_free (self->backend);
  g_strfreev (self->reasons);
  dsh_dialect_unref (self->dialect);
  g_free (self);
}
