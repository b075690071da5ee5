/* dsh-exec-report.h — what "exec --report FILE" records about one execution.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

typedef struct {
  DshOutcome outcome;
  gboolean command_ran;
  int exit_code;
  int term_signal;
  /* The mode this command ran (or would have run) under. */
  DshSandboxMode mode;
  /* The standing mode before any approved escalation. */
  DshSandboxMode standing_mode;
  /* A requested escalation target, or NULL. */
  const char *requested_mode;
  /* The decision when an escalation was put to the approval service, else NULL. */
  const char *approval_outcome;
  /* NULL when the call was refused before its policy was known (then mode and standing_mode
   * are unknown too). */
  const char *workspace_root;
  const char *session_id;
  /* The id of this exec as a tool call (in its approval request and audit pair), or NULL. */
  const char *call_id;
  /* What dsh_run() returned (its backend and enforcement), or NULL before it ran. */
  DshRunResult *result;
  /* Marker lines printed after the command's own stderr. */
  GPtrArray *markers;
  /* The runner's fatal line or the refusal text. */
  char *detail;
} DshExecReport;

void      dsh_exec_report_init    (DshExecReport *report);
void      dsh_exec_report_clear   (DshExecReport *report);
/* The report document (schemas/exec-report.schema.json) as JSON text. */
char     *dsh_exec_report_to_text (const DshExecReport *report);

G_END_DECLS
