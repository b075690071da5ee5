/* dsh-cli-subcommand.c — what a command of subcommands (session, policy) does before and after
 * choosing one: the usage error when none is named, its --help, the usage error for an unknown
 * one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include <stdio.h>

#include "dsh-cli-environment.h"

const char *
dsh_cli_subcommand (int argc, char **argv, const char *command, const char *usage,
                    int *out_status)
{
  const char *sub = argc >= 2 ? argv[1] : NULL;

  /* One "dsh-sandbox:" line and nothing else on a usage error: other programs parse it. */
  if (sub == NULL)
    {
      *out_status = dsh_cli_fail ("%s: no subcommand given; run \"dsh-sandbox %s --help\"",
                                  command, command);
      return NULL;
    }
  if (g_str_equal (sub, "--help") || g_str_equal (sub, "-h") || g_str_equal (sub, "help"))
    {
      g_autofree char *environment = dsh_cli_environment_help (command);

      printf ("%s\n%s", usage, environment);
      *out_status = 0;
      return NULL;
    }
  return sub;
}

int
dsh_cli_fail_unknown_subcommand (const char *command, const char *sub)
{
  return dsh_cli_fail ("%s: unknown subcommand \"%s\"; run \"dsh-sandbox %s --help\"", command,
                       dsh_cli_printable (sub), command);
}
