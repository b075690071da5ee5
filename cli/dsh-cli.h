/* dsh-cli.h — what the dsh-sandbox subcommands share: the entry-point shape, the exit codes and
 * the one-line "dsh-sandbox:" error reporting.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

/* The command never ran: usage error, unavailable, runner failure, escalation refused. */
#define DSH_EXIT_NOT_RUN 125

/* Every subcommand: argv[0] is the subcommand's name; returns the process exit status. */
typedef int (*DshCommandFunc) (int argc, char **argv);

/* Prints exactly one "dsh-sandbox: <message>" line on stderr and returns DSH_EXIT_NOT_RUN. */
int                dsh_cli_fail             (const char *format,
                                             ...) G_GNUC_PRINTF (1, 2);
int                dsh_cli_fail_error       (const GError *error);

/* A provider that finds its backend modules and helpers next to an uninstalled build, or under
 * the installed libdir/libexecdir. */
DshLocalProvider  *dsh_cli_new_provider     (void);

/* Parse argv with entries; leaves the operands after "--" (if any) in *rest. */
gboolean           dsh_cli_parse            (GOptionContext *context,
                                             int            *argc,
                                             char         ***argv,
                                             GError        **error);

/* Prints a JSON node, pretty, with a trailing newline, to stdout. */
void               dsh_cli_print_json       (JsonNode       *node);

int dsh_cmd_probe    (int argc, char **argv);
int dsh_cmd_confine  (int argc, char **argv);
int dsh_cmd_exec     (int argc, char **argv);

G_END_DECLS
