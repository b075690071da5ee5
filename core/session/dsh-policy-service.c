/* dsh-policy-service.c — the three-layer policy resolution over a session's event log:
 * explicit approved mode ?? last `sandbox/mode` ?? deployment default.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-policy-service.h"

#include "dsh-roots.h"
#include "dsh-vocabulary-private.h"
#include "dsh-texts.h"

struct _DshPolicyService {
  GObject parent_instance;

  /* Deployment configuration only; per-session state lives in each session's log. */
  DshSandboxMode default_mode;
  char *fallback_root;
  /* The deployment's extra roots, for agentless calls (a session has its own, pinned). */
  GStrv extra_roots;
};

G_DEFINE_FINAL_TYPE (DshPolicyService, dsh_policy_service, G_TYPE_OBJECT)

static void
dsh_policy_service_finalize (GObject *object)
{
  DshPolicyService *self = DSH_POLICY_SERVICE (object);

  g_free (self->fallback_root);
  g_strfreev (self->extra_roots);
  G_OBJECT_CLASS (dsh_policy_service_parent_class)->finalize (object);
}

static void
dsh_policy_service_class_init (DshPolicyServiceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_policy_service_finalize;
}

static void
dsh_policy_service_init (DshPolicyService *self)
{
  self->default_mode = DSH_SANDBOX_MODE_DEFAULT;
}

DshPolicyService *
dsh_policy_service_new (DshSandboxMode default_mode, const char *fallback_root)
{
  DshPolicyService *self;

  g_return_val_if_fail (dsh_sandbox_mode_is_valid (default_mode), NULL);

  self = g_object_new (DSH_TYPE_POLICY_SERVICE, NULL);
  self->default_mode = default_mode;
  self->fallback_root = fallback_root != NULL ? g_strdup (fallback_root) : g_get_current_dir ();
  return self;
}

DshSandboxMode
dsh_policy_service_get_default_mode (DshPolicyService *self)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), DSH_SANDBOX_MODE_DEFAULT);
  return self->default_mode;
}

const char *
dsh_policy_service_get_fallback_root (DshPolicyService *self)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), NULL);
  return self->fallback_root;
}

gboolean
dsh_policy_service_override_of (DshPolicyService *self, DshSessionLog *session,
                                DshSandboxMode *out_mode)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), FALSE);
  g_return_val_if_fail (DSH_IS_SESSION_LOG (session), FALSE);

  /* A fold over the log, on every call: there is no cached "current mode" to go stale. */
  return dsh_session_log_last_mode (session, out_mode);
}

static DshSandboxPolicy *
resolve (DshPolicyService *self, DshSessionLog *session, const DshSandboxMode *explicit_mode)
{
  g_autofree char *root = NULL;
  DshSandboxPolicy *policy;
  DshSandboxMode mode = self->default_mode;

  if (explicit_mode != NULL)
    mode = *explicit_mode;
  else if (session != NULL)
    dsh_policy_service_override_of (self, session, &mode);

  /* The session's immutable cwd names its workspace; only agentless calls use the fallback. */
  root = dsh_workspace_root (session != NULL ? dsh_session_log_get_cwd (session) : NULL,
                             self->fallback_root);
  policy = dsh_sandbox_policy_new (mode, root,
                                   session != NULL ? dsh_session_log_get_id (session) : NULL);
  /* A session keeps the extra roots it was created with, whatever the defaults say now. */
  policy->extra_writable_roots = session != NULL
                                   ? dsh_session_log_dup_extra_writable_roots (session)
                                   : g_strdupv (self->extra_roots);
  return policy;
}

void
dsh_policy_service_set_extra_writable_roots (DshPolicyService *self, const char *const *roots)
{
  g_return_if_fail (DSH_IS_POLICY_SERVICE (self));
  g_strfreev (self->extra_roots);
  self->extra_roots = g_strdupv ((char **) roots);
}

DshSandboxPolicy *
dsh_policy_service_resolve (DshPolicyService *self, DshSessionLog *session)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), NULL);
  g_return_val_if_fail (session == NULL || DSH_IS_SESSION_LOG (session), NULL);
  return resolve (self, session, NULL);
}

DshSandboxPolicy *
dsh_policy_service_resolve_with_mode (DshPolicyService *self, DshSessionLog *session,
                                      DshSandboxMode explicit_mode)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), NULL);
  g_return_val_if_fail (session == NULL || DSH_IS_SESSION_LOG (session), NULL);
  g_return_val_if_fail (dsh_sandbox_mode_is_valid (explicit_mode), NULL);
  return resolve (self, session, &explicit_mode);
}

gboolean
dsh_policy_service_set_mode (DshPolicyService *self, DshSessionLog *session, DshSandboxMode mode,
                             GError **error)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), FALSE);
  g_return_val_if_fail (DSH_IS_SESSION_LOG (session), FALSE);

  /* The switch IS its event: nothing else records or mutates the mode. */
  return dsh_session_log_append_mode (session, mode, error);
}

char *
dsh_policy_service_render_context (DshPolicyService *self, DshSessionLog *session)
{
  g_autoptr (DshSandboxPolicy) policy = dsh_policy_service_resolve (self, session);

  g_return_val_if_fail (policy != NULL, NULL);
  return dsh_text_policy_context_with_roots (policy->mode, policy->workspace_root,
                                             (const char *const *) policy->extra_writable_roots);
}
