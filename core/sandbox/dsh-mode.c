/* dsh-mode.c — strict parsing of the closed mode vocabulary: a misspelling is an error, never a
 * default.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-mode.h"

#include "dsh-error.h"
#include "dsh-vocabulary-private.h"

/**
 * DshEnforcement:
 * @DSH_ENFORCEMENT_FULL: the backend enforces the whole policy
 * @DSH_ENFORCEMENT_PARTIAL: it enforces part of it; the reasons say which part it cannot
 *
 * How completely a backend enforces a policy on this host.
 *
 * Since: 0.1
 */

/**
 * DshSandboxMode:
 * @DSH_SANDBOX_MODE_READ_ONLY: the command may read, and write nowhere
 * @DSH_SANDBOX_MODE_WORKSPACE_WRITE: the command may also write beneath dsh_writable_roots()
 * @DSH_SANDBOX_MODE_DANGER_FULL_ACCESS: no confinement; consumers run the command raw
 *
 * The closed vocabulary of sandbox modes. A mode governs file effects only: network, processes,
 * devices and credentials are outside it.
 *
 * Since: 0.1
 */

static const char *const mode_names[] = {
  [DSH_SANDBOX_MODE_READ_ONLY] = "read-only",
  [DSH_SANDBOX_MODE_WORKSPACE_WRITE] = "workspace-write",
  [DSH_SANDBOX_MODE_DANGER_FULL_ACCESS] = "danger-full-access",
};

/**
 * dsh_sandbox_mode_from_string:
 * @text: (nullable): a mode name: `read-only`, `workspace-write` or `danger-full-access`
 * @mode: (out): where the mode goes
 *
 * Parses a mode name strictly: a misspelling is an error, never a default.
 *
 * Returns: %TRUE with @mode set; %FALSE with %DSH_SANDBOX_ERROR_INVALID_ARGUMENT otherwise
 *
 * Since: 0.1
 */
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

/**
 * dsh_sandbox_mode_to_string:
 * @mode: a mode
 *
 * Returns: (transfer none): the mode's name, as dsh_sandbox_mode_from_string() reads it
 *
 * Since: 0.1
 */
const char *
dsh_sandbox_mode_to_string (DshSandboxMode mode)
{
  g_return_val_if_fail ((guint) mode < G_N_ELEMENTS (mode_names), NULL);
  return mode_names[mode];
}

/**
 * dsh_sandbox_mode_is_confined:
 * @mode: a mode
 *
 * Returns: %TRUE for the modes a backend must enforce (`read-only`, `workspace-write`)
 *
 * Since: 0.1
 */
gboolean
dsh_sandbox_mode_is_confined (DshSandboxMode mode)
{
  return mode == DSH_SANDBOX_MODE_READ_ONLY || mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE;
}

/**
 * dsh_enforcement_to_string:
 * @enforcement: how completely a backend enforces a policy
 *
 * Returns: (transfer none): `full` or `partial`
 *
 * Since: 0.1
 */
const char *
dsh_enforcement_to_string (DshEnforcement enforcement)
{
  return enforcement == DSH_ENFORCEMENT_FULL ? "full" : "partial";
}
