/* fuzz-exec-stubs.h — what the exec targets' stand-ins for the run step saw: exec's options are
 * parsed and resolved by the real code, and the step that would spawn (the run, the escalation's
 * answerers, the report file) only records what it was handed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

typedef struct {
  gboolean ran;          /* dsh_exec_run_command() was reached */
  gboolean refused;      /* dsh_exec_run_refuse() was */
  gboolean asked;        /* an escalation reached the run step */
  DshSandboxMode mode;
  char *workspace_root;
  GStrv command;
  char *report_path;
} FuzzExecRecord;

extern FuzzExecRecord fuzz_exec_record;

void fuzz_exec_record_clear (FuzzExecRecord *record);

G_END_DECLS
