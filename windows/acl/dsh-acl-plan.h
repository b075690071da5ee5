/* dsh-acl-plan.h — planning one confined call of the Windows ACL runner, on any host: the runner
 * argv for a policy, the enforcement it achieves and why, and the texts that tell a denial and a
 * runner failure apart.
 *
 *   dsh-acl-exec.exe [--workspace-sid SID] [--write ROOT]... --session-sid SID
 *                    [--temp-dir DIR [--remove-temp-dir]] -- ARGV...
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>

#include "dsh-acl-session.h"
#include "dsh-acl-sid.h"

/* The runner's file name, found among the project's helpers. */
#define DSH_ACL_RUNNER "dsh-acl-exec.exe"
/* What the runner prints before the one line that says why it could not run the command. */
#define DSH_ACL_FATAL_PREFIX "dsh-acl-exec: fatal: "
/* The runner's own failure exit status; the command's status passes through otherwise. */
#define DSH_ACL_FATAL_EXIT 125

/* What Windows prints for a write the token's restricting SIDs do not allow (ERROR_ACCESS_DENIED
 * as cmd.exe, the C runtime's callers and .NET put it). */
extern const char *const dsh_acl_denial_signatures[];
extern const char *const dsh_acl_fatal_signatures[];
extern const int dsh_acl_fatal_exit_codes[];

/* Why enforcement is partial; read-only carries the first, workspace-write all three. */
extern const char dsh_acl_reason_everyone[];
extern const char dsh_acl_reason_hard_links[];
extern const char dsh_acl_reason_git[];

typedef struct {
  int workspace_write;
  /* Canonical; its SID is derived from this exact spelling. */
  const char *workspace_root;
  /* NULL-terminated, canonical; only read under workspace-write. Temp roots among them are
   * replaced by the session's private temp directory. */
  const char *const *writable_roots;
  /* Path of the runner. */
  const char *runner;
  /* Where private temp directories go (TEMP); required under workspace-write. */
  const char *temp_base;
  /* Other spellings of the temp area (TMP, /tmp), withheld like temp_base; NULL-terminated or
   * NULL. */
  const char *const *temp_roots;
  /* The user's profile directory, never granted nor anything above it; may be NULL. */
  const char *profile_dir;
  DshAclSession session;
  /* The session is this call's alone (an agentless call): the runner removes its temp directory
   * when the command ends. */
  int per_call;
} DshAclPlanInput;

typedef struct {
  char workspace_sid[DSH_ACL_SID_SIZE];
  char *temp_dir;
  /* NULL-terminated; items borrow from the input, the command and this plan. */
  const char **argv;
  size_t argc;
  /* NULL-terminated, static. */
  const char *reasons[4];
  char error[512];
} DshAclPlan;

/* Plans the call of command (NULL-terminated, non-empty). 0, or -1 with plan->error set; clear
 * the plan either way. */
int  dsh_acl_plan       (DshAclPlan            *plan,
                         const DshAclPlanInput *input,
                         const char *const     *command);
void dsh_acl_plan_clear (DshAclPlan            *plan);
