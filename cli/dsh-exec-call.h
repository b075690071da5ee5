/* dsh-exec-call.h — the full exec's run step: one DshExecution's escalation and run, then what
 * exec prints and records about them. Apart from dsh-exec-run.h because the plain exec, which
 * shares that, links no GObject type.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-exec-run.h"

G_BEGIN_DECLS

/* Runs execution (dsh_execution_run()) and finishes like dsh_exec_run_finish(): the approval
 * outcome and the hint in the report, the marker and hint after the command's stderr, or the
 * refusal; a turn that could not be closed is a warning after a command that ran. Returns the
 * exit status to exit with. */
int       dsh_exec_run_execution   (DshExecRun             *run,
                                    DshExecution           *execution);

G_END_DECLS
