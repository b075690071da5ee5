/* dsh-bash-description.c — composes the bash tool description from its verbatim parts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-bash-description.h"

#include "dsh-texts.h"

/**
 * dsh_bash_description:
 * @executor_confines: whether the tool's executor confines its commands
 *
 * The base description, then, when the executor confines, a blank line and the escalation
 * paragraph. It depends on the composition only, never on a session.
 *
 * Returns: (transfer full): the model-facing description of a sandboxed bash tool
 *
 * Since: 0.1
 */
char *
dsh_bash_description (gboolean executor_confines)
{
  /* Without a confining executor there is nothing to escalate, so nothing is advertised. Per
   * session facts (the mode, an approval policy of "never") never enter it: the description is
   * registry-level, and must stay byte-identical while sessions switch. */
  if (!executor_confines)
    return g_strdup (dsh_text_bash_description ());
  return g_strconcat (dsh_text_bash_description (), "\n\n", dsh_text_bash_escalation_paragraph (),
                      NULL);
}
