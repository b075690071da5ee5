/* dsh-mode.h — the closed vocabulary: sandbox modes and enforcement completeness.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "dsh-api.h"

G_BEGIN_DECLS

/* File effects only: network, processes, devices and credentials are outside this vocabulary. */
typedef enum {
  DSH_SANDBOX_MODE_READ_ONLY,
  DSH_SANDBOX_MODE_WORKSPACE_WRITE,
  DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
} DshSandboxMode;

/* The fail-safe deployment default; wider modes are an explicit opt-in. */
#define DSH_SANDBOX_MODE_DEFAULT DSH_SANDBOX_MODE_READ_ONLY

typedef enum {
  DSH_ENFORCEMENT_FULL,
  DSH_ENFORCEMENT_PARTIAL,
} DshEnforcement;

DSH_API
gboolean     dsh_sandbox_mode_from_string (const char      *text,
                                           DshSandboxMode  *mode,
                                           GError         **error);
DSH_API
const char  *dsh_sandbox_mode_to_string   (DshSandboxMode   mode);
DSH_API
gboolean     dsh_sandbox_mode_is_confined (DshSandboxMode   mode);

DSH_API
const char  *dsh_enforcement_to_string    (DshEnforcement   enforcement);

G_END_DECLS
