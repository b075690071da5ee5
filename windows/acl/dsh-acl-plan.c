/* dsh-acl-plan.c — the runner argv for one call. Read-only gets the session SID alone: nothing
 * grants it, so the restricted token writes only where the runner grants it (the NUL device).
 * Workspace-write adds the workspace SID, whose standing ACE the runner puts on each root, and a
 * private temp directory granted to the session SID in place of the shared temp area.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-acl-cmdline.h"
#include "dsh-acl-compiler.h"
#include "dsh-acl-program.h"
#include "dsh-acl-roots.h"

const char *const dsh_acl_denial_signatures[] = { "Access is denied", NULL };
const char *const dsh_acl_fatal_signatures[] = { DSH_ACL_FATAL_PREFIX, NULL };
const int dsh_acl_fatal_exit_codes[] = { DSH_ACL_FATAL_EXIT };

const char dsh_acl_reason_everyone[] =
  "Everyone boundary: a write-restricted token is only as tight as the ACLs it meets, and the "
  "runner audits none outside the writable roots; a file or directory whose ACL lets every token "
  "write (an Everyone grant, a NULL DACL) may stay writable";
const char dsh_acl_reason_hard_links[] =
  "hard-link boundary: an ACL belongs to a file, not to one of its names, so a file outside the "
  "writable roots with a hard link inside one receives the roots' standing grant and is writable "
  "through every name";
const char dsh_acl_reason_git[] =
  "git boundary: the standing grant on a writable root is inherited by everything beneath it, "
  ".git/hooks and .git/config of a repository inside the writable roots included, so a command "
  "can plant code that a later unconfined git runs";

static int
fail (DshAclPlan *plan, const char *format, ...) PRINTF_LIKE (2, 3);

static int
fail (DshAclPlan *plan, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  vsnprintf (plan->error, sizeof (plan->error), format, args);
  va_end (args);
  return -1;
}

static void
push (DshAclPlan *plan, const char *item)
{
  plan->argv[plan->argc++] = item;
  plan->argv[plan->argc] = NULL;
}

static int
is_temp_root (const DshAclPlanInput *input, const char *root)
{
  if (input->temp_base != NULL && dsh_acl_same_path (root, input->temp_base))
    return 1;
  for (size_t i = 0; input->temp_roots != NULL && input->temp_roots[i] != NULL; i++)
    {
      if (dsh_acl_same_path (root, input->temp_roots[i]))
        return 1;
    }
  return 0;
}

static size_t
count (const char *const *items)
{
  size_t n = 0;

  while (items != NULL && items[n] != NULL)
    n++;
  return n;
}

/* The whole command line must fit the limit CreateProcess has, as the runner will write it. */
static int
check_command (DshAclPlan *plan, const char *const *command)
{
  const char *error = NULL;
  char *line = dsh_acl_cmdline_encode (command, &error);
  size_t units;

  if (line == NULL)
    return fail (plan, "cannot run the command on Windows: %s", error);
  units = dsh_acl_utf16_length (line);
  free (line);
  if (units > DSH_ACL_CMDLINE_MAX)
    return fail (plan, "the command line would be %zu UTF-16 units long, more than the %d "
                 "Windows allows", units, DSH_ACL_CMDLINE_MAX);
  return 0;
}

static int
compare_paths (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The SID the roots are granted to. Their grant is a standing ACE that stays after the call, so
 * a root other than the workspace goes to a SID of this set of roots: a later call of the
 * workspace without that root holds another SID and cannot write it. */
static int
derive_grant_sid (DshAclPlan *plan, const DshAclPlanInput *input)
{
  size_t n_roots = count (input->writable_roots);
  const char **others = calloc (n_roots + 1, sizeof (char *));
  size_t n = 0, kept = 0;

  if (others == NULL)
    return fail (plan, "out of memory");
  for (size_t i = 0; i < n_roots; i++)
    {
      const char *root = input->writable_roots[i];

      if (!is_temp_root (input, root) && !dsh_acl_same_path (root, input->workspace_root))
        others[n++] = root;
    }
  qsort (others, n, sizeof (char *), compare_paths);
  for (size_t i = 0; i < n; i++)
    {
      if (kept == 0 || strcmp (others[kept - 1], others[i]) != 0)
        others[kept++] = others[i];
    }
  dsh_acl_grant_sid (input->workspace_root, others, kept, plan->workspace_sid);
  free (others);
  return 0;
}

static int
push_writable_roots (DshAclPlan *plan, const DshAclPlanInput *input)
{
  for (size_t i = 0; input->writable_roots != NULL && input->writable_roots[i] != NULL; i++)
    {
      const char *root = input->writable_roots[i];
      const char *refusal;

      /* The private temp directory stands in for the shared temp area. */
      if (is_temp_root (input, root))
        continue;
      refusal = dsh_acl_root_refusal (root, input->profile_dir);
      if (refusal != NULL)
        return fail (plan, "refusing to grant write access to %s: %s", root, refusal);
      push (plan, "--write");
      push (plan, root);
    }
  return 0;
}

int
dsh_acl_plan (DshAclPlan *plan, const DshAclPlanInput *input, const char *const *command)
{
  size_t n_roots = count (input->writable_roots);
  size_t n_command = count (command);
  const char *refusal;

  memset (plan, 0, sizeof (*plan));
  /* The runner refuses an empty program name too; say so here, before anything runs. */
  if (n_command == 0 || command[0][0] == '\0')
    return fail (plan, "there is no command to run");
  if (dsh_acl_program_is_batch (command[0]))
    return fail (plan, "cannot run %s: it " DSH_ACL_BATCH_REFUSAL, command[0]);
  if (check_command (plan, command) != 0)
    return -1;
  if (!dsh_acl_sid_is_valid (input->session.sid))
    return fail (plan, "the session SID \"%s\" is malformed", input->session.sid);

  /* Runner, 2 per root, 9 for the SIDs, the temp dir and "--", the command, the NULL. */
  plan->argv = calloc (1 + 2 * n_roots + 9 + n_command + 1, sizeof (char *));
  if (plan->argv == NULL)
    return fail (plan, "out of memory");
  push (plan, input->runner);
  plan->reasons[0] = dsh_acl_reason_everyone;

  if (input->workspace_write)
    {
      if (input->workspace_root == NULL || input->workspace_root[0] == '\0')
        return fail (plan, "workspace-write needs a workspace root");
      if (input->temp_base == NULL || input->temp_base[0] == '\0')
        return fail (plan, "neither TEMP nor TMP names a directory for the private temp "
                     "directory");
      if (derive_grant_sid (plan, input) != 0)
        return -1;
      push (plan, "--workspace-sid");
      push (plan, plan->workspace_sid);
      if (push_writable_roots (plan, input) != 0)
        return -1;
      plan->temp_dir = dsh_acl_session_temp_dir (&input->session, input->temp_base);
      if (plan->temp_dir == NULL)
        return fail (plan, "out of memory");
      /* The runner applies the root rules to it as well; a relative TEMP fails here, named. */
      refusal = dsh_acl_root_refusal (plan->temp_dir, input->profile_dir);
      if (refusal != NULL)
        return fail (plan, "cannot make the private temp directory %s beneath TEMP: %s",
                     plan->temp_dir, refusal);
      plan->reasons[1] = dsh_acl_reason_hard_links;
      /* An ACE on a root reaches every file below it: no grant layout can take the git files
       * out while git keeps working there (SPEC §7, protected paths). */
      plan->reasons[2] = dsh_acl_reason_git;
    }
  push (plan, "--session-sid");
  push (plan, input->session.sid);
  if (plan->temp_dir != NULL)
    {
      push (plan, "--temp-dir");
      push (plan, plan->temp_dir);
      if (input->per_call)
        push (plan, "--remove-temp-dir");
    }
  push (plan, "--");
  for (size_t i = 0; i < n_command; i++)
    push (plan, command[i]);
  /* The runner's own command line is longer still. */
  return check_command (plan, plan->argv);
}

void
dsh_acl_plan_clear (DshAclPlan *plan)
{
  free (plan->argv);
  free (plan->temp_dir);
  plan->argv = NULL;
  plan->temp_dir = NULL;
  plan->argc = 0;
}
