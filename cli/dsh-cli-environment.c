/* dsh-cli-environment.c — the environment variables that change what a subcommand does, as its
 * --help lists them: one table, so that the help and the code that reads them cannot drift
 * apart unnoticed (a test compares the variables the sources read with this list).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli-environment.h"

typedef struct {
  const char *name;
  /* The subcommands it changes, space-separated. */
  const char *commands;
  const char *text;
} Variable;

static const Variable variables[] = {
  { "DSH_SANDBOX_BACKEND", "probe confine exec serve",
    "restrict the backend chain to this backend (\"help\" lists them)" },
  { "DSH_SANDBOX_BACKEND_DIR", "probe confine exec serve",
    "load backend modules from this directory instead (ignored when setuid or setgid)" },
  { "DSH_SANDBOX_PROBE_CACHE", "probe confine exec serve",
    "the probe cache file (absolute), or \"off\" to probe on every call" },
  { "DSH_SANDBOX_CONFIG", "confine exec session policy describe serve",
    "the deployment configuration (presets, extraWritableRoots)" },
  { "DSH_SANDBOX_STATE_DIR", "probe confine exec session policy serve",
    "the directory of the record of granted roots, which also keeps the probe cache and the "
    "fold caches (default $XDG_STATE_HOME/dsh-sandbox/granted-roots)" },
  { "DSH_SANDBOX_FOLD_CACHE", "probe confine exec session policy describe serve",
    "the session-log fold cache directory (absolute; no writable root may reach it), or "
    "\"off\"" },
  { "DSH_SANDBOX_APPROVER_TIMEOUT", "exec",
    "seconds an --approver command may take to answer" },
  { "DSH_SANDBOX_SERVE_PROVIDERS", "serve",
    "how many workspaces' providers are kept (default 64)" },
  { "DSH_SANDBOX_SERVE_THREADS", "serve",
    "how many threads answer confines sent faster than one answers them (default 2, 1 on one "
    "core)" },
  { "TMPDIR", "probe confine exec session policy describe serve",
    "the temp directory: a writable root under workspace-write, refused when it is /, a "
    "system directory, $HOME or an ancestor of $HOME or of the workspace" },
  { "HOME", "probe confine exec session policy describe serve",
    "refused as a temp directory; \"~/\" in the deployment configuration" },
  { "USERPROFILE", "probe confine exec session policy serve",
    "Windows: the profile directory, refused as a workspace or writable root, with its "
    "ancestors" },
  { "PWD", "probe confine exec serve",
    "the workspace's spelling when it names the current directory (the default workspace)" },
  { "PATH", "probe confine exec serve",
    "where runner programs (bwrap) and the --approver program are found" },
  { "XDG_STATE_HOME", "probe confine exec session policy serve",
    "the default parent of DSH_SANDBOX_STATE_DIR" },
};

static gboolean
changes (const Variable *variable, const char *command)
{
  g_auto (GStrv) commands = g_strsplit (variable->commands, " ", -1);

  return g_strv_contains ((const char *const *) commands, command);
}

char *
dsh_cli_environment_help (const char *command)
{
  GString *help = g_string_new ("Environment:\n");

  for (guint i = 0; i < G_N_ELEMENTS (variables); i++)
    {
      if (changes (&variables[i], command))
        g_string_append_printf (help, "  %-30s %s\n", variables[i].name, variables[i].text);
    }
  return g_string_free (help, FALSE);
}

void
dsh_cli_describe_environment (GOptionContext *context, const char *command)
{
  g_autofree char *help = dsh_cli_environment_help (command);

  g_option_context_set_description (context, help);
}
