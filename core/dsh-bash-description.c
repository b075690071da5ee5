/* dsh-bash-description.c — composes the bash tool description from its verbatim parts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-bash-description.h"

#include "dsh-texts.h"

char *
dsh_bash_description (gboolean executor_confines, DshApprovalPolicy policy)
{
  GString *text = g_string_new (dsh_text_bash_description ());

  /* Without a confining executor there is nothing to escalate, so nothing is advertised. */
  if (!executor_confines)
    return g_string_free (text, FALSE);

  g_string_append (text, "\n\n");
  g_string_append (text, dsh_text_bash_escalation_paragraph ());
  /* The paragraph stays put under "never" (it already says a denial is then final); the
   * session states the policy, so the model is not tempted by a doomed retry. */
  if (policy != DSH_APPROVAL_POLICY_ASK)
    {
      g_string_append (text, "\n\n");
      g_string_append (text, dsh_text_approval_never ());
    }
  return g_string_free (text, FALSE);
}
