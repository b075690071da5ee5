/* dsh-confined-argv-json.c — the ConfinedArgv JSON document (schemas/confined-argv.schema.json),
 * with the field names harnesses already read. Apart from the type so that the exec path needs
 * no json-glib.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-confined-argv.h"

static void
add_strv_member (JsonBuilder *builder, const char *name, const char *const *strv)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (gsize i = 0; strv != NULL && strv[i] != NULL; i++)
    json_builder_add_string_value (builder, strv[i]);
  json_builder_end_array (builder);
}

/**
 * dsh_confined_argv_to_json:
 * @self: a #DshConfinedArgv
 *
 * Returns: (transfer full): the ConfinedArgv JSON document (`schemas/confined-argv.schema.json`)
 *
 * Since: 0.1
 */
JsonNode *
dsh_confined_argv_to_json (DshConfinedArgv *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  GPtrArray *rules;

  g_return_val_if_fail (DSH_IS_CONFINED_ARGV (self), NULL);

  rules = dsh_confined_argv_get_runner_failure_rules (self);

  json_builder_begin_object (builder);
  add_strv_member (builder, "argv", dsh_confined_argv_get_argv (self));
  json_builder_set_member_name (builder, "enforcement");
  json_builder_add_string_value (builder, dsh_enforcement_to_string (dsh_confined_argv_get_enforcement (self)));
  add_strv_member (builder, "enforcementReasons", dsh_confined_argv_get_reasons (self));
  json_builder_set_member_name (builder, "backend");
  json_builder_add_string_value (builder, dsh_confined_argv_get_backend (self));
  add_strv_member (builder, "denialSignatures", dsh_confined_argv_get_denial_signatures (self));
  add_strv_member (builder, "denialExclusions", dsh_confined_argv_get_denial_exclusions (self));

  json_builder_set_member_name (builder, "runnerFailureRules");
  json_builder_begin_array (builder);
  for (guint i = 0; i < rules->len; i++)
    {
      const DshRunnerFailureRule *rule = rules->pdata[i];

      json_builder_begin_object (builder);
      if (rule->allowed_exit_codes != NULL)
        {
          json_builder_set_member_name (builder, "allowedExitCodes");
          json_builder_begin_array (builder);
          for (guint j = 0; j < rule->allowed_exit_codes->len; j++)
            json_builder_add_int_value (builder, g_array_index (rule->allowed_exit_codes, int, j));
          json_builder_end_array (builder);
        }
      add_strv_member (builder, "fatalSignatures", (const char *const *) rule->fatal_signatures);
      if (rule->informational_lines != NULL)
        add_strv_member (builder, "informationalLines",
                         (const char *const *) rule->informational_lines);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
