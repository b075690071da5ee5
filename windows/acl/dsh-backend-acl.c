/* dsh-backend-acl.c — the Windows ACL backend module: plans each call with the planner and pushes
 * the runner argv through the host. Its per-provider instance holds the live sessions' random
 * SIDs and temp directory names, so a new provider never reuses them, and removes those
 * directories when the provider ends; an agentless call's goes when its command ends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stddef.h>
#include <stdio.h>

#include "dsh-acl-plan.h"
#include "dsh-acl-session.h"
#include "dsh-backend.h"
#ifdef _WIN32
#include "dsh-acl-remove-tree.h"
#endif

static const DshBackendFailureRule failure_rules[] = {
  {
    .allowed_exit_codes = dsh_acl_fatal_exit_codes,
    .n_allowed_exit_codes = 1,
    .fatal_signatures = dsh_acl_fatal_signatures,
  },
};

static void *
acl_instance_new (DshBackendHost *host)
{
  DshAclSessions *sessions = dsh_acl_sessions_new ();

  if (sessions == NULL)
    host->set_error (host, "out of memory");
  return sessions;
}

/* Elsewhere the module only previews: no runner ever made the directories it planned. */
static void
remove_temp_dir (const char *dir, void *data)
{
#ifdef _WIN32
  char error[600];

  /* The provider is going away and has nobody to tell: what stays is residue a later provider
   * neither reuses nor trusts. */
  (void) dsh_acl_remove_tree (dir, error, sizeof (error));
#endif
}

static void
acl_instance_free (void *instance)
{
  dsh_acl_sessions_free_full (instance, remove_temp_dir, NULL);
}

static const char *
first_env (DshBackendHost *host, const char *name, const char *fallback)
{
  const char *value = host->get_env (host, name);

  if (value == NULL || value[0] == '\0')
    value = host->get_env (host, fallback);
  return value != NULL && value[0] != '\0' ? value : NULL;
}

static int
acl_check (DshBackendHost *host)
{
  if (host->find_helper (host, DSH_ACL_RUNNER) == NULL)
    {
      host->set_error (host, DSH_ACL_RUNNER " was not found among the project's helpers");
      return -1;
    }
  return 0;
}

static int
acl_confine (DshBackendHost *host, const DshBackendPolicy *policy, const char *const *argv)
{
  DshAclSessions *sessions = DSH_BACKEND_ABI_AT_LEAST (host, 1) ? host->instance : NULL;
  DshAclPlanInput input = { 0 };
  DshAclPlan plan;
  const char *temp_roots[4] = { NULL };
  size_t n_temp_roots = 0;
  const char *value;
  int rc;

  /* Without its instance the backend could not keep a session's SID: refuse, never improvise. */
  if (sessions == NULL)
    {
      host->set_error (host, "the ACL backend needs a host that keeps its per-provider instance");
      return -1;
    }
  input.runner = host->find_helper (host, DSH_ACL_RUNNER);
  if (input.runner == NULL)
    {
      host->set_error (host, DSH_ACL_RUNNER " was not found among the project's helpers");
      return -1;
    }
  /* Read-only grants nothing, so it holds no SID anything was granted to: a SID of its own per
   * call, never the session's, whose temp directory an earlier workspace-write call made. */
  if ((policy->mode == DSH_BACKEND_MODE_WORKSPACE_WRITE
         ? dsh_acl_sessions_get (sessions, policy->session_id, policy->workspace_root,
                                 &input.session)
         : dsh_acl_session_draw (&input.session)) != 0)
    {
      host->set_error (host, "cannot draw a random session SID");
      return -1;
    }
  input.per_call = policy->session_id == NULL;
  input.workspace_write = policy->mode == DSH_BACKEND_MODE_WORKSPACE_WRITE;
  input.workspace_root = policy->workspace_root;
  input.writable_roots = policy->writable_roots;
  input.temp_base = first_env (host, "TEMP", "TMP");
  /* Every spelling of the shared temp area is withheld; the private directory replaces it. */
  if ((value = host->get_env (host, "TEMP")) != NULL)
    temp_roots[n_temp_roots++] = value;
  if ((value = host->get_env (host, "TMP")) != NULL)
    temp_roots[n_temp_roots++] = value;
  temp_roots[n_temp_roots] = "/tmp";
  input.temp_roots = temp_roots;
  input.profile_dir = first_env (host, "USERPROFILE", "HOME");

  rc = dsh_acl_plan (&plan, &input, argv);
  if (rc == 0 && plan.temp_dir != NULL && !input.per_call &&
      dsh_acl_sessions_keep_temp_dir (sessions, plan.temp_dir) != 0)
    {
      rc = -1;
      snprintf (plan.error, sizeof (plan.error), "out of memory");
    }
  if (rc == 0)
    {
      dsh_backend_push_args (host, plan.argv);
      host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_PARTIAL);
      for (size_t i = 0; plan.reasons[i] != NULL; i++)
        host->add_reason (host, plan.reasons[i]);
    }
  else
    host->set_error (host, plan.error);
  dsh_acl_plan_clear (&plan);
  return rc;
}

DSH_BACKEND_DEFINE (acl,
                    .description = "Windows restricted-token ACL runner (dsh-acl-exec.exe)",
                    .os = DSH_BACKEND_OS_WINDOWS,
                    .priority = 10,
                    .confine = acl_confine,
                    .check = acl_check,
                    .denial_signatures = dsh_acl_denial_signatures,
                    .runner_failure_rules = failure_rules,
                    .n_runner_failure_rules = 1,
                    .instance_new = acl_instance_new,
                    .instance_free = acl_instance_free,
                    .version = DSH_ACL_VERSION,
                    .license = "LGPL-2.1-or-later",
                    .origin = "dsh-sandbox")
