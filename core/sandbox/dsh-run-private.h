/* dsh-run-private.h — the backend selector of one call as dsh_run() builds it, for the commands
 * that confine without running (probe, confine, serve), so that they trust exactly what a run
 * would; and dsh_run() for a command that exits after its one call.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-backend-selector-private.h"
#include "dsh-run.h"

G_BEGIN_DECLS

/* A selector with options' directories and probe cache (options NULL: the installed ones, no
 * cache) that refuses any module, helper or runner beneath what a confined command of policy's
 * workspace may write, its extra roots and pinned roots included (nothing without a policy). */
DshBackendSelector *dsh_run_new_selector (const DshSandboxPolicy *policy,
                                          const DshRunOptions    *options);

/* dsh_run() in a process that exits soon after it returns: the selector, its module and what
 * it found are left for exit to release instead of being torn down one by one. */
DshRunResult       *dsh_run_before_exit  (const char *const      *argv,
                                          const DshSandboxPolicy *policy,
                                          const DshRunOptions    *options);

G_END_DECLS
