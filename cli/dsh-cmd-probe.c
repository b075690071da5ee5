/* dsh-cmd-probe.c — "dsh-sandbox probe": which backends this host has, why any were refused,
 * and which one a provider selects.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"
#include "dsh-cli-environment.h"
#include "dsh-cli-session.h"

static void
print_text (JsonObject *report)
{
  JsonArray *candidates = json_object_get_array_member (report, "candidates");
  const char *selected = json_object_get_string_member_with_default (report, "selected", NULL);

  for (guint i = 0; i < json_array_get_length (candidates); i++)
    {
      JsonObject *c = json_array_get_object_element (candidates, i);
      const char *reason = json_object_get_string_member_with_default (c, "reason", NULL);

      printf ("%-12s %-10s %s%s%s\n",
              json_object_get_string_member (c, "name"),
              json_object_get_string_member (c, "status"),
              json_object_get_string_member (c, "path"),
              reason != NULL ? ": " : "", reason != NULL ? reason : "");
    }

  if (selected != NULL)
    {
      JsonObject *enforcement = json_object_get_object_member (report, "enforcement");
      JsonObject *ww = json_object_get_object_member (enforcement, "workspace-write");

      printf ("selected: %s (workspace-write enforcement: %s)\n", selected,
              json_object_get_string_member_with_default (ww, "enforcement", "unknown"));
    }
  else
    printf ("selected: none (%s)\n", json_object_get_string_member (report, "error"));
}

/* With --mode or --workspace, the answer is for the call exec would make with them: modules in
 * reach of that workspace are refused, and so are roots that call would refuse. */
static gboolean
probe_for_call (const char *mode, const char *workspace, DshLocalProvider **out_provider,
                char **out_refusal, GError **error)
{
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autofree char *spelled = NULL;
  g_autoptr (GError) refusal = NULL;

  g_autoptr (DshPermissionPresets) presets = dsh_cli_load_presets (error);

  if (presets == NULL)
    return FALSE;
  policy = dsh_cli_resolve_policy (mode, workspace, &spelled, error);
  if (policy == NULL || !dsh_cli_join_extra_roots (policy, presets, NULL, error))
    return FALSE;
  *out_provider = dsh_cli_new_provider_for_policy (policy);
  if (policy->mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE &&
      !dsh_roots_check (spelled, policy->workspace_root, NULL,
                        (const char *const *) policy->extra_writable_roots, &refusal))
    *out_refusal = g_strdup (refusal->message);
  return TRUE;
}

int
dsh_cmd_probe (int argc, char **argv)
{
  gboolean json = FALSE;
  g_autofree char *mode = NULL;
  g_autofree char *workspace = NULL;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the probe document as JSON", NULL },
    { "mode", 0, 0, G_OPTION_ARG_FILENAME, &mode,
      "Answer for a call with this sandbox mode (default read-only)", "MODE" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &workspace,
      "Answer for a call with this workspace (default: the current directory)", "DIR" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- show the sandbox backends");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (JsonNode) report = NULL;
  g_autofree char *refusal = NULL;
  JsonObject *object;

  dsh_cli_describe_environment (context, "probe");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_options (context, argc, argv, &error))
    return dsh_cli_fail_error (error);

  if (mode == NULL && workspace == NULL)
    provider = dsh_cli_new_provider (NULL);
  else if (!probe_for_call (mode, workspace, &provider, &refusal, &error))
    return dsh_cli_fail_error (error);
  report = dsh_local_provider_describe (provider);
  object = json_node_get_object (report);
  if (refusal != NULL)
    {
      /* That call would refuse before any backend runs: nothing is selected for it. */
      json_object_set_null_member (object, "selected");
      json_object_remove_member (object, "enforcement");
      json_object_set_string_member (object, "error", refusal);
    }
  if (json)
    dsh_cli_print_json (report);
  else
    print_text (object);

  /* Exit status tells scripts whether anything is usable. */
  return json_object_get_null_member (object, "selected") ? 1 : 0;
}
