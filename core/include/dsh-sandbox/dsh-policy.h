/* dsh-policy.h — the per-call execution policy: mode, canonical workspace root, session id.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

#include "dsh-mode.h"
#include "dsh-api.h"

G_BEGIN_DECLS

/* Carried per call, never fixed on a provider. A confined policy has a confined mode. */
typedef struct {
  DshSandboxMode mode;
  /* Absolute; canonical when it came from dsh_workspace_root(). */
  char *workspace_root;
  /* Opaque session identity, or NULL for agentless calls. */
  char *session_id;
  /* The call's writable roots as dsh_roots_pin() resolved and checked them, once; NULL until
   * then. When set, the backend, the runner and the fence receive exactly these strings. */
  char **writable_roots;
  /* Extra writable roots for workspace-write (absolute, as configured or asked for), joined
   * after the temp roots; NULL for none. */
  char **extra_writable_roots;
} DshSandboxPolicy;

#define DSH_TYPE_SANDBOX_POLICY (dsh_sandbox_policy_get_type ())

DSH_API
GType             dsh_sandbox_policy_get_type (void) G_GNUC_CONST;
DSH_API
DshSandboxPolicy *dsh_sandbox_policy_new      (DshSandboxMode          mode,
                                               const char             *workspace_root,
                                               const char             *session_id);
DSH_API
DshSandboxPolicy *dsh_sandbox_policy_copy     (const DshSandboxPolicy *policy);
DSH_API
void              dsh_sandbox_policy_free     (DshSandboxPolicy       *policy);
DSH_API
void              dsh_sandbox_policy_set_extra_writable_roots (DshSandboxPolicy  *policy,
                                                               const char *const *roots);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshSandboxPolicy, dsh_sandbox_policy_free)

G_END_DECLS
