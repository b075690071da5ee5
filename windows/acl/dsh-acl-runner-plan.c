/* dsh-acl-runner-plan.c — the runner's grants and restricting SIDs. Every object granted to a
 * per-session SID is private to that session (its temp directory); what every session needs
 * (the NUL device) goes to one fixed SID instead, so no shared object gains an ACE per session.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-runner-plan.h"

#include <stdlib.h>
#include <string.h>

static void
add_grant (DshAclRunnerPlan *plan, DshAclGrantKind kind, const char *path, const char *sid)
{
  plan->grants[plan->n_grants++] = (DshAclGrant) { .kind = kind, .path = path, .sid = sid };
}

int
dsh_acl_runner_plan (DshAclRunnerPlan *plan, const DshAclRunnerArgs *args)
{
  memset (plan, 0, sizeof (*plan));
  dsh_acl_null_device_sid (plan->null_device_sid);
  plan->grants = calloc (args->n_write_roots + 2, sizeof (DshAclGrant));
  if (plan->grants == NULL)
    return -1;
  for (size_t i = 0; i < args->n_write_roots; i++)
    add_grant (plan, DSH_ACL_GRANT_ROOT, args->write_roots[i], args->workspace_sid);
  if (args->temp_dir != NULL)
    add_grant (plan, DSH_ACL_GRANT_TEMP_DIR, args->temp_dir, args->session_sid);
  add_grant (plan, DSH_ACL_GRANT_NULL_DEVICE, NULL, plan->null_device_sid);

  plan->restricting_sids[plan->n_restricting_sids++] = args->session_sid;
  if (args->workspace_sid != NULL)
    plan->restricting_sids[plan->n_restricting_sids++] = args->workspace_sid;
  plan->restricting_sids[plan->n_restricting_sids++] = plan->null_device_sid;
  return 0;
}

void
dsh_acl_runner_plan_clear (DshAclRunnerPlan *plan)
{
  free (plan->grants);
  plan->grants = NULL;
  plan->n_grants = 0;
}
