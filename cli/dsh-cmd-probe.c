/* dsh-cmd-probe.c — "dsh-sandbox probe": which backends this host has, why any were refused,
 * and which one a provider selects.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

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

int
dsh_cmd_probe (int argc, char **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the probe document as JSON", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- show the sandbox backends");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (JsonNode) report = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_options (context, argc, argv, &error))
    return dsh_cli_fail_error (error);

  provider = dsh_cli_new_provider (NULL);
  report = dsh_local_provider_describe (provider);
  if (json)
    dsh_cli_print_json (report);
  else
    print_text (json_node_get_object (report));

  /* Exit status tells scripts whether anything is usable. */
  return json_object_get_null_member (json_node_get_object (report), "selected") ? 1 : 0;
}
