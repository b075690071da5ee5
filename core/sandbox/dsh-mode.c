/* dsh-mode.c — strict parsing of the closed mode vocabulary: a misspelling is an error, never a
 * default.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-mode.h"

#include "dsh-error.h"
#include "dsh-vocabulary-private.h"

static const char *const mode_names[] = {
  [DSH_SANDBOX_MODE_READ_ONLY] = "read-only",
  [DSH_SANDBOX_MODE_WORKSPACE_WRITE] = "workspace-write",
  [DSH_SANDBOX_MODE_DANGER_FULL_ACCESS] = "danger-full-access",
};

gboolean
dsh_sandbox_mode_from_string (const char *text, DshSandboxMode *mode, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    {
      if (g_strcmp0 (text, mode_names[i]) == 0)
        {
          *mode = (DshSandboxMode) i;
          return TRUE;
        }
    }

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
               "unknown sandbox mode \"%s\": expected one of read-only, workspace-write, "
               "danger-full-access",
               dsh_vocabulary_printable (text));
  return FALSE;
}

const char *
dsh_sandbox_mode_to_string (DshSandboxMode mode)
{
  g_return_val_if_fail ((guint) mode < G_N_ELEMENTS (mode_names), NULL);
  return mode_names[mode];
}

gboolean
dsh_sandbox_mode_is_confined (DshSandboxMode mode)
{
  return mode == DSH_SANDBOX_MODE_READ_ONLY || mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE;
}

const char *
dsh_enforcement_to_string (DshEnforcement enforcement)
{
  return enforcement == DSH_ENFORCEMENT_FULL ? "full" : "partial";
}
