/* dsh-cmd-describe.c — "dsh-sandbox describe bash": the model-facing description of the bash
 * tool. It is registry-level: the same bytes for every session of a deployment, whatever its
 * mode or approval policy (those are in "policy context"), so switching never changes the
 * stable prompt.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli-environment.h"
#include "dsh-cli-session.h"

char *
dsh_cli_describe (const char *tool, const char *session_path, GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSessionLog) session = NULL;

  /* bash is the one tool whose executor this project provides. */
  if (!g_str_equal (tool, "bash"))
    {
      g_autofree char *printable = g_strdup (dsh_cli_printable (tool));

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "describe: unknown tool \"%s\"; expected bash", printable);
      return NULL;
    }
  /* A session given is still read, so a wrong path is an error rather than ignored. */
  if (!dsh_cli_load_presets_and_session (session_path, &presets, &session, error))
    return NULL;
  /* exec always confines (a danger-full-access session can be switched back, and a narrower
   * session needs the lever), so the paragraph is always there. */
  return dsh_bash_description (TRUE);
}

static const char usage[] = "Usage:\n  dsh-sandbox describe bash [--session FILE]\n";

int
dsh_cmd_describe (int argc, char **argv)
{
  g_autofree char *session_path = NULL;
  const GOptionEntry entries[] = {
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &session_path,
      "A session log (read, but the description is the same for every session)", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("bash");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) operands = NULL;
  g_autofree char *text = NULL;

  dsh_cli_describe_environment (context, "describe");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_with_operands (context, argc, argv, &operands, &error))
    return dsh_cli_fail_error (error);
  if (operands[0] == NULL)
    {
      fputs (usage, stderr);
      return dsh_cli_fail ("describe: no tool given");
    }
  if (operands[1] != NULL)
    return dsh_cli_fail ("unexpected argument \"%s\"", dsh_cli_printable (operands[1]));
  text = dsh_cli_describe (operands[0], session_path, &error);
  if (text == NULL)
    return dsh_cli_fail_error (error);
  printf ("%s\n", text);
  return 0;
}
