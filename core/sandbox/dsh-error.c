/* dsh-error.c — the DSH_SANDBOX_ERROR domain and the stable code names other programs match on.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-error.h"

/**
 * DshSandboxError:
 * @DSH_SANDBOX_ERROR_UNAVAILABLE: no usable backend for a confined mode: nothing ran
 * @DSH_SANDBOX_ERROR_RUNNER_FAILURE: the runner failed before running the command
 * @DSH_SANDBOX_ERROR_INVALID_ARGUMENT: a value outside a closed vocabulary, or a malformed argument
 * @DSH_SANDBOX_ERROR_MODULE_REFUSED: a backend module was refused
 * @DSH_SANDBOX_ERROR_FS_DENIED: the in-process filesystem fence refused an access
 * @DSH_SANDBOX_ERROR_SESSION_LOG: the session log could not be read or appended
 * @DSH_SANDBOX_ERROR_ESCALATION_REFUSED: an escalation was refused before anything ran
 * @DSH_SANDBOX_ERROR_APPROVAL: an approval request could not be made
 * @DSH_SANDBOX_ERROR_ROOT_REFUSED: a writable root was refused before anything ran
 *
 * The codes of %DSH_SANDBOX_ERROR; dsh_sandbox_error_code_name() gives their stable names.
 *
 * Since: 0.1
 */

/**
 * DSH_SANDBOX_ERROR:
 *
 * The error domain of libdsh-sandbox-1; its codes are #DshSandboxError.
 *
 * Since: 0.1
 */

/**
 * dsh_sandbox_error_quark:
 *
 * Returns: the quark of the %DSH_SANDBOX_ERROR domain
 *
 * Since: 0.1
 */
G_DEFINE_QUARK (dsh-sandbox-error-quark, dsh_sandbox_error)

/**
 * dsh_sandbox_error_code_name:
 * @code: a code of the %DSH_SANDBOX_ERROR domain
 *
 * The stable name other programs match on, e.g. `SANDBOX_UNAVAILABLE`.
 *
 * Returns: (transfer none): the code's name, or `UNKNOWN`
 *
 * Since: 0.1
 */
const char *
dsh_sandbox_error_code_name (DshSandboxError code)
{
  switch (code)
    {
    case DSH_SANDBOX_ERROR_UNAVAILABLE:
      return "SANDBOX_UNAVAILABLE";
    case DSH_SANDBOX_ERROR_RUNNER_FAILURE:
      return "RUNNER_FAILURE";
    case DSH_SANDBOX_ERROR_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case DSH_SANDBOX_ERROR_MODULE_REFUSED:
      return "MODULE_REFUSED";
    case DSH_SANDBOX_ERROR_FS_DENIED:
      return "FS_SANDBOX_DENIED";
    case DSH_SANDBOX_ERROR_SESSION_LOG:
      return "SESSION_LOG";
    case DSH_SANDBOX_ERROR_ESCALATION_REFUSED:
      return "ESCALATION_REFUSED";
    case DSH_SANDBOX_ERROR_APPROVAL:
      return "APPROVAL";
    case DSH_SANDBOX_ERROR_ROOT_REFUSED:
      return "ROOT_REFUSED";
    default:
      return "UNKNOWN";
    }
}
