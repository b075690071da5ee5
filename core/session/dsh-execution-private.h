/* dsh-execution-private.h — what only the command line tells a call: that its process exits
 * once the call is over.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-execution.h"

G_BEGIN_DECLS

/* The process exits soon after the run: it runs as dsh_run_before_exit() does (the backend may
 * take its runner's first step here, and exit releases what the run loaded). */
void dsh_execution_set_exits_after (DshExecution *self, gboolean exits_after);

G_END_DECLS
