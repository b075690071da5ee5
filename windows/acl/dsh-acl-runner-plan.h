/* dsh-acl-runner-plan.h — what the runner does with its checked arguments, decided where every
 * host can test it: which object it grants to which SID before the command starts, and which
 * SIDs restrict the command's token.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>

#include "dsh-acl-runner-args.h"
#include "dsh-acl-sid.h"

typedef enum {
  /* A writable root: an inheritable grant to the workspace SID, added when missing. */
  DSH_ACL_GRANT_ROOT,
  /* The private temp directory: created if need be, an inheritable grant to the session SID. */
  DSH_ACL_GRANT_TEMP_DIR,
  /* The NUL device: a grant to the fixed NUL device SID, added when missing. */
  DSH_ACL_GRANT_NULL_DEVICE,
} DshAclGrantKind;

typedef struct {
  DshAclGrantKind kind;
  /* NULL for the NUL device. */
  const char *path;
  const char *sid;
} DshAclGrant;

typedef struct {
  char null_device_sid[DSH_ACL_SID_SIZE];
  /* In the order the runner makes them; paths and SIDs borrow from the arguments and this
   * plan. */
  DshAclGrant *grants;
  size_t n_grants;
  const char *restricting_sids[3];
  size_t n_restricting_sids;
} DshAclRunnerPlan;

/* 0, or -1 when out of memory; clear the plan either way. The plan must stay where it is: it
 * points into itself. */
int  dsh_acl_runner_plan       (DshAclRunnerPlan       *plan,
                                const DshAclRunnerArgs *args);
void dsh_acl_runner_plan_clear (DshAclRunnerPlan       *plan);
