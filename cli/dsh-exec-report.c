/* dsh-exec-report.c — the exec report document (schemas/exec-report.schema.json).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-exec-report.h"

#include <string.h>

void
dsh_exec_report_init (DshExecReport *report)
{
  memset (report, 0, sizeof (*report));
  report->outcome = DSH_OUTCOME_UNAVAILABLE;
  report->markers = g_ptr_array_new_with_free_func (g_free);
}

void
dsh_exec_report_clear (DshExecReport *report)
{
  g_clear_object (&report->confined);
  g_clear_pointer (&report->markers, g_ptr_array_unref);
  g_clear_pointer (&report->detail, g_free);
}

static void
set_string (JsonBuilder *builder, const char *name, const char *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

JsonNode *
dsh_exec_report_to_json (const DshExecReport *report)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  set_string (builder, "outcome", dsh_outcome_to_string (report->outcome));
  json_builder_set_member_name (builder, "commandRan");
  json_builder_add_boolean_value (builder, report->command_ran);

  json_builder_set_member_name (builder, "exitCode");
  if (report->command_ran)
    json_builder_add_int_value (builder, report->exit_code);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "signal");
  if (report->command_ran && report->term_signal != 0)
    json_builder_add_int_value (builder, report->term_signal);
  else
    json_builder_add_null_value (builder);

  set_string (builder, "mode", dsh_sandbox_mode_to_string (report->mode));
  set_string (builder, "standingMode", dsh_sandbox_mode_to_string (report->standing_mode));
  set_string (builder, "requestedMode", report->requested_mode);
  set_string (builder, "approvalOutcome", report->approval_outcome);
  set_string (builder, "workspaceRoot", report->workspace_root);
  set_string (builder, "sessionId", report->session_id);

  set_string (builder, "backend",
              report->confined != NULL ? dsh_confined_argv_get_backend (report->confined) : NULL);
  set_string (builder, "enforcement",
              report->confined != NULL
                ? dsh_enforcement_to_string (dsh_confined_argv_get_enforcement (report->confined))
                : NULL);
  json_builder_set_member_name (builder, "enforcementReasons");
  json_builder_begin_array (builder);
  if (report->confined != NULL)
    {
      const char *const *reasons = dsh_confined_argv_get_reasons (report->confined);

      for (gsize i = 0; reasons[i] != NULL; i++)
        json_builder_add_string_value (builder, reasons[i]);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "markers");
  json_builder_begin_array (builder);
  for (guint i = 0; i < report->markers->len; i++)
    json_builder_add_string_value (builder, report->markers->pdata[i]);
  json_builder_end_array (builder);

  set_string (builder, "detail", report->detail);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}
