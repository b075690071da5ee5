/* fuzz-seatbelt-plan.c — libFuzzer target for the Seatbelt module over hostile writable roots:
 * whatever the bytes (quotes, parentheses, newlines, '=', invalid UTF-8), the module either
 * refuses with a message or returns an argv whose profile text is the one every workspace of
 * that mode gets (for more than three roots, of that root count), with each root arriving whole as one -D value and the command
 * intact after "--".
 *
 * Layout: byte 0 picks the mode (odd: workspace-write); the rest are NUL-separated roots.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-backend-fake-host-private.h"
#include "dsh-seatbelt-profile.h"
#include "fuzz-target.h"

const DshBackendDescriptor *dsh_backend_seatbelt_describe (void);

#define MAX_ROOTS 16

static void
violated (const char *what)
{
  fprintf (stderr, "fuzz-seatbelt-plan: %s\n", what);
  abort ();
}

/* The profile for n plain roots, which no hostile root may change. */
static char *
reference_profile (DshBackendMode mode, size_t n)
{
  g_autoptr (GPtrArray) roots = g_ptr_array_new_with_free_func (g_free);
  DshBackendPolicy policy = { .mode = mode, .workspace_root = "/r0" };
  DshSeatbeltPlan plan;
  char *profile;

  for (size_t i = 0; i < n; i++)
    g_ptr_array_add (roots, g_strdup_printf ("/r%zu", i));
  g_ptr_array_add (roots, NULL);
  policy.writable_roots = (const char *const *) roots->pdata;
  if (dsh_seatbelt_plan_build (&policy, &plan, NULL, 0) != 0)
    violated ("plain roots were refused");
  profile = g_strdup (plan.profile);
  dsh_seatbelt_plan_clear (&plan);
  return profile;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  g_autoptr (GPtrArray) roots = g_ptr_array_new_with_free_func (g_free);
  const char *command[] = { "/bin/echo", "(deny default)", "-DWRITABLE_ROOT_0=/", "--", NULL };
  g_autofree char *reference = NULL;
  DshBackendPolicy policy = { 0 };
  DshSeatbeltPlan plan;
  char error[512];
  GPtrArray *argv;
  size_t offset = 1;

  if (size == 0)
    return 0;
  policy.mode = (data[0] & 1) ? DSH_BACKEND_MODE_WORKSPACE_WRITE : DSH_BACKEND_MODE_READ_ONLY;
  while (offset < size && roots->len < MAX_ROOTS)
    {
      const uint8_t *nul = memchr (data + offset, '\0', size - offset);
      size_t len = nul != NULL ? (size_t) (nul - (data + offset)) : size - offset;

      g_ptr_array_add (roots, g_strndup ((const char *) data + offset, len));
      offset += len + 1;
    }
  g_ptr_array_add (roots, NULL);
  policy.workspace_root = roots->len > 1 ? roots->pdata[0] : "/";
  policy.writable_roots = (const char *const *) roots->pdata;

  if (dsh_seatbelt_plan_build (&policy, &plan, error, sizeof error) != 0)
    {
      if (error[0] == '\0')
        violated ("a refusal without a message");
      if (plan.profile != NULL || plan.defines != NULL)
        violated ("a refusal left a plan behind");
      return 0;
    }

  /* Up to three roots, the profile is the one of three (a workspace that is /tmp tells
   * nothing); beyond, the one of as many. */
  reference = reference_profile (policy.mode, plan.n_roots > 0 && plan.n_roots < 3 ? 3
                                                                                 : plan.n_roots);
  if (strcmp (plan.profile, reference) != 0)
    violated ("the profile text changed with the roots");
  if (plan.n_defines != 7 * plan.n_slots || plan.n_slots < plan.n_roots)
    violated ("the -D parameters do not fill the slots");
  for (size_t slot = plan.n_roots; slot < plan.n_slots; slot++)
    {
      g_autofree char *want = g_strdup_printf ("-DWRITABLE_ROOT_%zu=%s", slot,
                                               plan.roots[plan.n_roots - 1]);

      if (strcmp (plan.defines[7 * slot], want) != 0)
        violated ("a spare slot does not repeat the last root");
    }
  for (size_t i = 0; i < plan.n_roots; i++)
    {
      /* A root's git parameters name the .git git finds from it (its own, or one above it
       * inside another root, or the bare repository that is either), else nothing. */
      const char *git_base = plan.git_dirs[i] != NULL ? plan.git_dirs[i] : "/dev/null";
      const char *dot_git = plan.git_dirs[i] != NULL && plan.bare[i] ? "" : "/.git";
      g_autofree char *want = g_strdup_printf ("-DWRITABLE_ROOT_%zu=%s", i, plan.roots[i]);
      g_autofree char *hooks = g_strdup_printf ("-DWRITABLE_ROOT_%zu_GIT_HOOKS=%s%s/hooks", i,
                                                git_base, dot_git);
      g_autofree char *config = g_strdup_printf ("-DWRITABLE_ROOT_%zu_GIT_CONFIG=%s%s/config",
                                                 i, git_base, dot_git);
      g_autofree char *commondir = g_strdup_printf (
        "-DWRITABLE_ROOT_%zu_GIT_COMMONDIR=%s%s/commondir", i, git_base, dot_git);
      g_autofree char *head = g_strdup_printf ("-DWRITABLE_ROOT_%zu_HEAD=%s/HEAD", i, git_base);
      /* A root without a repository guards its own HEAD when one lies in a root beneath it. */
      g_autofree char *own_head = g_strdup_printf ("-DWRITABLE_ROOT_%zu_HEAD=%s/HEAD", i,
                                                   plan.roots[i]);

      if (strcmp (plan.defines[7 * i], want) != 0 || strcmp (plan.defines[7 * i + 2], hooks) != 0 ||
          strcmp (plan.defines[7 * i + 3], config) != 0 ||
          strcmp (plan.defines[7 * i + 5], commondir) != 0 ||
          (strcmp (plan.defines[7 * i + 6], head) != 0 &&
           (plan.git_dirs[i] != NULL || strcmp (plan.defines[7 * i + 6], own_head) != 0)))
        violated ("a root did not arrive whole as its -D value");
    }
  /* Each given root is one of the plan's, in its macOS spelling. */
  for (guint i = 0; policy.mode == DSH_BACKEND_MODE_WORKSPACE_WRITE && i + 1 < roots->len; i++)
    {
      char *spelled = dsh_seatbelt_macos_spelling (roots->pdata[i]);
      gboolean found = FALSE;

      for (size_t k = 0; k < plan.n_roots && !found; k++)
        found = strcmp (plan.roots[k], spelled) == 0;
      free (spelled);
      if (!found)
        violated ("a given root is missing from the plan");
    }

  /* The module hands exactly that over, and the command after it. */
  dsh_backend_fake_host_set_program (fake, "sandbox-exec", "/usr/bin/sandbox-exec");
  if (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command) != 0)
    violated ("the module refused what the library accepted");
  argv = fake->call.argv;
  if (argv->len != 3 + plan.n_defines + 1 + 4 ||
      strcmp (argv->pdata[0], DSH_SEATBELT_RUNNER) != 0 || strcmp (argv->pdata[1], "-p") != 0 ||
      strcmp (argv->pdata[2], reference) != 0 ||
      strcmp (argv->pdata[3 + plan.n_defines], "--") != 0)
    violated ("the argv does not have the runner's shape");
  for (size_t i = 0; i < plan.n_defines; i++)
    {
      if (strcmp (argv->pdata[3 + i], plan.defines[i]) != 0)
        violated ("the module's -D values differ from the plan's");
    }
  for (size_t i = 0; command[i] != NULL; i++)
    {
      if (strcmp (argv->pdata[argv->len - 4 + i], command[i]) != 0)
        violated ("the command did not arrive intact");
    }
  dsh_seatbelt_plan_clear (&plan);
  return 0;
}
