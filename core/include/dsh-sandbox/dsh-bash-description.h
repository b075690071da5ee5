/* dsh-bash-description.h — the model-facing description of a sandboxed bash tool, composed
 * from the texts in dsh-texts.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "dsh-api.h"

G_BEGIN_DECLS

/* The base description, then, when the executor confines, a blank line and the escalation
 * paragraph (the sanctioned same-turn retry). It depends on the composition only, never on a
 * session: the statement that approval prompts are disabled, and the standing mode, belong to
 * the runtime context (dsh_text_runtime_context()). */
DSH_API
char  *dsh_bash_description  (gboolean           executor_confines);

G_END_DECLS
