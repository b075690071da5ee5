/* dsh-exec-report.c — the exec report document (schemas/exec-report.schema.json).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-exec-report.h"

#include "dsh-json-writer.h"

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
  g_clear_pointer (&report->result, dsh_run_result_free);
  g_clear_pointer (&report->markers, g_ptr_array_unref);
  g_clear_pointer (&report->detail, g_free);
}

char *
dsh_exec_report_to_text (const DshExecReport *report)
{
  g_autofree const char **markers = NULL;
  gboolean confined = report->result != NULL && report->result->backend != NULL;
  DshJsonObject object;
  gboolean policy_known = report->workspace_root != NULL;

  dsh_json_object_begin (&object);
  dsh_json_object_add_string (&object, "outcome", dsh_outcome_to_string (report->outcome));
  dsh_json_object_add_boolean (&object, "commandRan", report->command_ran);
  if (report->command_ran)
    dsh_json_object_add_int (&object, "exitCode", report->exit_code);
  else
    dsh_json_object_add_null (&object, "exitCode");
  if (report->command_ran && report->term_signal != 0)
    dsh_json_object_add_int (&object, "signal", report->term_signal);
  else
    dsh_json_object_add_null (&object, "signal");

  dsh_json_object_add_string (&object, "mode",
                              policy_known ? dsh_sandbox_mode_to_string (report->mode) : NULL);
  dsh_json_object_add_string (&object, "standingMode",
                              policy_known ? dsh_sandbox_mode_to_string (report->standing_mode)
                                           : NULL);
  dsh_json_object_add_string (&object, "requestedMode", report->requested_mode);
  dsh_json_object_add_string (&object, "approvalOutcome", report->approval_outcome);
  dsh_json_object_add_string (&object, "workspaceRoot", report->workspace_root);
  dsh_json_object_add_string (&object, "sessionId", report->session_id);
  dsh_json_object_add_string (&object, "callId", report->call_id);

  dsh_json_object_add_string (&object, "backend", confined ? report->result->backend : NULL);
  dsh_json_object_add_string (&object, "enforcement",
                              confined ? dsh_enforcement_to_string (report->result->enforcement)
                                       : NULL);
  dsh_json_object_add_strv (&object, "enforcementReasons",
                            confined
                              ? (const char *const *) report->result->enforcement_reasons
                              : NULL);
  markers = g_new0 (const char *, report->markers->len + 1);
  for (guint i = 0; i < report->markers->len; i++)
    markers[i] = report->markers->pdata[i];
  dsh_json_object_add_strv (&object, "markers", markers);
  dsh_json_object_add_string (&object, "detail", report->detail);
  return dsh_json_object_end (&object);
}
