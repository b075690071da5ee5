/* dsh-bash-description.h — the model-facing description of a sandboxed bash tool, composed
 * from the texts in dsh-texts.h for one session's facts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dsh-approval-vocabulary.h"

G_BEGIN_DECLS

/* The base description; then, when the executor confines, the escalation paragraph (the
 * sanctioned same-turn retry) and, under "never", the statement that approval prompts are
 * disabled (which the paragraph tells the model to honour). Paragraphs are separated by a
 * blank line. */
char  *dsh_bash_description  (gboolean           executor_confines,
                              DshApprovalPolicy  policy);

G_END_DECLS
