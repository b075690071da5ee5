/* dsh-first-step-private.h — a runner's first step done in a process that exits after the
 * command (the command line's exec), when the selected backend's module offers it: one exec
 * fewer, the same checks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-backend-selector-private.h"

G_BEGIN_DECLS

typedef struct {
  DshBackendModule *module;
  DshBackendCall call;
  /* The module pushed an argv: first_step_done() is owed. */
  gboolean taken;
} DshFirstStep;

/* Asks selector's selected module to take the first step of argv (the confined argv it made).
 * TRUE: step->call.argv is the argv to start instead, with step->call.kept_fds the descriptors
 * it needs, or NULL to start argv itself. FALSE: the step failed as the runner would have;
 * *runner_line is the stderr line it would have printed and *runner_status its exit status.
 * Finish with dsh_first_step_finish() either way, once the command's process is gone. */
gboolean dsh_first_step_take   (DshFirstStep       *step,
                                DshBackendSelector *selector,
                                const char *const  *argv,
                                char              **runner_line,
                                int                *runner_status);
void     dsh_first_step_finish (DshFirstStep       *step);

G_END_DECLS
