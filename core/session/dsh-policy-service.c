/* dsh-policy-service.c — the three-layer policy resolution over a session's event log:
 * explicit approved mode ?? last `sandbox/mode` ?? deployment default.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-policy-service.h"

#include "dsh-roots.h"
#include "dsh-roots-private.h"
#include "dsh-vocabulary-private.h"
#include "dsh-texts.h"

/**
 * DshPolicyService:
 *
 * Resolves the execution policy of a call from its session's log.
 *
 * Since: 0.1
 */

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

/**
 * dsh_policy_service_new:
 * @default_mode: the mode of a call whose session never set one
 * @fallback_root: (nullable) (type filename): the workspace of calls without a session (%NULL:
 *   the current directory)
 *
 * The service holds deployment configuration only; a session's state is read from its log on
 * every call.
 *
 * Returns: (transfer full): a new policy service
 *
 * Since: 0.1
 */
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

/**
 * dsh_policy_service_get_default_mode:
 * @self: a #DshPolicyService
 *
 * Returns: the deployment's default mode
 *
 * Since: 0.1
 */
DshSandboxMode
dsh_policy_service_get_default_mode (DshPolicyService *self)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), DSH_SANDBOX_MODE_DEFAULT);
  return self->default_mode;
}

/**
 * dsh_policy_service_get_fallback_root:
 * @self: a #DshPolicyService
 *
 * Returns: (transfer none) (type filename): the workspace of calls without a session
 *
 * Since: 0.1
 */
const char *
dsh_policy_service_get_fallback_root (DshPolicyService *self)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), NULL);
  return self->fallback_root;
}

/**
 * dsh_policy_service_override_of:
 * @self: a #DshPolicyService
 * @session: a session
 * @out_mode: (out): its last `sandbox/mode`
 *
 * Returns: %TRUE with @out_mode set; %FALSE when the session has no override
 *
 * Since: 0.1
 */
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

  /* The session's immutable cwd names its workspace, through no symlink made since the session
   * was (nor planted by any call's command); only agentless calls use the fallback. */
  root = session != NULL ? dsh_roots_unplanted_root (dsh_session_log_get_cwd (session),
                                                     dsh_session_log_get_created (session), NULL)
                         : dsh_workspace_root (NULL, self->fallback_root);
  policy = dsh_sandbox_policy_new (mode, root,
                                   session != NULL ? dsh_session_log_get_id (session) : NULL);
  /* A session keeps the extra roots it was created with, whatever the defaults say now. */
  policy->extra_writable_roots = session != NULL
                                   ? dsh_session_log_dup_extra_writable_roots (session)
                                   : g_strdupv (self->extra_roots);
  return policy;
}

/**
 * dsh_policy_service_set_extra_writable_roots:
 * @self: a #DshPolicyService
 * @roots: (array zero-terminated=1) (nullable): absolute paths, or %NULL for none
 *
 * The deployment's extra writable roots, given to agentless calls; a session resolves to the
 * ones pinned at its creation.
 *
 * Since: 0.1
 */
void
dsh_policy_service_set_extra_writable_roots (DshPolicyService *self, const char *const *roots)
{
  g_return_if_fail (DSH_IS_POLICY_SERVICE (self));
  g_strfreev (self->extra_roots);
  self->extra_roots = g_strdupv ((char **) roots);
}

/**
 * dsh_policy_service_resolve:
 * @self: a #DshPolicyService
 * @session: (nullable): the call's session, or %NULL for an agentless call
 *
 * The mode is the session's last `sandbox/mode`, else the default; the workspace root is the
 * canonical session cwd, else the fallback root; the session id is the header's.
 *
 * Returns: (transfer full): the call's policy
 *
 * Since: 0.1
 */
DshSandboxPolicy *
dsh_policy_service_resolve (DshPolicyService *self, DshSessionLog *session)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), NULL);
  g_return_val_if_fail (session == NULL || DSH_IS_SESSION_LOG (session), NULL);
  return resolve (self, session, NULL);
}

/**
 * dsh_policy_service_resolve_with_mode:
 * @self: a #DshPolicyService
 * @session: (nullable): the call's session
 * @explicit_mode: an explicit, already approved mode, which wins over the session
 *
 * Returns: (transfer full): the call's policy
 *
 * Since: 0.1
 */
DshSandboxPolicy *
dsh_policy_service_resolve_with_mode (DshPolicyService *self, DshSessionLog *session,
                                      DshSandboxMode explicit_mode)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), NULL);
  g_return_val_if_fail (session == NULL || DSH_IS_SESSION_LOG (session), NULL);
  g_return_val_if_fail (dsh_sandbox_mode_is_valid (explicit_mode), NULL);
  return resolve (self, session, &explicit_mode);
}

/**
 * dsh_policy_service_set_mode:
 * @self: a #DshPolicyService
 * @session: a session
 * @mode: its new mode
 * @error: return location for a #GError
 *
 * Switching the mode is its event: appends exactly one `sandbox/mode` and nothing else.
 *
 * Returns: %TRUE once it is appended, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_policy_service_set_mode (DshPolicyService *self, DshSessionLog *session, DshSandboxMode mode,
                             GError **error)
{
  g_return_val_if_fail (DSH_IS_POLICY_SERVICE (self), FALSE);
  g_return_val_if_fail (DSH_IS_SESSION_LOG (session), FALSE);

  /* The switch IS its event: nothing else records or mutates the mode. */
  return dsh_session_log_append_mode (session, mode, error);
}

/**
 * dsh_policy_service_render_context:
 * @self: a #DshPolicyService
 * @session: (nullable): the session, or %NULL for the agentless default
 *
 * The extra writable roots it names are those that are directories now: a call leaves out one
 * that is not, and the model must not be told it may write there.
 *
 * Returns: (transfer full): the model-facing policy context
 *
 * Since: 0.1
 */
char *
dsh_policy_service_render_context (DshPolicyService *self, DshSessionLog *session)
{
  g_autoptr (DshSandboxPolicy) policy = dsh_policy_service_resolve (self, session);
  g_autoptr (GPtrArray) present = g_ptr_array_new ();

  g_return_val_if_fail (policy != NULL, NULL);
  for (gsize i = 0; policy->extra_writable_roots != NULL && policy->extra_writable_roots[i];
       i++)
    {
      if (g_file_test (policy->extra_writable_roots[i], G_FILE_TEST_IS_DIR))
        g_ptr_array_add (present, policy->extra_writable_roots[i]);
    }
  g_ptr_array_add (present, NULL);
  return dsh_text_policy_context_with_roots (policy->mode, policy->workspace_root,
                                             (const char *const *) present->pdata);
}
