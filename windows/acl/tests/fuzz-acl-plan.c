/* fuzz-acl-plan.c — the whole Windows plan for hostile input: whatever the paths, SIDs and
 * command, the planner either refuses with a sentence or returns an argv that
 *   - the runner's own option parser accepts and reads back as exactly what was planned (the
 *     SIDs, the private temp directory, the roots not withheld, the command after "--");
 *   - survives Windows command-line quoting: quoted and split again it is the same argv, and the
 *     line fits the limit CreateProcess has;
 *   - grants no root the root rules refuse, and no spelling of the shared temp area;
 *   - carries the workspace SID of the workspace root's exact spelling, the same every time (and
 *     another one for that path in another letter case), or with other roots granted the SID of
 *     the workspace and exactly that set of roots (another one without any of them), since their
 *     standing grant outlives the call; a second plan is the same argv.
 *
 * Layout, NUL-separated: flags, runner, workspace root, TEMP, other temp roots ('\n'-separated),
 * profile directory, writable roots ('\n'-separated), session SID, then the command's items.
 * Flags (first byte): 1 workspace-write, 2 use the session SID field as it is (else a valid one),
 * 4 no profile directory, 8 no TEMP, 16 no other temp roots.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-acl-cmdline.h"
#include "dsh-acl-plan.h"
#include "dsh-acl-roots.h"
#include "dsh-acl-runner-args.h"
#include "dsh-acl-sid.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

#define MAX_COMMAND 64

enum {
  FIELD_FLAGS,
  FIELD_RUNNER,
  FIELD_WORKSPACE,
  FIELD_TEMP,
  FIELD_TEMP_ROOTS,
  FIELD_PROFILE,
  FIELD_WRITABLE,
  FIELD_SESSION_SID,
  FIELD_COMMAND,
};

static void
violated (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-acl-plan: %s%s%s\n", what, detail != NULL ? ": " : "",
           detail != NULL ? detail : "");
  abort ();
}

static gboolean
same_strv (const char *const *a, const char *const *b)
{
  size_t i = 0;

  for (; a[i] != NULL && b[i] != NULL; i++)
    {
      if (strcmp (a[i], b[i]) != 0)
        return FALSE;
    }
  return a[i] == NULL && b[i] == NULL;
}

/* Lines of text, as a NULL-terminated array the array owns. */
static GPtrArray *
split_lines (const char *text)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) parts = text[0] != '\0' ? g_strsplit (text, "\n", 32) : NULL;

  for (size_t i = 0; parts != NULL && parts[i] != NULL; i++)
    g_ptr_array_add (lines, g_strdup (parts[i]));
  g_ptr_array_add (lines, NULL);
  return lines;
}

static gboolean
is_temp_root (const DshAclPlanInput *input, const char *root)
{
  if (input->temp_base != NULL && dsh_acl_same_path (root, input->temp_base))
    return TRUE;
  for (size_t i = 0; input->temp_roots != NULL && input->temp_roots[i] != NULL; i++)
    {
      if (dsh_acl_same_path (root, input->temp_roots[i]))
        return TRUE;
    }
  return FALSE;
}

static void
check_quoting (const char *const *argv)
{
  const char *error = NULL;
  g_autofree char *line = dsh_acl_cmdline_encode (argv, &error);
  char **split;

  if (line == NULL)
    violated ("a planned argv cannot be written as a command line", error);
  if (dsh_acl_utf16_length (line) > DSH_ACL_CMDLINE_MAX)
    violated ("a planned command line is longer than Windows allows", NULL);
  split = dsh_acl_cmdline_decode (line);
  if (split == NULL || !same_strv ((const char *const *) split, argv))
    violated ("the planned command line does not split back into its argv", line);
  free (split);
}

/* What the runner reads from the argv is what was planned. */
static void
check_runner_reads (const DshAclPlan *plan, const DshAclPlanInput *input,
                    const char *const *command)
{
  DshAclRunnerArgs args;
  size_t n_roots = 0;

  if (dsh_acl_runner_args_parse (&args, plan->argv, input->profile_dir) != 0)
    violated ("the runner refuses a planned argv", args.error);
  if (strcmp (args.session_sid, input->session.sid) != 0)
    violated ("the runner reads another session SID", args.session_sid);
  if (!same_strv (args.command, command))
    violated ("the runner reads another command", NULL);
  if (!input->workspace_write)
    {
      if (args.workspace_sid != NULL || args.temp_dir != NULL || args.n_write_roots != 0)
        violated ("read-only grants something", NULL);
      dsh_acl_runner_args_clear (&args);
      return;
    }
  if (args.workspace_sid == NULL || strcmp (args.workspace_sid, plan->workspace_sid) != 0)
    violated ("the runner reads another workspace SID", args.workspace_sid);
  if (args.temp_dir == NULL || strcmp (args.temp_dir, plan->temp_dir) != 0 ||
      !g_str_has_prefix (plan->temp_dir, input->temp_base))
    violated ("the private temp directory is not the planned one beneath TEMP", args.temp_dir);
  /* Every root not withheld is granted, in order, and nothing else is. */
  for (size_t i = 0; input->writable_roots[i] != NULL; i++)
    {
      const char *root = input->writable_roots[i];

      if (is_temp_root (input, root))
        continue;
      if (dsh_acl_root_refusal (root, input->profile_dir) != NULL)
        violated ("a refused root was planned", root);
      if (n_roots >= args.n_write_roots || strcmp (args.write_roots[n_roots], root) != 0)
        violated ("a writable root is missing or out of order", root);
      n_roots++;
    }
  if (n_roots != args.n_write_roots)
    violated ("a root nobody asked for is granted", NULL);
  dsh_acl_runner_args_clear (&args);
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The SID belongs to the exact spelling and the exact set of other roots granted: the same
 * again, another for another letter case, another without one of those roots. */
static void
check_workspace_sid (const DshAclPlan *plan, const char *workspace_root)
{
  char again[DSH_ACL_SID_SIZE];
  g_autofree char *other = g_strdup (workspace_root);
  g_autoptr (GPtrArray) others = g_ptr_array_new ();
  guint kept = 0;

  if (!dsh_acl_sid_is_valid (plan->workspace_sid))
    violated ("the workspace SID is malformed", plan->workspace_sid);
  for (size_t i = 1; i + 1 < plan->argc && strcmp (plan->argv[i], "--") != 0; i++)
    {
      if (strcmp (plan->argv[i], "--write") == 0 &&
          !dsh_acl_same_path (plan->argv[i + 1], workspace_root))
        g_ptr_array_add (others, (gpointer) plan->argv[i + 1]);
    }
  g_ptr_array_sort (others, compare_paths);
  for (guint i = 0; i < others->len; i++)
    {
      if (kept == 0 || strcmp (others->pdata[kept - 1], others->pdata[i]) != 0)
        others->pdata[kept++] = others->pdata[i];
    }
  dsh_acl_grant_sid (workspace_root, (const char *const *) others->pdata, kept, again);
  if (strcmp (again, plan->workspace_sid) != 0)
    violated ("the workspace SID is not that of the workspace root and its roots",
              workspace_root);
  if (kept > 0)
    {
      /* The workspace's own SID, and the one without the last root, hold no grant of it. */
      dsh_acl_workspace_sid (workspace_root, again);
      if (strcmp (again, plan->workspace_sid) == 0)
        violated ("an extra root is granted to the workspace's own SID", workspace_root);
      dsh_acl_grant_sid (workspace_root, (const char *const *) others->pdata, kept - 1, again);
      if (strcmp (again, plan->workspace_sid) == 0)
        violated ("a smaller set of roots shares the SID", others->pdata[kept - 1]);
      return;
    }
  for (char *p = other; *p != '\0'; p++)
    {
      if (g_ascii_isalpha (*p))
        {
          *p ^= 0x20;
          dsh_acl_workspace_sid (other, again);
          if (strcmp (again, plan->workspace_sid) == 0)
            violated ("two spellings share a workspace SID", other);
          break;
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GPtrArray) fields = fuzz_split_fields (data, size, FIELD_COMMAND + MAX_COMMAND);
  g_autoptr (GPtrArray) temp_roots = NULL;
  g_autoptr (GPtrArray) writable = NULL;
  g_autoptr (GPtrArray) command = g_ptr_array_new ();
  const uint8_t bytes[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
  DshAclPlanInput input = { 0 };
  DshAclPlan plan, second;
  guint flags;
  int rc;

  if (fields->len <= FIELD_COMMAND)
    return 0;
  flags = (guchar) ((const char *) fields->pdata[FIELD_FLAGS])[0];
  temp_roots = split_lines (fields->pdata[FIELD_TEMP_ROOTS]);
  writable = split_lines (fields->pdata[FIELD_WRITABLE]);
  for (guint i = FIELD_COMMAND; i < fields->len; i++)
    g_ptr_array_add (command, fields->pdata[i]);
  g_ptr_array_add (command, NULL);

  input.workspace_write = flags & 1;
  input.runner = fields->pdata[FIELD_RUNNER];
  input.workspace_root = fields->pdata[FIELD_WORKSPACE];
  input.temp_base = flags & 8 ? NULL : fields->pdata[FIELD_TEMP];
  input.temp_roots = flags & 16 ? NULL : (const char *const *) temp_roots->pdata;
  input.profile_dir = flags & 4 ? NULL : fields->pdata[FIELD_PROFILE];
  input.writable_roots = (const char *const *) writable->pdata;
  if (flags & 2)
    g_strlcpy (input.session.sid, fields->pdata[FIELD_SESSION_SID], sizeof (input.session.sid));
  else
    dsh_acl_sid_from_bytes (bytes, input.session.sid);
  g_strlcpy (input.session.tag, "00112233445566778899aabbccddeeff", sizeof (input.session.tag));

  rc = dsh_acl_plan (&plan, &input, (const char *const *) command->pdata);
  if (rc != 0)
    {
      if (rc != -1 || plan.error[0] == '\0' || !memchr (plan.error, '\0', sizeof (plan.error)))
        violated ("a refusal without a message", NULL);
      dsh_acl_plan_clear (&plan);
      return 0;
    }
  if (plan.error[0] != '\0')
    violated ("a plan with an error", plan.error);
  if (plan.argv == NULL || plan.argc == 0 || plan.argv[plan.argc] != NULL ||
      strcmp (plan.argv[0], input.runner) != 0)
    violated ("the argv does not start with the runner", NULL);
  if (plan.reasons[0] != dsh_acl_reason_everyone ||
      plan.reasons[1] != (input.workspace_write ? dsh_acl_reason_hard_links : NULL) ||
      plan.reasons[2] != (input.workspace_write ? dsh_acl_reason_git : NULL) ||
      plan.reasons[3] != NULL)
    violated ("the reasons for partial enforcement are not the mode's", NULL);

  check_quoting (plan.argv);
  check_runner_reads (&plan, &input, (const char *const *) command->pdata);
  if (input.workspace_write)
    check_workspace_sid (&plan, input.workspace_root);
  else if (plan.workspace_sid[0] != '\0' || plan.temp_dir != NULL)
    violated ("read-only has a workspace SID or a temp directory", NULL);

  if (dsh_acl_plan (&second, &input, (const char *const *) command->pdata) != 0 ||
      !same_strv (second.argv, plan.argv))
    violated ("planning the same call twice gave two plans", NULL);
  dsh_acl_plan_clear (&second);
  dsh_acl_plan_clear (&plan);
  return 0;
}
