/* dsh-texts.c — the exact texts users and models see. Tests compare them verbatim, so they are
 * spelled out once, here.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-texts.h"

char *
dsh_text_unavailable (const char *mode)
{
  return g_strdup_printf (
    "sandbox mode \"%s\" is requested but no sandbox backend is usable on this host; refusing to "
    "run the command unconfined. Install bubblewrap or run a Landlock-enforcing kernel (Linux), "
    "ensure sandbox-exec is usable (macOS), or ensure the ACL restricted-token runner can start "
    "(Windows) \u2014 otherwise switch the consumer to danger-full-access.",
    mode);
}

char *
dsh_text_runner_failure (const char *mode, const char *detail)
{
  g_autofree char *unavailable = dsh_text_unavailable (mode);

  return g_strdup_printf ("%s Runner failure: %s", unavailable, detail);
}

char *
dsh_text_denial_marker (DshSandboxMode mode)
{
  return g_strdup_printf ("[sandbox: file access denied under %s mode]",
                          dsh_sandbox_mode_to_string (mode));
}

char *
dsh_text_escalation_hint (const char *subject)
{
  return g_strdup_printf (
    "[sandbox: escalation available \u2014 retry this exact %s once with sandbox_permissions "
    "(the narrowest wider mode that suffices) + justification; the approval prompt asks the user]",
    subject);
}
