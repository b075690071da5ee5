/* dsh-error.c — the DSH_SANDBOX_ERROR domain and the stable code names other programs match on.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-error.h"

G_DEFINE_QUARK (dsh-sandbox-error-quark, dsh_sandbox_error)

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
