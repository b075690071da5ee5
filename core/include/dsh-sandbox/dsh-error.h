/* dsh-error.h — the one error domain of libdsh-sandbox-1 and its stable code names.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "dsh-api.h"

G_BEGIN_DECLS

#define DSH_SANDBOX_ERROR (dsh_sandbox_error_quark ())

typedef enum {
  /* No usable backend for a confined mode: nothing ran (SANDBOX_UNAVAILABLE). */
  DSH_SANDBOX_ERROR_UNAVAILABLE,
  /* The runner failed before running the command (RUNNER_FAILURE). */
  DSH_SANDBOX_ERROR_RUNNER_FAILURE,
  /* A value outside a closed vocabulary or a malformed argument (INVALID_ARGUMENT). */
  DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
  /* A backend module was refused (MODULE_REFUSED). */
  DSH_SANDBOX_ERROR_MODULE_REFUSED,
  /* The in-process filesystem fence refused an access (FS_SANDBOX_DENIED). */
  DSH_SANDBOX_ERROR_FS_DENIED,
  /* The session log could not be read or appended (SESSION_LOG). */
  DSH_SANDBOX_ERROR_SESSION_LOG,
  /* An escalation was refused before anything ran (ESCALATION_REFUSED). */
  DSH_SANDBOX_ERROR_ESCALATION_REFUSED,
  /* An approval request could not be made (APPROVAL). */
  DSH_SANDBOX_ERROR_APPROVAL,
  /* A writable root was refused before anything ran: a workspace of /, a temp directory that
   * would widen the roots, a root reached through a symlink a confined command could have
   * planted, or a root that moved while it was checked (ROOT_REFUSED). */
  DSH_SANDBOX_ERROR_ROOT_REFUSED,
} DshSandboxError;

DSH_API
GQuark       dsh_sandbox_error_quark     (void);
DSH_API
const char  *dsh_sandbox_error_code_name (DshSandboxError code);

G_END_DECLS
