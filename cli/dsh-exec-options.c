/* dsh-exec-options.c — the option table of "dsh-sandbox exec", shared by the front and the
 * full command, so that both read a command line the same way.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-exec-options.h"

#include <string.h>

#include "dsh-cli.h"

/* The table's length: an option added below must raise it, or the table does not compile. */
#define N_ENTRIES 9

/* What the plain path takes. Every other option holds a string (or array) pointer, so that
 * "was it given" is one test for all of them, those added later included. */
static const char *const plain_options[] = { "mode", "workspace", "report" };

static gboolean
is_plain_option (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (plain_options); i++)
    {
      if (g_str_equal (name, plain_options[i]))
        return TRUE;
    }
  return FALSE;
}

static void
fill_entries (DshExecOptions *self, GOptionEntry entries[N_ENTRIES + 1])
{
  const GOptionEntry table[N_ENTRIES + 1] = {
    { "mode", 0, 0, G_OPTION_ARG_FILENAME, &self->mode,
      "Sandbox mode: read-only (default), workspace-write or danger-full-access; with "
      "--session, the explicit mode of this call",
      "MODE" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &self->workspace,
      "Workspace root without a session (default: the current directory)", "DIR" },
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &self->session_path,
      "The session log: mode, workspace and approval policy come from it; this exec is a turn",
      "FILE" },
    { "approval-policy", 0, 0, G_OPTION_ARG_STRING, &self->approval_policy,
      "ask (default: the session's) or never; never wins over the session's ask", "POLICY" },
    { "approver", 0, 0, G_OPTION_ARG_STRING, &self->approver_command,
      "Ask CMD (request JSON on stdin, one outcome word on stdout) instead of the terminal",
      "CMD" },
    { "sandbox-permissions", 0, 0, G_OPTION_ARG_STRING, &self->sandbox_permissions,
      "Escalate this one command to MODE (workspace-write or danger-full-access) once approved",
      "MODE" },
    { "justification", 0, 0, G_OPTION_ARG_STRING, &self->justification,
      "One sentence: why this command needs the wider mode", "TEXT" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &self->report_path,
      "Write a JSON report of the execution to FILE", "FILE" },
    { "writable-root", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &self->writable_roots,
      "One more writable root under workspace-write (repeatable)", "DIR" },
    { NULL }
  };

  memcpy (entries, table, sizeof (table));
}

void
dsh_exec_options_clear (DshExecOptions *self)
{
  g_clear_pointer (&self->mode, g_free);
  g_clear_pointer (&self->workspace, g_free);
  g_clear_pointer (&self->report_path, g_free);
  g_clear_pointer (&self->session_path, g_free);
  g_clear_pointer (&self->approval_policy, g_free);
  g_clear_pointer (&self->approver_command, g_free);
  g_clear_pointer (&self->sandbox_permissions, g_free);
  g_clear_pointer (&self->justification, g_free);
  g_clear_pointer (&self->writable_roots, g_strfreev);
}

gboolean
dsh_exec_options_parse (DshExecOptions *self, int argc, char **argv, gboolean help,
                        const char *help_description, GError **error)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("-- ARGV...");
  GOptionEntry entries[N_ENTRIES + 1];

  fill_entries (self, entries);
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_help_enabled (context, help);
  g_option_context_set_description (context, help_description);
  return dsh_cli_parse_options (context, argc, argv, error);
}

/* The entry of the plain option this argument names ("--NAME" or "--NAME=VALUE"), else NULL;
 * *value: what follows the "=", or NULL. */
static const GOptionEntry *
find_plain_entry (const GOptionEntry *entries, const char *arg, const char **value)
{
  *value = NULL;
  if (arg[0] != '-' || arg[1] != '-')
    return NULL;
  arg += 2;
  for (guint i = 0; entries[i].long_name != NULL; i++)
    {
      gsize len = strlen (entries[i].long_name);

      if (strncmp (arg, entries[i].long_name, len) != 0 || (arg[len] != '\0' && arg[len] != '='))
        continue;
      if (!is_plain_option (entries[i].long_name))
        return NULL;
      *value = arg[len] == '=' ? arg + len + 1 : NULL;
      return &entries[i];
    }
  return NULL;
}

gboolean
dsh_exec_options_parse_plain (DshExecOptions *self, int argc, char **argv)
{
  GOptionEntry entries[N_ENTRIES + 1];

  fill_entries (self, entries);
  for (int i = 1; i < argc; i++)
    {
      const char *value;
      const GOptionEntry *entry = find_plain_entry (entries, argv[i], &value);

      if (entry == NULL)
        return FALSE;
      /* As GOption takes it: the next argument, whatever it looks like; the last one counts. */
      if (value == NULL && ++i == argc)
        return FALSE;
      g_free (*(char **) entry->arg_data);
      *(char **) entry->arg_data = g_strdup (value != NULL ? value : argv[i]);
    }
  /* GOption names the program after argv[0], and GLib's own messages use that name. */
  if (g_get_prgname () == NULL)
    g_set_prgname (argv[0]);
  return TRUE;
}

gboolean
dsh_exec_options_is_plain (const DshExecOptions *self)
{
  GOptionEntry entries[N_ENTRIES + 1];

  fill_entries ((DshExecOptions *) self, entries);
  for (guint i = 0; entries[i].long_name != NULL; i++)
    {
      if (!is_plain_option (entries[i].long_name) && *(gpointer *) entries[i].arg_data != NULL)
        return FALSE;
    }
  return TRUE;
}
