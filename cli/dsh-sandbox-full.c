/* dsh-sandbox-full.c — every dsh-sandbox subcommand, one per file. The dsh-sandbox front runs
 * a plain exec itself and hands everything else here (see dsh-sandbox-front.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <locale.h>

#include "dsh-cli.h"
#include "dsh-config.h"

typedef struct {
  const char *name;
  DshCommandFunc func;
  const char *summary;
} DshCommand;

static const DshCommand commands[] = {
  { "probe", dsh_cmd_probe, "show the backend candidates and the one this host selects" },
  { "confine", dsh_cmd_confine, "print the confined argv for ARGV as JSON" },
  { "exec", dsh_cmd_exec, "run ARGV confined, streaming stdio and passing the exit status" },
  { "session", dsh_cmd_session, "create a session log, switch its mode/approval/preset, show it" },
  { "policy", dsh_cmd_policy, "resolve a call's policy; print the model-facing policy context" },
  { "describe", dsh_cmd_describe, "print a tool's model-facing description (bash)" },
  { "serve", dsh_cmd_serve, "answer probe/confine/policy requests as JSON lines (stdin/stdout)" },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: dsh-sandbox COMMAND [OPTIONS...]\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun \"dsh-sandbox help COMMAND\" (or \"dsh-sandbox COMMAND --help\") for a "
                "command's options and the environment variables that change it.\n");
}

/* argv[0] is the command's name. */
static int
run_command (int argc, char **argv)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      if (g_str_equal (argv[0], commands[i].name))
        {
          g_autofree char *prgname = g_strdup_printf ("dsh-sandbox %s", commands[i].name);

          /* So that --help reads "Usage: dsh-sandbox exec [OPTION…]". */
          g_set_prgname (prgname);
          return commands[i].func (argc, argv);
        }
    }

  return dsh_cli_fail ("unknown command \"%s\"; run \"dsh-sandbox --help\"",
                       dsh_cli_printable (argv[0]));
}

/* "help exec" is "exec --help", and "help session new" is "session new --help". */
static int
run_help (int argc, char **argv)
{
  g_autofree char **with_help = g_new0 (char *, argc + 2);

  for (int i = 0; i < argc; i++)
    with_help[i] = argv[i];
  with_help[argc] = (char *) "--help";
  return run_command (argc + 1, with_help);
}

int
main (int argc, char **argv)
{
  dsh_cli_ensure_standard_fds ();
  dsh_cli_install_log_writer ();
  dsh_cli_protect_own_code (TRUE);
  /* Messages name the command the user typed, not this helper. */
  g_set_prgname ("dsh-sandbox");

  /* Only the character set matters here (argument and filename conversion; there are no
   * translations), and loading every locale category costs measurable time on each exec. */
  setlocale (LC_CTYPE, "");

  if (argc < 2)
    {
      print_usage (stderr);
      return dsh_cli_fail ("no command given");
    }
  if (g_str_equal (argv[1], "help") && argc > 2)
    return run_help (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
      g_str_equal (argv[1], "help"))
    {
      print_usage (stdout);
      return 0;
    }
  if (g_str_equal (argv[1], "--version"))
    {
      printf ("dsh-sandbox %s\n", DSH_VERSION);
      return 0;
    }
  return run_command (argc - 1, argv + 1);
}
