/* dsh-policy-service.h — resolves the execution policy of a call from its session's log.
 *
 *   mode          = explicit approved mode ?? last `sandbox/mode` of the session ?? default mode
 *   workspaceRoot = dsh_workspace_root(session cwd, fallback root)
 *   sessionId     = the session header's id, when a session is given
 *
 * The service holds only deployment configuration (default mode, fallback root); per-session
 * state is read from the log on every call, so a restart (reloading the file) gives the same
 * answer and two sessions never see each other's state.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

#include "dsh-mode.h"
#include "dsh-policy.h"
#include "dsh-session-log.h"
#include "dsh-api.h"

G_BEGIN_DECLS

#define DSH_TYPE_POLICY_SERVICE (dsh_policy_service_get_type ())
DSH_API
G_DECLARE_FINAL_TYPE (DshPolicyService, dsh_policy_service, DSH, POLICY_SERVICE, GObject)

/* fallback_root: the workspace for calls without a session (NULL: the current directory). */
DSH_API
DshPolicyService *dsh_policy_service_new              (DshSandboxMode    default_mode,
                                                       const char       *fallback_root);

DSH_API
DshSandboxMode    dsh_policy_service_get_default_mode (DshPolicyService *self);
DSH_API
const char       *dsh_policy_service_get_fallback_root (DshPolicyService *self);

/* The policy without an explicit mode: the session's override, else the default. */
/* The deployment's extra writable roots, given to agentless calls (a session resolves to the
 * ones pinned at its creation). */
DSH_API
void              dsh_policy_service_set_extra_writable_roots (DshPolicyService  *self,
                                                               const char *const *roots);
DSH_API
DshSandboxPolicy *dsh_policy_service_resolve          (DshPolicyService *self,
                                                       DshSessionLog    *session);
/* The policy with an explicit, already approved mode, which wins over the session. */
DSH_API
DshSandboxPolicy *dsh_policy_service_resolve_with_mode (DshPolicyService *self,
                                                        DshSessionLog    *session,
                                                        DshSandboxMode    explicit_mode);

/* The session's own mode override (its last `sandbox/mode`); FALSE when it has none. */
DSH_API
gboolean          dsh_policy_service_override_of      (DshPolicyService *self,
                                                       DshSessionLog    *session,
                                                       DshSandboxMode   *out_mode);

/* Switching the mode is its event: appends exactly one `sandbox/mode` and nothing else. */
DSH_API
gboolean          dsh_policy_service_set_mode         (DshPolicyService *self,
                                                       DshSessionLog    *session,
                                                       DshSandboxMode    mode,
                                                       GError          **error);

/* The model-facing policy context for this session (or the agentless default). The runtime
 * context a model is shown adds the session's approval facts: dsh_text_runtime_context(). */
DSH_API
char             *dsh_policy_service_render_context   (DshPolicyService *self,
                                                       DshSessionLog    *session);

G_END_DECLS
