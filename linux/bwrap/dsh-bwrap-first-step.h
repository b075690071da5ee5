/* dsh-bwrap-first-step.h — the bwrap module's take_first_step() and first_step_done() (see
 * dsh-backend.h): the launcher's first step in a caller that exits after the command.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-backend.h"

int  dsh_bwrap_take_first_step (DshBackendHost *host, const char *const *argv,
                                int32_t *exit_status);
void dsh_bwrap_first_step_done (DshBackendHost *host);
